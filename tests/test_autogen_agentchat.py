"""AutoGen AgentChat: the real library's saved states and runs (``tests/fixtures/autogen_agentchat/``),
counted against the raw counter (no public files of these shapes were found), and what a team
state gives; the Google ADK and CrewAI fixtures the real programs wrote are counted here too."""

from __future__ import annotations

from pathlib import Path

import pytest

import threadlab as tl
from tests.wild.compare import disagreements
from threadlab.formats.autogen_agentchat import to_threads
from threadlab.formats.common.source import Source

RUN = Path(__file__).parent / "fixtures" / "autogen_agentchat" / "autogen-0.7.5"
ADK = Path(__file__).parent / "fixtures" / "google_adk" / "adk-2.13.0"
CREW = Path(__file__).parent / "fixtures" / "crewai" / "crewai-1.15.30"


@pytest.mark.parametrize(("path", "fmt"), [*((p, "autogen-agentchat") for p in sorted(RUN.glob("*.json"))), *((p, "google-adk") for p in sorted(ADK.iterdir())),
                                            *((p, "crewai") for p in sorted(CREW.iterdir()))],
                         ids=lambda v: v.name if isinstance(v, Path) else v)
def test_the_real_programs_output_counts_what_the_raw_file_holds(path: Path, fmt: str) -> None:
    assert disagreements(path, fmt) == {}


def test_a_team_state_is_its_managers_thread_with_the_handoff() -> None:
    (thread,) = to_threads(Source(RUN / "team_state.json"))
    handoff = next(a for a in thread.actions if a.action_type == "system.handoff")
    assert handoff.data["from_agent_id"] == "planner" and handoff.data["to_agent_id"] == "weather_agent"
    assert handoff.data["tool_call_id"] == "call_transfer_to_weather_agent_2_0"
    returns = [a for a in thread.actions if a.action_type == "tool_return" and a.tool_name == "get_weather"]
    assert [r.status for r in returns] == ["success", "error"]
    assert thread.account.converted == 16 and thread.problems == []


def test_another_agents_words_in_a_context_are_that_agents() -> None:
    """In a team, an agent's context holds the other agents' messages as ``UserMessage``s with
    their ``source``: no human prompt."""
    threads = to_threads(Source(RUN / "team_state.json"))
    assert sum(1 for a in threads[0].actions if a.action_type == "user_message") == 1
    (agent,) = to_threads(Source(RUN / "agent_state.json"))
    assert [a.action_type for a in agent.actions] == ["user_message", "tool_call", "tool_return", "assistant_message"]


def test_crewais_task_prompt_is_the_harnesss() -> None:
    """CrewAI writes every user message of a task (its prompt from the task's description): no
    human prompt, a harness turn; the agent is the task's agent role."""
    frames = tl.load(CREW, progress=False)
    assert set(frames.threads.format) == {"crewai"}
    assert (int(frames.threads.n_human_prompts.sum()), int(frames.threads.n_harness_turns.sum())) == (0, 1)
    assert set(frames.actions.loc[frames.actions.action_type == "tool_call", "agent_id"]) == {"weather_reporter"}


REAL = Path(__file__).parent / "fixtures" / "real" / "autogen_agentchat"


def test_the_04_previews_llm_messages_are_the_agents_context() -> None:
    """The 0.4.0 development releases saved an agent's context as a plain ``llm_messages`` list
    (AutoGen's state tutorial shows it): the agent state reads as one, and a team state accounts
    for the agents' copies as repeats instead of leaving them unaccounted."""
    (agent,) = to_threads(Source(REAL / "autogen-docs-agent-state.json"))
    assert [a.action_type for a in agent.actions] == ["user_message", "assistant_message"]
    assert "llm_messages" not in (agent.metadata or {}).get("autogen", {})
    (team,) = to_threads(Source(REAL / "autogen-docs-team-state.json"))
    assert [a.action_type for a in team.actions] == ["user_message", "assistant_message"]
    assert team.account.converted == 4 and team.problems == []
