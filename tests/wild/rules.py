"""Every registered format's rule (``tests/wild/count.py`` says what is counted)."""

from __future__ import annotations

from tests.wild.count import Rule
from tests.wild.rules_adk import google_adk
from tests.wild.rules_agents import claude_code, codex, codex_exec
from tests.wild.rules_autogen import autogen_agentchat
from tests.wild.rules_cline import cline
from tests.wild.rules_copilot import copilot_cli
from tests.wild.rules_crewai import crewai
from tests.wild.rules_crush import crush
from tests.wild.rules_exports import langfuse, phoenix
from tests.wild.rules_frameworks import (
    aitp,
    inspect_ai,
    langchain,
    otel,
    pydantic_ai,
    threadprotocol,
    vercel_ai_messages,
    vercel_ai_stream,
)
from tests.wild.rules_gemini import gemini_cli
from tests.wild.rules_goose import goose
from tests.wild.rules_interchange import atif, hf_session_trace
from tests.wild.rules_opencode import opencode
from tests.wild.rules_openhands import openhands
from tests.wild.rules_pi import pi
from tests.wild.rules_providers import (
    agency_swarm,
    anthropic_messages,
    item_list,
    openai_agents_trace,
    openai_chat,
    openai_responses,
)
from tests.wild.rules_qwen import qwen_code
from tests.wild.rules_smolagents import smolagents
from tests.wild.rules_swe import mini_swe_agent, swe_agent

# a rule per format, named after it (``pydantic_ai`` → ``pydantic-ai``); the Agents SDK's session
# items are Responses items (agency-swarm's saved lists are too, with its tags)
COUNTERS: dict[str, Rule] = {
    **{rule.__name__.replace("_", "-"): rule for rule in (threadprotocol, pydantic_ai, vercel_ai_messages, vercel_ai_stream, claude_code, aitp, codex,
                                                         codex_exec, inspect_ai, otel, openai_agents_trace, openai_chat, openai_responses,
                                                         anthropic_messages, langchain, agency_swarm, gemini_cli, qwen_code, atif, opencode,
                                                         copilot_cli, mini_swe_agent, swe_agent, cline, goose, smolagents, pi, crush, google_adk, autogen_agentchat, crewai, phoenix, langfuse, openhands)},
    "openai-agents-session": item_list,
    "hf-session-trace": hf_session_trace,
}
