"""What the tests of a format's frames route (``to_documents``, ``formats/common/documents.py``) share:
what the loader takes from a source, and the route's result checked to hold no model per action."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import pytest

from threadlab.core.builder import ThreadBuilder
from threadlab.formats import Source
from threadlab.formats.common.reading import read_documents
from threadlab.frames.arrow import batch_to_tables
from threadlab.frames.batch import ThreadRecord
from threadlab.frames.extract import extract


def loader_view(source: Source, format: str = "auto") -> Any:
    """What the loader takes from ``read_documents``: thread id, origin, problems, account, object."""
    try:
        return [(t.thread_id, t.origin, t.problems, t.account, doc) for t, doc in read_documents(source, format)]
    except Exception as exc:  # (the same failure either way is the same result)
        return repr(exc)


def frames_view(source: Source, format: str = "auto") -> Any:
    """What the loader makes of ``read_documents``: thread id, origin, problems and account of
    each thread, and every frame's rows (for a route whose objects hold only what frames read)."""
    try:
        built = read_documents(source, format)
    except Exception as exc:  # (the same failure either way is the same result)
        return repr(exc)
    records = [ThreadRecord(doc, t.origin[0], t.origin[1], t.problems, t.account) for t, doc in built]
    tables = batch_to_tables(extract(records))
    return [(t.thread_id, t.origin, t.problems, t.account) for t, _ in built], {name: table.to_pylist() for name, table in tables.items()}


def both_routes(make: Callable[[], Source], careful: Callable[[], AbstractContextManager[Any]], format: str = "auto",
                view: Callable[[Source, str], Any] = loader_view) -> tuple[Any, Any]:
    """``view`` (``loader_view``: the objects themselves) of the source ``make`` gives, by the
    frames route and within ``careful``."""
    new = view(make(), format)
    with careful():
        old = view(make(), format)
    return new, old


def built_without_models(monkeypatch: pytest.MonkeyPatch, build: Callable[[], Any]) -> tuple[Any, dict[str, Any]]:
    """The first thread ``build`` (a format's ``to_documents`` of a source) gives, having checked
    that every action was made as its JSON object and none as a model."""
    calls: list[Any] = []
    monkeypatch.setattr(ThreadBuilder, "add", lambda *a, **k: calls.append(a))
    built = build()
    assert built is not None and len(built) >= 1  # a file of several sessions gives a thread each
    for thread, doc in built:
        assert doc["actions"] and not thread.actions
    assert calls == []
    return built[0]
