"""pydantic-ai's AI SDK models (``pydantic_ai.ui.vercel_ai.request_types`` and
``response_types``), for reading, without importing pydantic-ai.

The two modules need pydantic alone (and their ``_models``), but importing them the usual way runs
``pydantic_ai/__init__`` first: the agent, its HTTP clients, model prices, about 0.6 s of a first
``threadlab.load`` of a folder that holds an AI SDK stream. So the readers load the very same files
from pydantic-ai's installed folder under a package name of their own (``_PACKAGE``), which runs
none of pydantic-ai's package code. Their classes are pydantic-ai's classes, defined again: same
fields, aliases and validation (``tests/test_vercel_ai_models.py`` compares their schemas).

When pydantic-ai's own modules are already imported (the user imported pydantic-ai), or its
folder does not hold these files as expected (another layout in a future release), the readers use
pydantic-ai's modules as imported the usual way. The writers always do: what they return goes
to pydantic-ai's own adapters.

Our copies are built lazily (``defer_build``): of their 70 models a reader validates with a few
dozen extra-keeping subclasses (``chunks.keep_extra``), each built when first used, so a folder
pays only for the chunk and part types it holds (about 0.1 s of a first load otherwise). Their
fields, aliases and validation are unchanged."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

_PACKAGE = "threadlab.formats.vercel_ai._pydantic_ai_models"
_FILES = ("_models.py", "request_types.py", "response_types.py")


def _own_copies() -> tuple[Any, Any] | None:
    if "pydantic_ai.ui.vercel_ai.response_types" in sys.modules:
        return None
    spec = importlib.util.find_spec("pydantic_ai")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "ui" / "vercel_ai"
    if not all((folder / name).is_file() for name in _FILES):
        return None
    package = sys.modules.get(_PACKAGE)
    if package is None:
        package = types.ModuleType(_PACKAGE, "pydantic-ai's AI SDK models, loaded without pydantic-ai's package code")
        package.__path__ = [str(folder)]
        package.__package__ = _PACKAGE
        sys.modules[_PACKAGE] = package
    try:
        base = importlib.import_module(f"{_PACKAGE}._models").CamelBaseModel
        # every model of the two modules derives from it: their schemas are built on first use
        base.model_config["defer_build"] = True
        return importlib.import_module(f"{_PACKAGE}.request_types"), importlib.import_module(f"{_PACKAGE}.response_types")
    except ImportError:  # the files need more of pydantic-ai than they did: import it the usual way
        for name in [n for n in sys.modules if n == _PACKAGE or n.startswith(_PACKAGE + ".")]:
            del sys.modules[name]
        return None


def _load() -> tuple[Any, Any]:
    found = _own_copies()
    if found is not None:
        return found
    from pydantic_ai.ui.vercel_ai import request_types, response_types

    return request_types, response_types


request_types, response_types = _load()

__all__ = ["request_types", "response_types"]
