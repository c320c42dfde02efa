"""The frames route: a converted file straight to its thread's JSON object, without one pydantic
model per action and without ``Thread.to_dict`` (Claude Code transcripts, pydantic-ai histories).

``threadlab.load`` wants each thread's JSON object (``read_documents``), not a Thread. The
converter (Claude's ``convert.py``, pydantic-ai's ``specs.py``) stays the one place that decides what each line becomes, which
problems it raises and how the input is accounted for; only the builder differs:
``DocBuilder`` writes each action as the object ``model_to_dict`` would give for it, once the
values fit the action's model exactly (the checks ``core/shape.py`` compiles from the
models, as the ThreadProtocol fast path uses them). An action whose values do not fit is built
the careful way (``ThreadBuilder.add``: the model, or ``InvalidAction`` with its ``schema``
problem) and written by ``model_to_dict``, so its problems read the same. The thread's head,
agents and metadata go through the models and ``to_dict`` as before (a few objects a thread).

Each action object, and its free-form values (``args``, ``content``, ``data``, ``metadata``),
are handed over as the converter made them: equal to the canonical object (``==``), only their
keys are not in canonical order, which nothing that reads the object for frames or validation
depends on (JSON text for the frames is written with sorted keys). A model given as a field's value (a usage, content
parts) is written as ``model_to_dict`` writes it. Anything unexpected (a line kind the route was not
written for) sends the whole file the careful way: ``to_documents`` returns None."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from functools import cache
from typing import Any

from pydantic import BaseModel

from threadlab.core.builder import ThreadBuilder
from threadlab.core.canonical import _plan, _value, model_to_dict
from threadlab.core.model import Thread, action_class
from threadlab.core.shape import _compiled
from threadlab.core.timefmt import format_timestamp

_KEEP_NONE = ("args", "content", "data")  # the fields ThreadBuilder.add keeps when None (as the models then hold them)
_AS_IS = frozenset((str, int, float, bool, dict, type(None)))  # values written as they are (``_plain`` looks at the others)


class DocBuilder(ThreadBuilder):
    """A ThreadBuilder whose actions are their canonical JSON objects (see the module doc)."""

    # The converter says the thread's metadata holds only what a JSON parser gives (str keys;
    # str, int, float, bool, None, dict, list): it equals its canonical copy, which is not made
    # (key-sorting a large sample's scores and usage was a tenth of an Inspect sample's time).
    plain_metadata = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.actions: list[Any] = []  # each action's JSON object
        self.times: list[datetime] = []
        self._kinds: dict[str, tuple[Any, tuple[str, ...]]] = {}  # action_type → (its model's check, its optional free-form fields)
        self._stamped: datetime | None = None
        self._text = ""
        self._given: str | None = None  # the text ``_stamped`` was read from (None: made up, or given no text)

    def add(self, action_type: str, /, *, timestamp: Any = None, **fields: Any) -> Any:
        kind = self._kinds.get(action_type)
        if kind is None:
            cls = action_class(action_type)
            kind = self._kinds[action_type] = (_compiled(cls, True), _optional(cls))
        check, optional = kind
        values = {k: v if type(v) in _AS_IS else _plain(v) for k, v in fields.items() if v is not None or k in _KEEP_NONE}
        values["action_type"] = action_type
        values["timestamp"] = ""  # (its text is checked by validate_dict, as on the fast path)
        values["sequence"] = len(self.actions) + 1
        if not check(values):  # the careful way, with the model's own problems
            action = super().add(action_type, timestamp=timestamp, **fields)
            self.actions[-1] = model_to_dict(action)
            self.times.append(action.timestamp)
            return action
        moment = self._moment(timestamp)
        values["timestamp"] = self._text
        for name in optional:  # a free-form field the model does not require is left out when None, as model_to_dict does
            if name in values and values[name] is None:
                del values[name]
        # The values are the object (equal to model_to_dict's; only the key order differs, which
        # no reader of the object depends on: an ordered copy of every action is not worth its cost).
        self.actions.append(values)
        self.times.append(moment)
        return values

    def add_fit(self, timestamp: Any, values: dict[str, Any], text: str | None = None) -> None:
        """An action whose values the caller knows fit its model (``action_type`` and the fields
        the frames read, none of them None but ``content``/``args``/``data``): numbered, timed and
        kept as ``add`` keeps one, without the check (a converter's lane for the lines it reads
        most: Claude's ``lanes.py``). ``text``: the timestamp's canonical text when the caller
        has it (``timefmt.millis_text``), so the moment is not formatted."""
        moment = self._moment(timestamp, text)
        values["timestamp"] = self._text
        values["sequence"] = len(self.actions) + 1
        self.actions.append(values)
        self.times.append(moment)

    def _moment(self, timestamp: Any, text: str | None = None) -> datetime:
        """The action's time (its text in ``_text``, or ``text`` when given), as
        ``ThreadBuilder._time`` gives it."""
        if type(timestamp) is datetime and timestamp.tzinfo is UTC:  # what the chain ordering gives: no parse
            moment, self._given = timestamp, None
            if self._first_time is None:  # (``_timed``, which does nothing after the first)
                self._timed(moment)
            if self._last_time is None or moment > self._last_time:
                self._last_time = moment
        elif type(timestamp) is str and timestamp == self._given:  # the actions of one record share its time: parsed once
            return self._stamped  # type: ignore[return-value]  # (_time gave it, the first and last times count it already)
        else:
            synthetic = self._synthetic
            moment = self._time(timestamp)
            self._given = timestamp if type(timestamp) is str and self._synthetic == synthetic else None
        if moment is not self._stamped:  # (the blocks of one line share its time)
            self._stamped, self._text = moment, text if text is not None else format_timestamp(moment)
        return moment

    def _stamp(self, index: int, moment: datetime) -> None:
        self.actions[index]["timestamp"] = format_timestamp(moment)
        self.times[index] = moment

    def put(self, made: Iterable[tuple[dict[str, Any], datetime, int]]) -> None:
        """Actions a converter made as their objects itself (``pydantic_ai.direct``: values the
        models take as they are, times in order), numbered here; ``int``: the records each stands for."""
        for doc, moment, records in made:
            doc["sequence"] = len(self.actions) + 1
            self.actions.append(doc)
            self.times.append(moment)
            self.took(records)
            self._timed(moment)
            if self._last_time is None or moment > self._last_time:
                self._last_time = moment

    def build_document(self) -> tuple[Thread, dict[str, Any]]:
        """The thread without actions (problems and account on it, as ``build`` gives them) and
        its JSON object with the actions."""
        self.settle_leading()
        thread = self.thread_head(self.times)
        if self.plain_metadata and thread.metadata:  # handed over as it is, as an action's free-form values are
            metadata, thread.metadata = thread.metadata, None
            doc = thread.to_dict()
            thread.metadata = doc["metadata"] = metadata
        else:
            doc = thread.to_dict()
        doc["actions"] = self.actions
        return thread, doc


def _plain(value: Any) -> Any:
    """A model (or a list of models: content parts) as its canonical object; anything else as it is."""
    if isinstance(value, BaseModel) or (type(value) is list and any(isinstance(v, BaseModel) for v in value)):
        return _value(value)
    return value


@cache
def fit_check(action_type: str) -> tuple[Any, tuple[str, ...]]:
    """What ``DocBuilder.add`` asks of an action's values (its model's compiled check, which also
    fills in defaults) and the free-form fields it leaves out when None: for a converter that
    makes the values itself and hands them to ``add_fit`` once they pass (the OTel GenAI lane)."""
    cls = action_class(action_type)
    return _compiled(cls, True), _optional(cls)


@cache
def _optional(cls: type[BaseModel]) -> tuple[str, ...]:
    """The fields kept when None (``_KEEP_NONE``) that ``cls`` has and does not require."""
    return tuple(name for name, required in _plan(cls) if name in _KEEP_NONE and not required)
