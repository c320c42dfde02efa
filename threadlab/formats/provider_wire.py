"""The containers provider message lists are kept in, shared by the OpenAI Chat Completions,
OpenAI Responses and Anthropic Messages formats (each supplies a ``Codec`` for its messages).

People keep these lists as they were sent or received: a bare list of messages, a request body
(``{"model", "messages" / "input", ...}``), a response body, a request + response pair (also
wrapped as recorded HTTP exchanges ``{"request": {"method", "url", "headers", "body"},
"response": {"status_code", "body"}}`` or OpenAI Batch lines ``{"custom_id", "body"}``), a JSON
array or JSON Lines of those. A conversation logged turn by turn repeats its history in every
request: an exchange whose request starts with everything the thread holds so far continues
that thread (the repeated messages are records that repeat what an earlier one gave), any other
starts a new thread. What the writer needs to give the container back (the bodies' other
fields, the envelopes, how many history messages each request held) is kept in the thread's
metadata under the format's key.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from threadlab.formats.json_lines import TORN, ends_early, with_last
from threadlab.formats.source import Source

Path = tuple[str, ...]
# where the bodies sit in the documents people log (first match wins)
_REQUEST_PATHS: tuple[Path, ...] = ((), ("request", "body"), ("request",), ("body",))
_RESPONSE_PATHS: tuple[Path, ...] = ((), ("response", "body"), ("response",))


class Codec(Protocol):
    """What a provider format tells the shared container code about its bodies."""

    def is_request(self, body: Mapping[str, Any]) -> bool: ...

    def is_response(self, body: Mapping[str, Any]) -> bool: ...

    def is_message_list(self, value: list[Any]) -> bool: ...

    def request_messages(self, body: Mapping[str, Any]) -> list[Any]: ...

    def response_messages(self, body: Mapping[str, Any]) -> list[Any]: ...


@dataclass
class Exchange:
    """One document of the input: a request and/or a response (bodies), the document they sat
    in with the bodies cut out (``shell``), where they sat (``req_path`` / ``resp_path``) and the
    document's line (JSON Lines) or position (array)."""

    request: dict[str, Any] | None
    response: dict[str, Any] | None
    shell: Any = None
    req_path: Path | None = None
    resp_path: Path | None = None
    line: int | None = None
    position: int = 0


@dataclass
class Container:
    """The input's shape: ``list`` (a bare message list), ``doc`` (one document), ``array`` (a
    JSON array of documents) or ``jsonl`` (JSON Lines of documents); ``bad_lines`` are JSON
    Lines lines that are not JSON (line number, error)."""

    kind: str
    exchanges: list[Exchange] = field(default_factory=list)
    messages: list[Any] | None = None
    bad_lines: list[tuple[int, str]] = field(default_factory=list)


# --- bodies inside documents ------------------------------------------------------------------


def _at(doc: Any, path: Path) -> Any:
    for key in path:
        if not isinstance(doc, Mapping):
            return None
        doc = doc.get(key)
    return doc


def _cut(doc: Any, paths: Sequence[Path | None]) -> Any:
    """A copy of ``doc`` with the values at ``paths`` replaced by None (None when a path is the
    whole document: nothing is left around the body)."""
    if any(p == () for p in paths if p is not None):
        return None
    out = _copy_path(doc, [p for p in paths if p])
    return out


def _copy_path(doc: Any, paths: list[Path]) -> Any:
    if not paths:
        return doc
    out = dict(doc)
    heads = {p[0] for p in paths}
    for head in heads:
        rest = [p[1:] for p in paths if p[0] == head]
        out[head] = None if any(not r for r in rest) else _copy_path(out[head], [r for r in rest if r])
    return out


def put(shell: Any, path: Path | None, body: Any) -> Any:
    """``shell`` with ``body`` put back at ``path`` (the inverse of the cut)."""
    if path is None:
        return shell
    if not path:
        return body
    out = dict(shell)
    out[path[0]] = put(out.get(path[0]), path[1:], body)
    return out


def exchange_of(doc: Any, codec: Codec) -> Exchange | None:
    """The request/response a document holds for ``codec``, or None."""
    if not isinstance(doc, Mapping):
        return None
    req_path = next((p for p in _REQUEST_PATHS if isinstance(_at(doc, p), Mapping) and codec.is_request(_at(doc, p))), None)
    resp_path = next((p for p in _RESPONSE_PATHS if isinstance(_at(doc, p), Mapping) and codec.is_response(_at(doc, p))), None)
    if req_path == () and resp_path == ():
        resp_path = None  # a body that looks like both is a request (it holds the messages)
    if req_path is None and resp_path is None:
        return None
    return Exchange(
        request=dict(_at(doc, req_path)) if req_path is not None else None,
        response=dict(_at(doc, resp_path)) if resp_path is not None else None,
        shell=_cut(doc, [req_path, resp_path]),
        req_path=req_path,
        resp_path=resp_path,
    )


