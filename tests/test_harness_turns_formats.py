"""Readers other than Claude Code's and Codex's that mark what a harness (or another agent)
wrote in the user's role, from the producer's own signal only (docs/DEVELOPING.md, "Who wrote an
action": the table of formats):

- pydantic-ai: a ``retry-feedback`` part (pydantic-ai's feedback on a response it could not use)
  → ``author: harness``, ``harness: retry_feedback``;
- Inspect AI: a user message inspect_ai marks ``metadata.summary`` (its compaction summary)
  → ``harness: compaction_summary``; every other user message of a sample is the eval's own
  (no person types into an eval) → ``harness: task_prompt``;
- LangChain: a human message langchain_core marks ``additional_kwargs.lc_source``
  (``add_notification_metadata``; langchain's ``SummarizationMiddleware``) → ``harness:
  <lc_source>`` (``summarization`` → ``compaction_summary``, ``async_subagent`` →
  ``task_notification``);
- AI SDK UI messages that pydantic-ai's ``VercelAIAdapter`` dumped: a message whose text parts
  carry its ``providerMetadata.pydantic_ai.retry_feedback`` marker → ``harness: retry_feedback``
  (the system-role one too);
- agency-swarm: a user-role message whose ``callerAgent`` is an agent (``send_message``)
  → ``author: agent``.

Each file is the real library's output (the generators beside the fixtures run offline); the
expected counts come from the raw JSON here, without threadlab. The frames route (``tl.load``)
and the object route (``tl.read``) must agree, and a write and a read back keep the authors."""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

import threadlab as tl
from threadlab.core.authors import author_of, harness_kind_of
from threadlab.core.loss import WriteLoss
from threadlab.formats import get_format
from threadlab.formats.common.source import Source

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RETRY_FEEDBACK = FIXTURES / "pydantic_ai" / "pydantic_ai_v2.68.0_retry_feedback_messages.json"
COMPACTION = FIXTURES / "inspect_ai" / "compaction.json"
BACKGROUND_TASK = FIXTURES / "langchain" / "background_task_messages_to_dict.json"
SUMMARIZATION = FIXTURES / "langchain" / "summarization_messages_to_dict.json"
UI_RETRY_FEEDBACK = FIXTURES / "vercel_ai_messages" / "pydantic_ai_vercel_retry_feedback_sdk6.json"
AGENCY = sorted((FIXTURES / "agency_swarm").glob("agency_swarm_saved_messages_*.json"))


def _pydantic_ai(path: Path) -> Counter[str]:
    kinds = Counter(p["part_kind"] for m in orjson.loads(path.read_bytes()) for p in m["parts"])
    return Counter({"human": kinds["user-prompt"], "harness:retry_feedback": kinds["retry-feedback"]})


def _inspect(path: Path) -> Counter[str]:
    users = [m for s in orjson.loads(path.read_bytes())["samples"] for m in s["messages"] if m["role"] == "user"]
    summary = [m for m in users if "summary" in (m.get("metadata") or {})]
    return Counter({"harness:task_prompt": len(users) - len(summary), "harness:compaction_summary": len(summary)})


def _langchain(path: Path) -> Counter[str]:
    humans = [m["data"] for m in orjson.loads(path.read_bytes()) if m["type"] == "human"]
    marked = [h["additional_kwargs"]["lc_source"] for h in humans if "lc_source" in h["additional_kwargs"]]
    named = {"summarization": "compaction_summary", "async_subagent": "task_notification"}
    return Counter({"human": len(humans) - len(marked), **Counter(f"harness:{named.get(s, s)}" for s in marked)})


def _marked(part: dict[str, Any]) -> bool:
    return "retry_feedback" in ((part.get("providerMetadata") or {}).get("pydantic_ai") or {})


def _ui_messages(path: Path) -> Counter[str]:
    messages = orjson.loads(path.read_bytes())
    users = [m for m in messages if m["role"] == "user"]
    marked = [m for m in users if all(_marked(p) for p in m["parts"])]
    system = [m for m in messages if m["role"] == "system" and all(_marked(p) for p in m["parts"])]
    return Counter({"human": len(users) - len(marked), "harness:retry_feedback": len(marked), "system/harness:retry_feedback": len(system)})


def _agency(path: Path) -> Counter[str]:
    users = [i for i in orjson.loads(path.read_bytes()) if i.get("role") == "user" and i.get("type", "message") == "message"]
    return Counter("agent" if i.get("callerAgent") else "human" for i in users)


