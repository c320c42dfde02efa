"""Which provider a message list or body belongs to: one decision the three provider formats'
detectors share, so that exactly one of them claims a file.

A list of ``{"role", "content"}`` messages with plain text is valid for all three APIs; it is
read as OpenAI Chat Completions (the most common, and the same reading). Anything more decides:
Responses items (``type`` = ``function_call``, parts ``input_text`` ...), Anthropic blocks
(``tool_use``, ``tool_result``, ``thinking``, images with a ``source``), Chat Completions
fields (``tool_calls``, role ``tool``, parts ``image_url``). A body's own fields break the tie
(a top-level ``system`` or a ``claude-*`` model is Anthropic's). Lists holding another format's
keys (agency-swarm's ``callerAgent``, the AI SDK's ``parts`` and v4 ``createdAt``/``toolInvocations``,
AITP's ``thread_id`` ...) are none
of these."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CHAT, RESPONSES, ANTHROPIC = "chat", "responses", "anthropic"

RESPONSES_ITEMS = frozenset({
    "function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output", "computer_call",
    "computer_call_output", "web_search_call", "file_search_call", "local_shell_call", "local_shell_call_output", "mcp_call",
    "mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "image_generation_call", "code_interpreter_call",
    "item_reference", "compaction", "shell_call", "shell_call_output", "apply_patch_call", "apply_patch_call_output",
    "program", "program_output", "tool_search_call", "tool_search_output", "additional_tools", "compaction_trigger",
    "configuration_update",
    "function_call_result",  # the JavaScript Agents SDK's function_call_output
})
_RESPONSES_PARTS = frozenset({"input_text", "output_text", "input_image", "input_file", "input_audio"})
_ANTHROPIC_BLOCKS = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use", "web_search_tool_result",
    "web_fetch_tool_result", "code_execution_tool_result", "mcp_tool_use", "mcp_tool_result", "search_result", "container_upload",
})
_CHAT_PARTS = frozenset({"image_url", "input_audio", "file"})
_CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
_CHAT_FIELDS = frozenset({"tool_calls", "tool_call_id", "function_call"})
# keys that make a list another format's (agency-swarm, AI SDK, pydantic-ai, AITP, ThreadProtocol, Claude Code, LangChain)
_OTHER_KEYS = frozenset({"callerAgent", "agent", "parts", "part_kind", "kind", "thread_id", "created_at", "object", "action_type",
                         "sessionId", "parentUuid", "lc", "data", "additional_kwargs", "response_metadata",
                         # the AI SDK v4 Message (createdAt, toolInvocations ...): vercel-ai-messages
                         "createdAt", "toolInvocations", "experimental_attachments", "annotations",
                         # Cline's / Roo Code's api_conversation_history.json (releases since 3.x): cline
                         "ts", "modelInfo"})


def other_formats_keys(m: Any) -> bool:
    """The object holds a key that makes a list another format's (see ``_OTHER_KEYS``)."""
    return isinstance(m, Mapping) and bool(m.keys() & _OTHER_KEYS)


def _message_kind(m: Any) -> str | None:
    """The provider a message says it is, ``""`` when it fits all three, None when it is no
    provider message at all."""
    if not isinstance(m, Mapping) or m.keys() & _OTHER_KEYS:
        return None
    kind = m.get("type")
    if kind is not None and kind != "message":
        return RESPONSES if isinstance(kind, str) and kind in RESPONSES_ITEMS else None
    role = m.get("role")
    if not isinstance(role, str) or role not in _CHAT_ROLES:
        return None
    if kind == "message":
        return RESPONSES
    if role in ("tool", "function") or m.keys() & _CHAT_FIELDS:
        return CHAT
    content = m.get("content")
    if isinstance(content, list):
        for part in content:
            pk = part.get("type") if isinstance(part, Mapping) and isinstance(part.get("type"), str) else None
            if pk in _RESPONSES_PARTS:
                return RESPONSES
            if pk in _ANTHROPIC_BLOCKS or (pk == "image" and isinstance(part, Mapping) and "source" in part):
                return ANTHROPIC
            if pk in _CHAT_PARTS:
                return CHAT
    elif content is None and role == "assistant":
        return CHAT
    elif not isinstance(content, str):
        return None
    return ""


def list_kind(messages: Any, hint: str = "", default: str = CHAT) -> str | None:
    """The provider of a message list (its first 50 messages decide), ``hint`` choosing between
    equals, else ``default`` (detection: Chat Completions; a reader named by the caller takes
    what fits it); None when the list is no provider's."""
    if not isinstance(messages, list) or not messages:
        return None
    found: set[str] = set()
    for m in messages[:50]:
        kind = _message_kind(m)
        if kind is None:
            return None
        if kind:
            found.add(kind)
    if len(found) > 1:  # mixed markers: Responses items win; else the reader named, if it is one of them
        return RESPONSES if RESPONSES in found else default if default in found else None
    if found:
        return found.pop()
    return hint or default


def body_hint(body: Mapping[str, Any]) -> str:
    """What a request body's own fields say (``""``: nothing)."""
    model = body.get("model")
    tools = body.get("tools")
    first_tool = tools[0] if isinstance(tools, list) and tools and isinstance(tools[0], Mapping) else {}
    if "system" in body or "anthropic_version" in body or "stop_sequences" in body or "input_schema" in first_tool:
        return ANTHROPIC
    if isinstance(model, str) and model.startswith(("claude", "anthropic")):
        return ANTHROPIC
    if first_tool.get("type") == "function" and "function" in first_tool:
        return CHAT
    return ""


def request_kind(body: Mapping[str, Any], default: str = CHAT) -> str | None:
    """The provider of a request body (``messages`` for Chat Completions and Anthropic,
    ``input`` for Responses)."""
    if body.keys() & _OTHER_KEYS - {"object"}:
        return None
    if isinstance(body.get("messages"), list) and "input" not in body:
        return list_kind(body["messages"], body_hint(body), default)
    items = body.get("input")
    if "messages" not in body and (isinstance(items, str) or (isinstance(items, list) and (not items or list_kind(items) is not None))):
        if isinstance(items, list) and items and list_kind(items) == ANTHROPIC:
            return None
        return RESPONSES if body.keys() & {"model", "instructions", "previous_response_id", "tools", "conversation"} else None
    return None


def response_kind(body: Mapping[str, Any]) -> str | None:
    """The provider of a response body."""
    if body.get("object") == "chat.completion" or (
        isinstance(body.get("choices"), list) and body["choices"] and isinstance(body["choices"][0], Mapping) and "message" in body["choices"][0]
    ):
        return CHAT
    if body.get("object") == "response" and isinstance(body.get("output"), list):
        return RESPONSES
    if body.get("type") == "message" and body.get("role") == "assistant" and isinstance(body.get("content"), list):
        return ANTHROPIC
    return None


ANTHROPIC_BLOCKS = _ANTHROPIC_BLOCKS  # the Anthropic block types beside text and image

__all__ = ["ANTHROPIC", "ANTHROPIC_BLOCKS", "CHAT", "RESPONSES", "RESPONSES_ITEMS", "body_hint", "list_kind", "other_formats_keys", "request_kind", "response_kind"]
