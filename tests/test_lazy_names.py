"""A package's lazy names never share a name with one of its submodules.

Importing ``threadlab.core.validate`` (the module) set the package attribute ``validate`` to that
module, so ``from threadlab.core import validate`` gave a module instead of the function to every
later test in the same process (21 failures when the suite ran in one process in reverse file
order). This checks every package, so a new module cannot bring the clash back."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import threadlab


def _packages() -> list[str]:
    return ["threadlab", *(m.name for m in pkgutil.walk_packages(threadlab.__path__, "threadlab.") if m.ispkg)]


def test_no_lazy_name_is_also_a_submodule() -> None:
    clashes = []
    for name in _packages():
        package = importlib.import_module(name)
        submodules = {m.name for m in pkgutil.iter_modules(package.__path__)}
        clashes += [f"{name}.{attr}" for attr in getattr(package, "_LAZY", {}) if attr in submodules]
    assert clashes == []


def test_core_names_are_the_functions_after_every_submodule_is_imported() -> None:
    code = (
        "import pkgutil, importlib, threadlab, threadlab.core as core\n"
        "for m in pkgutil.walk_packages(core.__path__, 'threadlab.core.'): importlib.import_module(m.name)\n"
        "from threadlab.core import validate, tool_pairs, dumps\n"
        "import threadlab as tl\n"
        "assert all(callable(f) and not hasattr(f, '__path__') and type(f).__name__ == 'function' for f in (validate, tool_pairs, dumps, tl.validate)), (validate, tl.validate)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
