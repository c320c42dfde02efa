"""pydantic-ai histories in and out of ThreadProtocol, merged multi-agent threads, deferred tools
and per-agent perspectives.

Real data only: histories dumped by pydantic-ai 1.0.0, 1.107.10 and 2.68.0 (tests/fixtures,
copied from the shared examples), the bundled runs in data/pydantic_ai (made by real agents
with FunctionModel), and agents run here with FunctionModel. Hand-written input only for broken
files."""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter
from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.messages import (
    BinaryContent,
    CompactionPart,
    FilePart,
    ImageUrl,
    InstructionDeltaPart,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    NativeToolCallPart,
    NativeToolReturnPart,
    RetryFeedbackPart,
    RetryInfo,
    SystemPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RequestUsage

import threadlab as tl
from threadlab.cli import main as cli
from threadlab.core import (
    AssistantMessage,
    MediaPart,
    SystemAction,
    Thinking,
    ToolCall,
    ToolReturn,
    UserMessage,
    pending_tool_calls,
    tool_pairs,
    validate,
)
from threadlab.core.loss import WriteLoss
from threadlab.formats.common.source import Source
from threadlab.formats.pydantic_ai import (
    detect,
    from_pydantic_ai,
    from_pydantic_ai_runs,
    perspective,
    to_pydantic_ai,
)
from threadlab.formats.threadprotocol import thread_from_dict

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pydantic_ai"
INPUTS = Path(__file__).resolve().parent / "fixtures" / "inputs" / "pydantic_ai"  # deferred tool requests/results
DATA = ROOT / "data" / "pydantic_ai"
HISTORIES = sorted(FIXTURES.glob("pydantic_ai_*messages*.json")) + sorted(DATA.glob("*.messages.json"))
HISTORIES = [p for p in HISTORIES if "vercel_dump" not in p.name]  # that one is UIMessages


def as_json(messages: list[ModelMessage]) -> Any:
    """What the round trip is judged on: pydantic-ai's own JSON, parsed."""
    return json.loads(ModelMessagesTypeAdapter.dump_json(messages))


def expected(path: Path) -> Any:
    return as_json(ModelMessagesTypeAdapter.validate_json(path.read_bytes()))


def through_canonical_json(thread: tl.Thread) -> tl.Thread:
    return thread_from_dict(orjson.loads(tl.dumps(thread)))


def of_type(thread: tl.Thread, cls: type) -> list[Any]:
    return [a for a in thread.actions if isinstance(a, cls)]


def run_agent(history: list[ModelMessage], prompt: str = "Thanks. Anything else I should know?") -> tuple[str, list[ModelMessage]]:
    """Run a real pydantic-ai Agent with ``history`` as message_history; return its output and
    the messages its model was given."""
    seen: list[list[ModelMessage]] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(messages)
        return ModelResponse(parts=[TextPart("Noted.")])

    result = Agent(FunctionModel(model)).run_sync(prompt, message_history=history)
    return result.output, seen[0]


# --- exact round trip -------------------------------------------------------------------------


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.name)
def test_round_trip_is_exact_and_thread_is_valid(path: Path) -> None:
    thread = from_pydantic_ai(path.read_bytes())
    assert validate(thread) == []
    assert as_json(to_pydantic_ai(thread)) == expected(path)
    # the metadata survives canonical JSON too (what a saved thread file holds)
    assert as_json(to_pydantic_ai(through_canonical_json(thread))) == expected(path)


def test_objects_json_text_and_parsed_json_read_the_same() -> None:
    path = DATA / "single_agent.messages.json"
    objects = ModelMessagesTypeAdapter.validate_json(path.read_bytes())
    forms = (objects, path.read_bytes(), path.read_text(), json.loads(path.read_bytes()))
    dumps = {tl.dumps(from_pydantic_ai(form, agent="TripPlanner")) for form in forms}
    assert len(dumps) == 1


# --- 1.x and 2.x dumps ------------------------------------------------------------------------


