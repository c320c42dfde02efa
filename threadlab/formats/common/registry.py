"""The format registry: the formats of the table (``format_table.py``) looked up by name or
alias, their modules imported on first use and checked against ``FormatModule``, the suffixes a
folder walk picks up, and the folder plan merged from the formats that plan folders."""

from __future__ import annotations

import importlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from threadlab.formats.common.format_table import FORMATS, FormatSpec

if TYPE_CHECKING:
    from threadlab.core.model import Thread
    from threadlab.formats.common.source import Source


@runtime_checkable
class FormatModule(Protocol):
    """What every format module defines.

    ``detect`` is cheap (sniff ``source.head()`` first, parse only when the head says it may be
    this format) and claims only what ``to_threads`` can read. ``to_threads`` never drops an
    input record: each ends in an action, in a kept unknown action or part with a problem, or
    in a problem (counted on the thread's ``account``). ``from_thread`` returns the wire bytes
    and warns (``threadlab.core.loss.WriteLoss``) about anything the format cannot hold."""

    NAME: str

    def detect(self, source: Source) -> bool: ...

    def to_threads(self, source: Source) -> list[Thread]: ...

    def from_thread(self, thread: Thread, **options: Any) -> bytes: ...


@dataclass(frozen=True, slots=True)
class FolderPlan:
    """What a format says about one folder of a walk: the entries (files or subfolders, by
    name) that are read together with another file of the folder and so must not be read on
    their own (``companions``: main file name → its companions' names), and entries that are
    not conversation data at all, each with the reason the walk lists it under (``ignore``:
    name → reason, e.g. a config root's settings, caches; a folder is not walked)."""

    companions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    ignore: Mapping[str, str] = field(default_factory=dict)

    def read_together(self) -> set[str]:
        """The names read with another file (so neither read on their own nor listed)."""
        return {name for names in self.companions.values() for name in names}




def _norm(name: str) -> str:
    return name.strip().lower().replace("_", "-")


_BY_NAME: dict[str, FormatSpec] = {_norm(n): spec for spec in FORMATS for n in spec.names()}


def format_spec(name: str) -> FormatSpec:
    """The entry of the format called ``name`` (or one of its aliases); an unknown name raises
    ``ValueError`` listing the known ones."""
    spec = _BY_NAME.get(_norm(name)) if isinstance(name, str) else None
    if spec is None:
        raise ValueError(f"unknown format {name!r}; known formats: {', '.join(s.name for s in FORMATS)}")
    return spec


_CHECKED: dict[str, ModuleType] = {}  # format name → its module, once checked


def load_module(spec: FormatSpec) -> ModuleType:
    """The format's module, imported on first use and checked against ``FormatModule`` (once:
    detection asks for every module per file, and the protocol check costs a third of it)."""
    module = importlib.import_module(spec.module)
    if _CHECKED.get(spec.name) is module:
        return module
    if getattr(module, "NAME", None) != spec.name or not isinstance(module, FormatModule):
        raise TypeError(f"{spec.module} does not have the format surface of {spec.name!r} (NAME, detect, to_threads, from_thread)")
    _CHECKED[spec.name] = module
    return module


def data_suffixes() -> tuple[str, ...]:
    """Every suffix some format reads: what a folder walk picks up without sniffing."""
    return tuple(sorted({s for spec in FORMATS for s in spec.suffixes}))


def folder_planners() -> list[tuple[FormatSpec, ModuleType]]:
    """The formats that plan folders, with their modules (imported when first asked)."""
    return [(spec, load_module(spec)) for spec in FORMATS if spec.plans_folders]


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan:
    """One plan for a walked folder, merged from every format that plans folders; each is asked
    only when the folder holds a subfolder or a file of one of its suffixes."""
    has_subfolder = any(_is_dir(e) for e in entries)
    names = [] if has_subfolder else [e.name.lower() for e in entries]
    companions: dict[str, tuple[str, ...]] = {}
    ignore: dict[str, str] = {}
    for spec, module in folder_planners():
        if not has_subfolder and not any(name.endswith(spec.suffixes) for name in names):
            continue
        plan = module.plan_folder(folder, entries)
        if plan is not None:
            companions.update(plan.companions)
            ignore.update(plan.ignore)
    return FolderPlan(companions, ignore)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


__all__ = [
    "FORMATS",
    "FolderPlan",
    "FormatModule",
    "FormatSpec",
    "data_suffixes",
    "folder_planners",
    "format_spec",
    "load_module",
    "plan_folder",
]
