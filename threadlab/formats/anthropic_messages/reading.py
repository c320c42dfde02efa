"""Anthropic Messages → actions.

A record is a content block (a message whose content is a string, or has no block, is one; the
request's ``system`` is one, or one per block: a ``system.message``, or, when a later request of a
logged conversation changes it, a ``system.config_update`` ``{agent_id, changes: {system}}``). A user message's ``tool_result`` blocks become
tool returns (``is_error`` → status error), its other blocks one user message (in block order);
an assistant message's ``text`` blocks become assistant messages (a whitespace-only one beside
the message's other blocks is none: the ``" "`` / ``"\\n\\n"`` streamed between a web search's
cited sentences or before a tool call; it is kept whole on the message's first action,
``blank_blocks``, and written back in its place), ``thinking`` /
``redacted_thinking`` thinking (the signature, or the redacted data, kept as the signature),
``tool_use`` / ``server_tool_use`` / ``mcp_tool_use`` tool calls, and the server tools'
``*_tool_result`` blocks (web search and fetch, code execution, bash and text editor code
execution, tool search, advisor, ``mcp_tool_result``) their returns (an ``*_error`` content, or
``is_error``, is an error). Blocks of a type threadlab does not map (``compaction``,
``fallback``, ``mcp_tool_listing``, ...) are kept as ``system.unknown_block`` with a problem
naming the type. A response's usage (input counting the cache reads and writes) goes on its
first text, else its first action. Messages are checked against the ``anthropic`` package's
(beta) ``MessageParam``, responses against ``Message``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from threadlab.core.model import BaseAction, Usage
from threadlab.formats.anthropic_messages.codec import (
    AGENT,
    BLANK_BLOCKS,
    KEY,
    PROVIDER,
    SYSTEM,
    AnthropicCodec,
    blocks_of,
    default_message,
)
from threadlab.formats.common.counts import counts_of
from threadlab.formats.common.providers.parts import guess_type, media
from threadlab.formats.common.providers.reading import MessageReader, blank_text, put_usage
from threadlab.formats.common.providers.sdk_types import check

FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_call", "max_tokens": "length", "refusal": "content_filter"}
_CALLS = ("tool_use", "server_tool_use", "mcp_tool_use")
# user blocks read as parts of the user message (those other than text and images as they came)
_USER_PARTS = ("text", "image", "document", "search_result", "container_upload")


def decode_block(block: Mapping[str, Any]) -> dict[str, Any]:
    """A user content block → a ThreadProtocol part (text, image, a document of base64 data or a
    URL as a media part; others as they came)."""
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        return {"type": "text", "text": block["text"]}
    source = block.get("source") if isinstance(block.get("source"), Mapping) else {}
    if kind == "image" and source.get("type") == "base64" and isinstance(source.get("data"), str):
        return {"type": "image", "image_base64": source["data"], "media_type": source.get("media_type")}
    if kind == "image" and source.get("type") == "url" and isinstance(source.get("url"), str):
        return {"type": "image", "image_url": source["url"]}
    if kind == "document" and source.get("type") == "base64" and isinstance(source.get("data"), str) and isinstance(source.get("media_type"), str):
        return media(media_type=source["media_type"], data=source["data"])  # a PDF: an RC2 media part (its other fields in the memo)
    if kind == "document" and source.get("type") == "url" and isinstance(source.get("url"), str):
        return media(media_type=guess_type(source["url"]), url=source["url"])
    return dict(block)


def anthropic_usage(usage: Any, problems: list[str] | None = None) -> Usage | None:
    """A response's usage (input counting the cache reads and writes). A figure that is no
    count (``counts.count_of``) is a phrase in ``problems`` and leaves out what it is part of."""
    if not isinstance(usage, Mapping):
        return None
    figures = {k: usage.get(k) for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")}
    counts = counts_of(figures, problems if problems is not None else [], "usage.")
    if not counts:
        return None
    read, write = counts.get("cache_read_input_tokens"), counts.get("cache_creation_input_tokens")
    inputs_read = all(k in counts for k, v in figures.items() if k != "output_tokens" and v is not None)
    total_in = sum(v for k, v in counts.items() if k != "output_tokens") if "input_tokens" in counts and inputs_read else None
    out = counts.get("output_tokens")
    fields = {
        "input_tokens": total_in,
        "output_tokens": out,
        "total_tokens": total_in + out if total_in is not None and out is not None else None,
        "cache_read_tokens": read,
        "cache_write_tokens": write,
    }
    return Usage(**{k: v for k, v in fields.items() if v is not None})


class AnthropicReader(MessageReader):
    KEY = KEY
    codec = AnthropicCodec(default="anthropic")  # a reader asked for Anthropic reads plain-text lists too

    def message_records(self, message: Any) -> int:
        return blocks_of(message)

    def read_message(self, message: Any, index: int, line: int | None, *, response: Mapping[str, Any] | None = None) -> list[BaseAction]:
        b = self.b
        where = f"message {index + 1}" + (f" (line {line})" if line is not None else "")
        if not isinstance(message, Mapping):
            b.kept("schema", f"{where} is a JSON {type(message).__name__}, not a message; kept as system.unknown_message", line=line)
            return [b.add("system.unknown_message", data=message)]
        role, content = message.get("role"), message.get("content")
        if role == SYSTEM:
            b.took(blocks_of(message))
            if index:  # a later request's new system prompt: the agent's configuration changed
                return [b.add("system.config_update", data={"agent_id": b.agent(AGENT), "changes": {SYSTEM: content}})]
            return [b.add("system.message", data={"role": SYSTEM, "content": content})]
        if response is None:
            reason = check("anthropic.message", message)
            if reason:
                b.problem("schema", f"{where} is not a MessageParam ({reason}); read as it is", line=line)
        if role not in ("user", "assistant"):
            b.kept("unknown-type", f"{where} has role {role!r}, which Anthropic Messages does not define; kept as system.unknown_message", line=line, n=blocks_of(message))
            return [b.add("system.unknown_message", data=dict(message))]
        if isinstance(content, str) or not isinstance(content, list) or not content:
            b.took()
            kind = "user_message" if role == "user" else "assistant_message"
            agent = {} if role == "user" else {"agent_id": b.agent(AGENT), "metadata": self._meta(response)}
            return [b.add(kind, content=content if isinstance(content, str) else [], **agent)]
        return self._user(content, where, line) if role == "user" else self._assistant(content, where, line, response)

    def _meta(self, response: Mapping[str, Any] | None) -> dict[str, Any] | None:
        model = response.get("model") if response is not None else None
        return {"model_name": model, "provider_name": PROVIDER} if isinstance(model, str) else None

    def _user(self, blocks: list[Any], where: str, line: int | None) -> list[BaseAction]:
        b = self.b
        actions: list[BaseAction] = []
        parts: list[Any] = []

        def flush() -> None:
            if parts:
                actions.append(b.add("user_message", content=list(parts)))
                parts.clear()

        for n, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, Mapping) else None
            if kind == "tool_result":
                flush()
                actions.append(self._result(block, where, line))
            elif kind in _USER_PARTS:
                parts.append(decode_block(block))
            elif isinstance(block, Mapping) and kind is not None:
                b.kept("unknown-type", f"{where}: block {n} of type {kind!r} is not one threadlab maps; kept as a part of the user message", line=line)
                parts.append(dict(block))
                continue
            else:
                flush()
                b.kept("schema", f"{where}: block {n} is no content block ({str(block)[:80]}); kept as system.unknown_block", line=line)
                actions.append(b.add("system.unknown_block", data=block))
                continue
            b.took()
        flush()
        return actions

    def _result(self, block: Mapping[str, Any], where: str, line: int | None) -> BaseAction:
        call_id = block.get("tool_use_id") if isinstance(block.get("tool_use_id"), str) else ""
        if call_id not in self.calls:
            self.b.problem("tool-call-match", f"{where}: a tool_result answers {call_id!r}, which no earlier tool_use made", line=line)
        content = block.get("content")
        if isinstance(content, list):
            content = [decode_block(p) if isinstance(p, Mapping) else p for p in content]
        status = "error" if block.get("is_error") is True else "success"
        return self.b.add("tool_return", tool_call_id=call_id, tool_name=self.calls.get(call_id) or "unknown", status=status, content=content)

    def _assistant(self, blocks: list[Any], where: str, line: int | None, response: Mapping[str, Any] | None) -> list[BaseAction]:
        b = self.b
        agent = b.agent(AGENT)
        meta = self._meta(response)
        actions: list[BaseAction] = []
        blanks = [n for n, block in enumerate(blocks) if isinstance(block, Mapping) and block.get("type") == "text" and blank_text(block)]
        if len(blanks) == len(blocks):
            blanks = []  # the message is whitespace only: that is its answer
        skip = set(blanks)
        for n, block in enumerate(blocks):
            kind = block.get("type") if isinstance(block, Mapping) else None
            copy = dict(meta) if meta else None
            if n in skip:
                b.took()  # no message of its own: kept whole on the message's first action (``blank_blocks``)
                continue
            if kind == "text":
                actions.append(b.add("assistant_message", agent_id=agent, content=block.get("text") or "", metadata=copy))
            elif kind == "thinking":
                actions.append(b.add("thinking", agent_id=agent, content=block.get("thinking"), signature=block.get("signature"), provider_name=PROVIDER, metadata=copy))
            elif kind == "redacted_thinking":
                actions.append(b.add("thinking", agent_id=agent, content=None, signature=block.get("data"), provider_name=PROVIDER, metadata=copy))
            elif kind in _CALLS and isinstance(block.get("id"), str):
                name = block.get("name") if isinstance(block.get("name"), str) else kind
                self.calls[block["id"]] = name
                actions.append(b.add("tool_call", agent_id=agent, tool_name=name, tool_call_id=block["id"], args=block.get("input"), metadata=copy))
            elif isinstance(kind, str) and kind.endswith("_tool_result") and isinstance(block.get("tool_use_id"), str):
                call_id = block["tool_use_id"]
                content = block.get("content")
                failed = block.get("is_error") is True or (isinstance(content, Mapping) and str(content.get("type", "")).endswith("_error"))
                actions.append(b.add("tool_return", tool_call_id=call_id, tool_name=self.calls.get(call_id) or kind, status="error" if failed else "success", content=content))
            else:
                b.kept("unknown-type", f"{where}: block {n} of type {kind!r} is not one threadlab maps; kept as system.unknown_block", line=line)
                actions.append(b.add("system.unknown_block", data=block))
                continue
            b.took()
        if blanks:
            self.tag(actions[0], {BLANK_BLOCKS: [[n, blocks[n]] for n in blanks]})
        return actions

    def read_response(self, body: Mapping[str, Any], line: int | None, *, count: bool = True, checked: bool = True) -> list[int]:
        if checked:
            reason = check("anthropic.response", body)
            if reason:
                self.b.problem("schema", f"the response {body.get('id', '')} is not a Message ({reason}); read as it is", line=line)
        start = len(self.b.actions)
        got = [self.add_message({"role": "assistant", "content": body.get("content")}, line, response=body, count=count)]
        mine = self.b.actions[start:]
        phrases: list[str] = []
        put_usage(mine, anthropic_usage(body.get("usage"), phrases))
        self.usage_problems(body, line, phrases)
        finish = FINISH.get(body.get("stop_reason")) if isinstance(body.get("stop_reason"), str) else None
        for action in mine:
            if action.action_type == "assistant_message" and finish:
                action.finish_reason = finish  # type: ignore[attr-defined]
        return got

    def request_rest(self, body: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in body.items() if k not in ("messages", SYSTEM) or (k == SYSTEM and v is None)}

    def response_rest(self, body: Mapping[str, Any]) -> Any:
        return {k: v for k, v in body.items() if k != "content"}

    def default_message(self, actions: list[BaseAction]) -> Any:
        return default_message(actions)
