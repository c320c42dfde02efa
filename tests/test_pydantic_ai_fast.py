"""The pydantic-ai fast route (``formats/pydantic_ai/fast.py``) gives exactly what the careful
route through pydantic-ai gives: message by message, part by part, and thread by thread on every
pydantic-ai fixture, on generated variants of their messages, and in frames. And its table is
pydantic-ai's own (fields, order, defaults), so a pydantic-ai upgrade that changes them fails here."""

from __future__ import annotations

import copy
import dataclasses
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic_ai import messages as pai

import threadlab
from threadlab.core.canonical import json_bytes
from threadlab.formats.common.source import Source
from threadlab.formats.pydantic_ai import _parts as P
from threadlab.formats.pydantic_ai import container, events, fast, reading
from threadlab.formats.pydantic_ai.wire import Normaliser

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted([*(ROOT / "tests" / "fixtures" / "pydantic_ai").glob("*.json*"),
                   *(ROOT / "tests" / "fixtures" / "real" / "pydantic_ai").glob("*.json*"),
                   *(ROOT / "tests" / "fixtures" / "inputs" / "pydantic_ai").glob("**/*.json*"),
                   *(ROOT / "data" / "pydantic_ai").glob("*.messages.json")])


def _raw_messages(path: Path) -> list[Any]:
    try:
        conversations = container.read(Source(path))
    except Exception:  # a file the container refuses has no messages to compare
        return []
    return [entry.raw for conversation in conversations for entry in conversation.entries]


MESSAGES = [raw for path in FIXTURES for raw in _raw_messages(path)]


def _careful(raw: Any) -> Any:
    return Normaliser().message(copy.deepcopy(raw), 0)


def test_there_are_fixtures_and_the_fast_route_takes_most_of_their_messages() -> None:
    assert len(FIXTURES) >= 15 and len(MESSAGES) >= 100
    assert fast.enabled()
    taken = [raw for raw in MESSAGES if fast.message(raw) is not None]
    assert len(taken) >= len(MESSAGES) // 3, (len(taken), len(MESSAGES))


@pytest.mark.parametrize("index", range(len(MESSAGES)))
def test_fast_message_is_the_careful_one(index: int) -> None:
    raw = MESSAGES[index]
    got = fast.message(copy.deepcopy(raw))
    if got is not None:
        assert got == _careful(raw)
        assert [list(p) for p in got.parts] == [list(p) for p in _careful(raw).parts]  # key order too
        assert list(got.envelope) == list(_careful(raw).envelope)


def _normal_cases() -> list[dict[str, Any]]:
    """Parts rebuilt as specs rebuild them, from every fixture part the fast route takes."""
    out = []
    for raw in MESSAGES:
        message = fast.message(raw)
        for part in message.parts if message is not None else []:
            out.append({k: v for k, v in part.items() if k not in fast.PART_DEFAULTS[part["part_kind"]]})
    return out


@pytest.mark.parametrize("rebuilt", _normal_cases()[:400])
def test_fast_normal_is_pydantic_ais(rebuilt: dict[str, Any]) -> None:
    side = fast.SIDE[rebuilt["part_kind"]]
    got = fast.normal(dict(rebuilt))
    assert got is not None
    assert got == P.normalise_part(side, {k: v for k, v in rebuilt.items() if k != fast.DIGESTS})


def _thread_json(path: Path) -> list[bytes]:
    try:
        threads = reading.read_source(Source(path))
    except Exception as exc:  # the same refusal either way
        return [repr(exc).encode()]
    return [json_bytes(t.model_dump(mode="json")) + repr(t.problems).encode() for t in threads]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: str(p.relative_to(ROOT)))
