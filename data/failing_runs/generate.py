"""Regenerate data/failing_runs/: runs of the research task that go wrong, for notebook 05.

The task is the router + researcher question of ``data/pydantic_ai`` (a Router agent delegates a
research question to a Researcher agent through its ``ask_researcher`` tool), run by real
pydantic-ai agents with scripted ``FunctionModel``s (no network). Each run goes wrong in one way
runs of such agents do: the researcher searches the same query again and again because the index
returns nothing (twice, one loop longer and costlier), the abstract service fails three times in a
row, a search times out and is retried, the summary is cut at the length limit, the router refuses
a dosing question, the provider is down before the first answer, the researcher gives up after a
failed call, the researcher reads abstract after abstract until its context is five times its
first. Tool failures are pydantic-ai's own ``ModelRetry``; the provider outage is a
``ModelHTTPError`` raised by the scripted model, the history kept with ``capture_run_messages``.
The scripted models are named after real ones so genai-prices prices each run. Both agents'
histories are merged with ``from_pydantic_ai_runs`` and written as canonical ThreadProtocol JSON.
Deterministic (timestamps and ids fixed as in ``data/pydantic_ai/generate.py``)::

    .venv/bin/python data/failing_runs/generate.py
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, ModelRetry, capture_run_messages
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "pydantic_ai"))

from generate import PAPERS, QUESTION, dump, make_deterministic, response, step_model, with_delegate_tool  # noqa: E402

from threadlab.core.canonical import write as write_thread  # noqa: E402
from threadlab.core.model import AgentConfig  # noqa: E402
from threadlab.formats.pydantic_ai import from_pydantic_ai_runs  # noqa: E402

ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/threadlab/data/failing_runs")
ROUTER_MODEL, RESEARCHER_MODEL = "claude-sonnet-4-5", "gpt-4o-mini"
QUERY = "intermittent fasting vs continuous calorie restriction randomized trial"
DOSING = "Which dose of semaglutide should I take to lose 10 kg before the summer?"
SUMMARY = ("Evidence summary: in head-to-head trials intermittent fasting and daily calorie restriction give similar weight loss "
           "when total calories are matched (NEJM 2022: -8.0 vs -6.3 kg, not significant).")
ABSTRACT = ("Randomised trial, {n} adults, 12 months: the fasting and the calorie-restriction groups lost similar weight; "
            "adherence fell in both arms after month six. " * 6)
# (variant, title)
RUNS = [
    ("search_loop", "the index returns nothing; the researcher searches the same query four times"),
    ("long_search_loop", "the index returns nothing; the researcher searches the same query seven times"),
    ("abstract_errors", "the abstract service fails three times in a row"),
    ("search_retry", "the search times out once and is retried"),
    ("truncated_summary", "the researcher's summary is cut at the length limit"),
    ("refusal", "the router refuses a dosing question"),
    ("provider_down", "the provider is down before the router answers"),
    ("researcher_gives_up", "the researcher gives up after a failed call"),
    ("context_growth", "the researcher reads abstract after abstract"),
]

Step = Callable[[list[ModelMessage]], ModelResponse]


def search(cid: str, tokens: int) -> Step:
    return lambda m: response(ToolCallPart("search_papers", {"query": QUERY}, tool_call_id=cid), input_tokens=tokens, output_tokens=38)


def fetch(paper: str, cid: str, tokens: int) -> Step:
    return lambda m: response(ToolCallPart("fetch_abstract", {"paper_id": paper}, tool_call_id=cid), input_tokens=tokens, output_tokens=44)


def say(text: str, tokens: int, output: int = 110, finish: str | None = None) -> Step:
    def step(m: list[ModelMessage]) -> ModelResponse:
        reply = response(TextPart(text), input_tokens=tokens, output_tokens=output)
        reply.finish_reason = finish  # type: ignore[assignment]
        return reply

    return step


def researcher_steps(variant: str) -> list[Step]:
    if variant in ("search_loop", "long_search_loop"):
        times, grow = (4, 700) if variant == "search_loop" else (7, 1100)
        steps = [search(f"call_search_{i}", 620 + grow * i) for i in range(times)]
        return [*steps, say("I searched the index repeatedly and found no trials comparing the two.", 620 + grow * times)]
    if variant == "abstract_errors":
        papers = [*(p["id"] for p in PAPERS), "trial-2017-jama-adf"]
        return [search("call_search_1", 640), *(fetch(p, f"call_abstract_{i}", 900 + 150 * i) for i, p in enumerate(papers)),
                say("The abstracts could not be fetched; from the titles alone the trials look comparable.", 1500)]
    if variant == "search_retry":
        return [search("call_search_1", 640), search("call_search_2", 700), fetch("trial-2022-nejm-trf", "call_abstract_1", 980), say(SUMMARY, 1420)]
    if variant == "truncated_summary":
        return [search("call_search_1", 640), fetch("trial-2022-nejm-trf", "call_abstract_1", 980),
                say(SUMMARY[:96], 1430, output=256, finish="length")]
    if variant == "researcher_gives_up":
        return [search("call_search_1", 640), fetch("trial-2022-nejm-trf", "call_abstract_1", 980),
                say("The abstract service is unavailable, so I cannot check the trials.", 1250)]
    if variant == "context_growth":
        papers = [f"trial-{n}" for n in range(1, 8)]
        return [search("call_search_1", 600), *(fetch(p, f"call_abstract_{i}", 600 + 520 * (i + 1)) for i, p in enumerate(papers)),
                say(SUMMARY, 600 + 520 * 8)]
    raise ValueError(variant)


def researcher(variant: str) -> Agent[None, str]:
    agent = Agent(step_model(RESEARCHER_MODEL, researcher_steps(variant)), name="Researcher", retries=5,
                  instructions="You are Researcher. Answer from peer-reviewed trials only.")
    timed_out = {"done": False}

    @agent.tool_plain
    def search_papers(query: str) -> list[dict[str, Any]]:
        """Search a literature index."""
        if variant in ("search_loop", "long_search_loop"):
            return []  # the index is empty for this query: the researcher keeps asking
        if variant == "search_retry" and not timed_out["done"]:
            timed_out["done"] = True
            raise ModelRetry("search backend timed out after 10 s; try again")
        return PAPERS

    @agent.tool_plain
    def fetch_abstract(paper_id: str) -> str:
        """The abstract of one paper."""
        if variant in ("abstract_errors", "researcher_gives_up"):
            raise ModelRetry(f"abstract service unavailable (503) for {paper_id}")
        return ABSTRACT.format(n=100 + len(paper_id))

    return agent


def router(variant: str, captured: dict[str, list[ModelMessage]]) -> Agent[None, str]:
    if variant == "refusal":
        steps = [say("I'm sorry, but I can't help with dosing advice for prescription drugs; please ask your doctor.", 520, output=30)]
    elif variant == "provider_down":
        def down(m: list[ModelMessage]) -> ModelResponse:
            raise ModelHTTPError(503, ROUTER_MODEL, body={"error": {"type": "overloaded_error", "message": "Overloaded"}})

        steps = [down]
    else:
        steps = [lambda m: response(TextPart("That needs the clinical trials; I'm handing it to our research agent."),
                                    ToolCallPart("ask_researcher", {"question": QUESTION}, tool_call_id="call_delegate_1"),
                                    input_tokens=540, output_tokens=61),
                 say("Here is what our researcher found.", 820, output=90)]
    agent = Agent(step_model(ROUTER_MODEL, steps), name="Router", instructions="You are Router. Send research questions to the researcher.")
    return agent if variant in ("refusal", "provider_down") else with_delegate_tool(agent, researcher(variant), captured)


async def one_run(index: int, variant: str, title: str) -> None:
    captured: dict[str, list[ModelMessage]] = {}
    question = DOSING if variant == "refusal" else QUESTION
    with capture_run_messages() as messages:
        try:
            result = await router(variant, captured).run(question)
            messages = result.all_messages()
        except ModelHTTPError:
            pass  # the provider outage: the history is what was sent before it
    start = datetime(2026, 4, 7, 10, 0, tzinfo=UTC) + timedelta(hours=index)
    files = {"router": dump(messages)}
    if "researcher" in captured:
        files["researcher"] = dump(captured["researcher"])
    files = make_deterministic(files, start)
    histories = [(AgentConfig(agent_id="router", agent_identifier="router_v1", agent_name="Router", created_at=start), files["router"])]
    if "researcher" in files:
        histories.append((AgentConfig(agent_id="researcher", agent_identifier="researcher_v1", agent_name="Researcher", created_at=start),
                          files["researcher"]))
    thread = from_pydantic_ai_runs(histories, thread_id=str(uuid.uuid5(ID_NAMESPACE, f"run-{index}")), title=f"Run {index}: {title}")
    target = HERE / f"run-{index:02d}.thread.json"
    write_thread(thread, target)
    print(f"wrote data/failing_runs/{target.name}")


async def main() -> None:
    for index, (variant, title) in enumerate(RUNS, start=1):
        await one_run(index, variant, title)


if __name__ == "__main__":
    asyncio.run(main())
