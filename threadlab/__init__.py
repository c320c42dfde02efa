"""threadlab: look inside multi-agent LLM conversations, in Jupyter.

One canonical model (ThreadProtocol v1.0.0), converters for the real wire formats, loaders to
pandas, and widgets. The public API is re-exported here; widget and converter names are
imported on first use so ``import threadlab`` stays light.
"""

from __future__ import annotations

from threadlab._lazy import lazy_getattr
from threadlab.core import (
    PROTOCOL_VERSION,
    AgentConfig,
    Problem,
    Thread,
    ThreadBuilder,
    ThreadError,
    actions_of_agent,
    dumps,
    pending_tool_calls,
    tool_pairs,
    validate,
    write,
)
from threadlab.frames import Frames, frames_from_threads
from threadlab.loading import load
from threadlab.reading import read, read_all

__version__ = "0.1.0"

# name -> module that defines it; imported lazily (converters pull in their libraries)
_LAZY: dict[str, str] = {
    # pydantic-ai
    "from_pydantic_ai": "threadlab.formats.pydantic_ai",
    "from_pydantic_ai_runs": "threadlab.formats.pydantic_ai",
    "to_pydantic_ai": "threadlab.formats.pydantic_ai",
    "perspective": "threadlab.formats.pydantic_ai",
    # Vercel AI SDK
    "from_ui_stream": "threadlab.formats.vercel_ai",
    "from_ui_messages": "threadlab.formats.vercel_ai",
    "to_ui_messages": "threadlab.formats.vercel_ai",
    "to_ui_stream": "threadlab.formats.vercel_ai",
    # Claude
    "from_claude": "threadlab.formats.claude",
    # agency-swarm
    "from_agency_swarm": "threadlab.formats.agency_swarm",
    "pair_threads": "threadlab.formats.agency_swarm",
    "merge_pair_threads": "threadlab.formats.agency_swarm",
    "ThreadStore": "threadlab.formats.agency_swarm",
    "FileThreadStore": "threadlab.formats.agency_swarm",
    # AITP / NEAR AI
    "from_aitp": "threadlab.formats.aitp",
    "to_aitp": "threadlab.formats.aitp",
    # loading at scale
    "read_parquet": "threadlab.loading",
    # widgets
    "timeline": "threadlab.widgets",
    "tool_call_view": "threadlab.widgets",
    "token_usage": "threadlab.widgets",
    "transcript": "threadlab.widgets",
    "compare_perspectives": "threadlab.widgets",
    "compare_threads": "threadlab.widgets",
    "explorer": "threadlab.widgets",
    "delegation_graph": "threadlab.widgets",
    "compare_runs": "threadlab.widgets",
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
