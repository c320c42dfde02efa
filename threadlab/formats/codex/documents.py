"""The frames route of a Codex rollout (``formats/common/documents.py``): the same reader
(``reading.py``) decides what every line becomes, which problems it raises and how the lines
are accounted for; only its builder differs, writing each action as its canonical JSON object
instead of a pydantic model (``Thread.to_dict`` of a rollout took half its load).

The reader goes back to an action after adding it (usage given to a response once the rollout
is read, the harness marks, the item memo): each object is a ``_Doc``, a dict whose keys read
and write as attributes, the way the reader reads and writes a model's fields; the thread's
object holds plain dicts again. An action whose values do not fit its model would be a model
(with its ``schema`` problem), which later writes could not reach: the route gives up on such a
file (``to_documents`` returns None) and ``to_threads`` reads it, with the same results."""

from __future__ import annotations

from typing import Any

from threadlab.core.model import Thread
from threadlab.formats.codex.reading import RolloutReader
from threadlab.formats.common.documents import DocBuilder
from threadlab.formats.common.source import Source


class _Doc(dict[str, Any]):
    """An action's JSON object whose keys are also its attributes (a key not there reads None,
    as a model's unset optional field does)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value


def _field(name: str) -> property:
    return property(lambda self: self.get(name))


for _name in ("action_type", "sequence", "metadata", "content", "usage", "agent_id", "tool_call_id", "tool_name", "data"):
    # the fields the reader reads most, found on the class (``__getattr__`` runs only after a failed lookup)
    setattr(_Doc, _name, _field(_name))


class _GiveUp(Exception):
    """An action went the careful way: the whole file goes to ``to_threads``."""


class _RolloutDocBuilder(DocBuilder):
    def add(self, action_type: str, /, *, timestamp: Any = None, **fields: Any) -> Any:
        made = super().add(action_type, timestamp=timestamp, **fields)
        if type(made) is not dict:
            raise _GiveUp(action_type)
        self.actions[-1] = doc = _Doc(made)
        return doc


def rollout_document(source: Source) -> tuple[Thread, dict[str, Any]] | None:
    """The rollout's thread (without actions: problems and account) and its JSON object; None
    when the route gives up (see the module doc)."""
    reader = RolloutReader(source, _RolloutDocBuilder)
    try:
        reader.finish()
    except _GiveUp:
        return None
    builder = reader.b
    assert isinstance(builder, _RolloutDocBuilder)
    builder.actions = [dict(a) for a in builder.actions]
    return builder.build_document()