def test_v1_retry_prompt_and_v2_retried_return_read_the_same() -> None:
    threads = [from_pydantic_ai((FIXTURES / f"pydantic_ai_{v}_all_messages.json").read_bytes()) for v in ("v1.0.0", "v1.107.10")]
    threads.append(from_pydantic_ai((FIXTURES / "pydantic_ai_v2.68.0_retry_flow_messages.json").read_bytes()))
    shapes = [[(a.action_type, getattr(a, "tool_call_id", None), getattr(a, "status", None)) for a in t.actions] for t in threads]
    assert shapes[0] == shapes[1] == shapes[2]
    retried = [a for a in of_type(threads[0], ToolReturn) if a.tool_call_id == "call_2"]
    assert [(r.status, r.content) for r in retried] == [("error", "x must be >= 2")]  # v1 retry-prompt
    v2 = next(a for a in of_type(threads[2], ToolReturn) if a.tool_call_id == "call_2")
    assert v2.status == "error" and v2.metadata["pydantic_ai"]["rest"][0]["retry"]["cause"] == "model_retry"


# --- every part kind ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def trip() -> tl.Thread:
    return from_pydantic_ai((DATA / "single_agent.messages.json").read_bytes(), agent="TripPlanner")


def test_multimodal_user_prompt_becomes_rc2_media(trip: tl.Thread) -> None:
    prompt = of_type(trip, UserMessage)[0]
    assert prompt.content[0].text.startswith("We land in Lisbon")
    media = [(p.content_type, p.media_category, p.media_type) for p in prompt.content[1:]]
    assert media == [("url", "image", "image/jpeg"), ("url", "document", "application/pdf"), ("binary", "image", "image/png")]
    assert all(isinstance(p, MediaPart) and p.identifier for p in prompt.content[1:])
    assert prompt.content[1].url == "https://images.example.org/lisbon/alfama-walking-tour.jpg"
    assert prompt.content[3].data and prompt.content[3].url is None


def test_instructions_and_system_prompts_go_to_the_agent_not_actions() -> None:
    thread = from_pydantic_ai((FIXTURES / "pydantic_ai_all_messages.json").read_bytes(), agent="WeatherAgent")
    meta = thread.agents["weatheragent"].metadata
    assert meta["system_prompts"] == ["Legacy system prompt."]
    assert meta["instructions"] == "You are WeatherAgent."
    texts = [json.dumps(a.model_dump(mode="json", exclude={"metadata"})) for a in thread.actions]
    assert not any("Legacy system prompt." in t for t in texts)


def test_thinking_keeps_content_signature_and_provider(trip: tl.Thread) -> None:
    thinking = of_type(trip, Thinking)
    assert len(thinking) == 2
    assert thinking[0].content.startswith("Two independent lookups")
    assert (thinking[0].signature, thinking[0].provider_name, thinking[0].agent_id) == ("c2lnOnRyaXAtcGxhbm5lcg==", "anthropic", "tripplanner")


def test_parallel_calls_retries_and_statuses(trip: tl.Thread) -> None:
    calls = of_type(trip, ToolCall)
    first_response = [c for c in calls if c.metadata["pydantic_ai"]["message"] == 1]
    assert [c.tool_name for c in first_response] == ["get_forecast", "convert_currency"]
    assert first_response[1].args == {"amount": 1200, "from_currency": "USD", "to_currency": "EURO"}  # parsed from a JSON string
    statuses = {p.tool_call_id: p.status for p in tool_pairs(trip)}
    assert statuses == {"call_forecast_1": "validation_error", "call_fx_1": "error", "call_forecast_2": "success", "call_fx_2": "success"}
    fx_retry = next(r for r in of_type(trip, ToolReturn) if r.tool_call_id == "call_fx_1")
    assert "use an ISO 4217 code" in fx_retry.content


