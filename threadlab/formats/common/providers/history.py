"""A conversation logged request by request is one thread: which request continues which, and
which of its messages repeat the history (shared by the three provider formats).

A stateless client sends the whole conversation so far in every request: the history, then what
is new. An exchange continues the current thread when its request's messages start with every
message of the thread so far, in order; any other request starts a new thread (a request naming
the previous response by ``previous_response_id`` continues it too: ``continues``). Two rules
make "the same message" what a client actually sends back:

- **Configuration is not history.** A request's configuration message (``Codec.is_config``: the
  Responses ``instructions``, the Anthropic ``system`` parameter, which the codecs read as a
  first message) is left out of the comparison: after an OpenAI Agents SDK handoff the next
  request repeats the run so far under the new agent's instructions, and it continues the
  conversation (the reader records the change: ``system.config_update``). The request's
  configuration repeats the thread's latest one when it is the same, else it is new (and joins
  the history after the request's other new messages: it configures the call this request
  makes; a thread's first one comes first).
- **A copy is the same message when its values are.** ``same``: equal as they are, or equal once
  null, empty-list and empty-object fields are dropped (a response's ``refusal: null`` and
  ``annotations: []`` that a copy leaves out), a call's ``arguments`` JSON text compared by its
  parsed value (simonw/llm sends ``{"a": 1231}`` back for the model's ``{"a":1231}``), and the
  fields a client may drop (``id``, ``status``: the API's item id and state) compared only when
  both copies have them. A call is thus matched by its call id (``call_id``; Chat's
  ``tool_calls[].id``), name and arguments, never by the item id a client leaves out.

Each later copy replaces the one before in the comparison (the next request repeats what this
one sent). The reader keeps a copy that differs from the first as it came (``echo``), so the
writer gives every request back byte for byte."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from threadlab.formats.common.providers.wire import Codec, Exchange

# fields a client may leave out when it sends an item back (the API's item id and its state)
DROPPABLE = frozenset({"id", "status"})
_ARGUMENTS = "arguments"  # a call's arguments as JSON text (Chat's function.arguments, a Responses call's)


@dataclass(frozen=True)
class _Parsed:
    """A call's ``arguments`` text, compared by the JSON value it holds."""

    value: Any


def normal(value: Any) -> Any:
    """A message as compared with its copy in a later request: null, empty-list and empty-object
    fields dropped, ``arguments`` JSON text parsed."""
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if v is None or (isinstance(v, list | dict) and not v):
                continue
            if k == _ARGUMENTS and isinstance(v, str):
                try:
                    out[k] = _Parsed(orjson.loads(v))
                    continue
                except orjson.JSONDecodeError:
                    pass
            out[k] = normal(v)
        return out
    if isinstance(value, list):
        return [normal(v) for v in value]
    return value


