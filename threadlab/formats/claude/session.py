"""What a session says about itself (not about any one action): where it ran, what it cost, its
title — gathered while converting and written to the thread's metadata.

``metadata.total_cost_usd`` / ``metadata.model_usage`` come from the last result message
(stream-json, SDK) or the last ``cost-state`` entry (transcripts); both are cumulative for the
session and include subagents. ``metadata.usage`` sums the result messages' ``usage``, which
cover the main chain only.

``metadata.cost_usd`` is what the thread itself cost, as Claude Code priced it (frames show it
as ``threads.cost_usd`` instead of pricing the thread's usage rows: never both). A transcript
holds its whole session (``resume`` appends to it), so its last ``cost-state`` total is its
cost. A stream holds the runs it recorded: the sum of each result's
``model_usage_since_last_result`` costs (a resumed run's ``total_cost_usd`` also counts the
runs before it, which another file holds); when the results do not carry that (the SDK's
``ResultMessage`` drops it), the last ``total_cost_usd``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from threadlab.formats.claude.usage import add_usage

# envelope keys every transcript line repeats: kept once on the thread, not per action
SESSION_KEYS = ("sessionId", "session_id", "cwd", "version", "gitBranch", "entrypoint", "userType")
# what every stream-json line repeats (its init line's cwd, model ... stay the init line's own)
STREAM_KEYS = ("session_id", "sessionId")
_TITLE_TYPES = ("custom-title", "ai-title", "summary")


@dataclass(slots=True)
class SessionInfo:
    keys: tuple[str, ...] = SESSION_KEYS  # the fields lines repeat (SESSION_KEYS, or STREAM_KEYS for a stream)
    fields: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    cost_state: dict[str, Any] | None = None
    titles: dict[str, str] = field(default_factory=dict)
    first_prompt: str | None = None

    def gather(self, entries: Iterable[Mapping[str, Any]]) -> None:
        """The thread's value of each repeated field: the first one a line gives (nearly
        always the first line or two). Known before any line is converted, since a line is
        written with only the fields that differ from them."""
        for key in self.keys:
            found = next((raw for raw in entries if key in raw), None)
            if found is not None:
                self.fields[key] = found[key]

    def saw(self, kind: str, raw: Mapping[str, Any]) -> None:
        """Count an entry (its session fields were gathered before)."""
        self.counts[kind] = self.counts.get(kind, 0) + 1
        if kind == "cost-state":
            self.cost_state = without_envelope(raw)
        elif kind in _TITLE_TYPES:
            key = {"custom-title": "customTitle", "ai-title": "aiTitle"}.get(kind, "summary")
            value = raw.get(key, raw.get("title"))
            if isinstance(value, str) and (value or kind == "custom-title"):  # a title set to "" is a title
                self.titles[kind] = value

    def metadata(self) -> dict[str, Any]:
        claude: dict[str, Any] = {**self.fields, "entry_counts": dict(sorted(self.counts.items()))}
        meta: dict[str, Any] = {"claude": claude}
        if self.cost_state is not None:
            claude["cost_state"] = self.cost_state
            meta["total_cost_usd"] = self.cost_state.get("totalCostUSD")
            meta["model_usage"] = self.cost_state.get("modelUsage")
        if self.results:
            claude["results"] = self.results
            last = self.results[-1]
            meta["total_cost_usd"] = last.get("total_cost_usd", meta.get("total_cost_usd"))
            meta["model_usage"] = last.get("modelUsage") or last.get("model_usage") or meta.get("model_usage")
            total: dict[str, int] = {}
            for result in self.results:
                add_usage(total, result.get("usage"))
            meta["usage"] = total
        meta["cost_usd"] = self.cost()
        return {k: v for k, v in meta.items() if v is not None}

    def cost(self) -> float | None:
        """What the thread cost by Claude Code's own pricing (see the module's docstring)."""
        if self.results:
            since = [r.get("model_usage_since_last_result") for r in self.results]
            if all(isinstance(s, Mapping) for s in since):
                costs = [u.get("costUSD") for s in since for u in s.values() if isinstance(u, Mapping)]  # type: ignore[union-attr]
                if costs and all(_number(c) for c in costs):
                    return float(sum(costs))
            last = self.results[-1].get("total_cost_usd")
            return float(last) if _number(last) else None
        if self.cost_state is not None and _number(self.cost_state.get("totalCostUSD")):
            return float(self.cost_state["totalCostUSD"])
        return None

    def title(self) -> str:
        for kind in _TITLE_TYPES:
            if kind in self.titles:
                return self.titles[kind]
        lines = (self.first_prompt or "").strip().splitlines()
        return lines[0][:80] if lines else ""


def without_envelope(raw: Mapping[str, Any]) -> dict[str, Any]:
    """An entry's own fields: its type and the repeated session fields left out."""
    return {k: v for k, v in raw.items() if k != "type" and k not in SESSION_KEYS}


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
