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


def loader_view(source: Source, format: str = "auto") -> Any:
    """What the loader takes from ``read_documents``: thread id, origin, problems, account, object."""
    try:
        return [(t.thread_id, t.origin, t.problems, t.account, doc) for t, doc in read_documents(source, format)]
    except Exception as exc:  # (the same failure either way is the same result)
        return repr(exc)


def both_routes(make: Callable[[], Source], careful: Callable[[], AbstractContextManager[Any]], format: str = "auto") -> tuple[Any, Any]:
    """``loader_view`` of the source ``make`` gives, by the frames route and within ``careful``."""
    new = loader_view(make(), format)
    with careful():
        old = loader_view(make(), format)
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
