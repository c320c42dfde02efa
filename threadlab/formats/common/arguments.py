"""A tool call's arguments as the tool got them, from the JSON text the OpenAI-style wire families
carry (Chat Completions ``function.arguments``: ``openai-chat``, LangChain's legacy
``function_call``, mini-swe-agent and SWE-agent trajectories, CrewAI; Responses items'
``arguments``; autogen-core's ``FunctionCall.arguments``): the text parsed, or the text as it
came when it is no JSON (the call itself is kept beside it, so nothing is lost either way). An
empty string is no JSON (kept as ``""``); anything not a string (None, an object a producer
wrote unencoded) is kept as it came."""

from __future__ import annotations

from typing import Any

import orjson


def parsed_arguments(raw: Any, *, objects_only: bool = False) -> Any:
    """``raw`` parsed when it is JSON text (``objects_only``: only a JSON object counts; other JSON
    stays the text), else ``raw`` as it came."""
    if not isinstance(raw, str):
        return raw
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return raw
    return raw if objects_only and not isinstance(parsed, dict) else parsed