def test_text_parts_of_one_response_make_one_message_with_usage_once(trip: tl.Thread) -> None:
    answers = of_type(trip, AssistantMessage)
    final = answers[-1]
    assert [p.type for p in final.content] == ["text", "text"]
    assert "Alfama walking tour" in final.content[0].text and "EUR" in final.content[1].text
    assert final.finish_reason == "stop"
    with_usage = [a for a in trip.actions if getattr(a, "usage", None) is not None]
    assert len(with_usage) == 3  # three model responses, usage once each
    assert (final.usage.input_tokens, final.usage.output_tokens, final.usage.total_tokens, final.usage.cache_read_tokens) == (2010, 88, 2098, 1792)
    assert with_usage[0].usage.thinking_tokens == 41
    second = with_usage[1]  # a response with no text: usage on its first action (thinking)
    assert isinstance(second, Thinking)
    assert all(a.metadata["model_name"] == "trip-planner-fn" and a.metadata["provider_name"] == "scripted"
               for a in trip.actions if isinstance(a, AssistantMessage | Thinking | ToolCall))


def test_builtin_tools_files_and_framework_parts_from_a_live_run() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[
            NativeToolCallPart("web_search", {"query": "lisbon tram 28 timetable"}, tool_call_id="ws_1", provider_name="openai"),
            NativeToolReturnPart("web_search", {"results": [{"url": "https://www.carris.pt/28"}]}, tool_call_id="ws_1", provider_name="openai"),
            TextPart("Tram 28 runs every 12 minutes from Martim Moniz; here is the route map."),
            FilePart(BinaryContent(data=b"\x89PNG\r\n\x1a\n", media_type="image/png"), provider_name="openai"),
            CompactionPart(content="Earlier: the user is planning a Lisbon trip.", provider_name="openai"),
        ], provider_name="openai")

    history = Agent(FunctionModel(model), instructions="You are a transit helper.").run_sync("When does tram 28 run?").all_messages()
    thread = from_pydantic_ai(history, agent="Transit")
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "tool_call", "tool_return", "assistant_message", "system.pydantic_ai.compaction"]
    message = of_type(thread, AssistantMessage)[0]
    assert [p.type for p in message.content] == ["text", "file"] and message.content[1].media_category == "image"
    assert thread.actions[4].data["content"] == "Earlier: the user is planning a Lisbon trip."
    assert as_json(to_pydantic_ai(thread)) == as_json(history)
    assert validate(thread) == []


def test_framework_request_parts_and_empty_messages_are_kept() -> None:
    when = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    history: list[ModelMessage] = [
        ModelRequest(parts=[SystemPromptPart("You are terse.", timestamp=when), UserPromptPart("Summarise the meeting.", timestamp=when),
                            InstructionDeltaPart(id=None, content="Answer in French.")], timestamp=when),
        ModelResponse(parts=[], timestamp=when),
        ModelRequest(parts=[RetryFeedbackPart("Please return text.", retry=RetryInfo(cause="no_output", attempt=1, max_retries=1),
                                              timestamp=when)], timestamp=when),
        ModelResponse(parts=[TextPart("Réunion : budget validé.")], timestamp=when),
    ]
    thread = from_pydantic_ai(history)
    kinds = [a.action_type for a in thread.actions]
    assert kinds == ["user_message", "system.pydantic_ai.instruction_delta", "system.pydantic_ai.response", "user_message", "assistant_message"]
    assert thread.actions[3].content == "Please return text."  # retry feedback: user-side text
    assert as_json(to_pydantic_ai(thread)) == as_json(history)
    assert as_json(perspective(thread, "assistant")) != as_json(history)  # perspective skips system actions


def test_system_actions_pydantic_ai_cannot_hold_are_left_out() -> None:
    thread = from_pydantic_ai((FIXTURES / "pydantic_ai_deferred_step2_messages.json").read_bytes())
    resolved = [a for a in thread.actions if a.action_type == "system.tool_resolved"]
    assert [a.data["resolution"] for a in resolved] == ["denied"]
    back = to_pydantic_ai(thread)
    assert "tool_resolved" not in ModelMessagesTypeAdapter.dump_json(back).decode()
    assert as_json(back) == expected(FIXTURES / "pydantic_ai_deferred_step2_messages.json")


