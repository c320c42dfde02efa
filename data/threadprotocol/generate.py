"""Regenerate the bundled ThreadProtocol threads in this folder.

    .venv/bin/python data/threadprotocol/generate.py

Each thread is built with threadlab's own ThreadBuilder and written as canonical JSON, so the
files are deterministic: running this again gives the same bytes. They exercise what a
multi-agent run really contains: delegation between agents, parallel tool calls, a tool error
and a validation error, a call left pending on approval, thinking with a provider signature,
system actions (agent_join, tool_grant, config_update, tool_resolved), media content, and a
branch of another thread (parent_thread_id). ``invalid-*.json`` breaks every validation rule on
purpose, for the notebooks and tests that show what threadlab reports.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from threadlab import Thread, ThreadBuilder, write

HERE = Path(__file__).parent
BASE = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
RESEARCH_ID = "5f1c2a9e-7d4b-4c1e-9a3f-2b8e6d0c4a11"


class Clock:
    """Deterministic timestamps: each tick moves forward by the given seconds."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self, seconds: float = 1.0) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


def _usage(inp: int, out: int, *, cache_read: int | None = None, thinking: int | None = None) -> dict[str, int]:
    usage = {"input_tokens": inp, "output_tokens": out, "total_tokens": inp + out}
    if cache_read is not None:
        usage["cache_read_tokens"] = cache_read
    if thinking is not None:
        usage["thinking_tokens"] = thinking
    return usage


