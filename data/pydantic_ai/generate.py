"""Regenerate the bundled pydantic-ai histories by running real pydantic-ai agents.

The models are ``FunctionModel``s (scripted, no network); everything else - the agent loop, tool
execution, argument validation, retries, deferred tools, the JSON - is pydantic-ai's own. Run from
the repository root::

    .venv/bin/python data/pydantic_ai/generate.py

pydantic-ai stamps parts with the wall clock and gives each run a random UUIDv7, so the outputs
are made deterministic afterwards: every timestamp of a scenario is replaced, in order, by a fixed
clock (0.4 s apart from a fixed start) and every run/conversation id by a UUIDv5. Order and
structure are untouched; the result is validated again by ``ModelMessagesTypeAdapter``.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai import (
    Agent,
    DeferredToolRequests,
    DeferredToolResults,
    ModelRetry,
    RunContext,
    ToolDenied,
)
from pydantic_ai.messages import (
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from threadlab.core.canonical import write as write_thread
from threadlab.core.model import AgentConfig
from threadlab.formats.pydantic_ai import from_pydantic_ai_runs

HERE = Path(__file__).resolve().parent
ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/threadlab/data/pydantic_ai")
# a 1x1 transparent PNG: the "photo" the traveller attaches inline
PIXEL_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fe"
    "a7d6a4f20000000049454e44ae426082"
)


# --- helpers ----------------------------------------------------------------------------------


def last_request(messages: list[ModelMessage]) -> ModelRequest:
    message = messages[-1]
    assert isinstance(message, ModelRequest)
    return message


def returns(messages: list[ModelMessage]) -> dict[str, ToolReturnPart]:
    """The tool returns of the last request, by tool name."""
    return {p.tool_name: p for p in last_request(messages).parts if isinstance(p, ToolReturnPart)}


def response(*parts: Any, input_tokens: int, output_tokens: int, reasoning: int = 0, cache_read: int = 0) -> ModelResponse:
    usage = RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cache_read,
                         details={"reasoning_tokens": reasoning} if reasoning else {})
    return ModelResponse(parts=list(parts), usage=usage, provider_name="scripted", finish_reason=None)


def step_model(name: str, steps: list[Callable[[list[ModelMessage]], ModelResponse]]) -> FunctionModel:
    """A FunctionModel answering the n-th model request of a run with ``steps[n]``."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        done = sum(isinstance(m, ModelResponse) for m in messages)
        result = steps[min(done, len(steps) - 1)](messages)
        if result.finish_reason is None:
            calls = any(isinstance(p, ToolCallPart) for p in result.parts)
            result.finish_reason = "tool_call" if calls else "stop"
        return result

    return FunctionModel(answer, model_name=name)


def make_deterministic(files: dict[str, Any], start: datetime) -> dict[str, Any]:
    """Replace every timestamp (in order) and every run/conversation id by fixed values."""
    stamps: set[str] = set()
    ids: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "timestamp" and isinstance(item, str):
                    stamps.add(item)
                elif key in ("run_id", "conversation_id") and isinstance(item, str) and item not in ids:
                    ids.append(item)
                else:
                    collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for value in files.values():
        collect(value)
    when = {s: (start + timedelta(milliseconds=400 * n)).isoformat().replace("+00:00", "Z") for n, s in enumerate(sorted(stamps))}
    new_id = {old: str(uuid.uuid5(ID_NAMESPACE, f"{start.isoformat()}/{n}")) for n, old in enumerate(ids)}

    def rewrite(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: when[v] if k == "timestamp" and isinstance(v, str) else new_id.get(v, v) if k in ("run_id", "conversation_id") else rewrite(v)
                    for k, v in value.items()}
        if isinstance(value, list):
            return [rewrite(v) for v in value]
        return value

    return {name: rewrite(value) for name, value in files.items()}


def dump(messages: list[ModelMessage]) -> Any:
    return json.loads(ModelMessagesTypeAdapter.dump_json(messages))


