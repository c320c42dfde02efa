"""The Inspect AI frames route (``to_documents``: samples decoded only where the converter reads
them, threads built as JSON objects) and a large ``.eval`` shared out by sample: both give what
the careful route (every member parsed whole, a Thread of models, then ``to_dict``) gives, on
every inspect_ai fixture, on logs broken the ways files are, and in all five frames."""

from __future__ import annotations

import io
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest

import threadlab as tl
import threadlab.formats.inspect_ai as inspect_ai
from threadlab.core.problems import ThreadError
from threadlab.formats import Source
from threadlab.formats.common.reading import read_documents
from threadlab.formats.inspect_ai.container import members, sample_parts
from threadlab.formats.inspect_ai.decode import decode_sample

from .documents_route import both_routes, built_without_models

ROOT = Path(__file__).parent.parent
LOGS = sorted([*(ROOT / "tests" / "fixtures" / "inspect_ai").glob("*.eval"), *(ROOT / "tests" / "fixtures" / "inspect_ai").glob("*.json"),
               *(ROOT / "tests" / "fixtures" / "real" / "inspect_ai").glob("*.eval"), *(ROOT / "tests" / "fixtures" / "real" / "inspect_ai").glob("*.json")])
EVALS = [p for p in LOGS if p.suffix == ".eval"]


