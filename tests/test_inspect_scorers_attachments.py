"""Inspect AI logs (issue 24 §5): a scorer's model calls are the scorer's (an agent of its own,
``scorer:<name>``), not the solver's turns, and ``attachment://<hash>`` references are resolved
from the sample's attachments wherever they are. Checked on public logs (inspect_scout's
``model_graded_fact`` eval, METR's react-agent run, inspect_ai's own test logs) and on logs made
with inspect_ai's mockllm (``tests/fixtures/inspect_ai/make_logs.py graded``: the graders call the
solver's own model), against counts taken from the raw samples here with orjson alone."""

from __future__ import annotations

import warnings
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from tests.conformance.records import _zip_member
from threadlab.formats import Source, get_format

FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "real" / "inspect_ai"
LOGS = [
    REAL / "2025-09-23T08-09-58-04-00_security-guide_LuxZJVwvymC3S3SyoJczxB.eval",
    REAL / "metr_small_epoch_3.eval",
    REAL / "2024-11-05T13-31-45-05-00_input-task_8zXjbRzCWrL9GXiXo2vus9.json",
    REAL / "2024-11-05T13-32-37-05-00_input-task_hxs4q9azL3ySGkjJirypKZ.eval",
    REAL / "log_images.json",
    FIXTURES / "inspect_ai" / "graded_attachments.eval",
    FIXTURES / "inspect_ai" / "graded_attachments.json",
]
REF = "attachment://"


# --- the raw samples, read without threadlab -----------------------------------------------


def raw_samples(path: Path) -> dict[tuple[Any, Any], dict[str, Any]]:
    """(id, epoch) → sample."""
    data = path.read_bytes()
    if data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(path) as archive:
            samples = [orjson.loads(_zip_member(archive, n)) for n in archive.namelist() if n.startswith("samples/")]
    else:
        samples = orjson.loads(data).get("samples") or []
    return {(s.get("id"), s.get("epoch", 1)): s for s in samples}


def _events(items: Any) -> list[dict[str, Any]]:
    out = []
    for e in items or ():
        out.append(e)
        out += _events(e.get("events"))
    return out


def model_calls(sample: dict[str, Any]) -> list[tuple[str | None, dict[str, Any]]]:
    """Each model event with the scorer it ran under (None: the solver's), by the span events
    (``span_begin``/``span_end``) or, in older logs, the ``step`` events around it."""
    stack: list[tuple[Any, Any, Any]] = []
    out = []
    for e in _events(sample.get("events")):
        kind = e.get("event")
        if kind == "span_begin" or (kind == "step" and e.get("action") == "begin"):
            stack.append((e.get("id") or (e.get("type"), e.get("name")), e.get("type"), e.get("name")))
        elif kind == "span_end" or (kind == "step" and e.get("action") == "end"):
            key = e.get("id") or (e.get("type"), e.get("name"))
            ids = [s[0] for s in stack]
            if key in ids:
                del stack[ids.index(key):]
        elif kind == "model":
            scorers = [s[2] for s in stack if s[1] == "scorer"]
            out.append((scorers[-1] if scorers else None, e))
    return out


def resolved(value: Any, table: dict[str, str]) -> Any:
    return table.get(value[len(REF):], value) if isinstance(value, str) and value.startswith(REF) else value


def output_text(event: dict[str, Any], table: dict[str, str]) -> str:
    content = event["output"]["choices"][0]["message"]["content"]
    parts = content if isinstance(content, list) else [content]
    return "".join(resolved(p, table) if isinstance(p, str) else resolved(p.get("text", ""), table) for p in parts
                   if isinstance(p, str) or p.get("type") == "text")


def refs(value: Any) -> int:
    return orjson.dumps(value).count(REF.encode())


# --- threadlab ------------------------------------------------------------------------------


def threads(path: Path) -> dict[tuple[Any, Any], threadlab.Thread]:
    out = {}
    for t in threadlab.read_all(path, strict=False):
        meta = t.metadata["inspect_ai"]
        out[(meta["id"], meta.get("epoch", 1))] = t
    return out


def by_agent(thread: threadlab.Thread) -> Counter[str]:
    """Model calls per agent: each call's usage is on one of its actions, once."""
    return Counter(a.agent_id for a in thread.actions if getattr(a, "usage", None) is not None)


