"""What a span reader hands to the assembly: spans already interpreted, and messages already
normalised, whatever convention (GenAI old or new, OpenInference, the Agents SDK's own spans)
they were written in.

A ``Msg`` is one chat message as a model saw or produced it; its ``key`` is the same for the
same message written by any convention (a tool call's args as a JSON string or an object, text
as a string or a list of text parts), which is how a history repeated on every model call is
read once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

# what a span is for the conversation
AGENT = "agent"  # an agent run (invoke_agent, OpenInference AGENT, the Agents SDK's agent span)
MODEL = "model"  # a model call with its input and output messages
TOOL = "tool"  # a tool execution (execute_tool, OpenInference TOOL, the Agents SDK's function span)
HANDOFF = "handoff"  # one agent hands the conversation to another
STRUCTURE = "structure"  # a wrapper the tree needs and the thread does not (turns, chains, "running tools")
SYSTEM = "system"  # a GenAI or OpenInference span of another kind (embeddings, retrieval, guardrail, ...)
FOREIGN = "foreign"  # a span of no GenAI convention (HTTP, database, ...): kept as system.span, with a problem


@dataclass(slots=True)
class Part:
    """One part of a message: ``text``, ``reasoning``, ``tool_call`` (id, name, args),
    ``tool_result`` (id, name, result), ``media`` (raw: the wire part) or ``other`` (raw)."""

    kind: str
    text: str | None = None
    id: str | None = None
    name: str | None = None
    args: Any = None
    result: Any = None
    raw: Any = None

    def key(self) -> tuple[Any, ...]:
        if self.kind == "tool_call":
            return ("tool_call", self.id, self.name, json_value(self.args))
        if self.kind == "tool_result":
            return ("tool_result", self.id, json_value(self.result))
        if self.kind in ("text", "reasoning"):
            return (self.kind, self.text)
        return (self.kind, json_value(self.raw))


@dataclass(slots=True)
class Msg:
    role: str
    parts: list[Part]
    finish_reason: str | None = None
    _key: bytes | None = field(default=None, repr=False)

    @property
    def key(self) -> bytes:
        if self._key is None:
            # a tool result is the same message whether it came as role tool or role user
            role = "tool" if self.parts and all(p.kind == "tool_result" for p in self.parts) else self.role
            self._key = orjson.dumps([role, [p.key() for p in self.parts]], default=repr, option=orjson.OPT_SORT_KEYS)
        return self._key


    @property
    def raw(self) -> Any:
        return None

    @property
    def cheap_role(self) -> str:
        return self.role


class LazyMsg:
    """A message parsed only when needed: every model call repeats the history, and the part
    of it already read is recognised by comparing the wire objects (``raw``) themselves."""

    __slots__ = ("_msg", "_read", "cheap_role", "raw")

    def __init__(self, raw: dict[str, Any], read: Callable[[Any], Msg | None]) -> None:
        """``raw``: a wire object whose ``role`` is a string (``messages.message_list`` makes
        them): the role the assembly asks of every message of every history, kept, not parsed."""
        self.raw = raw
        self._read = read
        self._msg: Msg | None = None
        self.cheap_role: str = raw["role"]

    def get(self) -> Msg:
        if self._msg is None:
            self._msg = self._read(self.raw) or Msg("user", [Part("other", raw=self.raw)])
        return self._msg

    @property
    def role(self) -> str:
        return self.get().role

    @property
    def parts(self) -> list[Part]:
        return self.get().parts

    @property
    def finish_reason(self) -> str | None:
        return self.get().finish_reason

    @property
    def key(self) -> bytes:
        return self.get().key


def same(a: Msg | LazyMsg, b: Msg | LazyMsg) -> bool:
    """The same message: equal wire objects (no parsing), else equal keys (unless ``_differ``
    tells they cannot be, without making them: most histories compared part ways at a message)."""
    if a is b:
        return True
    ra, rb = a.raw, b.raw
    if ra is not None and rb is not None and (ra is rb or ra == rb):
        return True
    if _differ(a.get() if type(a) is LazyMsg else a, b.get() if type(b) is LazyMsg else b):
        return False
    return a.key == b.key


def _differ(a: Msg, b: Msg) -> bool:
    """Messages whose keys (``Msg.key``) differ: other numbers or kinds of parts (each part's key
    starts with its kind), a text or reasoning part of other text (its key is (kind, text)), or
    another role (the key's role: "tool" for results only, the same for both when the kinds are)."""
    pa, pb = a.parts, b.parts
    if len(pa) != len(pb):
        return True
    for x, y in zip(pa, pb, strict=True):
        if x.kind != y.kind or (x.kind in ("text", "reasoning") and x.text != y.text):
            return True
    results_only = bool(pa) and all(p.kind == "tool_result" for p in pa)
    return not results_only and a.role != b.role


def json_value(value: Any) -> Any:
    """A JSON string holding an object or array as that value, anything else as it is: span
    attributes can only be strings, so producers JSON-encode messages and tool args (sometimes
    one way in one span and the other way in the next)."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


@dataclass(slots=True)
class SpanHead:
    """What every span has: ids (hex for OpenTelemetry), name, unix-nanosecond times."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int
    end: int
    # neither time could be read: its actions get none (the builder puts each after the one
    # before, and counts it in ``synthetic_timestamps``); ``start`` and ``end`` then only place
    # it among the spans of its file (``settle_untimed``)
    untimed: bool = False


@dataclass(slots=True)
class Span(SpanHead):
    """One span, interpreted. ``line``: where it is in its file."""

    role: str = FOREIGN
    agent_name: str | None = None
    conversation_id: str | None = None
    error: str | None = None
    line: int | None = None
    # model calls
    inputs: list[Msg] | None = None
    outputs: list[Msg] | None = None
    system: list[str] = field(default_factory=list)
    usage: dict[str, int] | None = None
    model: str | None = None
    provider: str | None = None
    finish_reasons: list[str] | None = None
    # tools
    tool_name: str | None = None
    call_id: str | None = None
    args: Any = None
    result: Any = None
    has_result: bool = False
    # handoffs (agent names)
    from_agent: str | None = None
    to_agent: str | None = None
    # agent runs: the history the run ended with, when the producer writes it
    history: list[Msg] | None = None
    # what the thread keeps of a span that is not a conversation step (system actions)
    data: dict[str, Any] | None = None
    # problems found reading this span: (rule, message); the span is then counted as kept
    problems: list[tuple[str, str]] = field(default_factory=list)
    # thread-level facts (trace title, resource attributes, workflow name)
    thread_meta: dict[str, Any] | None = None
    title: str | None = None


def settle_untimed(spans: list[SpanHead]) -> None:
    """Place each span whose times could not be read (``untimed``) where it is in its file, at
    the start of the timed span before it (else the first after it): its place in time order,
    not a time anything is given."""
    timed = [s.start for s in spans if not s.untimed]
    before = timed[0] if timed else 0
    for span in spans:
        if span.untimed:
            span.start = span.end = before
        else:
            before = span.start

