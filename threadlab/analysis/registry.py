"""Scanners by name: the built-ins (``call_scanners.py``, ``turn_scanners.py``) and the user's own.

A scanner is a plain function ``fn(frames, **params) -> DataFrame`` returning finding rows
(``findings.FINDING_COLUMNS``; ``scanner`` may be left out: ``scan`` fills in the registered
name). Its keyword parameters are its thresholds, with defaults, so a user can run it with
others (``tl.scan(frames, {"repeated_call": {"min_repeats": 4}})``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd

Scanner = Callable[..., pd.DataFrame]
F = TypeVar("F", bound=Scanner)

_SCANNERS: dict[str, Scanner] = {}
_BUILTIN_MODULES = ("threadlab.analysis.call_scanners", "threadlab.analysis.turn_scanners")


def _builtins_loaded() -> None:
    import importlib

    for module in _BUILTIN_MODULES:
        importlib.import_module(module)


def register_scanner(name: str, fn: Scanner | None = None, *, replace: bool = False) -> Any:
    """Register ``fn`` as the scanner ``name`` (or use as a decorator: ``@register_scanner("x")``).

    A name already taken is a ValueError unless ``replace=True`` (so a typo cannot silently
    shadow a built-in)."""
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"a scanner name is a Python identifier, not {name!r}")

    def add(f: F) -> F:
        if not callable(f):
            raise TypeError(f"scanner {name!r} must be callable, got {type(f).__name__}")
        if getattr(f, "__module__", None) not in _BUILTIN_MODULES:
            _builtins_loaded()  # the built-ins first, so a user's name is checked against theirs
        if name in _SCANNERS and _SCANNERS[name] is not f and not replace:
            raise ValueError(f"a scanner named {name!r} is registered already (pass replace=True to replace it)")
        _SCANNERS[name] = f
        return f

    return add(fn) if fn is not None else add


def unregister_scanner(name: str) -> None:
    """Take a scanner off the registry (a built-in comes back only with a new process)."""
    _SCANNERS.pop(name, None)


def scanner_names() -> list[str]:
    """Every registered scanner: the built-ins in their documented order, then the user's."""
    _builtins_loaded()
    return list(_SCANNERS)


def get_scanner(name: str) -> Scanner:
    """The scanner registered as ``name``; an unknown name is a ValueError listing the known ones."""
    _builtins_loaded()
    try:
        return _SCANNERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"no scanner named {name!r}; the known ones are: {', '.join(_SCANNERS)}") from None
