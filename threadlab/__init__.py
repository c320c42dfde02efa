"""threadlab: look inside multi-agent LLM conversations, in Jupyter.

One canonical model (ThreadProtocol v1.0.0), converters for the real wire formats, loaders to
pandas, and widgets. The public API is re-exported here, every name imported on first use, so
``import threadlab`` (and ``threadlab --help``) costs milliseconds, not the seconds pandas,
pyarrow and the converters' libraries take.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from threadlab._lazy import lazy_getattr
from threadlab._version import __version__
from threadlab.core import _LAZY as _CORE_MODULES
from threadlab.core.html import register_renderer
from threadlab.formats.common.registry import FORMATS

if TYPE_CHECKING:
    from threadlab.core.model import Thread


def _transcript_html(thread: Thread) -> str:
    """A bare Thread in a notebook shows the widgets' transcript (imported on first display)."""
    from threadlab.widgets.transcript import transcript_html

    return transcript_html(thread)


register_renderer(_transcript_html)

_CORE = ("PROTOCOL_VERSION", "AgentConfig", "Problem", "Thread", "ThreadBuilder", "ThreadError", "WriteLoss", "actions_of_agent",
         "dumps", "pending_tool_calls", "tool_pairs", "validate", "write")
_ANALYSIS = ("search", "scan", "find", "judge", "register_scanner", "scanner_names")
_WIDGETS = ("timeline", "tool_call_view", "token_usage", "transcript", "compare_perspectives", "compare_threads", "explorer", "delegation_graph",
            "compare_runs")

# name -> module that defines it. Each format's public functions are declared by its registry entry.
# Core names go to their own module, not to the threadlab.core package. No package names a
# lazy attribute after one of its submodules: importing the submodule would set the package's
# attribute to the module (tests/test_lazy_names.py).
_LAZY: dict[str, str] = {
    **{name: _CORE_MODULES[name] for name in _CORE},
    "read": "threadlab.formats.common.reading",
    "read_all": "threadlab.formats.common.reading",
    "Frames": "threadlab.frames",
    "frames_from_threads": "threadlab.frames",
    "load": "threadlab.loading",
    "read_parquet": "threadlab.loading.dask_dataset",
    "sql": "threadlab.frames.sql",
    "sync": "threadlab.loading.archive",
    **{name: spec.module for spec in FORMATS for name in spec.exports},
    **dict.fromkeys(_ANALYSIS, "threadlab.analysis"),
    **dict.fromkeys(_WIDGETS, "threadlab.widgets"),
}
_SUBPACKAGES = ("core", "formats", "frames", "loading", "analysis", "widgets", "cli")

__getattr__ = lazy_getattr(globals(), _LAZY, _SUBPACKAGES)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY, *_SUBPACKAGES])


__all__ = ["__version__", *_LAZY]
