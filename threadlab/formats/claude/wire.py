"""The raw Claude wire: JSON lines read leniently, and Claude Agent SDK objects turned back into
the dicts the CLI wrote.

Everything downstream works on one shape, the wire dict (a transcript line or a stream-json
line), so a transcript, ``claude -p --output-format stream-json`` output and a list of SDK
message objects are read by the same code. The SDK's dataclasses drop timestamps and some
block types, which is why files are read as raw JSON and never through the SDK's parsers."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from threadlab.core.problems import Problem
from threadlab.formats.source import Source

# entry types Claude Code writes into a session transcript (2.1.330 + older versions)
CHAIN_TYPES = frozenset({"user", "assistant", "attachment", "system", "progress"})
BOOKKEEPING_TYPES = frozenset(
    {
        "queue-operation", "last-prompt", "atis-latch", "api-request-shape", "api-request-blob", "api-request",
        "tools-used", "cost-state", "mode", "summary", "file-history-snapshot", "custom-title", "ai-title", "tag",
        "content-replacement", "agent_metadata", "agent-name", "pr-link", "worktree-state",
    }
)
# extra types that only stream-json / the SDK emit
STREAM_TYPES = frozenset({"result", "stream_event", "rate_limit_event", "conversation_reset", "control_request",
                          "control_response", "keep_alive"})
KNOWN_TYPES = CHAIN_TYPES | BOOKKEEPING_TYPES | STREAM_TYPES
# first-line types that identify a Claude file even without a session id
_HEAD_TYPES = frozenset({"summary", "file-history-snapshot", "queue-operation", "custom-title", "ai-title"})

SDK_MESSAGE_CLASSES = frozenset(
    {
        "UserMessage", "AssistantMessage", "SystemMessage", "ResultMessage", "StreamEvent", "RateLimitEvent",
        "ConversationResetMessage", "TaskStartedMessage", "TaskProgressMessage", "TaskNotificationMessage",
        "TaskUpdatedMessage", "HookEventMessage", "MirrorErrorMessage", "SessionMessage",
    }
)


@dataclass(slots=True)
class Entry:
    """One wire dict, with where it came from: ``file`` is the name problems use, ``line`` its
    1-based line (or position in a list), ``agent`` the agent whose file or stream it is in."""

    raw: dict[str, Any]
    file: str
    line: int
    agent: str | None = None
    time: Any = None  # effective (monotonic) timestamp, filled by chain ordering
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def type(self) -> str:
        value = self.raw.get("type")
        return value if isinstance(value, str) else ""

    @property
    def uuid(self) -> str | None:
        value = self.raw.get("uuid")
        return value if isinstance(value, str) else None

    def where(self) -> str:
        return f"{self.file}:{self.line}"


def is_claude_line(obj: Any) -> bool:
    """A parsed first line (or list item) that only Claude Code / the Agent SDK writes."""
    if not isinstance(obj, Mapping):
        return False
    if obj.get("__class__") in SDK_MESSAGE_CLASSES:
        return True
    kind = obj.get("type")
    if kind not in KNOWN_TYPES:
        return False
    if "sessionId" in obj or "session_id" in obj or "parentUuid" in obj:
        return True
    return kind in _HEAD_TYPES and ("leafUuid" in obj or "messageId" in obj or "operation" in obj or "sessionId" in obj)


def sniff_lines(head: bytes) -> bool:
    """Cheap check of a file's first bytes: is its first JSON line a Claude entry?"""
    first = head.lstrip().split(b"\n", 1)[0]
    if first[:1] != b"{":
        return False
    try:
        return is_claude_line(orjson.loads(first))
    except orjson.JSONDecodeError:  # first line longer than the head: look for the envelope keys
        return b'"type"' in first and (b'"sessionId"' in first or b'"parentUuid"' in first or b'"session_id"' in first)


def read_lines(source: Source, file: str, agent: str | None, problems: list[Problem]) -> list[Entry]:
    """Every JSON line of a file; a line that does not parse is reported (file and line named)
    and kept as a ``bad-line`` entry so the thread shows where it was."""
    entries: list[Entry] = []
    for number, line in source.lines():
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            last = number == _last_line_number(source)
            reason = "ends before its JSON does (truncated last line?)" if last else f"is not valid JSON ({exc})"
            problems.append(Problem("json", f"{file}:{number} {reason}; kept as system.unparsed_line", line=number))
            entries.append(Entry({"type": "bad-line", "text": line[:2000].decode("utf-8", "replace")}, file, number, agent))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem("schema", f"{file}:{number} is a JSON {type(obj).__name__}, not an entry object", line=number))
            entries.append(Entry({"type": "bad-line", "value": obj}, file, number, agent))
            continue
        entries.append(Entry(obj, file, number, agent))
    return entries


def _last_line_number(source: Source) -> int:
    count = 0
    for number, line in source.lines():
        if line.strip():
            count = number
    return count


# --- Claude Agent SDK objects → wire dicts -------------------------------------------------


