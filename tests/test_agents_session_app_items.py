"""Agents SDK sessions where an app stored items of its own beside the SDK's (issue 24 §5): still
the session format, every standard item read, each app item kept with a problem naming its line.
``forecast_app_items.jsonl`` is the session of the Responses-model run of
``tests/fixtures/openai_agents_trace/make_responses_run.py`` after the app called
``session.add_items`` with an assistant item of its own type and a message in a role of its own;
counts come from the raw lines (orjson alone)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source

PATH = Path(__file__).parent / "fixtures" / "openai_agents_session" / "forecast_app_items.jsonl"
STANDARD_TYPES = {"message", "reasoning", "function_call", "function_call_output"}
STANDARD_ROLES = {"user", "assistant", "system", "developer"}


def raw_items() -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in PATH.read_bytes().splitlines() if line.strip()]


def is_standard(item: dict[str, Any]) -> bool:
    kind = item.get("type", "message" if "role" in item else None)
    return kind in STANDARD_TYPES and (kind != "message" or item.get("role") in STANDARD_ROLES)


@pytest.mark.parametrize("container", ["jsonl", "json"])
def test_a_session_with_app_items_is_read_as_the_session_format(container: str) -> None:
    items = raw_items()
    data = PATH.read_bytes() if container == "jsonl" else orjson.dumps(items)
    source = Source(data, name=f"session.{container}")
    assert detect_format(source).NAME == "openai-agents-session"
    (thread,) = threadlab.read_all(source, strict=False)
    kinds = [a.action_type for a in thread.actions]
    assert kinds.count("tool_call") == sum(i.get("type") == "function_call" for i in items)
    assert kinds.count("tool_return") == sum(i.get("type") == "function_call_output" for i in items)
    assert kinds.count("user_message") == sum(i.get("role") == "user" and i.get("type", "message") == "message" for i in items)
    apps = [i for i in items if not is_standard(i)]
    assert len(apps) == 2
    assert [a.data for a in thread.actions if a.action_type == "system.unknown_item"] == apps
    problems = [p for p in thread.problems if p.rule == "unknown-type"]
    assert len(problems) == len(apps)
    if container == "jsonl":
        assert [p.line for p in problems] == [n for n, i in enumerate(items, 1) if not is_standard(i)]
    assert "forecast_card" in problems[0].message and "'moderator'" in problems[1].message
    assert (thread.account.records, thread.account.kept) == (len(items), len(apps))


def test_app_items_do_not_make_other_files_a_session() -> None:
    """Objects with a type of their own are allowed beside standard items only when fewer, and
    only when a standard item is one only the Responses API has."""
    call = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    events = [{"type": "progress", "step": n} for n in range(3)]
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    for lines in ([*events, call], [*chat, {"type": "progress"}], [*chat, call, {"type": "progress", "parentUuid": "u1"}]):
        data = b"\n".join(orjson.dumps(x) for x in lines) + b"\n"
        assert not threadlab.formats.get_format("openai-agents-session").detect(Source(data, name="log.jsonl"))
