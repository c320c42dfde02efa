"""Agents SDK trace JSON Lines → Threads (see the package docstring)."""

from __future__ import annotations

from typing import Any

from threadlab.core.model import Thread
from threadlab.formats.common.source import Source
from threadlab.formats.common.spans.documents import read_items
from threadlab.formats.common.spans.grouping import build_threads
from threadlab.formats.common.spans.model import Span
from threadlab.formats.openai_agents_trace.wire import is_span, is_trace, sdk_span, trace_span

KEY = "openai_agents_trace"


def read_threads(source: Source) -> list[Thread]:
    spans: list[Span] = []

    def take(item: Any, line: int | None) -> bool:
        if is_trace(item):
            spans.append(trace_span(item, line))
        elif is_span(item):
            spans.append(sdk_span(item, line))
        else:
            return False
        return True

    failures = read_items(source, take, "an Agents SDK trace or span")
    if not any(s.role != "structure" or s.thread_meta is None for s in spans):
        rule = failures[0][1] if failures else "empty"
        raise source.error(rule, "holds no Agents SDK span", line=failures[0][0] if failures else None)
    return build_threads(spans, key=KEY, source=source.name, failures=failures, thread_meta=_meta)


def _meta(thread_id: str, spans: list[Span]) -> tuple[str, dict[str, Any]]:
    traces = [s for s in spans if s.thread_meta is not None]
    meta: dict[str, Any] = {"traces": [s.thread_meta for s in traces]} if traces else {"trace_ids": list(dict.fromkeys(s.trace_id for s in spans))}
    return (traces[0].title or "") if traces else "", {KEY: meta}