CASES = [
    pytest.param(RETRY_FEEDBACK, _pydantic_ai, id="pydantic-ai-retry-feedback"),
    pytest.param(UI_RETRY_FEEDBACK, _ui_messages, id="vercel-ai-messages-pydantic-ai-retry-feedback"),
    pytest.param(COMPACTION, _inspect, id="inspect-ai-compaction-summary"),
    pytest.param(BACKGROUND_TASK, _langchain, id="langchain-notification"),
    pytest.param(SUMMARIZATION, _langchain, id="langchain-summarization-middleware"),
    *(pytest.param(p, _agency, id=f"agency-swarm-{p.stem}") for p in AGENCY),
]


def _who(kind: Any, metadata: Any) -> str:
    author = author_of(kind, metadata)
    harness = harness_kind_of(metadata)
    return f"{author}:{harness}" if harness else str(author)


def _by_author(thread: tl.Thread) -> Counter[str]:
    """Who wrote each user message; a system action the harness wrote as ``system/harness:<kind>``."""
    users = Counter(_who(a.action_type, a.metadata) for a in thread.actions if a.action_type == "user_message")
    harness = [a for a in thread.actions if a.action_type != "user_message" and harness_kind_of(a.metadata)]
    return users + Counter(f"system/{_who(a.action_type, a.metadata)}" for a in harness)


@pytest.mark.parametrize(("path", "count"), CASES)
def test_user_role_messages_say_who_wrote_them(path: Path, count: Any) -> None:
    expected = +count(path)
    (thread,) = tl.read_all(path)
    assert _by_author(thread) == expected
    assert thread.problems == []
    frames = tl.load(path, progress=False)
    users = frames.actions[frames.actions["action_type"] == "user_message"]
    kinds = users["harness_kind"].astype(object).where(users["harness_kind"].notna(), None)
    in_user_role = +Counter({who: n for who, n in expected.items() if not who.startswith("system/")})
    assert Counter(f"{a}:{k}" if k else a for a, k in zip(users["author"], kinds, strict=True)) == in_user_role
    row = frames.threads.iloc[0]
    assert row["n_human_prompts"] == expected["human"]
    assert row["n_harness_turns"] == sum(n for who, n in expected.items() if who.startswith(("harness", "system/harness")))


@pytest.mark.parametrize(("path", "count"), CASES)
def test_the_authors_survive_a_write_and_a_read_back(path: Path, count: Any) -> None:
    """The writers write no author: the mark the reader read it from goes back, and the author
    is derived from it again (the conformance suite checks the whole thread)."""
    (thread,) = tl.read_all(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = get_format(thread.origin[1]).from_thread(thread)
    losses = [str(w.message) for w in caught if isinstance(w.message, WriteLoss)]
    assert not [loss for loss in losses if "author" in loss or "harness" in loss]  # what else a format cannot hold is not this test's
    (again,) = tl.read_all(Source(wire, name=thread.origin[0]), thread.origin[1])
    assert _by_author(again) == +count(path)


def test_anthropic_writer_says_when_it_joins_a_harness_turn_to_the_prompt() -> None:
    """Anthropic turns alternate, so a harness's context right before the person's prompt (or
    two prompts in a row) becomes one user turn: read back, it is one message, so it is said."""
    (thread,) = tl.read_all(SUMMARIZATION)  # the middleware's summary, then the person's next question
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = get_format("anthropic-messages").from_thread(thread)
    lost = [item for w in caught if isinstance(w.message, WriteLoss) for item in w.message.lost]
    assert lost == ["user messages joined with the one before into one turn (Anthropic turns alternate)"]
    (again,) = tl.read_all(Source(wire, name="back.json"), "anthropic-messages")
    assert [a.action_type for a in again.actions] == ["user_message", "assistant_message"]


def test_ui_messages_keep_their_user_parts_fields_and_the_system_feedback_is_the_harness_s() -> None:
    """A user text part's ``state`` and ``providerMetadata`` (pydantic-ai's marker among them)
    were dropped on reading, so a write lost them without a word; the system-role feedback
    (the framework's fixed no-output text) is the harness's too."""
    raw = orjson.loads(UI_RETRY_FEEDBACK.read_bytes())
    (thread,) = tl.read_all(UI_RETRY_FEEDBACK)
    system = [a for a in thread.actions if a.action_type == "system.system_prompt"]
    assert [_who(a.action_type, a.metadata) for a in system] == ["harness:retry_feedback"] * sum(m["role"] == "system" for m in raw) != []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wire = get_format("vercel-ai-messages").from_thread(thread)
    assert not [w for w in caught if isinstance(w.message, WriteLoss)]
    assert orjson.loads(wire) == raw