@contextmanager
def _careful(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as m:
        m.setattr(inspect_ai, "to_documents", lambda source, part=None: None)
        yield


def _same(monkeypatch: pytest.MonkeyPatch, make: object) -> None:
    new, old = both_routes(make, lambda: _careful(monkeypatch))  # type: ignore[arg-type]
    assert new == old


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_route_gives_what_the_careful_route_gives(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    _same(monkeypatch, lambda: Source(path))


@pytest.mark.parametrize("path", EVALS, ids=lambda p: p.name)
def test_route_builds_no_model_per_action(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    built_without_models(monkeypatch, lambda: inspect_ai.to_documents(Source(path)))


def _rezip(path: Path, change: object) -> bytes:
    """The log's members written again, each passed through ``change(name, bytes)`` (None drops it)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for member in members(path.read_bytes(), wanted=("",))[0]:  # (zstd members: Python's zipfile reads them from 3.14)
            assert member.data is not None
            data = change(member.name, bytes(member.data))  # type: ignore[operator]
            if data is not None:
                dst.writestr(member.name, data)
    return out.getvalue()


def _sample_change(edit: object) -> object:
    def change(name: str, data: bytes) -> bytes:
        if not name.startswith("samples/"):
            return data
        return edit(data)  # type: ignore[operator, no-any-return]
    return change


def _missing_reference(data: bytes) -> bytes:
    """A reference the table lacks, in a field the converter never reads (a model event's input)."""
    sample = orjson.loads(data)
    for event in sample.get("events") or []:
        if event.get("event") == "model":
            event["input"] = [{"role": "user", "content": "attachment://0123456789abcdef"}]
            break
    return orjson.dumps(sample)


BROKEN = {
    "not-json": _sample_change(lambda d: d[: len(d) // 2]),
    "a-list": _sample_change(lambda d: b"[" + d + b"]"),
    "events-not-list": _sample_change(lambda d: orjson.dumps({**orjson.loads(d), "events": {"a": 1}})),
    "an-event-not-object": _sample_change(lambda d: orjson.dumps({**orjson.loads(d), "events": [7, *orjson.loads(d).get("events", [])]})),
    "missing-reference": _sample_change(_missing_reference),
    "no-header": lambda name, data: None if name == "header.json" else data,
    "header-not-json": lambda name, data: b"{" if name == "header.json" else data,
}


@pytest.mark.parametrize("broken", sorted(BROKEN))
@pytest.mark.parametrize("path", [p for p in EVALS if p.name in ("multi_agent.eval", "graded_attachments.eval", "metr_small_epoch_3.eval")], ids=lambda p: p.name)
def test_broken_logs_read_the_same_either_way(monkeypatch: pytest.MonkeyPatch, path: Path, broken: str) -> None:
    data = _rezip(path, BROKEN[broken])
    _same(monkeypatch, lambda: Source(data, name="broken.eval"))


def test_a_missing_reference_in_an_unread_field_is_still_named(tmp_path: Path) -> None:
    """The typed decode reads only some fields; a reference missing elsewhere sends the sample the whole way."""
    path = ROOT / "tests" / "fixtures" / "inspect_ai" / "graded_attachments.eval"
    member = next(m for m in members(path.read_bytes())[0] if m.name.startswith("samples/"))
    assert member.data is not None and decode_sample(member.data) is not None
    assert decode_sample(_missing_reference(bytes(member.data))) is None
    target = tmp_path / "missing.eval"
    target.write_bytes(_rezip(path, BROKEN["missing-reference"]))
    frames = tl.load(str(target), progress=False, workers=1)
    assert (frames.problems["rule"] == "unknown-id").sum() >= 1


def _read_parts(path: Path, n: int) -> list[Any]:
    """What the loader takes from each part in turn (a part that gives no thread: its problems)."""
    return [row for k in range(n) for row in _part_view(path, None if n == 1 else (k, n))]


def _part_view(path: Path, part: tuple[int, int] | None) -> list[Any]:
    try:
        return [(t.thread_id, t.origin, t.problems, t.account, doc) for t, doc in read_documents(Source(path), part=part)]
    except ThreadError as exc:
        return [(None, None, exc.problems, None, None)]


@pytest.mark.parametrize("path", EVALS, ids=lambda p: p.name)
@pytest.mark.parametrize("n", [2, 3, 7])
def test_parts_add_up_to_the_whole_log(path: Path, n: int) -> None:
    with zipfile.ZipFile(path) as archive:
        parts = sample_parts(archive.infolist(), n)
        samples = {i for i, info in enumerate(archive.infolist(), 1) if info.filename.startswith("samples/")}
    assert set().union(*parts) == samples and sum(map(len, parts)) == len(samples)
    assert _read_parts(path, n) == _read_parts(path, 1)


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_parts_of_a_broken_log_name_each_problem_once(tmp_path: Path, broken: str) -> None:
    """The threads are those of one read; each problem is named once, by the part that met it
    (on that part's first thread, where one read names it on the log's first thread)."""
    seen: set[str] = set()

    def first_sample_only(name: str, data: bytes) -> bytes | None:  # (a log none of whose samples reads is one read's ``empty``)
        if name.startswith("samples/") and seen:
            return data
        seen.add(name) if name.startswith("samples/") else None
        return BROKEN[broken](name, data)  # type: ignore[operator,no-any-return]

    path = tmp_path / "broken.eval"
    path.write_bytes(_rezip(ROOT / "tests" / "fixtures" / "inspect_ai" / "tools_epochs.eval", first_sample_only))
    whole, parts = _read_parts(path, 1), _read_parts(path, 3)

    def problems(view: list[Any]) -> list[str]:
        return sorted(str(p) for row in view for p in row[2])

    assert [(row[0], row[4]) for row in parts if row[0]] == [(row[0], row[4]) for row in whole if row[0]]
    assert problems(parts) == problems(whole) and (broken in ("missing-reference", "no-header", "an-event-not-object") or problems(whole))


def _frames_equal(a: tl.Frames, b: tl.Frames) -> None:
    for name in ("actions", "tool_calls", "usage", "threads", "problems"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), check_categorical=False, obj=name)


def test_a_large_log_split_across_workers_gives_the_frames_of_one_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log of 1.2 MB loaded in four parts by two workers: the frames of the careful route in one process."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from inspect_eval import make_log
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    path = tmp_path / "big.eval"
    make_log(path, 1_200_000, words=40)
    from threadlab.loading import api

    monkeypatch.setattr(api, "MIN_CHUNK_BYTES", 128 << 10)
    split = tl.load(str(path), progress=False, workers=2)
    chunks = api.split_chunks([api.Chunk((api.FileRef.of(path),), "auto")], 128 << 10, workers=2)
    assert [c.part for c in chunks] == [(0, 4), (1, 4), (2, 4), (3, 4)]
    with _careful(monkeypatch):
        whole = tl.load(str(path), progress=False, workers=1)
    assert len(whole.threads) > 50
    _frames_equal(split, whole)


def _plain(value: Any) -> bool:
    """Only what a JSON parser gives: str keys; str, int, float, bool, None, dict and list."""
    if type(value) is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if type(value) is list:
        return all(_plain(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


@pytest.mark.parametrize("path", EVALS, ids=lambda p: p.name)
def test_the_thread_metadata_handed_over_as_it_is_is_plain_json(path: Path) -> None:
    """The route hands a typed sample's thread metadata over without its canonical copy
    (``DocBuilder.plain_metadata``): that is exact only while it holds JSON's values alone."""
    docs = inspect_ai.to_documents(Source(path))
    assert docs
    for thread, doc in docs:
        assert _plain(doc.get("metadata")), thread.thread_id
        assert doc.get("metadata") == thread.to_dict().get("metadata")
