"""Token figures of a Cline task: an ``api_req_started`` record's ``tokensIn`` / ``tokensOut`` /
``cacheWrites`` / ``cacheReads`` (Anthropic's split: ``tokensIn`` leaves the cached tokens out,
so threadlab's input is their sum) and an api history message's ``metrics.tokens``
(``prompt`` / ``completion`` / ``cached``: the prompt counts the cached tokens, as a Chat
``prompt_tokens`` does); the CLI's ``metrics`` (``_cli_usage``). Counts go through ``counts_of``: a count that is no whole number is
left out with a ``usage`` problem."""

from __future__ import annotations

from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Usage
from threadlab.formats.common.counts import counts_of


def _counts(b: ThreadBuilder, figures: dict[str, Any], where: str, line: int) -> dict[str, int]:
    problems: list[str] = []
    found = counts_of(figures, problems, "")
    for phrase in problems:
        b.problem("usage", f"{where}: {phrase}", line=line)
    return found


def request_usage(b: ThreadBuilder, info: dict[str, Any], where: str, line: int) -> Usage | None:
    f = _counts(b, {k: info.get(k) for k in ("tokensIn", "tokensOut", "cacheWrites", "cacheReads")}, where, line)
    if not f:
        return None
    read, write = f.get("cacheReads"), f.get("cacheWrites")
    total_in = f["tokensIn"] + (read or 0) + (write or 0) if "tokensIn" in f else None
    return Usage(input_tokens=total_in, output_tokens=f.get("tokensOut"), cache_read_tokens=read, cache_write_tokens=write)


def metrics_usage(b: ThreadBuilder, metrics: Any, where: str, line: int) -> Usage | None:
    if isinstance(metrics, dict) and "tokens" not in metrics and ("inputTokens" in metrics or "outputTokens" in metrics):
        return _cli_usage(b, metrics, where, line)
    tokens = metrics.get("tokens") if isinstance(metrics, dict) else None
    if not isinstance(tokens, dict):
        return None
    f = _counts(b, {k: tokens.get(k) for k in ("prompt", "completion", "cached")}, where, line)
    if "prompt" not in f and "completion" not in f:
        return None
    return Usage(input_tokens=f.get("prompt"), output_tokens=f.get("completion"), cache_read_tokens=f.get("cached") or None)


def _cli_usage(b: ThreadBuilder, metrics: dict[str, Any], where: str, line: int) -> Usage | None:
    """The CLI's ``metrics`` (``inputTokens`` as its provider gave it: an OpenAI-compatible
    provider's prompt tokens, cached ones included, seen in the fixtures' run)."""
    f = _counts(b, {k: metrics.get(k) for k in ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")}, where, line)
    if "inputTokens" not in f and "outputTokens" not in f:
        return None
    return Usage(input_tokens=f.get("inputTokens"), output_tokens=f.get("outputTokens"), cache_read_tokens=f.get("cacheReadTokens") or None, cache_write_tokens=f.get("cacheWriteTokens") or None)


def cost_of(info: dict[str, Any]) -> float | None:
    cost = info.get("cost")
    return float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None
