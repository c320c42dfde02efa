"""Regenerate data/task_runs/: eight runs of one task by real pydantic-ai agents, for compare_runs.

The task is the router + researcher question of ``data/pydantic_ai`` (a Router agent delegates a
research question to a Researcher agent through its ``ask_researcher`` tool). Each run is a real
pydantic-ai run with ``FunctionModel``s (scripted, no network) whose script varies the way runs
of one task vary: the search backend times out once and the researcher retries, it reads a third
abstract, it refines its query, the router answers without delegating. Token counts and the
model's pace differ per run; the scripted models are named after real ones (claude-sonnet-4-5 for
the router, gpt-4o-mini for the researcher) so that genai-prices prices each run. Both agents' histories are merged with ``from_pydantic_ai_runs`` and
written as canonical ThreadProtocol JSON. Deterministic (seeded; timestamps and ids fixed as in
``data/pydantic_ai/generate.py``)::

    .venv/bin/python data/task_runs/generate.py
"""

from __future__ import annotations

import asyncio
import random
import sys
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import ModelMessage, TextPart, ToolCallPart

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "pydantic_ai"))

from generate import PAPERS, QUESTION, dump, make_deterministic, response, step_model, with_delegate_tool  # noqa: E402

from threadlab.core.canonical import write as write_thread  # noqa: E402
from threadlab.core.model import AgentConfig  # noqa: E402
from threadlab.formats.pydantic_ai import from_pydantic_ai_runs  # noqa: E402

ID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/threadlab/data/task_runs")
# how each run differs from the plain one (run 1)
VARIANTS = ["plain", "search_timeout", "third_abstract", "plain", "refined_query", "search_timeout", "no_delegation", "third_abstract"]
# the scripted models carry the names of the models such agents run on, so genai-prices prices them
ROUTER_MODEL, RESEARCHER_MODEL = "claude-sonnet-4-5", "gpt-4o-mini"
ABSTRACTS = {
    "trial-2022-nejm-trf": "Among 139 adults with obesity, time-restricted eating plus calorie restriction was not superior to "
                           "calorie restriction alone at 12 months (-8.0 kg vs -6.3 kg, P=0.11).",
    "review-2021-cochrane-if": "Intermittent fasting produced weight loss similar to continuous energy restriction "
                               "(mean difference -0.3 kg, 95% CI -0.9 to 0.3).",
    "trial-2017-jama-adf": "Alternate-day fasting did not produce superior adherence, weight loss or weight maintenance compared "
                           "with daily calorie restriction over 12 months (-6.0% vs -5.3%).",
}
SUMMARY = ("Evidence summary: in head-to-head trials intermittent fasting and daily calorie restriction give similar weight loss "
           "when total calories are matched. The 2022 NEJM trial found no significant difference (-8.0 vs -6.3 kg); a 2021 "
           "meta-analysis of 27 RCTs agrees.")


def researcher(variant: str, rng: random.Random) -> Agent[None, str]:
    tokens = lambda base: int(base * rng.uniform(0.85, 1.3))  # noqa: E731
    search = lambda q, cid: response(ToolCallPart("search_papers", {"query": q}, tool_call_id=cid), input_tokens=tokens(620), output_tokens=tokens(40))  # noqa: E731
    query = "intermittent fasting vs continuous calorie restriction randomized trial"
    steps = [lambda m: search(query, "call_search_1")]
    if variant == "search_timeout":
        steps.append(lambda m: search(query, "call_search_2"))  # the first search failed: retried
    if variant == "refined_query":
        steps.append(lambda m: search(query + " 12 months adherence", "call_search_2"))
    papers = ["trial-2022-nejm-trf", "review-2021-cochrane-if"] + (["trial-2017-jama-adf"] if variant == "third_abstract" else [])
    steps.append(lambda m: response(*(ToolCallPart("fetch_abstract", {"paper_id": p}, tool_call_id=f"call_abstract_{i}") for i, p in enumerate(papers, 1)),
                                    input_tokens=tokens(910), output_tokens=tokens(52)))
    steps.append(lambda m: response(TextPart(SUMMARY), input_tokens=tokens(1460 + 400 * (len(papers) - 2)), output_tokens=tokens(118), cache_read=tokens(600)))
    agent = Agent(step_model(RESEARCHER_MODEL, steps), name="Researcher", instructions="You are Researcher. Answer from peer-reviewed trials only.")
    failed = {"done": False}

    @agent.tool_plain
    def search_papers(query: str) -> list[dict[str, Any]]:
        """Search a literature index."""
        if variant == "search_timeout" and not failed["done"]:
            failed["done"] = True
            raise ModelRetry("search backend timed out after 10 s; try again")
        return PAPERS

    @agent.tool_plain
    def fetch_abstract(paper_id: str) -> str:
        """The abstract of one paper."""
        return ABSTRACTS[paper_id]

    return agent


