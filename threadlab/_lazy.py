"""Lazy re-exports: a name is imported from its module the first time it is used, so
``import threadlab`` (and the CLI's ``--help``, and format sniffing) does not pull in pandas,
pyarrow, pydantic-ai, plotly or ipywidgets before a call needs them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping
from typing import Any


def lazy_getattr(namespace: dict[str, Any], where: Mapping[str, str], submodules: Collection[str] = ()) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``name`` from the module ``where[name]`` names
    (absolute, or relative to the module when it starts with '.') and caches it in ``namespace``;
    a name in ``submodules`` is the subpackage itself (``threadlab.core``)."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        if name in submodules:
            value = importlib.import_module(f"{package}.{name}")
        else:
            module = where.get(name)
            if module is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            value = getattr(importlib.import_module(module, package if module.startswith(".") else None), name)
        namespace[name] = value
        return value

    return __getattr__