def _plain(value: Any) -> Any:
    """Dataclasses (and lists/dicts of them) as plain JSON-able values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _fields(obj: Any) -> tuple[str | None, dict[str, Any]]:
    """(SDK class name, its fields as a dict) for a dataclass or an ``asdict`` dump with ``__class__``."""
    if isinstance(obj, Mapping):
        name = obj.get("__class__")
        return (name if isinstance(name, str) else None), {k: v for k, v in obj.items() if k != "__class__"}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return type(obj).__name__, {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return None, {}


_BLOCK_TYPES = {
    "TextBlock": "text",
    "ThinkingBlock": "thinking",
    "ToolUseBlock": "tool_use",
    "ToolResultBlock": "tool_result",
    "ServerToolUseBlock": "server_tool_use",
}
# names the API runs itself (claude_agent_sdk.types.ServerToolName)
SERVER_TOOL_NAMES = frozenset({"advisor", "web_search", "web_fetch", "code_execution", "bash_code_execution",
                               "text_editor_code_execution", "tool_search_tool_regex", "tool_search_tool_bm25"})


def block_to_wire(block: Any) -> Any:
    """An SDK content block (object, or its ``asdict`` dump with no ``type``) as the wire block."""
    name = type(block).__name__
    data = _plain(block)
    if not isinstance(data, dict) or "type" in data:
        return data
    if name == "ServerToolResultBlock":
        content = data.get("content")
        kind = content.get("type") if isinstance(content, Mapping) and isinstance(content.get("type"), str) else "server_tool_result"
    else:
        kind = _BLOCK_TYPES.get(name) or _guess_block_type(data)
    return {"type": kind, **data}


def _guess_block_type(data: Mapping[str, Any]) -> str:
    """The block type of an ``asdict`` dump, from its fields (the dump has no ``type``)."""
    if "thinking" in data:
        return "thinking"
    if "tool_use_id" in data:
        return "tool_result" if "is_error" in data else "server_tool_result"
    if "id" in data and "input" in data:
        return "server_tool_use" if data.get("name") in SERVER_TOOL_NAMES else "tool_use"
    if "text" in data:
        return "text"
    return "unknown"


def sdk_to_wire(obj: Any) -> dict[str, Any] | None:
    """The stream-json line an SDK message object was parsed from (as near as its fields allow);
    None when ``obj`` is no SDK message."""
    name, f = _fields(obj)
    if name is None or name not in SDK_MESSAGE_CLASSES:
        return None
    if name == "AssistantMessage":
        message = {
            "id": f.get("message_id"), "type": "message", "role": "assistant", "model": f.get("model"),
            "content": [block_to_wire(b) for b in f.get("content") or []],
            "stop_reason": f.get("stop_reason"), "usage": _plain(f.get("usage")),
        }
        keep = {k: _plain(v) for k, v in f.items() if k not in ("content", "model", "usage", "message_id", "stop_reason")}
        return {"type": "assistant", "message": message, **keep}
    if name == "UserMessage":
        content = f.get("content")
        wire_content = content if isinstance(content, str) else [block_to_wire(b) for b in content or []]
        keep = {k: _plain(v) for k, v in f.items() if k != "content"}
        return {"type": "user", "message": {"role": "user", "content": wire_content}, **keep}
    if name == "SessionMessage":
        return {k: _plain(v) for k, v in f.items()}
    data = f.get("data")
    if isinstance(data, Mapping) and data.get("type"):  # SystemMessage and subclasses keep the raw line
        return _plain(dict(data))
    plain = {k: _plain(v) for k, v in f.items()}
    if name == "ResultMessage":
        plain["modelUsage"] = plain.pop("model_usage", None)
        return {"type": "result", **plain}
    if name == "StreamEvent":
        return {"type": "stream_event", **plain}
    if name == "RateLimitEvent":
        return {"type": "rate_limit_event", **plain}
    if name == "ConversationResetMessage":
        return {"type": "conversation_reset", **plain}
    return {"type": "system", "subtype": plain.get("subtype") or name, **plain}


def is_sdk_list(obj: Any) -> bool:
    """A list of SDK message objects / dumps / stream-json dicts (what ``query()`` yields)."""
    if not isinstance(obj, list | tuple) or not obj:
        return False
    head = list(obj[:5])
    return all(_fields(x)[0] in SDK_MESSAGE_CLASSES or is_claude_line(x) for x in head)


def entries_from_objects(items: Iterable[Any], file: str, problems: list[Problem]) -> list[Entry]:
    """SDK objects or wire dicts → entries; anything else is reported and kept as a bad line."""
    entries: list[Entry] = []
    for index, item in enumerate(items, 1):
        wire = sdk_to_wire(item)
        if wire is None and isinstance(item, Mapping):
            wire = dict(item)
        if wire is None:
            problems.append(Problem("schema", f"{file} item {index} is a {type(item).__name__}, not a Claude message", line=index))
            wire = {"type": "bad-line", "text": repr(item)[:2000]}
        entries.append(Entry(wire, file, index))
    return entries
