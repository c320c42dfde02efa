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

from threadlab.formats.common.json_lines import CUT_FIRST, cut_first
from threadlab.formats.common.source import Source

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
# keys of ``metadata.claude`` the reader adds beside the line's own envelope (the writer leaves them out)
READER_KEYS = ("message", "block", "block_index", "blank_blocks", "usage_is_snapshot", "stream_events", "stream_events_after", "line", "absent")
# first-line types that identify a Claude file even without a session id
_HEAD_TYPES = frozenset({"summary", "file-history-snapshot", "queue-operation", "custom-title", "ai-title"})

SDK_MESSAGE_CLASSES = frozenset(
    {
        "UserMessage", "AssistantMessage", "SystemMessage", "ResultMessage", "StreamEvent", "RateLimitEvent",
        "ConversationResetMessage", "TaskStartedMessage", "TaskProgressMessage", "TaskNotificationMessage",
        "TaskUpdatedMessage", "HookEventMessage", "MirrorErrorMessage", "SessionMessage",
    }
)


UNREAD: Any = object()  # an Entry's ``stamp`` before it is parsed


@dataclass(slots=True, init=False)
class Entry:
    """One wire dict, with where it came from: ``file`` is the name problems use, ``line`` its
    1-based line (or position in a list), ``agent`` the agent whose file or stream it is in.
    ``problem`` is (rule, message) for a line that could not be read as an entry (it is kept as
    ``system.unparsed_line`` and counted as kept)."""

    raw: dict[str, Any]
    file: str
    line: int
    agent: str | None = None
    time: Any = None  # effective (monotonic) timestamp, filled by chain ordering
    problem: tuple[str, str] | None = None
    # read from ``raw`` once (it is never changed): every stage asks for them, several times a line
    type: str = field(init=False)
    uuid: str | None = field(init=False)
    stamp: Any = field(init=False, default=UNREAD)  # the line's own timestamp, parsed when first asked (chain.py)

    def __init__(self, raw: dict[str, Any], file: str, line: int, agent: str | None = None, time: Any = None,
                 problem: tuple[str, str] | None = None) -> None:
        # (written out, not generated with a __post_init__: one made per line of every file)
        self.raw = raw
        self.file = file
        self.line = line
        self.agent = agent
        self.time = time
        self.problem = problem
        self.stamp = UNREAD
        kind = raw.get("type")
        self.type = kind if isinstance(kind, str) else ""
        uuid = raw.get("uuid")
        self.uuid = uuid if isinstance(uuid, str) else None

    def where(self) -> str:
        return f"{self.file}:{self.line}"


def _qwen_record(obj: Mapping[str, Any]) -> bool:
    """Qwen Code writes Claude's envelope too, with Gemini API ``parts`` in its messages (never
    ``content``) and a ``systemPayload`` on its system lines: its format, not this one."""
    message = obj.get("message")
    if isinstance(message, Mapping):
        return "parts" in message and "content" not in message
    return obj.get("type") == "system" and "systemPayload" in obj and "content" not in obj


def is_claude_line(obj: Any) -> bool:
    """A parsed line (or list item) that only Claude Code / the Agent SDK writes: an SDK message,
    an entry with Claude's envelope (``sessionId``, ``session_id``, ``parentUuid``), or, for
    files without that envelope (claude.ai web exports, trimmed or older transcripts), a
    ``user``/``assistant`` entry wrapping an API message, an ``attachment`` entry, or a
    ``summary``/snapshot/queue line."""
    if not isinstance(obj, Mapping):
        return False
    if isinstance(obj.get("__class__"), str) and obj["__class__"] in SDK_MESSAGE_CLASSES:
        return True
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in KNOWN_TYPES:
        return False
    if _qwen_record(obj):
        return False
    if "sessionId" in obj or "session_id" in obj or "parentUuid" in obj:
        return True
    if kind in ("user", "assistant"):
        message = obj.get("message")
        return isinstance(message, Mapping) and message.get("role") in ("user", "assistant") and "content" in message
    if kind == "attachment":
        attachment = obj.get("attachment")
        return isinstance(attachment, Mapping) and isinstance(attachment.get("type"), str)
    if kind == "system" and obj.get("subtype") == "init":  # stream-json's first line, trimmed of its ids
        return True
    if kind == "result":  # ``claude -p --output-format json`` without --verbose: the result alone
        return isinstance(obj.get("subtype"), str) and ("is_error" in obj or "total_cost_usd" in obj or "num_turns" in obj)
    return kind in _HEAD_TYPES and ("leafUuid" in obj or "messageId" in obj or "operation" in obj)


def is_transcript_entry(obj: Any) -> bool:
    """A Claude line in the transcript's dialect (camelCase envelope), not stream-json output
    (``session_id``) or an SDK object dump (``__class__``)."""
    return is_claude_line(obj) and "session_id" not in obj and "__class__" not in obj