# --- files --------------------------------------------------------------------------------------


def container_of(value: Any, codec: Codec) -> Container | None:
    """How a parsed JSON value holds ``codec``'s messages, or None."""
    if isinstance(value, list):
        if value and codec.is_message_list(value):
            return Container("list", messages=value)
        found = [exchange_of(v, codec) for v in value]
        if value and found[0] is not None and all(f is not None for f in found[:3]):
            out = Container("array")
            for i, (doc, ex) in enumerate(zip(value, found, strict=True)):
                out.exchanges.append(ex if ex is not None else Exchange(None, None, shell=doc, position=i))
                out.exchanges[-1].position = i
            return out
        return None
    ex = exchange_of(value, codec)
    return Container("doc", exchanges=[ex]) if ex is not None else None


def read_container(source: Source, codec: Codec) -> Container | None:
    """The container of a file: one JSON value, else JSON Lines (each line a document)."""
    value = source.try_json()
    if value is not None:
        return container_of(value, codec)
    out = Container("jsonl")
    for number, raw, last in with_last(source.lines()):
        try:
            doc = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            out.bad_lines.append((number, TORN if last and ends_early(raw, exc) else exc.msg))  # TORN: a live file's last line
            out.exchanges.append(Exchange(None, None, shell=None, line=number, position=len(out.exchanges)))
            continue
        ex = exchange_of(doc, codec)
        if ex is None:
            ex = Exchange(None, None, shell=doc)
        ex.line, ex.position = number, len(out.exchanges)
        out.exchanges.append(ex)
    return out if any(e.request is not None or e.response is not None for e in out.exchanges) else None


def sniff(source: Source, codec: Codec, markers: tuple[bytes, ...]) -> bool:
    """Cheap detection: a marker in the head, then the first JSON value (or the first JSON
    Lines line) must be one of ``codec``'s containers."""
    head = source.head(65536)
    stripped = head.lstrip()
    if stripped[:1] not in (b"{", b"[") or not any(m in head for m in markers):
        return False
    first = _first_value(source, head)
    return first is not None and container_of(first, codec) is not None


def _first_value(source: Source, head: bytes) -> Any:
    """The whole file's JSON value, else its first line's (JSON Lines)."""
    value = source.try_json()
    if value is not None:
        return value
    line = head.lstrip().split(b"\n", 1)[0]
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


# --- the history a conversation log repeats -------------------------------------------------------


def normal(value: Any) -> Any:
    """A message as compared with its copy in a later request: null, empty-list and empty-object
    fields dropped (a response carries ``refusal: null``, ``annotations: []`` that the next
    request's copy may leave out)."""
    if isinstance(value, Mapping):
        return {k: normal(v) for k, v in value.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [normal(v) for v in value]
    return value


def same(a: Any, b: Any) -> bool:
    return a == b or normal(a) == normal(b)


def common_prefix(history: Sequence[Any], messages: Sequence[Any]) -> int:
    """How many of ``messages`` repeat the start of ``history``, in order."""
    n = 0
    for old, new in zip(history, messages, strict=False):
        if not same(old, new):
            break
        n += 1
    return n


def iter_exchange_threads(exchanges: list[Exchange], codec: Codec, continues: Any = None) -> Iterator[list[tuple[Exchange, int]]]:
    """Groups of exchanges that make one thread each, with how many history messages each
    request repeats. An exchange continues the current thread when its request starts with
    the whole history so far (or ``continues(request, last_response)`` says so: a Responses
    request naming the previous response's id)."""
    group: list[tuple[Exchange, int]] = []
    history: list[Any] = []
    last_response: dict[str, Any] | None = None
    for ex in exchanges:
        messages = codec.request_messages(ex.request) if ex.request is not None else None
        repeated = common_prefix(history, messages) if messages is not None else 0
        follows = messages is not None and group and (
            (history and repeated == len(history)) or (continues is not None and continues(ex.request, last_response))
        )
        if group and not follows:
            yield group
            group, history, last_response = [], [], None
            repeated = 0
        whole = repeated == len(history)
        group.append((ex, repeated))
        if messages is not None:
            # a request that repeats the whole history replaces it (its copies are what the next
            # one repeats); one that continues a stored response adds what it does not repeat
            history = list(messages) if whole else [*history, *messages[repeated:]]
        if ex.response is not None:
            history.extend(codec.response_messages(ex.response))
            last_response = ex.response
    if group:
        yield group


def dumps(value: Any, *, indent: bool) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)


__all__ = [
    "Codec",
    "Container",
    "Exchange",
    "common_prefix",
    "container_of",
    "dumps",
    "exchange_of",
    "iter_exchange_threads",
    "normal",
    "put",
    "read_container",
    "same",
    "sniff",
]
