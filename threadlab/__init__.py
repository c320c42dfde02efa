"""threadlab: look inside multi-agent LLM conversations, in Jupyter.

One canonical model (ThreadProtocol v1.0.0), converters for the real wire formats, loaders to
pandas, and widgets. The public API is re-exported here; widget and converter names are
imported on first use so ``import threadlab`` stays light.
"""

from __future__ import annotations

from threadlab._lazy import lazy_getattr
from threadlab._version import __version__
from threadlab.core import (
    PROTOCOL_VERSION,
    AgentConfig,
    Problem,
    Thread,
    ThreadBuilder,
    ThreadError,
    WriteLoss,
    actions_of_agent,
    dumps,
    pending_tool_calls,
    tool_pairs,
    validate,
    write,
)
from threadlab.core.html import register_renderer
from threadlab.formats.reading import read, read_all
from threadlab.formats.registry import FORMATS
from threadlab.frames import Frames, frames_from_threads
from threadlab.loading import load


def _transcript_html(thread: Thread) -> str:
    """A bare Thread in a notebook shows the widgets' transcript (imported on first display)."""
    from threadlab.widgets.transcript import transcript_html

    return transcript_html(thread)


register_renderer(_transcript_html)

# name -> module that defines it; imported lazily (converters pull in their libraries). Each
# format's public functions are declared by its registry entry.
_LAZY: dict[str, str] = {
    **{name: spec.module for spec in FORMATS for name in spec.exports},
    # loading at scale
    "read_parquet": "threadlab.frames.storage",
    # widgets
    "timeline": "threadlab.widgets",
    "tool_call_view": "threadlab.widgets",
    "token_usage": "threadlab.widgets",
    "transcript": "threadlab.widgets",
    "compare_perspectives": "threadlab.widgets",
    "compare_threads": "threadlab.widgets",
    "explorer": "threadlab.widgets",
}


__getattr__ = lazy_getattr(globals(), _LAZY)


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [
    "PROTOCOL_VERSION",
    "AgentConfig",
    "Frames",
    "Problem",
    "Thread",
    "ThreadBuilder",
    "ThreadError",
    "WriteLoss",
    "__version__",
    "actions_of_agent",
    "dumps",
    "frames_from_threads",
    "load",
    "pending_tool_calls",
    "read",
    "read_all",
    "tool_pairs",
    "validate",
    "write",
    *_LAZY,
]
