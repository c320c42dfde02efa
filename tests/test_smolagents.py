"""smolagents memory dumps (tests/fixtures/smolagents, the real package's output): what each step
becomes, the steps and the messages of one run agreeing, a managed agent's task, totals, and
broken files costing only what is broken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from threadlab.core.canonical import thread_to_dict
from threadlab.core.problems import ThreadError
from threadlab.formats import detect_format, get_format
from threadlab.formats.common.source import Source

HERE = Path(__file__).parent / "fixtures" / "smolagents"
smolagents = get_format("smolagents")


def _read(source: Source | Path) -> dict[str, Any]:
    source = source if isinstance(source, Source) else Source(source)
    [thread] = smolagents.to_threads(source)
    return thread_to_dict(thread)


def _calls(thread: dict[str, Any]) -> list[tuple[str, ...]]:
    return [(a["action_type"], a["tool_call_id"], a["tool_name"], a.get("status", "")) for a in thread["actions"] if a["action_type"] in ("tool_call", "tool_return")]


@pytest.mark.parametrize("path", sorted(HERE.glob("*.json*")), ids=lambda p: p.name)
def test_detected_as_smolagents(path: Path) -> None:
    assert detect_format(Source(path)).NAME == "smolagents"


def test_code_actions_are_python_interpreter_calls() -> None:
    thread = _read(HERE / "code.steps.json")
    calls = [a for a in thread["actions"] if a["action_type"] == "tool_call"]
    assert [c["tool_name"] for c in calls] == ["python_interpreter"] * 3
    assert calls[1]["args"] == "print(get_weather(city='Rome'))\nprint(1 / 0)"
    failed = next(a for a in thread["actions"] if a["action_type"] == "tool_return" and a["status"] == "error")
    assert "ZeroDivisionError" in failed["content"]
    assert failed["metadata"]["smolagents"]["observations"] == "Execution logs:\nsunny in Rome, 21 degrees\n"
    assert thread["actions"][0]["action_type"] == "system.prompt"  # the prompt before the task, as the model was sent them


def test_steps_and_messages_of_one_run_agree() -> None:
    steps, messages = _read(HERE / "code.steps.json"), _read(HERE / "code.messages.json")
    assert _calls(steps) == _calls(messages)
    texts = [a["content"] for a in steps["actions"] if a["action_type"] == "assistant_message"]
    assert texts == [a["content"] for a in messages["actions"] if a["action_type"] == "assistant_message"]


def test_a_failing_tool_keeps_the_call_the_model_made() -> None:
    """A step whose tool raised has no ``tool_calls``; its ``model_output_message`` has the call."""
    thread = _read(HERE / "toolcalling.result.json")
    assert ("tool_return", "call_2", "get_weather", "error") in _calls(thread)
    assert thread["metadata"]["usage_total"] == {"input_tokens": 920, "output_tokens": 73, "total_tokens": 993}
    assert thread["metadata"]["smolagents"]["state"] == "success"
    plan = next(a for a in thread["actions"] if a["action_type"] == "assistant_message")
    assert plan["metadata"]["smolagents"]["step"] == "planning" and plan["usage"]["input_tokens"] == 150


def test_the_final_answer_step_of_a_step_callback() -> None:
    thread = _read(HERE / "toolcalling.steps.jsonl")
    assert thread["actions"][-1]["action_type"] == "system.final_answer"
    assert thread["actions"][-1]["data"] == "Paris: sunny, 21 degrees; Atlantis: unknown"


def test_a_managed_agents_task_is_the_managers() -> None:
    task = next(a for a in _read(HERE / "managed_researcher.steps.json")["actions"] if a["action_type"] == "user_message")
    assert task["metadata"]["author"] == "harness" and task["metadata"]["harness"] == "task_prompt"
    manager = _read(HERE / "managed.succinct.json")
    assert ("tool_call", "call_m1", "researcher", "") in _calls(manager)


def test_a_torn_last_line_costs_that_line() -> None:
    data = (HERE / "toolcalling.steps.jsonl").read_bytes()
    torn = data[: data.rstrip().rfind(b"\n") + 20]
    [thread] = smolagents.to_threads(Source(torn, name="torn.jsonl"))
    assert [p.rule for p in thread.problems] == ["truncated"]
    assert thread.account.failed == 1 and thread.account.converted == data.count(b"\n") - 1
    with pytest.raises(ThreadError):
        from threadlab.formats.common.reading import read

        read(Source(torn, name="torn.jsonl"), format="smolagents", strict=True)


def test_an_unknown_step_is_kept() -> None:
    steps = orjson.loads((HERE / "code.steps.json").read_bytes())
    steps.insert(2, {"step_number": "x", "what": 1})
    [thread] = smolagents.to_threads(Source(orjson.dumps(steps), name="odd.json"))
    assert thread.account.kept == 1 and [p.rule for p in thread.problems] == ["unknown-type"]
    assert any(a.action_type == "system.unknown_step" for a in thread.actions)