# --- deferred tools -------------------------------------------------------------------------


def test_approval_run_is_pending_then_resolved() -> None:
    step1 = from_pydantic_ai((DATA / "approval_step1.messages.json").read_bytes(), agent="OpsAssistant")
    assert [c.tool_call_id for c in tl.pending_tool_calls(step1)] == ["call_delete_1", "call_deploy_1"]
    step2 = from_pydantic_ai((DATA / "approval_step2.messages.json").read_bytes(), agent="OpsAssistant")
    assert pending_tool_calls(step2) == []
    denied = next(r for r in of_type(step2, ToolReturn) if r.tool_call_id == "call_delete_1")
    assert denied.status == "error" and "second reviewer" in denied.content
    before = step2.actions[denied.sequence - 2]
    assert before.action_type == "system.tool_resolved"
    assert before.data == {"agent_id": "opsassistant", "message": denied.content, "resolution": "denied",
                           "tool_call_id": "call_delete_1", "tool_name": "delete_branch"}


def test_deferred_tool_results_mark_returns_already_in_the_history() -> None:
    results = DeferredToolResults(approvals={"call_deploy_1": True, "call_delete_1": ToolDenied("Deleting branches needs a second reviewer; ask in #billing-eng.")})
    thread = from_pydantic_ai((DATA / "approval_step2.messages.json").read_bytes(), agent="OpsAssistant", deferred_tool_results=results)
    resolved = {a.data["tool_call_id"]: a.data["resolution"] for a in thread.actions if a.action_type == "system.tool_resolved"}
    assert resolved == {"call_deploy_1": "approved", "call_delete_1": "denied"}
    for action in thread.actions:  # each resolution comes right before its return
        if action.action_type == "system.tool_resolved":
            following = thread.actions[action.sequence]
            assert isinstance(following, ToolReturn) and following.tool_call_id == action.data["tool_call_id"]
    assert len(of_type(thread, ToolReturn)) == 2
    assert as_json(to_pydantic_ai(thread)) == expected(DATA / "approval_step2.messages.json")


def test_deferred_tool_results_resolve_a_stopped_run() -> None:
    history = (FIXTURES / "pydantic_ai_deferred_step1_messages.json").read_bytes()
    results = TypeAdapter(DeferredToolResults).validate_json((INPUTS / "pydantic_ai_deferred_tool_results.json").read_bytes())
    requests = TypeAdapter(DeferredToolRequests).validate_json((INPUTS / "pydantic_ai_deferred_tool_requests.json").read_bytes())
    before = from_pydantic_ai(history)
    assert {c.tool_call_id for c in pending_tool_calls(before)} == {c.tool_call_id for c in [*requests.calls, *requests.approvals]}
    after = from_pydantic_ai(history, deferred_tool_results=results)
    assert pending_tool_calls(after) == []
    resolutions = [(a.data["tool_call_id"], a.data["resolution"]) for a in after.actions if a.action_type == "system.tool_resolved"]
    assert resolutions == [("call_del", "denied"), ("call_ext", "executed_externally")]
    assert validate(after) == []
    # the new returns are what pydantic-ai itself wrote when the run was resumed
    resumed = expected(FIXTURES / "pydantic_ai_deferred_step2_messages.json")[2]["parts"]
    written = as_json(to_pydantic_ai(after))[-1]["parts"]
    keys = ("tool_call_id", "tool_name", "content", "outcome")
    assert [{k: p[k] for k in keys} for p in written] == [{k: p[k] for k in keys} for p in resumed]


