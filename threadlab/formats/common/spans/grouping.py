"""Spans → threads: one thread per conversation.

A trace is one thread, unless its spans name a conversation (``gen_ai.conversation.id``,
OpenInference's ``session.id``, the Agents SDK trace's ``group_id``): the shallowest span that
names one gives the trace's key, and traces with the same key are one thread (a chat continued
over several requests). A delegated agent's own conversation id does not split its trace."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.formats.common.documents import DocBuilder
from threadlab.formats.common.spans.assemble import Assembly
from threadlab.formats.common.spans.documents import Failure
from threadlab.formats.common.spans.model import Span, settle_untimed


def group_traces(spans: Iterable[Span]) -> dict[str, list[Span]]:
    """Thread key → its spans (in file order), keys in order of first appearance."""
    traces: dict[str, list[Span]] = {}
    for span in spans:
        traces.setdefault(span.trace_id, []).append(span)
    threads: dict[str, list[Span]] = {}
    for trace_id, members in traces.items():
        threads.setdefault(_key(trace_id, members), []).extend(members)
    return threads


def _key(trace_id: str, spans: list[Span]) -> str:
    by_id = {s.span_id: s for s in spans}

    def depth(span: Span) -> int:
        n, node, seen = 0, span, set()
        while node.parent_id in by_id and node.span_id not in seen:
            seen.add(node.span_id)
            node = by_id[node.parent_id]
            n += 1
        return n

    named = [s for s in spans if s.conversation_id]
    if not named:
        return trace_id
    return min(named, key=lambda s: (depth(s), s.start)).conversation_id or trace_id


def build_threads(
    spans: list[Span],
    *,
    key: str,
    source: str | None,
    failures: list[Failure],
    thread_meta: Callable[[str, list[Span]], tuple[str, dict[str, Any]]],
    documents: bool = False,
) -> list[Any]:
    """One Thread per conversation. ``failures``: records that could not be read at all,
    counted on the first thread (and notes about records that were read). ``thread_meta(thread_id, spans)`` gives the
    thread's title and metadata. ``documents``: the frames route (``formats/common/documents.py``):
    each thread without actions and its JSON object, no model per action."""
    threads: list[Any] = []
    for thread_id, members in group_traces(spans).items():
        title, metadata = thread_meta(thread_id, members)
        builder = (DocBuilder if documents else ThreadBuilder)(thread_id, title=title, metadata=metadata, source=source)
        if not threads:
            for failure in failures:
                (builder.failed if failure.record else builder.problem)(failure.rule, failure.message, line=failure.line)
        settle_untimed(members)
        assembly = Assembly(members, key)
        assembly.read()
        assembly.fill(builder)
        threads.append(builder.build_document() if isinstance(builder, DocBuilder) else builder.build())
    return threads