def router(variant: str, rng: random.Random, helper: Agent[None, str], captured: dict[str, list[ModelMessage]]) -> Agent[None, str]:
    answer = lambda m: response(TextPart("Short answer: no. With the same calories, intermittent fasting and daily calorie restriction "  # noqa: E731
                                         "lead to about the same weight loss. Pick the pattern you can stick to."),
                                input_tokens=int(812 * rng.uniform(0.9, 1.2)), output_tokens=int(87 * rng.uniform(0.9, 1.3)), cache_read=512)
    if variant == "no_delegation":
        steps = [answer]
    else:
        steps = [lambda m: response(TextPart("That needs the clinical trials; I'm handing it to our research agent."),
                                    ToolCallPart("ask_researcher", {"question": QUESTION}, tool_call_id="call_delegate_1"),
                                    input_tokens=int(540 * rng.uniform(0.9, 1.2)), output_tokens=61), answer]
    agent = Agent(step_model(ROUTER_MODEL, steps), name="Router", instructions="You are Router. Send research questions to the researcher.")
    return with_delegate_tool(agent, helper, captured)


def spread(files: dict[str, Any], start: datetime, pace: float) -> dict[str, Any]:
    """Fixed timestamps (as data/pydantic_ai does), then stretched by this run's pace."""
    fixed = make_deterministic(files, start)

    def stretch(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: (start + (datetime.fromisoformat(v.replace("Z", "+00:00")) - start) * pace).isoformat().replace("+00:00", "Z")
                    if k == "timestamp" and isinstance(v, str) else stretch(v) for k, v in value.items()}
        if isinstance(value, list):
            return [stretch(v) for v in value]
        return value

    return stretch(fixed)


async def one_run(index: int, variant: str) -> None:
    rng = random.Random(1000 + index)
    captured: dict[str, list[ModelMessage]] = {}
    result = await router(variant, rng, researcher(variant, rng), captured).run(QUESTION)
    start = datetime(2026, 3, 4, 9, 0, tzinfo=UTC) + timedelta(hours=index)
    files = {"router": dump(result.all_messages())}
    if "researcher" in captured:
        files["researcher"] = dump(captured["researcher"])
    files = spread(files, start, rng.uniform(0.6, 2.5))
    histories = [(AgentConfig(agent_id="router", agent_identifier="router_v1", agent_name="Router", created_at=start), files["router"])]
    if "researcher" in files:
        histories.append((AgentConfig(agent_id="researcher", agent_identifier="researcher_v1", agent_name="Researcher", created_at=start),
                          files["researcher"]))
    thread = from_pydantic_ai_runs(histories, thread_id=str(uuid.uuid5(ID_NAMESPACE, f"run-{index}")),
                                   title=f"Intermittent fasting vs calorie restriction, run {index} ({variant.replace('_', ' ')})")
    target = HERE / f"run-{index:02d}.thread.json"
    write_thread(thread, target)
    print(f"wrote data/task_runs/{target.name}")


async def main() -> None:
    for index, variant in enumerate(VARIANTS, start=1):
        await one_run(index, variant)


if __name__ == "__main__":
    asyncio.run(main())