def test_an_approval_leaves_the_call_pending_until_the_tool_runs() -> None:
    history = (DATA / "approval_step1.messages.json").read_bytes()
    results = DeferredToolResults(approvals={"call_deploy_1": True, "call_delete_1": ToolDenied("Needs a second reviewer.")})
    thread = from_pydantic_ai(history, deferred_tool_results=results)
    assert [c.tool_call_id for c in pending_tool_calls(thread)] == ["call_deploy_1"]
    approved = [a.data for a in thread.actions if a.action_type == "system.tool_resolved" and a.data["resolution"] == "approved"]
    assert [d["tool_call_id"] for d in approved] == ["call_deploy_1"]


# --- several agents -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pair() -> tl.Thread:
    return tl.read(DATA / "router_researcher.thread.json")


def test_bundled_merged_thread_is_what_the_two_histories_give(pair: tl.Thread) -> None:
    start = pair.agents["router"].created_at
    rebuilt = from_pydantic_ai_runs(
        [(pair.agents["router"], (DATA / "router.messages.json").read_bytes()),
         (pair.agents["researcher"], (DATA / "researcher.messages.json").read_bytes())],
        thread_id=pair.thread_id, title=pair.title,
    )
    assert rebuilt.agents["router"].created_at == start
    assert tl.dumps(rebuilt) == tl.dumps(pair)


def test_merge_attributes_every_action_and_keeps_pairs(pair: tl.Thread) -> None:
    assert validate(pair) == []
    for action in pair.actions:
        history = action.metadata["pydantic_ai"]["history"]
        assert getattr(action, "agent_id", history) == history
    researcher_calls = {c.tool_name for c in of_type(pair, ToolCall) if c.agent_id == "researcher"}
    assert researcher_calls == {"search_papers", "fetch_abstract"}
    pairs = tool_pairs(pair)
    assert len(pairs) == 4 and all(p.status == "success" for p in pairs)
    # the researcher's whole run happens between the router's delegation and its result
    delegate = [a.sequence for a in pair.actions if getattr(a, "tool_call_id", None) == "call_delegate_1"]
    inside = [a for a in pair.actions if delegate[0] < a.sequence < delegate[1]]
    assert inside and all(a.metadata["pydantic_ai"]["history"] == "researcher" for a in inside)


def test_a_sub_agents_prompt_is_the_delegating_agents() -> None:
    """The researcher's prompt is the text the router's ask_researcher tool sent it (made while
    that call was open): the router wrote it, not the person; the router's own prompt is the
    person's."""
    pair = from_pydantic_ai_runs([("router", (DATA / "router.messages.json").read_bytes()),
                                  ("researcher", (DATA / "researcher.messages.json").read_bytes())])
    prompts = {a.metadata["pydantic_ai"]["history"]: a for a in pair.actions if a.action_type == "user_message"}
    assert prompts["researcher"].metadata.get("author") == "agent"
    assert "author" not in prompts["router"].metadata
    threads = tl.load(pair, progress=False).threads
    assert list(threads["n_human_prompts"]) == [1]
    # and the histories alone (no other agent's open call): the person's prompt
    alone = from_pydantic_ai((DATA / "researcher.messages.json").read_bytes())
    assert [a.metadata.get("author") for a in alone.actions if a.action_type == "user_message"] == [None]


@pytest.mark.parametrize("agent", ["router", "Researcher"])
def test_each_history_comes_back_from_the_merged_thread(pair: tl.Thread, agent: str) -> None:
    name = "router" if agent == "router" else "researcher"
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)  # the history asked for is whole: nothing to warn about
        assert as_json(to_pydantic_ai(pair, agent=agent)) == expected(DATA / f"{name}.messages.json")


def test_merged_thread_without_an_agent_writes_the_first_and_says_so(pair: tl.Thread) -> None:
    with pytest.warns(WriteLoss) as caught:
        history = to_pydantic_ai(pair)
    assert as_json(history) == expected(DATA / "router.messages.json")  # the agent the conversation starts with
    (loss,) = [w.message for w in caught]
    assert loss.lost[0].startswith("9 actions of other agents ('Researcher' (9))") and "pass agent=" in loss.lost[0]
    assert "wrote the history of 'Router'" in loss.lost[0]
    with pytest.raises(ValueError, match="no agent 'Critic'"):
        to_pydantic_ai(pair, agent="Critic")


