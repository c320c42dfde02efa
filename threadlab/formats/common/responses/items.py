"""OpenAI Responses-API input items ↔ ThreadProtocol actions, shared by every format that stores them.

Codex CLI rollouts (``response_item`` payloads), OpenAI Agents SDK sessions (``SQLiteSession``
rows, JSON Lines or a JSON array of session items), agency-swarm's saved lists (the same items
tagged with the agent) and the OpenAI Responses API's own requests and responses all hold the
items the Responses API takes as input: ``message`` (user, assistant, system, developer),
``reasoning``, ``function_call`` / ``custom_tool_call`` / ``local_shell_call`` / ``shell_call`` /
``apply_patch_call`` and their ``*_output`` items, ``item_reference``, and the hosted tools'
calls (``web_search_call``, ``file_search_call`` ...). One mapping serves them all, so a fix to
it fixes all. The JavaScript Agents SDK's spellings (``callId``, ``function_call_result`` with an
output object) read as the Python SDK's. Who speaks (handoffs, runs) is the Agents SDK's
business: ``common/responses/agents_sdk.py``.

Round trips are exact without keeping a second copy of each item: the writer rebuilds an item
from its action by a default rule, and the reader keeps, in the action's
``metadata[<format key>]``, only what that rule would get wrong (``remember`` / ``restore``:
the fields whose value differs, the fields the item lacks, and per content part the same).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.canonical import json_bytes
from threadlab.core.model import BaseAction
from threadlab.core.problems import short
from threadlab.formats.common.arguments import parsed_arguments
from threadlab.formats.common.providers.parts import is_media, read_responses_part, responses_part

PROVIDER = "openai"
# hosted tools run by the provider: the call item holds the result too (no *_output item follows)
HOSTED_CALLS = ("web_search_call", "file_search_call", "image_generation_call", "code_interpreter_call", "mcp_call")
_RESULT_KEYS = ("results", "result", "outputs", "output", "error")
_TEXT_PARTS = ("input_text", "output_text", "text", "summary_text", "reasoning_text")
# where a call item keeps what it was asked (function, custom tool, hosted tools, shell, apply_patch)
_ARG_KEYS = ("arguments", "input", "action", "queries", "code", "operation")
_OUTPUT_SUFFIXES = ("_call_output", "_call_result")  # the Python SDK's, the JS SDK's function_call_result
# outputs named otherwise than ``<call>_output``, and the call each answers (programmatic tool
# calling's program, the tool search); such a call is never hosted: its output item answers it
_OUTPUT_OF = {"program_output": "program", "tool_search_output": "tool_search_call"}
_ANSWERED_CALLS = frozenset(_OUTPUT_OF.values())
_OUTPUT_KEYS = ("output", "result", "tools")  # where an output item holds what the call gave
_INSTRUCTION_ROLES = ("system", "developer")
# the content part types of Responses items: written back as they came
RESPONSES_PARTS = frozenset({*_TEXT_PARTS, "input_image", "input_file", "input_audio", "refusal"})
# what the Responses API records of its own doing, no turn of the model and no call it ran: the
# MCP tool listings and approvals, tool set changes, the compacted history. Read (where the
# reader asks for it) as ``system.<type>`` actions holding the item
PLATFORM_ITEMS = frozenset({"mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "additional_tools", "compaction",
                            "compaction_trigger", "configuration_update"})


def call_id_of(item: Mapping[str, Any]) -> str | None:
    """A call's or an output's call id: ``call_id`` (the API, the Python SDK) or ``callId`` (the
    JavaScript SDK)."""
    value = item["call_id"] if "call_id" in item else item.get("callId")
    return value if isinstance(value, str) else None


def output_text(output: Any) -> Any:
    """A tool output as the tool gave it: the JS SDK wraps text as ``{"type": "text", "text"}``."""
    if isinstance(output, Mapping) and output.get("type") in ("text", "input_text", "output_text") and isinstance(output.get("text"), str):
        return output["text"]
    return output


@dataclass
class ItemReader:
    """Turns items into actions on ``builder``; ``key`` is the metadata key kept per action
    (the format's name), ``calls`` maps each call id seen to its tool name (for the returns)."""

    builder: ThreadBuilder
    key: str
    calls: dict[str, str] = field(default_factory=dict)
    status_of: Callable[[Any], str] | None = None  # a tool output → "success" / "error" (format-specific)
    platform: bool = False  # read PLATFORM_ITEMS as system.<type> actions (else they are unknown)
    open_calls: dict[str, list[str]] = field(default_factory=dict)  # call kind -> its calls with no output yet
    item_ids: dict[str, str] = field(default_factory=dict)  # a call item's id -> its call id
    where: str = ""  # where the item being read is (its problems name it)
    line: int | None = None

    def add(self, item: Mapping[str, Any], *, agent_id: str, timestamp: Any = None, meta: dict[str, Any] | None = None,
            where: str = "", line: int | None = None) -> list[BaseAction] | None:
        """The actions for one item, or None for an item type this mapping does not know (the
        caller keeps it as it came). ``where`` (``line 12``, ``row 3 of agent_messages``) and
        ``line``: where the item is, named in its problems."""
        self.where, self.line = where, line
        kind = item.get("type", "message" if "role" in item else None)
        meta = dict(meta or {})
        if kind == "message" and item.get("role") in ("user", "assistant", *_INSTRUCTION_ROLES):
            return [self._message(item, agent_id, timestamp, meta)]
        if kind == "reasoning":
            return [self._reasoning(item, agent_id, timestamp, meta)]
        if kind == "item_reference":  # points back at an item the conversation already holds
            action = self.builder.add("system.item_reference", timestamp=timestamp, data={"id": item.get("id")}, metadata=meta or None)
            self._remember(action, item)
            return [action]
        if not isinstance(kind, str):
            return None
        if self.platform and kind in PLATFORM_ITEMS:
            return [self.builder.add(f"system.{kind}", timestamp=timestamp, data=dict(item))]
        call_id = call_id_of(item)
        if kind.endswith(_OUTPUT_SUFFIXES) or kind in _OUTPUT_OF:
            call_id = call_id if call_id is not None else self._answered(item, kind)
            if call_id is not None:
                return [self._output(item, kind, call_id, timestamp, meta)]
        if (kind.endswith("_call") or kind in _ANSWERED_CALLS) and (call_id is not None or isinstance(item.get("id"), str) or kind in HOSTED_CALLS):
            return self._call(item, kind, call_id, agent_id, timestamp, meta)
        return None

    def _answered(self, item: Mapping[str, Any], kind: str) -> str | None:
        """The call an output item without a call id answers: the one its ``id`` names (a
        ``local_shell_call_output`` gives the call's id there), else the last call of its kind
        still without an output (a server-run tool search's output follows its call)."""
        item_id = item.get("id") if isinstance(item.get("id"), str) else None
        if item_id is not None and (item_id in self.calls or item_id in self.item_ids):
            return item_id if item_id in self.calls else self.item_ids[item_id]
        call_kind = _OUTPUT_OF.get(kind)
        waiting = self.open_calls.get(call_kind, []) if call_kind else []
        return waiting[-1] if waiting else None

    # --- one kind each -------------------------------------------------------------------
    def _message(self, item: Mapping[str, Any], agent_id: str, timestamp: Any, meta: dict[str, Any]) -> BaseAction:
        role = item.get("role")
        content = decode_content(item.get("content"))
        if role == "user":
            action = self.builder.add("user_message", timestamp=timestamp, content=content, metadata=meta or None)
        elif role == "assistant":
            action = self.builder.add("assistant_message", timestamp=timestamp, agent_id=agent_id, content=content, metadata=meta or None)
        else:  # system / developer instructions: what the model was told, not a turn of the chat
            action = self.builder.add("system.message", timestamp=timestamp, data={"role": role, "content": content}, metadata=meta or None)
        self._remember(action, item)
        return action

    def _listed(self, item: Mapping[str, Any], key: str) -> list[Any]:
        """The item's list under ``key``; another value is a ``schema`` problem (the item is kept
        as it came for the writer)."""
        value = item.get(key)
        if value is None or isinstance(value, list):
            return value or []
        where = f"{self.where}: " if self.where else ""
        self.builder.problem("schema", f"{where}a {item.get('type')} item's {key} is {short(value)}, not a list; none read", line=self.line)
        return []

    def _reasoning(self, item: Mapping[str, Any], agent_id: str, timestamp: Any, meta: dict[str, Any]) -> BaseAction:
        texts = [p.get("text") for p in self._listed(item, "summary") if isinstance(p, Mapping)]
        if not texts:
            texts = [p.get("text") for p in self._listed(item, "content") if isinstance(p, Mapping)]
        text = "\n\n".join(t for t in texts if isinstance(t, str)) or None
        signature = item.get("encrypted_content")
        action = self.builder.add(
            "thinking",
            timestamp=timestamp,
            agent_id=agent_id,
            content=text,
            signature=signature if isinstance(signature, str) else None,
            provider_name=PROVIDER,
            thinking_id=item["id"] if isinstance(item.get("id"), str) else None,
            metadata=meta or None,
        )
        self._remember(action, item)
        return action

    def _call(self, item: Mapping[str, Any], kind: str, call_id: str | None, agent_id: str, timestamp: Any, meta: dict[str, Any]) -> list[BaseAction]:
        """A function, custom or shell tool's call (answered by a later ``*_output`` item), or a
        hosted tool's (a listed kind, or any call with no call id): its item holds its result."""
        hosted = kind in HOSTED_CALLS or (call_id is None and kind not in _ANSWERED_CALLS)
        if call_id is None:
            call_id = item["id"] if isinstance(item.get("id"), str) else f"{kind}_{len(self.builder.actions) + 1}"  # Codex: hosted web searches with no id
        name = item.get("name") if isinstance(item.get("name"), str) else kind.removesuffix("_call")
        self.calls[call_id] = name
        if isinstance(item.get("id"), str):
            self.item_ids[item["id"]] = call_id
        if not hosted:
            self.open_calls.setdefault(kind, []).append(call_id)
        call = self.builder.add("tool_call", timestamp=timestamp, agent_id=agent_id, tool_name=name, tool_call_id=call_id, args=call_args(item), metadata=meta or None)
        self._remember(call, item)
        if not hosted:
            return [call]
        # a hosted tool's call item holds its outcome: the return is made from it (not written back)
        result = {k: item[k] for k in ("status", *_RESULT_KEYS) if k in item}
        failed = item.get("status") in ("failed", "incomplete") or item.get("error") not in (None, "")
        back = self.builder.add(
            "tool_return",
            timestamp=timestamp,
            tool_call_id=call_id,
            tool_name=name,
            status="error" if failed else "success",
            content=result,
            metadata={self.key: {"hosted_result": True}},
        )
        return [call, back]

    def _output(self, item: Mapping[str, Any], kind: str, call_id: str, timestamp: Any, meta: dict[str, Any]) -> BaseAction:
        name = self.calls.get(call_id)
        if name is None:
            self.builder.problem("tool-call-match", f"a {kind} answers call_id {call_id!r}, which no earlier call has")
            name = item["name"] if isinstance(item.get("name"), str) else kind.removesuffix("_output").removesuffix("_result").removesuffix("_call")
        for waiting in self.open_calls.values():
            if call_id in waiting:
                waiting.remove(call_id)
        output = output_text(next((item[k] for k in _OUTPUT_KEYS if k in item), None))
        status = self.status_of(output) if self.status_of is not None else "success"
        action = self.builder.add("tool_return", timestamp=timestamp, tool_call_id=call_id, tool_name=name, status=status, content=output, metadata=meta or None)
        self._remember(action, item)
        return action

    def _remember(self, action: BaseAction, item: Mapping[str, Any]) -> None:
        memo = remember(item, action_item(action, self.key, memo=False) or {})
        if memo:
            meta = getattr(action, "metadata", None) or {}  # (an InvalidAction may have none)
            meta[self.key] = {**meta.get(self.key, {}), "item": memo}
            action.metadata = meta


# --- content -------------------------------------------------------------------------------


def decode_content(content: Any) -> Any:
    """Responses content → ThreadProtocol content: a string stays; one text part becomes its
    text; text parts become text parts, images image parts, ``input_file`` and ``input_audio``
    parts with their data or URL media parts (``providers.parts``), anything else stays as it came."""
    if not isinstance(content, list):
        return "" if content is None else content if isinstance(content, str) else orjson.dumps(content).decode()
    parts = [_part(p) for p in content]
    if len(parts) == 1 and isinstance(parts[0], dict) and parts[0].get("type") == "text" and set(parts[0]) == {"type", "text"}:
        return parts[0]["text"]
    return parts


def _part(part: Any) -> Any:
    if isinstance(part, Mapping):
        if part.get("type") in _TEXT_PARTS and isinstance(part.get("text"), str):
            return {"type": "text", "text": part["text"]}
        if part.get("type") == "input_image" and isinstance(part.get("image_url"), str):
            return {"type": "image", "image_url": part["image_url"]}
        return read_responses_part(part) or dict(part)  # a file or audio with its data or URL: a media part
    return {"type": "unknown", "value": part}


def encode_content(content: Any, role: str | None) -> list[Any]:
    """ThreadProtocol content → Responses content parts (the default rule the reader's memo
    corrects)."""
    text_type = "output_text" if role == "assistant" else "input_text"
    if isinstance(content, str):
        return [{"type": text_type, "text": content}]
    out = []
    for part in content or []:
        data = part if isinstance(part, dict) else part.model_dump(exclude_none=True) if hasattr(part, "model_dump") else part
        encoded = encode_part(data, text_type)
        if encoded is not None:
            out.append(encoded)
    return out


def encode_part(data: Any, text_type: str = "input_text") -> dict[str, Any] | None:
    """A ThreadProtocol part (as a dict) → the Responses part for it: text, an image, a media
    part where a Responses part holds it (``providers.parts``), a Responses part as it came;
    None for anything else (another format's part: the writer leaves it out and names it)."""
    if not isinstance(data, Mapping):
        return None
    kind = data.get("type")
    if kind == "text":
        return {"type": text_type, "text": data.get("text", "")}
    if kind == "image" and (data.get("image_url") or data.get("image_base64")):
        return {"type": "input_image", "image_url": data.get("image_url") or f"data:{data.get('media_type') or 'image/png'};base64,{data['image_base64']}"}
    if is_media(data):
        return responses_part(data)
    return dict(data) if isinstance(kind, str) and kind in RESPONSES_PARTS else None


def call_args(item: Mapping[str, Any]) -> Any:
    """A call's arguments: JSON-decoded when the item gives them as a JSON string."""
    for key in _ARG_KEYS:
        if key in item:
            raw = item[key]
            return parsed_arguments(raw) if key == "arguments" else raw
    return None


# --- back to items -------------------------------------------------------------------------


def return_name_lost(action: BaseAction, item: Mapping[str, Any], calls: set[str]) -> bool:
    """Whether a tool return written as ``item`` loses its tool name: an output item names no
    tool, so reading gives the name of its call when the thread has the call, else the item's
    kind (``function`` for ``function_call_output``), as ``ItemReader`` does."""
    if action.action_type != "tool_return" or getattr(action, "tool_call_id", None) in calls:
        return False
    return getattr(action, "tool_name", None) != str(item.get("type", "")).removesuffix("_call_output")


def action_item(action: BaseAction, key: str, *, memo: bool = True) -> dict[str, Any] | None:
    """The item an action stands for (the default rule, corrected by the reader's memo when
    ``memo``); None for actions that are no item (a hosted tool's made-up return, system
    actions other than instructions)."""
    meta = (getattr(action, "metadata", None) or {}).get(key) or {}  # (an InvalidAction has none)
    meta = meta if isinstance(meta, Mapping) else {}
    if meta.get("hosted_result"):
        return None
    kind = action.action_type
    item: dict[str, Any]
    if kind in ("user_message", "assistant_message"):
        role = "user" if kind == "user_message" else "assistant"
        item = {"type": "message", "role": role, "content": encode_content(action.content, role)}  # type: ignore[attr-defined]
    elif kind == "system.message":
        data = action.data if isinstance(action.data, Mapping) else {}  # type: ignore[attr-defined]
        role = data.get("role") or "system"
        item = {"type": "message", "role": role, "content": encode_content(data.get("content"), role)}
    elif kind == "thinking":
        text = action.content  # type: ignore[attr-defined]
        item = {"type": "reasoning", "summary": [{"type": "summary_text", "text": text}] if text else []}
        if action.thinking_id:  # type: ignore[attr-defined]
            item["id"] = action.thinking_id  # type: ignore[attr-defined]
        if action.signature is not None:  # type: ignore[attr-defined]
            item["encrypted_content"] = action.signature  # type: ignore[attr-defined]
    elif kind == "tool_call":
        args = action.args  # type: ignore[attr-defined]
        item = {"type": "function_call", "name": action.tool_name, "arguments": args if isinstance(args, str) else json_bytes(args).decode(), "call_id": action.tool_call_id}  # type: ignore[attr-defined]
    elif kind == "tool_return":
        item = {"type": "function_call_output", "call_id": action.tool_call_id, "output": action.content}  # type: ignore[attr-defined]
    elif kind == "system.item_reference":
        data = action.data if isinstance(action.data, Mapping) else {}  # type: ignore[attr-defined]
        item = {"type": "item_reference", "id": data.get("id")}
    elif kind.startswith("system.") and kind[7:] in PLATFORM_ITEMS and isinstance(action.data, Mapping) and action.data.get("type") == kind[7:]:  # type: ignore[attr-defined]
        item = dict(action.data)  # type: ignore[attr-defined]  (a platform item holds its type: another format's system.compaction is no item)
    else:
        return None
    return restore(item, meta.get("item")) if memo else item


def remember(item: Mapping[str, Any], rebuilt: Mapping[str, Any]) -> dict[str, Any] | None:
    """What ``restore`` needs to turn ``rebuilt`` into ``item``: differing fields (content
    part by part when both are lists of one length) and the fields ``item`` lacks."""
    memo: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    for k, v in item.items():
        if k in rebuilt and rebuilt[k] == v:
            continue
        if k == "content" and isinstance(v, list) and isinstance(rebuilt.get(k), list) and len(v) == len(rebuilt[k]):
            parts = [remember(p, r) if isinstance(p, Mapping) and isinstance(r, Mapping) else {"fields": {"_": p}} for p, r in zip(v, rebuilt[k], strict=True)]
            memo["parts"] = parts
            continue
        fields[k] = v
    if fields:
        memo["fields"] = fields
    absent = [k for k in rebuilt if k not in item]
    if absent:
        memo["absent"] = absent
    return memo or None


def restore(rebuilt: dict[str, Any], memo: Mapping[str, Any] | None) -> dict[str, Any]:
    if not memo:
        return rebuilt
    out = dict(rebuilt)
    parts = memo.get("parts")
    if isinstance(parts, list) and isinstance(out.get("content"), list) and len(parts) == len(out["content"]):
        out["content"] = [_restore_part(p, m) for p, m in zip(out["content"], parts, strict=True)]
    for k in memo.get("absent", ()):
        out.pop(k, None)
    out.update(memo.get("fields") or {})
    return out


def _restore_part(part: Any, memo: Mapping[str, Any] | None) -> Any:
    if memo and "_" in (memo.get("fields") or {}):
        return memo["fields"]["_"]
    return restore(part, memo) if isinstance(part, dict) else part


__all__ = [
    "HOSTED_CALLS",
    "PLATFORM_ITEMS",
    "PROVIDER",
    "RESPONSES_PARTS",
    "ItemReader",
    "action_item",
    "call_args",
    "call_id_of",
    "decode_content",
    "encode_content",
    "encode_part",
    "output_text",
    "remember",
    "restore",
]
