"""Reading a provider container into threads: the loop the three provider formats share.

A format subclasses ``MessageReader`` with how one of its messages becomes actions
(``read_message``) and how a response body gives its messages, usage and model
(``read_response``); this module walks the container (``providers.wire``), groups exchanges into
threads, counts the records the repeated history holds, and keeps in the thread's metadata what
the writer needs to give the container back."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Thread, Usage
from threadlab.core.problems import Problem, short
from threadlab.formats.common.json_lines import TORN_REASONS, complete_lines, past_cut_first, refusal, torn_reason, with_edges
from threadlab.formats.common.providers.history import Sent, index_fields, iter_exchange_threads
from threadlab.formats.common.providers.sdk_types import check, defines_kind
from threadlab.formats.common.providers.sse import Event
from threadlab.formats.common.providers.wire import Codec, Container, read_container
from threadlab.formats.common.responses.items import remember
from threadlab.formats.common.source import Source

_TEXT_PARTS = ("text", "input_text", "output_text")
# key, in an action's metadata, of the wire messages of its response that are no action of their own
# (whitespace-only answers beside the response's other items): {history index: message}
RIDERS = "riders"


def blank_text(content: Any) -> bool:
    """Text of whitespace only (a string, a text part or block, a list of them, no text at all):
    no assistant message of its own beside the message's other blocks (issue 24 §1: the
    ``" "`` / ``"\\n\\n"`` a model streams between cited sentences or before a tool call)."""
    if isinstance(content, str):
        return not content.strip()
    if isinstance(content, Mapping):
        text = content.get("text")
        return content.get("type") in _TEXT_PARTS and isinstance(text, str) and not text.strip()
    return isinstance(content, list) and all(isinstance(p, Mapping) and blank_text(p) for p in content)


class MessageReader:
    """One thread being read. Subclasses set ``KEY`` and ``codec`` and implement
    ``read_message``, ``read_response``, ``request_rest``, ``response_rest`` and
    ``message_records``."""

    KEY = ""
    codec: Codec

    def __init__(self, thread_id: str, source: str) -> None:
        self.b = ThreadBuilder(thread_id, source=source)
        self.history: list[Any] = []  # the wire messages so far, by index ("m" in action metadata)
        self.calls: dict[str, str] = {}  # tool call id -> tool name
        self.exchanges: list[dict[str, Any]] = []

    # --- what a format supplies -----------------------------------------------------------------
    def read_message(self, message: Any, index: int, line: int | None, *, response: Mapping[str, Any] | None = None) -> list[BaseAction]:
        raise NotImplementedError

    def read_response(self, body: Mapping[str, Any], line: int | None) -> list[int]:
        """Reads the response's messages (``add_message``); returns their history indices."""
        raise NotImplementedError

    def request_rest(self, body: Mapping[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def response_rest(self, body: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def message_records(self, message: Any) -> int:
        return 1

    def default_message(self, actions: list[BaseAction]) -> Any:
        """The wire message the writer makes of these actions (what the memo corrects)."""
        raise NotImplementedError

    # --- shared ---------------------------------------------------------------------------------
    def add_message(self, message: Any, line: int | None, *, response: Mapping[str, Any] | None = None, count: bool = True) -> int:
        """Reads one wire message into actions, tags them with its history index and keeps what
        the default rebuild would get wrong. ``count``: the message is a record of the input
        (a stream's assembled message is not: its events were)."""
        index = len(self.history)
        self.history.append(message)
        before = self.b.account.records
        actions = self.read_message(message, index, line, response=response)
        if not count:  # undo the count the message made: the stream's events were the records
            self.b.account.converted -= self.b.account.records - before
        for action in actions:
            self.tag(action, {"m": index})
        if actions:
            memo = remember(message, self.default_message(actions)) if isinstance(message, Mapping) else None
            if memo:
                self.tag(actions[0], {"item": memo})
        return index

    def usage_problems(self, body: Mapping[str, Any], line: int | None, phrases: list[str]) -> None:
        """A response's token figures that are no counts (``counts.counts_of``'s phrases), each a
        ``usage`` problem naming the response and its line."""
        where = f"the response {short(body.get('id', ''))}" + (f" (line {line})" if line is not None else "")
        for phrase in phrases:
            self.b.problem("usage", f"{where}: {phrase}", line=line)

    def tag(self, action: BaseAction, values: Mapping[str, Any]) -> None:
        meta = getattr(action, "metadata", None)  # an action kept as it came (InvalidAction) may have none
        if meta is not None and not isinstance(meta, dict):
            return  # a broken action's odd metadata is kept as it came, untagged
        meta = meta if meta is not None else {}
        mine = meta.get(self.KEY)
        meta[self.KEY] = {**(mine if isinstance(mine, Mapping) else {}), **values}
        action.metadata = meta

    def read_exchange(self, sent: Sent, *, count: bool = True) -> None:
        """One exchange: the request's repeated messages are records that repeat what the thread
        holds (a copy that differs is kept as it came: ``echo``), its new ones are read in the
        order the grouping gave them their history index, then the response."""
        ex = sent.exchange
        kept: dict[str, Any] = {"shell": ex.shell} if ex.shell is not None else {}
        if ex.line is not None:
            kept["line"] = ex.line
        if ex.request is not None:
            messages = self.codec.request_messages(ex.request)
            before = len(self.history)
            kept.update(req_path=list(ex.req_path or ()), request=self.request_rest(ex.request), sent=len(messages))
            fresh = set(sent.new)
            repeats = [(j, i) for j, i in enumerate(sent.at) if j not in fresh]
            echo = {str(j): messages[j] for j, i in repeats if messages[j] != self.history[i]}
            if echo:
                kept["echo"] = echo
            if count:
                self.b.took(sum(self.message_records(messages[j]) for j, _ in repeats))  # the repeated history
            kept.update(index_fields(sent.at, before))
            for j in sent.new:
                self.add_message(messages[j], ex.line, count=count)
        if ex.response is not None:
            kept.update(resp_path=list(ex.resp_path or ()), response=self.response_rest(ex.response))
            kept["got"] = self.read_response(ex.response, ex.line)
        self.exchanges.append(kept)

    def build(self, container: str, extra: Mapping[str, Any] | None = None) -> Thread:
        self.b.metadata[self.KEY] = {"container": container, **(extra or {}), **({"exchanges": self.exchanges} if self.exchanges else {})}
        return self.b.build()


def read_threads(source: Source, reader_class: type[MessageReader], what: str) -> list[Thread]:
    """Every thread of a file of ``reader_class``'s format (see the module docstring)."""
    container = read_container(source, reader_class.codec)
    if container is None:
        raise refusal(source, f"is not {what} ({source.describe()})")
    stem = Path(source.name).stem if source.name and not source.name.startswith("<") else "messages"
    if container.kind == "list":
        reader = reader_class(stem, source.name)
        for message in container.messages or []:
            reader.add_message(message, None)
        return [reader.build("list")]
    return _exchange_threads(container, reader_class, stem, source.name)


def _exchange_threads(container: Container, reader_class: type[MessageReader], stem: str, name: str) -> list[Thread]:
    readable = [e for e in container.exchanges if e.request is not None or e.response is not None]
    groups = list(iter_exchange_threads(readable, reader_class.codec, getattr(reader_class, "continues", None)))
    threads: list[Thread] = []
    total = len(container.exchanges)
    for k, group in enumerate(groups):
        thread_id = stem if len(groups) == 1 else f"{stem}-{k + 1}"
        reader = reader_class(thread_id, name)
        for sent in group:
            reader.read_exchange(sent)
        threads.append(reader.build(container.kind, {"of": total} if total != len(group) else None))
    first = threads[0]
    builder_problems = []
    for ex in container.exchanges:
        if ex.request is None and ex.response is None:
            where = f"line {ex.line}" if ex.line is not None else f"item {ex.position + 1}"
            bad = next((msg for n, msg in container.bad_lines if n == ex.line), None)
            torn = bad in TORN_REASONS
            reason = bad if torn else f"is not JSON ({bad})" if bad is not None else "holds no request or response of this format"
            builder_problems.append((ex.line, f"{where} {reason}; skipped", ("truncated" if torn else "json") if bad is not None else "schema"))
    for line, message, rule in builder_problems:  # each skipped document is a record that failed
        first.account.failed += 1
        first.problems.append(Problem(rule, message, first.thread_id, None, name, line))
    return threads


def read_events(
    reader: MessageReader,
    items: Iterable[Event | tuple[int, str]],
    *,
    known: Callable[[Any], bool],
    check_name: str,
    add: Callable[[Mapping[str, Any], int], None],
    what: str,
) -> int:
    """Every event of a stream into ``add`` (the format's assembler, given the event and its
    line), each a record: ``[DONE]`` and events ``add`` takes are converted, an ``error`` event
    becomes a ``system.stream_error`` action and a problem, other JSON is kept as
    ``system.unknown_event``, data that is not JSON is a failed record. Events of a type the
    installed SDK does not define yet (a newer server) are read all the same, with one problem
    per type. Returns how many events there were."""
    b = reader.b
    n = 0
    undefined: dict[str, list[int]] = {}
    for event in items:
        if isinstance(event, tuple):
            b.problem("sse", f"line {event[0]} is no SSE field: {event[1]!r}", line=event[0])
            continue
        n += 1
        where = f"event at line {event.line}"
        value = event.value
        if event.data.strip() == "[DONE]":
            b.took(event.n_data)
        elif event.error is not None:
            if event.torn is not None:
                b.failed("truncated", f"{where}: its data {event.torn}; the other events are read", line=event.line, n=event.n_data)
            else:
                b.failed("json", f"{where}: its data is not JSON ({event.error}); skipped", line=event.line, n=event.n_data)
        elif isinstance(value, Mapping) and (value.get("type") == "error" or ("error" in value and not known(value))):
            b.problem("stream-error", f"{where}: the stream reported an error: {str(value.get('error'))[:200]}", line=event.line)
            b.add("system.stream_error", data=value)
            b.took(event.n_data)
        elif not known(value):
            b.kept("unknown-type", f"{where} is no {what}; kept as system.unknown_event", line=event.line, n=event.n_data)
            b.add("system.unknown_event", data=value)
        else:
            if value.get("type") == "ping":  # the SDKs skip pings unparsed
                reason = None
            elif not defines_kind(check_name, value):
                undefined.setdefault(str(value.get("type")), []).append(event.line)
                reason = None
            else:
                reason = check(check_name, value)
            if reason:
                b.problem("schema", f"{where} is not a valid {what} ({reason}); read as it is", line=event.line)
            add(value, event.line)
            b.took(event.n_data)
    for kind, lines in undefined.items():
        b.problem("schema", f"{len(lines)} event(s) of type {kind!r} (first at line {lines[0]}), which the installed SDK does not define; "
                  "read as the stream's other events give them", line=lines[0])
    return n


def saved_events(source: Source, known: Callable[[Any], bool]) -> list[Event] | None:
    """A stream's events saved as JSON (an array of event objects, or JSON Lines of them; a
    line that is not JSON is an event whose data is not JSON), or None."""
    value = source.try_json()
    if value is not None:
        if isinstance(value, list) and value and known(value[0]):
            return [Event(i + 1, None, "", 1, value=v) for i, v in enumerate(value)]
        return None
    out: list[Event] = []
    for edge in with_edges(source.lines()):
        try:
            out.append(Event(edge.number, None, "", 1, value=orjson.loads(edge.line)))
        except orjson.JSONDecodeError as exc:
            out.append(Event(edge.number, None, "", 1, error=exc.msg, torn=torn_reason(edge.line, exc, edge)))
    first = next((e for e in out if e.torn is None), None)  # a capture's cut first line is no sign
    return out if first is not None and known(first.value) else None


def head_is_saved_events(source: Source, known: Callable[[Any], bool]) -> bool:
    """Cheap: the first JSON Lines line, or the first element of an array, is an event."""
    head = past_cut_first(source.head(65536)).lstrip()
    if head[:1] == b"[":
        value = source.try_json()
        return isinstance(value, list) and bool(value) and known(value[0])
    lines = complete_lines(source.head(65536))  # a capture's cut first line left out
    try:
        return bool(lines) and known(orjson.loads(lines[0]))
    except orjson.JSONDecodeError:
        return False


class StreamFormat:
    """What a provider format's ``detect`` / ``to_threads`` need: its codec (bodies), reader,
    stream reader, stream-event test and the marker a saved stream's head shows."""

    def __init__(self, codec: Codec, reader: type[MessageReader], read_stream: Callable[..., Thread], is_event: Callable[[Any], bool],
                 event_marker: bytes | tuple[bytes, ...], markers: tuple[bytes, ...], what: str) -> None:
        self.codec, self.reader, self.read_stream, self.is_event = codec, reader, read_stream, is_event
        self.event_markers = event_marker if isinstance(event_marker, tuple) else (event_marker,)
        self.markers, self.what = markers, what

    def _marked(self, head: bytes) -> bool:
        """Whether a head may be saved stream events (any marker in its first 4 KiB)."""
        return any(marker in head[:4096] for marker in self.event_markers)

    def detect(self, source: Source) -> bool:
        from threadlab.formats.common.providers.sse import first_event_value, is_sse
        from threadlab.formats.common.providers.wire import container_of, sniff

        if source.is_dir:
            return False
        if source.is_object:
            value = source.obj
            return container_of(value, self.codec) is not None or (isinstance(value, list) and bool(value) and self.is_event(value[0]))
        head = source.head(65536)
        if is_sse(head):
            return self.is_event(first_event_value(head))
        if self._marked(head) and head_is_saved_events(source, self.is_event):
            return True
        return sniff(source, self.codec, self.markers)

    def to_threads(self, source: Source) -> list[Thread]:
        from threadlab.formats.common.providers.sse import is_sse

        if not source.is_object and is_sse(source.head(4096)):
            return [self.read_stream(source)]
        if source.is_object and isinstance(source.obj, list) and source.obj and self.is_event(source.obj[0]):
            return [self.read_stream(source, [Event(i + 1, None, "", 1, value=v) for i, v in enumerate(source.obj)])]
        if not source.is_object and self._marked(source.head(4096)):
            saved = saved_events(source, self.is_event)
            if saved is not None:
                return [self.read_stream(source, saved)]
        return read_threads(source, self.reader, self.what)


def put_usage(actions: list[BaseAction], usage: Usage | None) -> None:
    """A response's usage on the actions it produced (the three provider readers' one rule)."""
    if usage is None or not actions:
        return
    target = next((a for a in actions if a.action_type == "assistant_message"), actions[0])
    # on the message (or the response's first action: a tool call holds it as an extra field, as Codex's do)
    target.usage = usage if target.action_type in ("assistant_message", "thinking") else usage.model_dump(exclude_none=True)  # type: ignore[attr-defined]


__all__ = ["RIDERS", "MessageReader", "StreamFormat", "blank_text", "head_is_saved_events", "put_usage", "read_events", "read_threads", "saved_events"]

