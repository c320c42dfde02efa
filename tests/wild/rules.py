"""Every registered format's rule (``tests/wild/count.py`` says what is counted)."""

from __future__ import annotations

from tests.wild.count import Rule
from tests.wild.rules_agents import claude_code, codex, codex_exec
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
from tests.wild.rules_providers import anthropic_messages, item_list, openai_agents_trace, openai_chat, openai_responses

COUNTERS: dict[str, Rule] = {
    "threadprotocol": threadprotocol,
    "pydantic-ai": pydantic_ai,
    "vercel-ai-messages": vercel_ai_messages,
    "vercel-ai-stream": vercel_ai_stream,
    "claude-code": claude_code,
    "agency-swarm": item_list,
    "aitp": aitp,
    "codex": codex,
    "codex-exec": codex_exec,
    "openai-agents-session": item_list,
    "inspect-ai": inspect_ai,
    "otel": otel,
    "openai-agents-trace": openai_agents_trace,
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic-messages": anthropic_messages,
    "langchain": langchain,
}