def write(files: dict[str, Any]) -> None:
    for name, value in files.items():
        if name.endswith(".messages.json"):  # re-validated by pydantic-ai after the rewrite
            data = ModelMessagesTypeAdapter.dump_json(ModelMessagesTypeAdapter.validate_python(value), indent=2)
        else:
            data = json.dumps(value, indent=2, ensure_ascii=False).encode()
        (HERE / name).write_bytes(data + b"\n")
        print(f"wrote data/pydantic_ai/{name}")


# --- 1. one agent: multimodal prompt, thinking, parallel tool calls, two kinds of retry ---------

TRIP_PROMPT = [
    "We land in Lisbon on 14 March with the itinerary attached. Is the weather OK for the walking tour "
    "in the photo, and how much is our 1200 USD budget in euros?",
    ImageUrl(url="https://images.example.org/lisbon/alfama-walking-tour.jpg"),
    DocumentUrl(url="https://files.example.org/trips/lisbon-march-itinerary.pdf"),
    BinaryContent(data=PIXEL_PNG, media_type="image/png"),
]


def trip_agent() -> Agent[None, str]:
    steps = [
        lambda m: response(
            ThinkingPart(content="Two independent lookups: the 3-day forecast for Lisbon and the USD→EUR conversion. "
                                 "I can run both at once.", signature="c2lnOnRyaXAtcGxhbm5lcg==", provider_name="anthropic"),
            TextPart("I'll check the forecast and convert your budget at the same time."),
            ToolCallPart("get_forecast", {"city": "Lisbon", "days": "three"}, tool_call_id="call_forecast_1"),
            ToolCallPart("convert_currency", '{"amount": 1200, "from_currency": "USD", "to_currency": "EURO"}', tool_call_id="call_fx_1"),
            input_tokens=1480, output_tokens=96, reasoning=41),
        lambda m: response(
            ThinkingPart(content="Both calls were rejected: days must be an integer and the currency must be an ISO code (EUR).",
                         signature="c2lnOnJldHJ5", provider_name="anthropic"),
            ToolCallPart("get_forecast", {"city": "Lisbon", "days": 3}, tool_call_id="call_forecast_2"),
            ToolCallPart("convert_currency", {"amount": 1200, "from_currency": "USD", "to_currency": "EUR"}, tool_call_id="call_fx_2"),
            input_tokens=1795, output_tokens=71, reasoning=28, cache_read=1408),
        lambda m: response(
            TextPart("Good news: 14-16 March in Lisbon looks dry, 17-19 °C with a light breeze, so the Alfama walking tour "
                     "in your photo is fine (bring a layer for the evening)."),
            TextPart(f"Your 1200 USD is about {returns(m)['convert_currency'].content['converted']} EUR at today's rate "
                     f"({returns(m)['convert_currency'].content['rate']})."),
            input_tokens=2010, output_tokens=88, cache_read=1792),
    ]
    agent = Agent(step_model("trip-planner-fn", steps), name="TripPlanner", instructions="You are TripPlanner, a concise travel assistant.")

    @agent.tool_plain
    def get_forecast(city: str, days: int) -> dict[str, Any]:
        """Daily forecast for a city."""
        return {"city": city, "days": [{"date": f"2026-03-{14 + d}", "high_c": 17 + d % 2 * 2, "rain_mm": 0.0} for d in range(days)]}

    @agent.tool_plain
    def convert_currency(amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
        """Convert an amount between ISO 4217 currencies."""
        if len(to_currency) != 3:
            raise ModelRetry(f"Unknown currency {to_currency!r}; use an ISO 4217 code such as EUR.")
        rate = 0.9215
        return {"amount": amount, "from": from_currency, "to": to_currency, "rate": rate, "converted": round(amount * rate, 2)}

    return agent


async def single_agent() -> dict[str, Any]:
    result = await trip_agent().run(TRIP_PROMPT)
    return {"single_agent.messages.json": dump(result.all_messages())}


# --- 2. a router delegating to a researcher through a tool -------------------------------------

QUESTION = ("Is intermittent fasting better than ordinary daily calorie restriction for losing weight? "
            "I want what the trials say, not blog posts.")
PAPERS = [
    {"id": "trial-2022-nejm-trf", "title": "Calorie Restriction with or without Time-Restricted Eating in Weight Loss",
     "year": 2022, "design": "RCT, 139 adults, 12 months"},
    {"id": "review-2021-cochrane-if", "title": "Intermittent fasting versus continuous energy restriction: systematic review",
     "year": 2021, "design": "meta-analysis of 27 RCTs"},
]


def researcher_agent() -> Agent[None, str]:
    steps = [
        lambda m: response(
            ThinkingPart(content="Look for head-to-head randomised trials and a recent meta-analysis.", provider_name="anthropic",
                         signature="c2lnOnJlc2VhcmNo"),
            ToolCallPart("search_papers", {"query": "intermittent fasting vs continuous calorie restriction randomized trial"},
                         tool_call_id="call_search_1"),
            input_tokens=620, output_tokens=44, reasoning=19),
        lambda m: response(
            ToolCallPart("fetch_abstract", {"paper_id": "trial-2022-nejm-trf"}, tool_call_id="call_abstract_1"),
            ToolCallPart("fetch_abstract", {"paper_id": "review-2021-cochrane-if"}, tool_call_id="call_abstract_2"),
            input_tokens=910, output_tokens=52),
        lambda m: response(
            TextPart("Evidence summary: in head-to-head trials intermittent fasting and daily calorie restriction give similar "
                     "weight loss when total calories are matched. The 2022 NEJM trial (139 adults, 12 months) found no "
                     "significant difference (-8.0 vs -6.3 kg); a 2021 meta-analysis of 27 RCTs agrees. Fasting helps some "
                     "people adhere, but it is not better on its own."),
            input_tokens=1460, output_tokens=118, cache_read=896),
    ]
    agent = Agent(step_model("researcher-fn", steps), name="Researcher",
                  instructions="You are Researcher. Answer from peer-reviewed trials only, and cite them.")

    @agent.tool_plain
    def search_papers(query: str) -> list[dict[str, Any]]:
        """Search a literature index."""
        return PAPERS

    @agent.tool_plain
    def fetch_abstract(paper_id: str) -> str:
        """The abstract of one paper."""
        abstracts = {
            "trial-2022-nejm-trf": "Among 139 adults with obesity, time-restricted eating plus calorie restriction was not "
                                   "superior to calorie restriction alone at 12 months (-8.0 kg vs -6.3 kg, P=0.11).",
            "review-2021-cochrane-if": "Intermittent fasting produced weight loss similar to continuous energy restriction "
                                       "(mean difference -0.3 kg, 95% CI -0.9 to 0.3).",
        }
        return abstracts[paper_id]

    return agent


def router_agent(researcher: Agent[None, str], captured: dict[str, list[ModelMessage]]) -> Agent[None, str]:
    steps = [
        lambda m: response(
            TextPart("That needs a look at the clinical trials; I'm handing it to our research agent."),
            ToolCallPart("ask_researcher", {"question": "Compare intermittent fasting with daily calorie restriction for "
                                                        "weight loss, using randomised trials and meta-analyses."},
                         tool_call_id="call_delegate_1"),
            input_tokens=540, output_tokens=61),
        lambda m: response(
            TextPart("Short answer: no. When people eat the same number of calories, intermittent fasting and ordinary "
                     "daily calorie restriction lead to about the same weight loss (a 12-month trial found -8.0 vs -6.3 kg, "
                     "not a significant difference, and a review of 27 trials agrees). Pick the pattern you can stick to."),
            input_tokens=812, output_tokens=87, cache_read=512),
    ]
    agent = Agent(step_model("router-fn", steps), name="Router",
                  instructions="You are Router. Answer simple questions yourself; send research questions to the researcher.")
    return with_delegate_tool(agent, researcher, captured)


def with_delegate_tool(agent: Agent[None, str], researcher: Agent[None, str], captured: dict[str, list[ModelMessage]]) -> Agent[None, str]:
    """Give ``agent`` the ``ask_researcher`` tool: it runs ``researcher`` and keeps its history in ``captured``."""

    @agent.tool
    async def ask_researcher(ctx: RunContext[None], question: str) -> str:
        """Delegate a research question to the Researcher agent."""
        result = await researcher.run(question, usage=ctx.usage)
        captured["researcher"] = result.all_messages()
        return result.output

    return agent


async def router_researcher() -> dict[str, Any]:
    captured: dict[str, list[ModelMessage]] = {}
    result = await router_agent(researcher_agent(), captured).run(QUESTION)
    return {"router.messages.json": dump(result.all_messages()), "researcher.messages.json": dump(captured["researcher"])}


# --- 3. a run stopped on approval-required tools, resumed with one approval and one denial ------


# how the approval run is resumed (tests/test_pydantic_ai.py uses the same decisions)
APPROVALS = {"call_deploy_1": True, "call_delete_1": ToolDenied("Deleting branches needs a second reviewer; ask in #billing-eng.")}


def ops_agent() -> Agent[None, str | DeferredToolRequests]:
    steps = [
        lambda m: response(
            TextPart("Both actions change shared infrastructure, so they need your approval first."),
            ToolCallPart("delete_branch", {"repository": "billing-api", "branch": "feature/old-invoice-export"}, tool_call_id="call_delete_1"),
            ToolCallPart("deploy", {"service": "billing-api", "version": "2.3.1", "environment": "staging"}, tool_call_id="call_deploy_1"),
            input_tokens=702, output_tokens=83),
        lambda m: response(
            TextPart("billing-api 2.3.1 is deploying to staging (deployment dep-5521). I did not delete "
                     "feature/old-invoice-export: the deletion was denied because it needs a second reviewer."),
            input_tokens=905, output_tokens=54, cache_read=640),
    ]
    agent: Agent[None, str | DeferredToolRequests] = Agent(
        step_model("ops-fn", steps), name="OpsAssistant", output_type=[str, DeferredToolRequests],
        instructions="You are OpsAssistant. Destructive or production-affecting actions need human approval.")

    @agent.tool_plain(requires_approval=True)
    def delete_branch(repository: str, branch: str) -> str:
        """Delete a git branch."""
        return f"deleted {repository}:{branch}"

    @agent.tool_plain(requires_approval=True)
    def deploy(service: str, version: str, environment: str) -> dict[str, str]:
        """Deploy a service version."""
        return {"deployment": "dep-5521", "service": service, "version": version, "environment": environment, "status": "rolling out"}

    return agent


async def deferred_approval() -> dict[str, Any]:
    agent = ops_agent()
    first = await agent.run("Clean up the stale branch feature/old-invoice-export in billing-api and deploy billing-api 2.3.1 to staging.")
    assert isinstance(first.output, DeferredToolRequests), first.output
    results = DeferredToolResults(approvals=dict(APPROVALS))
    second = await agent.run(message_history=first.all_messages(), deferred_tool_results=results)
    assert [c.tool_call_id for c in first.output.approvals] == ["call_delete_1", "call_deploy_1"]
    return {"approval_step1.messages.json": dump(first.all_messages()), "approval_step2.messages.json": dump(second.all_messages())}


# --- main ---------------------------------------------------------------------------------------


async def main() -> None:
    write(make_deterministic(await single_agent(), datetime(2026, 3, 2, 8, 15, tzinfo=UTC)))
    pair = make_deterministic(await router_researcher(), datetime(2026, 3, 2, 10, 40, tzinfo=UTC))
    write(pair)
    write(make_deterministic(await deferred_approval(), datetime(2026, 3, 2, 14, 5, tzinfo=UTC)))

    start = datetime(2026, 3, 2, 10, 40, tzinfo=UTC)
    thread = from_pydantic_ai_runs(
        [
            (AgentConfig(agent_id="router", agent_identifier="router_v1", agent_name="Router", created_at=start), pair["router.messages.json"]),
            (AgentConfig(agent_id="researcher", agent_identifier="researcher_v1", agent_name="Researcher", created_at=start),
             pair["researcher.messages.json"]),
        ],
        thread_id=str(uuid.uuid5(ID_NAMESPACE, "router_researcher")),
        title="Intermittent fasting vs calorie restriction (router + researcher)",
    )
    write_thread(thread, HERE / "router_researcher.thread.json")
    print("wrote data/pydantic_ai/router_researcher.thread.json")


if __name__ == "__main__":
    asyncio.run(main())