def research_team() -> Thread:
    """A planner delegates to a researcher and a writer; parallel searches, one failing."""
    t = Clock(BASE)
    b = ThreadBuilder(RESEARCH_ID, title="Market brief: heat pumps in Nordic countries")
    planner = b.agent("Planner", agent_id="planner", identifier="planner_v3", created_at=BASE,
                      metadata={"model_name": "claude-sonnet-4-5", "provider_name": "anthropic"})
    b.add("user_message", timestamp=t(), content=[
        {"type": "text", "text": "Write a one-page brief on heat-pump adoption in Norway, Sweden and Finland. "
                                 "Use the attached chart of 2024 sales as a starting point."},
        {"type": "image", "content_type": "url", "media_type": "image/png", "media_category": "image",
         "url": "https://example.org/charts/heat-pump-sales-2024.png", "identifier": "chart-2024"},
    ])
    sonnet = {"model_name": "claude-sonnet-4-5", "provider_name": "anthropic"}
    b.add("thinking", timestamp=t(2.4), agent_id=planner, provider_name="anthropic",
          content="Three countries, one page. I need sales per capita and the policy drivers. "
                  "Delegate the numbers to the researcher, the prose to the writer.",
          signature="EqQBCkYIBRgCKkDm0c5w0Z3u8JtB2pQ1x7pVbK0sQm9aD4s1c0Y", usage={"thinking_tokens": 41},
          metadata=sonnet)
    b.add("assistant_message", timestamp=t(0.6), agent_id=planner, finish_reason="tool_call",
          content="I'll bring in a researcher for the figures and a writer for the brief.",
          usage=_usage(1843, 96, cache_read=1200), metadata=sonnet)
    researcher = b.agent("Researcher", agent_id="researcher", identifier="researcher_v2", created_at=t(0.1),
                         metadata={"model_name": "gpt-4o", "provider_name": "openai"})
    b.add("system.agent_join", timestamp=t(0.1), data={"agent_id": researcher, "invited_by": planner})
    b.add("system.tool_grant", timestamp=t(0.1), data={"agent_id": researcher, "tool_name": "web_search",
                                                       "granted_by": planner, "expires_at": "2026-03-02T10:00:00Z"})
    b.add("tool_call", timestamp=t(0.2), agent_id=planner, tool_name="delegate", tool_call_id="toolu_01",
          args={"agent": "Researcher", "task": "2024 heat-pump sales per 1,000 households in NO, SE, FI, with sources"},
          metadata=sonnet)
    gpt = {"model_name": "gpt-4o", "provider_name": "openai"}
    b.add("assistant_message", timestamp=t(1.1), agent_id=researcher, finish_reason="tool_call",
          content="Searching the three national statistics offices in parallel.", usage=_usage(912, 58), metadata=gpt)
    for call_id, country in (("call_no", "Norway"), ("call_se", "Sweden"), ("call_fi", "Finland")):
        b.add("tool_call", timestamp=t(0.05), agent_id=researcher, tool_name="web_search", tool_call_id=call_id,
              args={"query": f"heat pump sales 2024 {country} statistics office", "max_results": 5}, metadata=gpt)
    b.add("tool_return", timestamp=t(1.8), tool_call_id="call_se", tool_name="web_search", status="success",
          content={"results": [{"title": "Heat pumps installed 2024 (SCB)", "url": "https://example.org/scb/hp-2024",
                                "snippet": "Sweden: 129,000 units, 27 per 1,000 households."}]})
    b.add("tool_return", timestamp=t(0.4), tool_call_id="call_no", tool_name="web_search", status="success",
          content={"results": [{"title": "Varmepumper 2024 (SSB)", "url": "https://example.org/ssb/varmepumper",
                                "snippet": "Norway: 96,000 units, 38 per 1,000 households."}]})
    b.add("tool_return", timestamp=t(3.0), tool_call_id="call_fi", tool_name="web_search", status="error",
          content={"error": "TimeoutError", "message": "search backend did not answer within 3.0 s"})
    b.add("tool_call", timestamp=t(0.9), agent_id=researcher, tool_name="fetch_table", tool_call_id="call_fi2",
          args={"url": "https://example.org/stat-fi/heat-pumps", "table": "2024", "rows": "all"}, metadata=gpt)
    b.add("tool_return", timestamp=t(0.3), tool_call_id="call_fi2", tool_name="fetch_table", status="validation_error",
          content=[{"type": "int_parsing", "loc": ["rows"], "msg": "Input should be a valid integer", "input": "all"}])
    b.add("tool_call", timestamp=t(0.8), agent_id=researcher, tool_name="fetch_table", tool_call_id="call_fi3",
          args={"url": "https://example.org/stat-fi/heat-pumps", "table": "2024", "rows": 20}, metadata=gpt)
    b.add("tool_return", timestamp=t(1.2), tool_call_id="call_fi3", tool_name="fetch_table", status="success",
          content={"columns": ["year", "units", "per_1000_households"], "rows": [[2024, 71000, 25]]})
    b.add("assistant_message", timestamp=t(2.2), agent_id=researcher, finish_reason="stop", usage=_usage(2410, 188),
          metadata=gpt, content="2024 sales per 1,000 households: Norway 38, Sweden 27, Finland 25. "
                                "Sources: SSB, SCB, Statistics Finland (table 2024).")
    b.add("tool_return", timestamp=t(0.1), tool_call_id="toolu_01", tool_name="delegate", status="success",
          content="Norway 38, Sweden 27, Finland 25 per 1,000 households (2024).")
    writer = b.agent("Writer", agent_id="writer", identifier="writer_v1", created_at=t(0.1),
                     metadata={"model_name": "claude-haiku-4-5", "provider_name": "anthropic"})
    b.add("system.agent_join", timestamp=t(0.1), data={"agent_id": writer, "invited_by": planner})
    b.add("system.config_update", timestamp=t(0.1), data={"agent_id": writer, "changes": {"max_words": 450, "tone": "plain"}})
    haiku = {"model_name": "claude-haiku-4-5", "provider_name": "anthropic"}
    b.add("assistant_message", timestamp=t(6.5), agent_id=writer, finish_reason="stop", usage=_usage(1322, 611), metadata=haiku,
          content=[{"type": "text", "text": "## Heat pumps in the Nordics, 2024\n\nNorway leads with 38 installations per "
                                            "1,000 households, ahead of Sweden (27) and Finland (25)."},
                   {"type": "text", "text": "Cheap hydro power and long winters explain most of the gap; "
                                            "subsidies matter less than electricity prices."}])
    b.add("assistant_message", timestamp=t(1.0), agent_id=planner, finish_reason="stop", usage=_usage(2950, 74, cache_read=1800),
          metadata=sonnet, content="Here is the brief. Finland's figure came from the statistics office table after the search timed out.")
    return b.build()