# --- perspectives ---------------------------------------------------------------------------


def foreign_texts(messages: list[ModelMessage], prefix: str) -> list[str]:
    return [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, UserPromptPart) and isinstance(p.content, str) and p.content.startswith(prefix)]


def own_parts(messages: list[ModelMessage]) -> list[tuple[str, str]]:
    return [(p.part_kind, getattr(p, "tool_name", None) or "") for m in messages if isinstance(m, ModelResponse) for p in m.parts]


def test_perspective_hide(pair: tl.Thread) -> None:
    view = perspective(pair, "Router", others="hide")
    assert [t[:45] for t in foreign_texts(view, "{agent:Researcher}: ")] == ["{agent:Researcher}: Evidence summary: in head"]
    assert own_parts(view) == [("text", ""), ("tool-call", "ask_researcher"), ("text", "")]
    assert "search_papers" not in ModelMessagesTypeAdapter.dump_json(view).decode()
    output, seen = run_agent(view)
    assert output == "Noted." and as_json(seen[:len(view)]) == as_json(view)


def test_perspective_summarize(pair: tl.Thread) -> None:
    view = perspective(pair, "Router")  # summarize is the default
    assert foreign_texts(view, "{agent:Researcher}: [")[:3] == [
        "{agent:Researcher}: [used tool search_papers: success]",
        "{agent:Researcher}: [used tool fetch_abstract: success]",
        "{agent:Researcher}: [used tool fetch_abstract: success]",
    ]
    assert len(foreign_texts(view, "{agent:Researcher}: ")) == 4
    text = ModelMessagesTypeAdapter.dump_json(view).decode()
    assert "trial-2022-nejm-trf" not in text and "Look for head-to-head" not in text  # no args, no thinking
    request = view[2]
    assert isinstance(request.parts[0], ToolReturnPart)  # the own tool result leads its request
    assert run_agent(view)[0] == "Noted."


def test_perspective_show(pair: tl.Thread) -> None:
    view = perspective(pair, "Researcher", others="show")
    texts = foreign_texts(view, "{agent:Router}: ")
    assert texts[0].startswith("{agent:Router}: [was asked] Is intermittent fasting better")
    assert texts[1].startswith("{agent:Router}: That needs a look at the clinical trials")
    assert texts[2].startswith('{agent:Router}: [tool call ask_researcher({"question":"Compare intermittent fasting')
    assert texts[3].startswith("{agent:Router}: [tool result ask_researcher (success): Evidence summary")
    assert texts[4].startswith("{agent:Router}: Short answer: no.")
    assert len(texts) == 5
    # its own run is there as it was: thinking, calls and returns with their ids
    assert own_parts(view) == [("thinking", ""), ("tool-call", "search_papers"), ("tool-call", "fetch_abstract"),
                               ("tool-call", "fetch_abstract"), ("text", "")]
    assert run_agent(view)[0] == "Noted."


def test_perspective_never_shows_other_agents_thinking_and_takes_a_prefix(pair: tl.Thread) -> None:
    view = perspective(pair, "router", others="show", prefix="[{name}] ")
    text = ModelMessagesTypeAdapter.dump_json(view).decode()
    assert "Look for head-to-head" not in text
    assert foreign_texts(view, "[Researcher] ") and not foreign_texts(view, "{agent:")
    with pytest.raises(ValueError, match="others must be"):
        perspective(pair, "router", others="everything")  # type: ignore[arg-type]


