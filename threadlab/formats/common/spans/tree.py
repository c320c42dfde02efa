"""The span tree of one conversation, as the assembly reads it (``assemble.py``): each span's
depth, ancestors, agent run and agent, and the actions collected (``emit``) before they are put
in time order. The base of ``calls.Calls`` and so of ``assemble.Assembly``."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from functools import lru_cache
from typing import Any

from threadlab.core.builder import slug
from threadlab.core.timefmt import from_unix_nanos
from threadlab.formats.common.spans.model import AGENT, Span

DEFAULT_AGENT = "assistant"


def when(ns: int) -> datetime:
    """A span's unix nanoseconds as a time, exactly (``core.timefmt.Moment``)."""
    return from_unix_nanos(ns)


class SpanTree:
    """Who each span belongs to, and the actions collected so far."""

    def __init__(self, spans: list[Span], key: str) -> None:
        self.key = key
        self.by_id = {s.span_id: s for s in spans}
        self._depth: dict[str, int] = {}
        self._runs: dict[str, Span | None] = {}
        self.spans = sorted(spans, key=lambda s: (s.start, self.depth(s)))
        self.out: list[tuple[int, float, str, dict[str, Any], Span]] = []  # (time, order, action type, fields, span)
        self.agents: dict[str, dict[str, Any]] = {}
        self.links: dict[str | None, tuple[str, str | None]] = {}  # agent run → (inviting agent, tool call id)
        self.kept: dict[str, list[str]] = {}  # span id → what of it was kept as unknown

    # --- the tree ---------------------------------------------------------------------------
    def depth(self, span: Span) -> int:
        found = self._depth.get(span.span_id)
        if found is None:
            chain, node = [], span
            while node is not None and node.span_id not in self._depth and len(chain) < 10_000:
                chain.append(node)
                node = self.by_id.get(node.parent_id) if node.parent_id and node.parent_id != node.span_id else None
            base = self._depth.get(node.span_id, 0) + 1 if node is not None else 0
            for i, item in enumerate(reversed(chain)):
                self._depth[item.span_id] = base + i
            found = self._depth[span.span_id]
        return found

    def ancestors(self, span: Span) -> Iterable[Span]:
        seen = {span.span_id}
        node = self.by_id.get(span.parent_id) if span.parent_id else None
        while node is not None and node.span_id not in seen:
            seen.add(node.span_id)
            yield node
            node = self.by_id.get(node.parent_id) if node.parent_id else None

    def run_of(self, span: Span) -> Span | None:
        if span.role == AGENT:
            return span
        if span.span_id not in self._runs:
            self._runs[span.span_id] = next((a for a in self.ancestors(span) if a.role == AGENT), None)
        return self._runs[span.span_id]

    def agent_of(self, span: Span) -> str:
        run = self.run_of(span)
        name = (run.agent_name if run is not None else None) or span.agent_name or DEFAULT_AGENT
        if name not in self.agents:
            self.agents[name] = {"created": time_of(run or span), "meta": {}}
        return name

    # --- output -----------------------------------------------------------------------------
    def emit(self, time: int, action_type: str, span: Span, *, order: float | None = None, **fields: Any) -> dict[str, Any]:
        """Collect an action (its fields, each dict its own: ``fill`` hands them to the builder as
        they are); ``order`` breaks ties of time (by default, the order emitted)."""
        meta = fields.pop("metadata", None) or {}
        fields["metadata"] = {**meta, self.key: {"span_id": span.span_id, **meta.get(self.key, {})}}
        self.out.append((time, len(self.out) if order is None else order, action_type, fields, span))
        return fields

    def keep_unknown(self, span: Span, phrases: list[str]) -> None:
        if phrases:
            self.kept.setdefault(span.span_id, []).extend(phrases)

    def agent_id(self, name: str) -> str:
        return _slug(name)


_slug = lru_cache(maxsize=256)(slug)  # asked for every action of a trace's few agents


def time_of(span: Span) -> int | None:
    return None if span.untimed else span.start