def approval_pending() -> Thread:
    """An ops agent asks to run two risky tools: one is approved and runs, one waits."""
    t = Clock(BASE + timedelta(hours=2))
    b = ThreadBuilder("9a7e3c1d-2f4b-4e6a-8c0d-1b3f5e7a9c21", title="Rotate the staging database credentials")
    ops = b.agent("Ops", agent_id="ops", identifier="ops_agent_v1", created_at=t(0),
                  metadata={"model_name": "gpt-4o-mini", "provider_name": "openai"})
    mini = {"model_name": "gpt-4o-mini", "provider_name": "openai"}
    b.add("user_message", timestamp=t(), content="Rotate the staging DB password and restart the API pods.",
          attachments=[{"name": "runbook.md", "url": "https://example.org/runbooks/rotate-db.md",
                        "media_type": "text/markdown", "size_bytes": 4120}])
    b.add("assistant_message", timestamp=t(1.4), agent_id=ops, finish_reason="tool_call", usage=_usage(640, 71), metadata=mini,
          content="Both steps change staging, so each needs your approval.")
    b.add("tool_call", timestamp=t(0.1), agent_id=ops, tool_name="rotate_secret", tool_call_id="call_rot",
          args={"secret": "staging/db/password", "length": 32}, metadata=mini)
    b.add("tool_call", timestamp=t(0.1), agent_id=ops, tool_name="restart_pods", tool_call_id="call_rst",
          args={"namespace": "staging", "selector": "app=api"}, metadata=mini)
    b.add("system.tool_resolved", timestamp=t(95.0), data={"tool_call_id": "call_rot", "resolution": "approved",
                                                           "resolved_by": "user:maria", "resolved_at": "2026-03-02T11:01:37.600000Z"})
    b.add("tool_return", timestamp=t(2.1), tool_call_id="call_rot", tool_name="rotate_secret", status="success",
          content={"rotated": True, "version": 7})
    return b.build()


def research_team_branch(parent: Thread) -> Thread:
    """A branch of the research thread: same opening, the user asks for Denmark too."""
    b = ThreadBuilder("c3d9e1f7-4a2b-4d8c-b6e0-7f1a3c5e9b42", title="Market brief (branch): add Denmark",
                      parent_thread_id=parent.thread_id, metadata={"branched_after_sequence": 3})
    for agent in parent.agents.values():
        b.agent(agent.agent_name, agent_id=agent.agent_id, identifier=agent.agent_identifier,
                created_at=agent.created_at, metadata=agent.metadata)
    for action in parent.actions[:3]:
        fields = action.model_dump(exclude={"action_type", "timestamp", "sequence"}, exclude_none=True)
        b.add(action.action_type, timestamp=action.timestamp, **fields)
    t = Clock(parent.actions[2].timestamp)
    b.add("user_message", timestamp=t(40.0), content="Please include Denmark as well.")
    b.add("assistant_message", timestamp=t(2.0), agent_id="planner", finish_reason="stop",
          usage=_usage(2011, 35), metadata={"model_name": "claude-sonnet-4-5", "provider_name": "anthropic"},
          content="Noted: four countries. I'll widen the research task.")
    return b.build()


def invalid_thread() -> Thread:
    """Breaks each of the five rules once (built leniently, on purpose)."""
    from threadlab.formats.threadprotocol import thread_from_dict

    doc = {
        "version": "1.0.0",
        "thread_id": "00000000-bad0-4bad-8bad-000000000001",
        "created_at": "2026-03-02T12:00:00Z",
        "updated_at": "2026-03-02T12:00:09Z",
        "title": "Broken on purpose: one of each rule",
        "agents": {"helper": {"agent_id": "helper", "agent_identifier": "helper_v1", "agent_name": "Helper",
                              "created_at": "2026-03-02T12:00:00Z"}},
        "actions": [
            {"action_type": "user_message", "timestamp": "2026-03-02T12:00:01Z", "sequence": 1, "content": "Hi"},
            {"action_type": "assistant_message", "timestamp": "2026-03-02T12:00:02Z", "sequence": 3,
             "agent_id": "helper", "content": "sequence skips 2"},
            {"action_type": "tool_return", "timestamp": "2026-03-02T12:00:03Z", "sequence": 3, "tool_call_id": "nope",
             "tool_name": "search", "status": "success", "content": "a return with no call"},
            {"action_type": "assistant_message", "timestamp": "2026-03-02T12:00:04Z", "sequence": 4,
             "agent_id": "ghost", "content": "an agent that is not registered"},
            {"action_type": "AssistantMessage", "timestamp": "2026-03-02T12:00:05Z", "sequence": 5,
             "agent_id": "helper", "content": "an action_type that breaks the naming rule"},
            {"action_type": "user_message", "timestamp": "2026-03-02T11:59:00Z", "sequence": 6,
             "content": "a timestamp that goes backwards"},
        ],
    }
    return thread_from_dict(doc)


def main() -> None:
    research = research_team()
    threads = {
        "research_team.thread.json": research,
        "approval_pending.thread.json": approval_pending(),
        "research_team_branch.thread.json": research_team_branch(research),
        "invalid-one_of_each_rule.thread.json": invalid_thread(),
    }
    for name, thread in threads.items():
        write(thread, HERE / name)
        print(f"wrote {name}: {len(thread.actions)} actions")


if __name__ == "__main__":
    main()