def test_perspectives_of_the_spec_example_thread() -> None:
    """A thread that never was pydantic-ai (the ThreadProtocol spec's own example)."""
    thread = tl.read(ROOT / "data" / "threadprotocol" / "spec_example_weather.json")
    planner = perspective(thread, "Travel Planner")
    assert [(m.kind, [(p.part_kind, getattr(p, "content", None)) for p in m.parts]) for m in planner] == [
        ("request", [("user-prompt", "What's the weather like in Tokyo?"),
                     ("user-prompt", "{agent:Weather Assistant}: Let me check the current weather in Tokyo for you."),
                     ("user-prompt", "{agent:Weather Assistant}: [used tool get_weather: success]"),
                     ("user-prompt", "{agent:Weather Assistant}: The weather in Tokyo is currently 18°C and partly cloudy with 65% humidity.")]),
        ("response", [("text", "Great weather for sightseeing! Would you like recommendations for outdoor activities in Tokyo?")]),
    ]
    weather = perspective(thread, "agent_001")
    assert [m.kind for m in weather] == ["request", "response", "request", "response", "request"]
    assert [p.part_kind for p in weather[1].parts] == ["text", "tool-call"]
    assert weather[2].parts[0].content == {"temperature": 18, "conditions": "partly cloudy", "humidity": 65}
    assert weather[-1].parts[0].content.startswith("{agent:Travel Planner}: Great weather")
    for view in (planner, weather):
        assert run_agent(view)[0] == "Noted."


def test_own_history_is_unchanged_in_its_perspective_when_alone(trip: tl.Thread) -> None:
    assert as_json(perspective(trip, "TripPlanner", others="show")) == expected(DATA / "single_agent.messages.json")


# --- registry, detection, CLI, errors -----------------------------------------------------------


def test_read_detects_pydantic_ai_and_not_other_json() -> None:
    thread = tl.read(DATA / "single_agent.messages.json")
    assert thread.origin[1] == "pydantic-ai"
    assert detect(Source(ModelMessagesTypeAdapter.validate_json((DATA / "router.messages.json").read_bytes())))
    assert not detect(Source(FIXTURES.parent / "vercel_ai_messages" / "pydantic_ai_vercel_dump_messages_sdk6.json"))  # UIMessages
    assert not detect(Source(DATA / "router_researcher.thread.json"))
    assert not detect(Source(INPUTS / "pydantic_ai_deferred_tool_results.json"))
    result = Agent(TestModel(custom_output_text="Lisbon is sunny.")).run_sync("Weather in Lisbon?")  # a run result reads too
    assert [(a.action_type, getattr(a, "content", None)) for a in tl.read(result).actions] == [
        ("user_message", "Weather in Lisbon?"), ("assistant_message", "Lisbon is sunny.")]


def test_cli_converts_both_ways(tmp_path: Path) -> None:
    source = DATA / "approval_step2.messages.json"
    thread_file, back = tmp_path / "thread.json", tmp_path / "history.json"
    assert cli(["convert", str(source), "-o", str(thread_file)]) == 0
    assert tl.read(thread_file).origin[1] == "threadprotocol"
    assert cli(["convert", str(thread_file), "--to", "pydantic-ai", "-o", str(back)]) == 0
    assert json.loads(back.read_bytes()) == expected(source)


def test_broken_files_name_the_file_and_the_place(tmp_path: Path) -> None:
    truncated = tmp_path / "cut.json"
    truncated.write_bytes((DATA / "router.messages.json").read_bytes()[:700])
    with pytest.raises(tl.ThreadError) as err:
        tl.read(truncated, format="pydantic-ai")
    assert "cut.json" in str(err.value) and "line" in str(err.value)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('[{"kind": "request", "parts": [{"part_kind": "user-prompt"}]}]')
    with pytest.raises(tl.ThreadError) as err:
        tl.read(wrong, format="pydantic-ai")
    assert "wrong.json" in str(err.value) and "message #1" in str(err.value) and "[schema]" in str(err.value)