def first_entry(head: bytes, *, lines: int = 3) -> Any:
    """The first JSON object among the first lines of ``head`` (None when none parses): what
    detection looks at. A line cut off by the end of the head is skipped."""
    for line in head.lstrip().split(b"\n")[:lines]:
        if not line.strip():
            continue
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        return obj
    return None


def sniff_lines(head: bytes) -> bool:
    """Cheap check of a file's first bytes: is its first JSON line a Claude entry?"""
    stripped = head.lstrip()
    if stripped[:1] != b"{":
        return False
    first = stripped.split(b"\n", 1)[0]
    try:
        return is_claude_line(orjson.loads(first))
    except orjson.JSONDecodeError:  # first line longer than the head: look for the envelope keys
        if b"\n" not in stripped and len(head) >= 65536:
            return b'"type"' in first and (b'"sessionId"' in first or b'"parentUuid"' in first or b'"session_id"' in first)
        return False


def loglines(obj: Any) -> list[Any] | None:
    """The entries of a claude.ai web session export (``{"loglines": [...]}``), when ``obj`` is
    one whose first entries are Claude lines."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("loglines"), list):
        return None
    items = obj["loglines"]
    head = [x for x in items[:5] if isinstance(x, Mapping)]
    return items if head and all(is_claude_line(x) for x in head) else None


def is_blank(block: Any) -> bool:
    """A text block of whitespace only (the ``"\\n\\n"`` Claude Code streams before a tool call):
    no message of its own when its message has another block."""
    if type(block) is not dict and not isinstance(block, Mapping):
        return False
    text = block.get("text")
    return block.get("type") == "text" and isinstance(text, str) and not text.strip()


def records_of(raw: Mapping[str, Any]) -> int:
    """How many input records a wire dict holds: the content blocks of its message (a line
    without blocks is one record). What ``tests/conformance/records.py`` counts, and what the
    converter's account must add up to."""
    message = raw.get("message")
    content = message.get("content") if type(message) is dict or isinstance(message, Mapping) else None
    return len(content) if isinstance(content, list) and content else 1


BAD_LINE = "bad-line"  # the type of the entry standing for a line that is no entry object


def read_lines(source: Source, file: str, agent: str | None = None) -> list[Entry]:
    """Every JSON line of a file; a line that does not parse is kept as a ``bad-line`` entry
    (its text whole) carrying its problem (file and line named), so the thread shows where it
    was and the account counts it as kept. (One loop over the lines: a blank line is told only
    when it does not parse, and the torn edges by position, with no ``with_edges`` generator a
    line and no list of the non-blank lines on this hot path.)"""
    entries: list[Entry] = []
    append, loads = entries.append, orjson.loads
    first = True  # no non-blank line before this one
    for number, line in source.lines():
        try:
            obj = loads(line)
        except orjson.JSONDecodeError as exc:
            if not line or line.isspace():
                continue
            problem = ("truncated", CUT_FIRST) if first and cut_first(line) else ("json", str(exc))  # a capture begun mid-line
            append(Entry({"type": BAD_LINE, "text": line.decode("utf-8", "replace")}, file, number, agent, problem=problem))
            first = False
            continue
        first = False
        if type(obj) is not dict:  # (orjson gives dict itself)
            problem = ("schema", f"is a JSON {type(obj).__name__}, not an entry object")
            append(Entry({"type": BAD_LINE, "value": obj}, file, number, agent, problem=problem))
            continue
        append(Entry(obj, file, number, agent))
    if entries and entries[-1].problem is not None and entries[-1].problem[0] == "json":
        last = entries[-1]
        last.problem = ("truncated", "ends before its JSON does (a cut-off last line)")
    return entries


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
    """A list of SDK message objects / dumps or of Claude lines (what ``query()`` yields, what
    ``claude -p --output-format json --verbose`` prints, stream-json saved as an array): its first
    item is a Claude message and the next few are objects too."""
    if not isinstance(obj, list | tuple) or not obj:
        return False
    head = list(obj[:5])
    if not (_fields(head[0])[0] in SDK_MESSAGE_CLASSES or is_claude_line(head[0])):
        return False
    return all(isinstance(x, Mapping) or _fields(x)[0] in SDK_MESSAGE_CLASSES for x in head[1:])


def entries_from_objects(items: Iterable[Any], file: str) -> list[Entry]:
    """SDK objects or wire dicts → entries; anything else is kept as a bad line with its problem."""
    entries: list[Entry] = []
    for index, item in enumerate(items, 1):
        wire = sdk_to_wire(item)
        if wire is None and isinstance(item, Mapping):
            wire = dict(item)
        if wire is None:
            problem = ("schema", f"is a {type(item).__name__}, not a Claude message")
            value = item if isinstance(item, str | int | float | bool | list) or item is None else repr(item)
            entries.append(Entry({"type": BAD_LINE, "value": value}, file, index, problem=problem))
            continue
        entries.append(Entry(wire, file, index))
    return entries
