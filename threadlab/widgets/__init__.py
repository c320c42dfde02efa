"""threadlab.widgets: plotly figures and ipywidgets over Threads and Frames.

No server, no iframe: everything renders in JupyterLab, VS Code and exported HTML, and every
text shown is escaped. Colours are stable per agent across all widgets (``colors.py``)."""

from threadlab.widgets.colors import agent_color
from threadlab.widgets.compare import compare_perspectives, compare_threads
from threadlab.widgets.compare_runs import CompareRuns, compare_runs
from threadlab.widgets.delegation import DelegationGraph, delegation_graph
from threadlab.widgets.explorer import Explorer, explorer
from threadlab.widgets.timeline import timeline
from threadlab.widgets.token_usage import token_usage
from threadlab.widgets.tool_call_view import ToolCallView, tool_call_view
from threadlab.widgets.transcript import transcript, transcript_html
from threadlab.widgets.view import set_static_copies

__all__ = [
    "CompareRuns",
    "DelegationGraph",
    "Explorer",
    "ToolCallView",
    "agent_color",
    "compare_perspectives",
    "compare_runs",
    "compare_threads",
    "delegation_graph",
    "explorer",
    "set_static_copies",
    "timeline",
    "token_usage",
    "tool_call_view",
    "transcript",
    "transcript_html",
]
