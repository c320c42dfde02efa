"""threadlab.analysis: what went wrong across many runs, offline, over the frames.

``search`` (full-text search of every action's text, a call's arguments, a return's result),
``scan`` (scanners that find loops, error streaks, pending calls, truncations, refusals,
interrupts ... as findings; ``register_scanner`` adds one), ``find`` (sequence patterns of
actions; ``pattern.py`` gives the grammar) and ``judge`` (a user's function or pydantic-ai Agent
over threads or findings' spans). Data flows frames → analysis → widgets: this package reads
the frames and never imports the widgets."""

from threadlab.analysis.findings import FINDING_COLUMNS, SEVERITIES, Findings
from threadlab.analysis.judging import judge, judge_async, thread_text
from threadlab.analysis.matching import find
from threadlab.analysis.registry import get_scanner, register_scanner, scanner_names, unregister_scanner
from threadlab.analysis.scanning import scan
from threadlab.analysis.searching import FIELDS, HIT_COLUMNS, Hits, search
from threadlab.analysis.spans import span_usage

__all__ = ["FIELDS", "FINDING_COLUMNS", "HIT_COLUMNS", "SEVERITIES", "Findings", "Hits", "find", "get_scanner", "judge", "judge_async",
           "register_scanner", "scan", "scanner_names", "search", "span_usage", "thread_text", "unregister_scanner"]