def test_threads_are_the_same_either_way(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    quick = _thread_json(path)
    monkeypatch.setattr(fast, "ENABLED", False)
    assert quick == _thread_json(path)


def test_frames_are_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [str(p) for p in FIXTURES]
    quick = threadlab.load(paths, workers=1, progress=False, cache=False)
    monkeypatch.setattr(fast, "ENABLED", False)
    careful = threadlab.load(paths, workers=1, progress=False, cache=False)
    for name in ("actions", "tool_calls", "usage", "threads", "problems"):
        assert getattr(quick, name).equals(getattr(careful, name)), name


# --- generated variants: every change either leaves the fast route or gives the careful result ---

_VALUES = [None, "", "x", 0, 1, -1, 1.5, 0.0, True, False, [], ["a"], [1], {}, {"a": 1}, {"kind": "image-url", "url": "u"},
           "2026-03-02T08:15:00Z", "2026-03-02T08:15:00.000000Z", "2026-03-02T08:15:00.5Z", "2026-03-02T08:15:00+00:00",
           "2026-03-02T08:15:00", "2026-02-30T08:15:00Z", "2026-03-02T08:15:00.123456Z", "request", "response",
           "complete", "interrupted", "stop", "tool_call", "search_tools", "conversation", "success", "denied",
           "tool-call", "text", "user-prompt", "retry-prompt", "system-prompt", [{"type": "x"}], [[{"kind": 1}]],
           ["a", {"url": "https://a/b.jpg", "force_download": False, "vendor_metadata": None, "kind": "image-url", "media_type": "image/jpeg",
                  "identifier": "03973b"}],
           [{"url": "https://a/b", "force_download": "allow-local", "vendor_metadata": None, "kind": "image-url", "media_type": "image/png",
             "identifier": "x"}],
           [{"url": "https://a/b.jpg", "force_download": False, "vendor_metadata": {}, "kind": "image-url", "media_type": "", "identifier": "x"}],
           [{"data": "aGVsbG8=", "media_type": "image/png", "vendor_metadata": None, "kind": "binary", "identifier": "aaf4c6"}],
           [{"data": "aGVsbG8", "media_type": "image/png", "vendor_metadata": None, "kind": "binary", "identifier": "aaf4c6"}],
           [{"data": "a+/A", "media_type": "image/png", "vendor_metadata": None, "kind": "binary", "identifier": "1"}],
           [{"data": "aGVsbG9=", "media_type": "text/plain", "vendor_metadata": None, "kind": "binary", "identifier": "1"}],
           [{"data": "", "media_type": "application/pdf", "vendor_metadata": None, "kind": "binary", "identifier": "1"}],
           {"cause": "model_retry", "attempt": 1, "max_retries": 1}, {"cause": "other", "attempt": 1, "max_retries": 1},
           {"cause": "validation_error", "attempt": None, "max_retries": True}]


@st.composite
def _variants(draw: st.DrawFn) -> Any:
    raw = copy.deepcopy(draw(st.sampled_from([m for m in MESSAGES if fast.message(m) is not None])))
    for _ in range(draw(st.integers(1, 3))):
        parts = raw.get("parts") or []
        target = raw if not parts or draw(st.booleans()) else parts[draw(st.integers(0, len(parts) - 1))]
        if not isinstance(target, dict) or not target:
            continue
        key = draw(st.sampled_from(sorted(target)))
        action = draw(st.sampled_from(["set", "drop", "add"]))
        if action == "drop":
            del target[key]
        elif action == "add":
            target[draw(st.sampled_from(["extra", fast.DIGESTS, "vendor_details", "content"]))] = draw(st.sampled_from(_VALUES))
        elif key != "parts":
            target[key] = copy.deepcopy(draw(st.sampled_from(_VALUES)))
    return raw


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_variants())
def test_generated_variants_leave_the_fast_route_or_match(raw: Any) -> None:
    got = fast.message(copy.deepcopy(raw))
    if got is not None:
        assert got == _careful(raw)


# --- the table is pydantic-ai's own --------------------------------------------------------------


def _members(union: Any) -> list[type]:
    return [typing.get_args(member)[0] for member in typing.get_args(typing.get_args(union)[0])]


def _generic_class(kind: str) -> type:
    classes = [c for c in (*_members(pai.ModelRequestPart), *_members(pai.ModelResponsePart))
               if {f.name: f for f in dataclasses.fields(c)}["part_kind"].default == kind]
    return next(c for c in classes if {f.name: f for f in dataclasses.fields(c)}.get("tool_kind", None) is None
                or {f.name: f for f in dataclasses.fields(c)}["tool_kind"].default is None)


@pytest.mark.parametrize("kind", sorted(fast.PARTS))
def test_part_table_is_pydantic_ais(kind: str) -> None:
    fields = dataclasses.fields(_generic_class(kind))
    assert list(fast.PARTS[kind]) == [f.name for f in fields]
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING and f.name != "part_kind"}
    assert fast.PART_DEFAULTS[kind] == defaults


def test_envelope_table_is_pydantic_ais() -> None:
    for side, cls, checks in (("request", pai.ModelRequest, fast.REQUEST), ("response", pai.ModelResponse, fast.RESPONSE)):
        assert list(checks) == [f.name for f in dataclasses.fields(cls) if f.name != "parts"]
        assert fast.ENVELOPE_DEFAULTS[side] == P.pydantic_envelope_defaults(side)
    assert tuple(P.pydantic_envelope_defaults("response")["usage"]) == fast.USAGE_KEYS
    assert typing.get_args(pai.FinishReason) == tuple(sorted(fast._FINISH, key=typing.get_args(pai.FinishReason).index))
    assert reading.EVENT_ACTION == events.EVENT_ACTION


def test_loading_pydantic_ai_histories_imports_no_pydantic_ai() -> None:
    """Histories pydantic-ai wrote are read without importing it (half a second, and its schemas
    built on first use): the first load of a folder of them in a fresh process."""
    paths = [str(ROOT / "data" / "pydantic_ai" / name) for name in ("router.messages.json", "researcher.messages.json")]
    code = (f"import sys, threadlab\nf = threadlab.load({paths!r}, progress=False)\nassert len(f.actions) > 10\n"
            "print('pydantic_ai' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _samples() -> list[tuple[Any, int | None]]:
    """One fixture message the fast route takes per part kind (and per envelope side), with the
    position of that part (None: the envelope)."""
    found: dict[str, tuple[Any, int | None]] = {}
    for raw in MESSAGES:
        if fast.message(raw) is None:
            continue
        found.setdefault(raw["kind"], (raw, None))
        for position, part in enumerate(raw["parts"]):
            key = part["part_kind"] + ("-media" if isinstance(part.get("content"), list) else "")
            found.setdefault(key, (raw, position))
    return list(found.values())


def test_every_value_in_every_field_leaves_the_fast_route_or_matches() -> None:
    """A sweep: each value of ``_VALUES`` in each field of each kind of part and envelope."""
    samples = _samples()
    assert len(samples) >= 8
    taken = 0
    for raw, position in samples:
        target_keys = sorted(raw if position is None else raw["parts"][position])
        for key in target_keys:
            if key == "parts":
                continue
            for value in _VALUES:
                changed = copy.deepcopy(raw)
                (changed if position is None else changed["parts"][position])[key] = copy.deepcopy(value)
                got = fast.message(copy.deepcopy(changed))
                if got is not None:
                    taken += 1
                    assert got == _careful(changed), (key, value)
    assert taken > 100