def tokens(thread: threadlab.Thread, agent: str) -> int:
    return sum(a.usage.output_tokens or 0 for a in thread.actions if getattr(a, "usage", None) is not None and a.agent_id == agent)


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_messages_per_role_and_scorer_calls_match_the_raw_samples(path: Path) -> None:
    raw, got = raw_samples(path), threads(path)
    assert set(got) == set(raw)
    for key, sample in raw.items():
        thread = got[key]
        roles = Counter(m.get("role") for m in sample.get("messages") or [])
        kinds = Counter(a.action_type for a in thread.actions)
        tool_events = sum(1 for e in _events(sample.get("events")) if e.get("event") == "tool")  # react's submit has no tool message
        assert kinds["user_message"] == roles["user"] and kinds["tool_return"] == (tool_events or roles["tool"])
        calls = model_calls(sample)
        scorers = Counter(s for s, e in calls if s is not None and (e.get("output") or {}).get("usage"))
        solver = sum(1 for s, e in calls if s is None and (e.get("output") or {}).get("usage"))
        agents = by_agent(thread)
        for name, n in scorers.items():
            agent = thread.agents[f"scorer_{name}"]
            assert agent.agent_name == f"scorer:{name}" and agents[agent.agent_id] == n
            want = sum(e["output"]["usage"]["output_tokens"] for s, e in calls if s == name)
            assert tokens(thread, agent.agent_id) == want
        assert sum(n for a, n in agents.items() if not a.startswith("scorer_")) == solver
        # the graders' verdicts are their agents' texts, resolved, and no solver text is one
        table = sample.get("attachments") or {}
        for name in scorers:
            texts = [a.content for a in thread.actions if a.action_type == "assistant_message" and a.agent_id == f"scorer_{name}"]
            assert texts == [output_text(e, table) for s, e in calls if s == name]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_attachment_references_are_resolved_everywhere(path: Path) -> None:
    """The raw samples reference attachments; nothing read from them does, in any action or
    the thread's metadata, and each referenced text is in the thread."""
    raw, got = raw_samples(path), threads(path)
    assert sum(refs({k: v for k, v in s.items() if k != "attachments"}) for s in raw.values()) > 0
    for key, thread in got.items():
        assert refs(thread.to_dict()) == 0, key
        assert [p for p in thread.problems if p.rule == "unknown-id"] == []


def test_resolved_attachments_reach_tool_args_thinking_and_images() -> None:
    (thread,) = [t for t in threadlab.read_all(REAL / "metr_small_epoch_3.eval")]
    (sample,) = raw_samples(REAL / "metr_small_epoch_3.eval").values()
    table = sample["attachments"]
    thinking = [a.content for a in thread.actions if a.action_type == "thinking"]
    want = [resolved(p.get("reasoning"), table) for _, e in model_calls(sample) for p in e["output"]["choices"][0]["message"]["content"]
            if isinstance(p, dict) and p.get("type") == "reasoning"]
    assert thinking == want and all(t and not t.startswith(REF) for t in thinking)
    graded = threadlab.read_all(FIXTURES / "inspect_ai" / "graded_attachments.json")
    args = [a.args for t in graded for a in t.actions if a.action_type == "tool_call"]
    assert len(args) == 2 and all(len(a["query"]) > 100 for a in args)
    (images,) = threadlab.read_all(REAL / "log_images.json")
    parts = [p for a in images.actions if a.action_type == "user_message" for p in a.content if getattr(p, "type", None) == "image"]
    assert parts and all(str(p.image).startswith("data:image/") for p in parts)


def test_a_reference_the_table_lacks_is_kept_and_named(tmp_path: Path) -> None:
    log = orjson.loads((FIXTURES / "inspect_ai" / "graded_attachments.json").read_bytes())
    sample = log["samples"][0]
    content = next(c for e in sample["events"] if e["event"] == "model"
                   for c in [e["output"]["choices"][0]["message"]["content"]] if isinstance(c, str) and c.startswith(REF))
    gone = content[len(REF):]  # the solver's answer
    del sample["attachments"][gone]
    path = tmp_path / "log.json"
    path.write_bytes(orjson.dumps(log))
    thread = threadlab.read_all(path, strict=False)[0]
    (problem,) = [p for p in thread.problems if p.rule == "unknown-id"]
    assert gone[:8] in problem.message and problem.source == str(path)
    assert REF + gone in orjson.dumps(thread.to_dict()).decode()


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.name)
def test_a_samples_user_messages_are_the_eval_harness_task_prompts(path: Path) -> None:
    """No person types into an eval: each user-role message of a sample (its input, a solver's
    prompt) is the harness's ``task_prompt``, so the threads frame counts no human prompt and
    as many harness turns as the raw samples hold user messages; written back and read again,
    the same."""
    raw = raw_samples(path)
    users = sum(1 for s in raw.values() for m in s.get("messages") or [] if isinstance(m, dict) and m.get("role") == "user")
    frames = threadlab.load(path, progress=False)
    assert users > 0
    assert (int(frames.threads["n_human_prompts"].sum()), int(frames.threads["n_harness_turns"].sum())) == (0, users)
    assert set(frames.actions.loc[frames.actions["action_type"] == "user_message", "harness_kind"]) == {"task_prompt"}
    thread = next(iter(threads(path).values()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wire = get_format("inspect-ai").from_thread(thread)
    (again,) = threadlab.read_all(Source(wire, name="again.json"), "inspect-ai")
    assert [a.metadata for a in again.actions if a.action_type == "user_message"] == [a.metadata for a in thread.actions if a.action_type == "user_message"]
