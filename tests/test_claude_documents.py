"""The Claude Code frames route (``formats/common/documents.py``, ``formats/claude/lanes.py``): a
transcript straight to its thread's JSON object gives the frames, problems and account the
careful route (a Thread of models, then ``to_dict``) gives, on every Claude Code sample and on
broken transcripts, and it builds no model per action."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import threadlab as tl
import threadlab.formats.claude as claude
from tests.wild.expected import listed_files
from threadlab.formats import Source, detect_format

from .documents_route import both_routes, built_without_models, frames_view
from .test_claude_properties import UUIDS, transcript_line

ROOT = Path(__file__).parent.parent
SAMPLES = sorted(
    p for base in (ROOT / "tests" / "fixtures" / "claude", ROOT / "tests" / "fixtures" / "real" / "claude", ROOT / "data" / "claude_code")
    for p in base.rglob("*.json*") if not p.name.endswith(".meta.json") and p not in listed_files()  # those: tests/wild
)
TRANSCRIPTS = [p for p in SAMPLES if p.suffix == ".jsonl" and ".stream." not in p.name and "stream_json" not in p.name
               and b'"session_id"' not in p.read_bytes()]  # stream-json lines (a file of several sessions among them) take the careful route
MUTABLE = [p for p in TRANSCRIPTS if len(p.read_bytes().splitlines()) > 1][:12]  # the mutants need two lines or more
FOLDERS = [ROOT / "tests" / "fixtures" / "claude" / "projects", ROOT / "data" / "claude_code", ROOT / "tests" / "fixtures" / "real" / "claude"]


def _both(monkeypatch: pytest.MonkeyPatch, make: Any) -> tuple[Any, Any]:
    """The frames (every table as rows), problems and account of both routes: the lanes' objects
    leave out what only the transcript's writer reads, so the objects themselves differ."""
    return both_routes(make, lambda: _careful(monkeypatch), view=frames_view)


