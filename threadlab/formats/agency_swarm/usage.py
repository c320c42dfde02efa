"""Token usage: agency-swarm's run usage onto the model responses that spent it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import BaseAction, Usage
from threadlab.formats.common.counts import count_of


@dataclass
class Response:
    """The items one model request produced (an agent's consecutive outputs)."""

    top: bool  # the entry agent's own request, not a sub-agent's
    run: int
    actions: list[BaseAction] = field(default_factory=list)
    usage: Mapping[str, Any] | None = None  # the usage its items carry (the first that has one)
    where: str = ""  # the item that carried it (``item #3``), and its line
    line: int | None = None


def usage_fields(raw: Mapping[str, Any], problems: list[str] | None = None) -> dict[str, int]:
    """ThreadProtocol usage from an agency-swarm / openai-agents usage dict. The first of a
    figure's names that is present is its count (``counts.count_of``: ``12.0`` is 12); a value
    that is none leaves the figure out, with a phrase in ``problems``."""
    def num(*keys: str) -> int | None:
        for key in keys:
            node: Any = raw
            for part in key.split("."):
                node = node.get(part) if isinstance(node, Mapping) else None
            if node is None:
                continue
            count, why = count_of(node)
            if why is not None and problems is not None:
                problems.append(f"usage.{key}: {why}; left out")
            return count
        return None

    out = {
        "input_tokens": num("input_tokens"),
        "output_tokens": num("output_tokens"),
        "total_tokens": num("total_tokens"),
        "thinking_tokens": num("reasoning_tokens", "output_tokens_details.reasoning_tokens"),
        "cache_read_tokens": num("cached_tokens", "input_tokens_details.cached_tokens"),
        "cache_write_tokens": num("cache_write_tokens"),
    }
    if out["total_tokens"] is None and out["input_tokens"] is not None and out["output_tokens"] is not None:
        out["total_tokens"] = out["input_tokens"] + out["output_tokens"]
    return {k: v for k, v in out.items() if v is not None}


def apply_usage(builder: ThreadBuilder, responses: list[Response], usage: Mapping[str, Any] | None) -> None:
    """Usage the items carry stays on their response. The run's usage (agency-swarm's
    ``extract_usage_from_run_result``) lists the entry agent's requests first, then its
    sub-agents' (seen in agency-swarm 1.11): its entries go on the last run's responses in that
    order when the counts agree; the totals always go on the thread's metadata."""
    def fields(raw: Mapping[str, Any], where: str, line: int | None = None) -> dict[str, int]:
        phrases: list[str] = []
        found = usage_fields(raw, phrases)
        for phrase in phrases:
            builder.problem("usage", f"{where}: {phrase}", line=line)
        return found

    for response in responses:
        if response.usage is not None:
            _put_usage(response.actions, fields(response.usage, response.where, response.line))
    if not isinstance(usage, Mapping):
        return
    stats = usage.get("usage_stats") if isinstance(usage.get("usage_stats"), Mapping) else usage
    entries = usage.get("request_usage_entries")
    builder.metadata["usage"] = fields(stats, "the run's usage")
    if isinstance(stats.get("total_cost"), int | float):
        builder.metadata["cost_usd"] = stats["total_cost"]
    if isinstance(stats.get("request_count"), int):
        builder.metadata["request_count"] = stats["request_count"]
    if not isinstance(entries, list):
        return
    last_run = [r for r in responses if r.run == (responses[-1].run if responses else 0)]
    ordered = [r for r in last_run if r.top] + [r for r in last_run if not r.top]
    if len(entries) != len(ordered) or any(_has_usage(r.actions) for r in ordered):
        builder.problem(
            "usage",
            f"the usage lists {len(entries)} model requests but the last run holds {len(ordered)} model responses; "
            "usage kept on the thread's metadata only",
        )
        return
    for n, (response, entry) in enumerate(zip(ordered, entries, strict=True)):
        if isinstance(entry, Mapping):
            _put_usage(response.actions, fields(entry, f"the run's request_usage_entries[{n}]"))


def _has_usage(response: list[BaseAction]) -> bool:
    return any(getattr(a, "usage", None) is not None for a in response)


def _put_usage(response: list[BaseAction], fields: dict[str, int]) -> None:
    """Usage goes once per response: on its assistant_message, else on its first action."""
    target = next((a for a in response if a.action_type == "assistant_message"), response[0])
    if target.action_type in ("assistant_message", "thinking"):
        target.usage = Usage(**fields)  # type: ignore[attr-defined]
    else:  # a response of tool calls only: usage rides on its first action, as elsewhere in threadlab
        target.usage = fields