# --- property: generated histories round-trip ---------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
WHEN = st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2027, 1, 1), timezones=st.just(UTC))
IDS = st.sampled_from(["call_a", "call_b", "call_c"])
NAMES = st.sampled_from(["search", "lookup"])
JSONISH = st.one_of(TEXT, st.dictionaries(st.sampled_from(["q", "n", "ok"]), st.one_of(st.integers(-5, 5), TEXT), max_size=3))
MEDIA = st.one_of(
    st.builds(ImageUrl, url=st.sampled_from(["https://example.org/a.png", "https://example.org/b.jpg"])),
    st.builds(BinaryContent, data=st.binary(min_size=1, max_size=6), media_type=st.sampled_from(["image/png", "audio/wav", "application/pdf"])),
)
REQUEST_PART = st.one_of(
    st.builds(UserPromptPart, content=st.one_of(TEXT, st.lists(st.one_of(TEXT, MEDIA), min_size=1, max_size=3)), timestamp=WHEN),
    st.builds(SystemPromptPart, content=TEXT, timestamp=WHEN),
    st.builds(ToolReturnPart, tool_name=NAMES, content=JSONISH, tool_call_id=IDS, timestamp=WHEN,
              outcome=st.sampled_from(["success", "failed", "denied"])),
    st.builds(ToolReturnPart, tool_name=NAMES, content=TEXT, tool_call_id=IDS, timestamp=WHEN, outcome=st.just("retried"),
              retry=st.builds(RetryInfo, cause=st.sampled_from(["validation_error", "model_retry"]), attempt=st.integers(1, 3))),
    st.builds(RetryFeedbackPart, content=TEXT, retry=st.builds(RetryInfo, cause=st.just("model_retry")), timestamp=WHEN),
)
RESPONSE_PART = st.one_of(
    st.builds(TextPart, content=TEXT, id=st.one_of(st.none(), TEXT)),
    st.builds(ThinkingPart, content=TEXT, signature=st.one_of(st.none(), TEXT), provider_name=st.one_of(st.none(), st.just("anthropic"))),
    st.builds(ToolCallPart, tool_name=NAMES, tool_call_id=IDS,
              args=st.one_of(st.none(), st.dictionaries(st.sampled_from(["q", "n"]), st.integers(0, 9), max_size=2),
                             st.just('{"q": 1}'), st.just("not json"))),
    st.builds(FilePart, content=st.builds(BinaryContent, data=st.binary(min_size=1, max_size=6), media_type=st.just("image/png"))),
    st.builds(NativeToolCallPart, tool_name=NAMES, tool_call_id=IDS, args=st.just({"q": "x"}), provider_name=st.just("openai")),
)
MESSAGE = st.one_of(
    st.builds(ModelRequest, parts=st.lists(REQUEST_PART, max_size=4), timestamp=st.one_of(st.none(), WHEN),
              instructions=st.one_of(st.none(), TEXT), run_id=st.one_of(st.none(), st.just("run-1"))),
    st.builds(ModelResponse, parts=st.lists(RESPONSE_PART, max_size=4), timestamp=WHEN,
              usage=st.builds(RequestUsage, input_tokens=st.integers(0, 5000), output_tokens=st.integers(0, 900)),
              model_name=st.one_of(st.none(), st.just("gpt-5")), finish_reason=st.one_of(st.none(), st.sampled_from(["stop", "tool_call", "error"]))),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MESSAGE, min_size=1, max_size=6))
def test_generated_histories_round_trip(history: list[ModelMessage]) -> None:
    want = as_json(history)
    thread = from_pydantic_ai(history)
    assert as_json(to_pydantic_ai(thread)) == want
    assert as_json(to_pydantic_ai(through_canonical_json(thread))) == want
    rules = {p.rule for p in validate(thread)}
    assert not rules & {"sequence-order", "time-order", "agent-ref", "action-type-name"}
    assert all(not isinstance(a, SystemAction) or a.action_type.startswith(("system.pydantic_ai.", "system.tool_resolved"))
               for a in thread.actions)