@contextmanager
def _careful(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(claude, "to_documents", lambda source: None)  # the careful route only
        yield


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_documents_as_the_careful_route(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new, old = _both(monkeypatch, lambda: Source(path))
    assert new == old


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_transcripts_take_the_route_without_a_model_per_action(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert detect_format(Source(path)).NAME == claude.NAME
    built_without_models(monkeypatch, lambda: claude.to_documents(Source(path)))


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_frames_as_the_careful_route(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new = tl.load(folder, progress=False, workers=1)
    with monkeypatch.context() as m:
        m.setattr(claude, "to_documents", lambda source: None)
        old = tl.load(folder, progress=False, workers=1)
    assert len(new.actions) > 0
    for name, frame in new.tables().items():
        pd.testing.assert_frame_equal(frame, old.tables()[name], obj=name)


@pytest.mark.parametrize("seed", [3, 11, 12, 13])
def test_same_frames_as_the_careful_route_on_a_generated_projects_folder(seed: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The benchmark's corpus (``benchmarks/claude_corpus.py``: sessions with subagents in both
    layouts, forks at parallel calls, summaries, cost states), which the fast route must read as
    the careful one does: the frames the speed figures are quoted for (each seed another corpus)."""
    from benchmarks.claude_corpus import write_projects

    write_projects(tmp_path / "corpus", 1_500_000, seed=seed)
    folder = tmp_path / "corpus" / "projects"
    new = tl.load(folder, progress=False, workers=1)
    with monkeypatch.context() as m:
        m.setattr(claude, "to_documents", lambda source: None)
        old = tl.load(folder, progress=False, workers=1)
    assert len(new.threads) > 5 and len(new.actions) > 1000
    for name, frame in new.tables().items():
        pd.testing.assert_frame_equal(frame, old.tables()[name], obj=name)


def _mutants(lines: list[dict[str, Any]], rng: random.Random) -> list[bytes]:
    """Transcripts broken the ways files are: values of the wrong type where the models want
    text, bad times, lines that are no JSON or no object, a cut-off end, unknown kinds."""
    out = []
    breaks = [
        lambda d: d.get("message", {}).get("content", [{}])[0].__setitem__("name", ["Bash"]) if isinstance(d.get("message", {}).get("content"), list) else None,
        lambda d: d.get("message", {}).get("content", [{}])[0].__setitem__("id", 7) if isinstance(d.get("message", {}).get("content"), list) else None,
        lambda d: d.__setitem__("timestamp", "not a time"),
        lambda d: d.__setitem__("timestamp", 1.5e30),
        lambda d: d.__setitem__("type", "brand-new-kind"),
        lambda d: d.get("message", {}).__setitem__("model", {"odd": 1}) if isinstance(d.get("message"), dict) else None,
        lambda d: d.get("message", {}).__setitem__("content", None) if isinstance(d.get("message"), dict) else None,
        lambda d: d.get("message", {}).__setitem__("usage", {"input_tokens": "many"}) if isinstance(d.get("message"), dict) else None,
        lambda d: d.__setitem__("parentUuid", "nowhere"),
        lambda d: d.__setitem__("agentId", ["x"]),
    ]
    for n in range(24):
        mutated = [orjson.loads(orjson.dumps(d)) for d in lines]
        for _ in range(3):
            target = rng.randrange(len(mutated))
            try:
                rng.choice(breaks)(mutated[target])
            except (AttributeError, IndexError, KeyError, TypeError):
                pass
        data = [orjson.dumps(d) for d in mutated]
        if n % 4 == 1:
            data.insert(rng.randrange(1, len(data)), b"{not json")
        if n % 4 == 2:
            data.insert(rng.randrange(1, len(data)), b"[1, 2]")
        if n % 4 == 3:
            data[-1] = data[-1][: len(data[-1]) // 2]
        out.append(b"\n".join(data) + b"\n")
    return out


@pytest.mark.parametrize("path", MUTABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_broken_transcripts_read_the_same(path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    lines = [d for d in lines if isinstance(d, dict)]
    for index, data in enumerate(_mutants(lines, random.Random(path.name))):
        target = tmp_path / f"{index}-{path.name}"
        target.write_bytes(data)
        new, old = _both(monkeypatch, lambda target=target: Source(target))
        assert new == old, f"mutant {index} of {path.name}"


def _reshaped(lines: list[dict[str, Any]], rng: random.Random) -> list[bytes]:
    """Transcripts whose chain and envelope are odd in the ways the route's shortcuts must not
    notice: lines repeated (a resumed session copies them), a uuid that is no string, a line
    without a time, a parentUuid cycle, the model changing mid-session, a blank line made of
    spaces, a session field missing from some lines."""
    out = []
    for _ in range(12):
        mutated = [orjson.loads(orjson.dumps(d)) for d in lines]
        uuids = [d["uuid"] for d in mutated if isinstance(d.get("uuid"), str)]
        for _turn in range(3):
            target = mutated[rng.randrange(len(mutated))]
            change = rng.randrange(6)
            if change == 0:
                mutated.insert(rng.randrange(len(mutated) + 1), orjson.loads(orjson.dumps(target)))
            elif change == 1:
                target["uuid"] = 12345
            elif change == 2:
                target.pop("timestamp", None)
            elif change == 3 and len(uuids) > 2:
                first = next(d for d in mutated if d.get("uuid") == uuids[0])
                first["parentUuid"] = uuids[-1]
            elif change == 4 and isinstance(target.get("message"), dict):
                target["message"]["model"] = rng.choice(["claude-other-1", "<synthetic>"])
            else:
                target.pop(rng.choice(["cwd", "version", "gitBranch", "sessionId"]), None)
        data = [orjson.dumps(d) for d in mutated]
        data.insert(rng.randrange(1, len(data)), b"   \t")
        out.append(b"\n".join(data) + b"\n")
    return out


@pytest.mark.parametrize("path", MUTABLE, ids=lambda p: str(p.relative_to(ROOT)))
def test_reshaped_transcripts_read_the_same(path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    lines = [d for d in (orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()) if isinstance(d, dict)]
    routed = 0
    for index, data in enumerate(_reshaped(lines, random.Random(path.name))):
        target = tmp_path / f"{index}-{path.name}"
        target.write_bytes(data)
        new, old = _both(monkeypatch, lambda target=target: Source(target))
        assert new == old, f"reshaped {index} of {path.name}"
        routed += claude.to_documents(Source(target)) is not None
    assert routed  # (the route read them, not only the careful way)


def test_the_lanes_read_most_lines_of_a_generated_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The lanes (``formats/claude/lanes.py``, written into ``fused.py``'s loop) are what the frames
    route uses for the common lines: most assistant and tool-result lines of the benchmark's
    corpus go through them."""
    from benchmarks.claude_corpus import write_projects
    from threadlab.formats.claude.fused import FusedConverter

    write_projects(tmp_path / "corpus", 400_000, seed=5)
    taken: list[tuple[int, int]] = []
    feed = FusedConverter.feed

    def counting(self: FusedConverter, entries: list[Any]) -> None:
        before = self.taken
        feed(self, entries)
        taken.append((self.taken - before, len(entries)))

    monkeypatch.setattr(FusedConverter, "feed", counting)
    frames = tl.load(tmp_path / "corpus" / "projects", progress=False, workers=1)
    assert len(frames.actions) > 100
    assert sum(t for t, _ in taken) > sum(n for _, n in taken) / 2


@st.composite
def lane_line(draw: Any) -> bytes:
    """A line of the shapes the lanes read (one block), with the variations they must get right:
    usage on the block that holds it or not, a stop reason, the model or none, a repeated
    message id, an error result, a sidechain's line, a time or none."""
    line: dict[str, Any] = {"type": draw(st.sampled_from(["assistant", "user"])), "uuid": draw(st.sampled_from(UUIDS)),
                            "parentUuid": draw(st.one_of(st.none(), st.sampled_from(UUIDS)))}
    if draw(st.booleans()):
        second, fraction = draw(st.integers(0, 59)), draw(st.sampled_from(["000", "001", "120", "999"]))
        line["timestamp"] = draw(st.sampled_from([f"2026-01-01T00:00:{second:02d}.{fraction}Z", f"2026-01-01T00:00:{second:02d}Z",
                                                  f"2026-01-01T00:00:{second:02d}.{fraction}+00:00"]))
    if draw(st.integers(0, 5)) == 0:
        line.update({"isSidechain": True, "agentId": "agentA"})
    call = f"toolu_{draw(st.integers(0, 3))}"
    if line["type"] == "assistant":
        block = draw(st.sampled_from([{"type": "text", "text": "hi"}, {"type": "thinking", "thinking": "hm", "signature": "s"},
                                      {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": "ls"}},
                                      {"type": "server_tool_use", "id": call, "name": "web_search", "input": "q"}]))
        message: dict[str, Any] = {"id": draw(st.sampled_from(["m1", "m2", "m3", None])), "role": "assistant", "content": [block]}
        model = draw(st.sampled_from(["claude-sonnet-4-5", "claude-other-1", "<synthetic>", None]))
        if model is not None:
            message["model"] = model
        if draw(st.booleans()):
            message["usage"] = {"input_tokens": draw(st.integers(0, 50)), "output_tokens": draw(st.integers(0, 50)), "cache_read_input_tokens": 3}
        if draw(st.booleans()):
            message["stop_reason"] = draw(st.sampled_from(["end_turn", "tool_use", "max_tokens"]))
    else:
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call, "content": draw(st.sampled_from(["ok", [{"type": "text", "text": "ok"}], None]))}
        if draw(st.booleans()):
            result["is_error"] = draw(st.booleans())
        message = {"role": "user", "content": [result]}
    line["message"] = message
    return orjson.dumps(line)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(lines=st.lists(st.one_of(transcript_line(), lane_line(), lane_line()), min_size=1, max_size=16))
def test_generated_transcripts_give_the_same_frames_by_both_routes(lines: list[bytes], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Any mix of entry types and blocks (``test_claude_properties``' lines: broken lines, forks,
    sidechains, odd blocks and usage): the lanes and the converter give the same frames,
    problems and account."""
    path = tmp_path / "generated.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    new, old = _both(monkeypatch, lambda: Source(path))
    assert new == old


def test_a_lane_line_stamped_before_its_parent_takes_the_parents_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The lanes write a line's time from its own text only when the line keeps its own moment;
    a line stamped before its parent takes the parent's (``assign_times``), by both routes."""
    def line(uuid: str, parent: str | None, stamp: str, text: str) -> bytes:
        return orjson.dumps({"type": "assistant", "uuid": uuid, "parentUuid": parent, "timestamp": stamp,
                             "message": {"id": f"m{uuid}", "role": "assistant", "content": [{"type": "text", "text": text}]}})

    path = tmp_path / "early.jsonl"
    path.write_bytes(b"\n".join([line("a", None, "2026-01-01T00:00:10.500Z", "one"), line("b", "a", "2026-01-01T00:00:05.250Z", "two")]) + b"\n")
    new, old = _both(monkeypatch, lambda: Source(path))
    assert new == old
    frames = tl.load(path, progress=False, workers=1)
    assert list(frames.actions["timestamp"].astype(str)) == ["2026-01-01 00:00:10.500+00:00"] * 2


def test_the_lanes_slice_a_time_only_for_a_line_keeping_its_own() -> None:
    from datetime import timedelta

    from threadlab.formats.claude.chain import own_time
    from threadlab.formats.claude.lanes import _text
    from threadlab.formats.claude.wire import Entry

    entry = Entry({"type": "assistant", "timestamp": "2026-01-01T00:00:05.250Z"}, "f.jsonl", 1)
    entry.time = own_time(entry)
    assert _text(entry) == "2026-01-01T00:00:05.250000Z"
    entry.time = entry.time + timedelta(seconds=5)  # a later moment (its parent's): formatted, not sliced
    assert _text(entry) is None


@pytest.mark.parametrize("models", [("claude-a", "claude-b"), ("claude-a", "<synthetic>"), (None, "claude-b")])
def test_the_lanes_register_the_main_agents_model_as_the_converter_does(models: tuple[str | None, str | None], tmp_path: Path) -> None:
    """The lanes skip ``speaker``'s calls only when they would change nothing: the main agent's
    model (a new one, ``<synthetic>``, none) ends as the converter leaves it."""
    lines = []
    for n, model in enumerate(models):
        message: dict[str, Any] = {"id": f"m{n}", "role": "assistant", "content": [{"type": "text", "text": f"t{n}"}]}
        if model is not None:
            message["model"] = model
        lines.append(orjson.dumps({"type": "assistant", "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None,
                                   "timestamp": f"2026-01-01T00:00:0{n}.000Z", "message": message}))
    path = tmp_path / "models.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    [(_, doc)] = claude.to_documents(Source(path))  # type: ignore[misc]
    assert doc["agents"] == claude.from_claude(path).to_dict()["agents"]
    agents = doc["agents"].values() if isinstance(doc["agents"], dict) else doc["agents"]
    expected = models[1] if models[1] != "<synthetic>" else models[0]
    assert [(a.get("metadata") or {}).get("model_name") for a in agents] == [expected]


@pytest.mark.parametrize("key", ["session_id", "parent_tool_use_id", None])
def test_stream_lines_leave_the_frames_route(key: str | None, tmp_path: Path) -> None:
    """A line of stream-json (``session_id``, or only ``parent_tool_use_id``, even null, on any
    line) sends the file the careful way; a transcript's lines keep it on the route."""
    lines = [{"type": "assistant", "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n else None,
              "message": {"id": f"m{n}", "role": "assistant", "content": [{"type": "text", "text": "hi"}]}} for n in range(3)]
    if key is not None:
        lines[2][key] = None
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"\n".join(map(orjson.dumps, lines)) + b"\n")
    assert (claude.to_documents(Source(path)) is None) == (key is not None)
