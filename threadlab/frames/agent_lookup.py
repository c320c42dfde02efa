"""Agent names and default models of the actions' rows: one shared map when every thread of a
batch agrees on what each agent_id means, else one per thread; an agent_id that is no text
names itself and has no default model."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import repeat
from typing import Any

from threadlab.frames.batch import ThreadRecord, as_mapping


def agent_lookup(records: list[ThreadRecord]) -> tuple[Any, Any]:
    """Agent names and default models, as functions of the thread's position: one shared map
    when every thread agrees on what each agent_id means (the common case), else per thread."""
    maps = [agent_maps(r.doc) for r in records]
    shared_names: dict[Any, Any] = {}
    shared_models: dict[Any, Any] = {}
    agree = all(not r.problems for r in records)  # fast-path threads: every agent_id is registered
    for names, models in maps:
        for key, name in names.items():
            if shared_names.setdefault(key, name) != name or shared_models.setdefault(key, models.get(key)) != models.get(key):
                agree = False
    if agree:
        return SharedMap(shared_names), SharedMap(shared_models)
    return (lambda i: maps[i][0]), (lambda i: maps[i][1])


class SharedMap:
    """The same map for every thread."""

    def __init__(self, table: dict[Any, Any]) -> None:
        self.table = table

    def __call__(self, index: int) -> dict[Any, Any]:
        return self.table


def names_of(names: Any, thread_index: list[int], agent_ids: list[Any]) -> list[Any]:
    try:
        if isinstance(names, SharedMap) and None not in names.table:  # (registry keys are text)
            return list(map(names.table.get, agent_ids, agent_ids))  # an id names itself when unknown
        return [names(t).get(x, x) if x is not None else None for t, x in zip(thread_index, agent_ids, strict=True)]
    except TypeError:  # an agent_id that is a list or an object names no agent: itself
        table = names.table if isinstance(names, SharedMap) else None
        return [
            (table if table is not None else names(t)).get(x, x) if type(x) is str else x
            for t, x in zip(thread_index if table is None else repeat(0), agent_ids, strict=False)
        ]


def models_of(models: Any, thread_index: list[int], agent_ids: list[Any], metas: list[Mapping[str, Any]]) -> list[Any]:
    try:
        if isinstance(models, SharedMap):
            out = list(map(models.table.get, agent_ids))  # the agent's default model ...
            for i, m in enumerate(metas):  # ... unless the action names its own
                if m and (own := m.get("model_name")):
                    out[i] = own
            return out
        return [m.get("model_name") or models(t).get(x) for t, m, x in zip(thread_index, metas, agent_ids, strict=True)]
    except TypeError:  # an agent_id that is a list or an object has no default model
        table = models.table if isinstance(models, SharedMap) else None
        return [
            m.get("model_name") or ((table if table is not None else models(t)).get(x) if type(x) is str else None)
            for t, m, x in zip(thread_index if table is None else repeat(0), metas, agent_ids, strict=False)
        ]


def agent_maps(doc: Mapping[str, Any]) -> tuple[dict[Any, Any], dict[Any, Any]]:
    agents = as_mapping(doc.get("agents"))
    # in agent_id order, as canonical JSON has them (so a raw file and its Thread agree)
    names = {k: (v.get("agent_name") if isinstance(v, Mapping) else None) or k for k, v in sorted(agents.items())}
    models = {k: as_mapping(v.get("metadata")).get("model_name") for k, v in agents.items() if isinstance(v, Mapping)}
    return names, models
