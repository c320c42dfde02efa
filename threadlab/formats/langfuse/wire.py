"""Langfuse trace exports as they reach disk → observations (the records).

What Langfuse users download or fetch, each a JSON value, JSON Lines, or Parquet:

- a trace with its observations: ``GET /api/public/traces/{id}`` (``TraceWithFullDetails``: the
  trace's fields and ``observations: [ObservationsView]``; the Python SDK's ``api.trace.get``
  ``model_dump`` / ``.json()``), a list of them, or the UI's download ``{"trace": {...},
  "observations": [...]}``;
- observation pages: ``GET /api/public/observations`` and ``/api/public/v2/observations``
  (``{"data": [...], "meta": {...}}``; the SDK's ``api.observations.get_many``), a list of them,
  or the observations one per line;
- the blob-storage export's observations table (``observations.jsonl``, ``.parquet``): the same
  fields in snake_case (``trace_id``, ``parent_observation_id``, ``start_time``, ``usage_details``).

An observation: ``id``, ``traceId``, ``type`` (``GENERATION``, ``SPAN``, ``EVENT``, and since
Langfuse 3 ``AGENT``, ``TOOL``, ``CHAIN``, ``RETRIEVER``, ``EVALUATOR``, ``EMBEDDING``,
``GUARDRAIL``), ``parentObservationId``, ``name``, ``startTime``, ``endTime``, ``input``,
``output``, ``model``, ``usageDetails`` (``input``, ``output``, ``total``, cache and reasoning
details; older ``usage`` ``{input, output, total, unit}``, or ``promptTokens`` ...),
``costDetails`` / ``totalCost``, ``level`` and ``statusMessage``. Keys are looked up in either
spelling (``key``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

TYPES = frozenset({"GENERATION", "SPAN", "EVENT", "AGENT", "TOOL", "CHAIN", "RETRIEVER", "EVALUATOR", "EMBEDDING", "GUARDRAIL"})
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def key(item: Mapping[str, Any], name: str) -> Any:
    """``item[name]`` in Langfuse's camelCase (the API) or snake_case (the blob export, the SDK's
    ``model_dump()``)."""
    if name in item:
        return item[name]
    return item.get(_CAMEL.sub("_", name).lower())


def is_observation(item: Any) -> bool:
    if not isinstance(item, Mapping) or not isinstance(item.get("id"), str) or item.get("type") not in TYPES:
        return False
    return key(item, "startTime") is not None and (key(item, "traceId") is not None or key(item, "parentObservationId") is not None or "input" in item)


def is_trace(item: Any) -> bool:
    """A trace with its observations as objects (a trace list's ``observations`` are only ids)."""
    if not isinstance(item, Mapping):
        return False
    observations = item.get("observations")
    if not isinstance(observations, list) or not any(is_observation(o) for o in observations[:20]):
        return False
    return isinstance(item.get("trace"), Mapping) or (isinstance(item.get("id"), str) and "timestamp" in item)


def is_page(item: Any) -> bool:
    return isinstance(item, Mapping) and isinstance(item.get("data"), list) and isinstance(item.get("meta"), Mapping)


def trace_parts(item: Mapping[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """(the trace's own fields, its observations) of a trace object or the UI's download."""
    if isinstance(item.get("trace"), Mapping):
        trace = dict(item["trace"])
        observations = item["observations"]
    else:
        trace, observations = dict(item), item["observations"]
    trace.pop("observations", None)
    return trace, observations


# usage keys Langfuse writes → the span model's (``spans.model.Span.usage``): usageDetails, the legacy ones
USAGE = (
    ("input", "input"), ("output", "output"), ("total", "total"),
    ("input_cached_tokens", "cache_read"), ("cache_read_input_tokens", "cache_read"), ("input_cache_read", "cache_read"),
    ("cache_creation_input_tokens", "cache_write"), ("input_cache_creation", "cache_write"),
    ("output_reasoning_tokens", "reasoning"), ("output_reasoning", "reasoning"),
    ("promptTokens", "input"), ("completionTokens", "output"), ("totalTokens", "total"),
)
LEGACY = ("promptTokens", "completionTokens", "totalTokens")  # the first API's figures, at the observation's top
