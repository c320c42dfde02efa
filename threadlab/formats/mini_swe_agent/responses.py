"""mini-swe-agent 2.x's Responses API models (``litellm_response_model``, ``openrouter_response_model``,
``portkey_response_model``) save OpenAI Responses items in ``messages`` instead of Chat messages:
``{"type": "message", role, content: [input_text / output_text parts]}``, the model's whole
response ``{"object": "response", "output": [message / function_call / reasoning items]}``, and
each observation as ``{"type": "function_call_output", call_id, output}``. Each is read as the Chat
message it stands for (what the rest of the reader takes); the item's own fields stay in the
action's metadata (``responses_content``: a message's parts; ``output``: a response's items)."""

from __future__ import annotations

from typing import Any

_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})


def _text(parts: Any) -> str | None:
    """The text of a list of text parts, or None when any part is another kind."""
    if not isinstance(parts, list) or not all(type(p) is dict and p.get("type") in _TEXT_PARTS and isinstance(p.get("text"), str) for p in parts):
        return None
    return "".join(p["text"] for p in parts)


def as_chat(message: Any) -> Any:
    """The Chat message a Responses item stands for; any other value as it came."""
    if type(message) is not dict or ("role" in message and message.get("type") != "message"):
        return message
    rest = {k: v for k, v in message.items() if k not in ("content", "output", "call_id")}
    if message.get("type") == "message" and isinstance(message.get("role"), str):
        text = _text(message.get("content"))
        if text is None:
            return message
        return {**rest, "content": text, "responses_content": message["content"]}
    if message.get("type") == "function_call_output" and isinstance(message.get("call_id"), str):
        return {**rest, "role": "tool", "tool_call_id": message["call_id"], "content": message.get("output")}
    if message.get("object") == "response" and isinstance(message.get("output"), list):
        items = message["output"]
        texts = [_text(i.get("content")) for i in items if type(i) is dict and i.get("type") == "message"]
        calls = [{"id": i.get("call_id"), "type": "function", "function": {"name": i.get("name"), "arguments": i.get("arguments")}}
                 for i in items if type(i) is dict and i.get("type") == "function_call"]
        return {**rest, "role": "assistant", "content": "".join(t or "" for t in texts) or None, "tool_calls": calls, "output": items}
    return message