def _alike(a: Any, b: Any) -> bool:
    """Normal forms equal, a droppable field compared only when both have it."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = a.keys() | b.keys()
        return all(_alike(a[k], b[k]) if k in a and k in b else k in DROPPABLE for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_alike(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def same(a: Any, b: Any) -> bool:
    """Whether ``b`` is a copy of message ``a`` (see the module docstring)."""
    return bool(a == b) or _alike(normal(a), normal(b))


@dataclass
class Sent:
    """One exchange of a thread: ``at`` is the history index of each of its request's messages,
    ``new`` the request positions of the messages new to the thread, in the order they join the
    history (after them, the response's messages)."""

    exchange: Exchange
    at: list[int] = field(default_factory=list)
    new: list[int] = field(default_factory=list)


class _History:
    """The thread so far as the grouping compares it: the latest copy of each message."""

    def __init__(self, is_config: Callable[[Any], bool]) -> None:
        self.messages: list[Any] = []
        self.is_config = is_config

    def match(self, messages: Sequence[Any]) -> tuple[list[int | None], bool]:
        """The history index each request message repeats (None: new), and whether the request
        repeats every message of the history (configuration aside)."""
        at: list[int | None] = [None] * len(messages)
        told = [i for i, m in enumerate(self.messages) if self.is_config(m)]
        kept = [i for i, m in enumerate(self.messages) if not self.is_config(m)]
        items = [j for j, m in enumerate(messages) if not self.is_config(m)]
        n = 0
        while n < min(len(kept), len(items)) and same(self.messages[kept[n]], messages[items[n]]):
            at[items[n]] = kept[n]
            n += 1
        for j, m in enumerate(messages):
            if self.is_config(m) and told and same(self.messages[told[-1]], m):
                at[j] = told[-1]
        whole = bool(self.messages) and n == len(kept) and (bool(kept) or any(i is not None for i in at))
        return at, whole

    def add(self, messages: Sequence[Any], at: list[int | None]) -> Sent:
        """Takes a request's copies; the new messages join (configuration last, unless the thread
        is empty)."""
        fresh = [j for j, i in enumerate(at) if i is None]
        if self.messages:
            fresh = [j for j in fresh if not self.is_config(messages[j])] + [j for j in fresh if self.is_config(messages[j])]
        placed = list(at)
        for j, i in enumerate(at):
            if i is not None:
                self.messages[i] = messages[j]
        for j in fresh:
            placed[j] = len(self.messages)
            self.messages.append(messages[j])
        return Sent(Exchange(None, None), [i for i in placed if i is not None], fresh)


def iter_exchange_threads(exchanges: list[Exchange], codec: Codec, continues: Callable[[Any, Any], bool] | None = None) -> Iterator[list[Sent]]:
    """Groups of exchanges that make one thread each (see the module docstring), each exchange
    with where its request's messages sit in the thread's history."""
    is_config = getattr(codec, "is_config", None) or (lambda _m: False)
    group: list[Sent] = []
    history = _History(is_config)
    last_response: dict[str, Any] | None = None
    for ex in exchanges:
        messages = codec.request_messages(ex.request) if ex.request is not None else None
        at, whole = history.match(messages) if messages is not None else ([], False)
        follows = messages is not None and bool(group) and (whole or (continues is not None and continues(ex.request, last_response)))
        if group and not follows:
            yield group
            group, history, last_response = [], _History(is_config), None
            at = [None] * len(messages or ())
        sent = history.add(messages or [], at)
        sent.exchange = ex
        group.append(sent)
        if ex.response is not None:
            history.messages.extend(codec.response_messages(ex.response))
            last_response = ex.response
    if group:
        yield group


def index_fields(at: list[int], before: int) -> dict[str, Any]:
    """How the writer finds a request's messages in the history (the exchange's metadata):
    nothing when they are the history's first ones in order; ``repeated`` + ``after`` when the
    request repeats the first ``repeated`` and adds messages from index ``after`` on (a request
    continuing a stored response); else ``at`` as runs of consecutive indices ``[start, stop]``
    (a changed configuration sits apart from the messages it came with)."""
    if at == list(range(len(at))):
        return {}
    repeated = next((k for k, i in enumerate(at) if i != k), len(at))
    if at[repeated:] == list(range(before, before + len(at) - repeated)):
        return {"after": before, "repeated": repeated}
    runs: list[list[int]] = []
    for i in at:
        if runs and runs[-1][1] == i:
            runs[-1][1] = i + 1
        else:
            runs.append([i, i + 1])
    return {"at": runs}


def request_indices(kept: Mapping[str, Any]) -> list[int]:
    """The history index of each message of a request, from the fields ``index_fields`` gave."""
    sent = kept.get("sent", 0)
    if isinstance(kept.get("at"), list):
        runs = [r for r in kept["at"] if isinstance(r, list) and len(r) == 2 and all(type(x) is int for x in r)]
        return [i for start, stop in runs for i in range(start, stop)]
    after, repeated = kept.get("after"), kept.get("repeated", 0)
    return [*range(repeated), *range(after, after + sent - repeated)] if after is not None else list(range(sent))


__all__ = ["DROPPABLE", "Sent", "index_fields", "iter_exchange_threads", "normal", "request_indices", "same"]
