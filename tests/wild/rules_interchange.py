"""The interchange formats: ATIF trajectories (Harbor's RFC 0001 and ``harbor.models.trajectories``).

A trajectory is ``{schema_version: "ATIF-v1.x", agent, steps, final_metrics?, subagent_trajectories?}``;
each embedded subagent trajectory is a whole trajectory and is counted as one. Per the spec: a
``user`` step is the user's prompt (a harness turn when ``is_copied_context`` marks it copied
from an earlier trajectory), an ``agent`` step's ``message`` its
response, each ``tool_calls`` entry a call, an observation result whose ``source_call_id`` names
a call of its step (or of an earlier step of its trajectory) that call's result, an error where
its ``extra.is_error`` is true (as Harbor's converters write it). Tokens are ``final_metrics``' totals where the producer gives them (each key on
its own), else the steps' ``metrics``; a root whose given total differs from its steps' sum is a
usage total.

A Hugging Face session trace (the Hub's STS-Format) is a ``session`` header line and ``message``
lines: ``user`` messages are prompts, ``assistant`` ones with text texts, each ``toolCalls`` entry
a call, a ``tool`` message naming an earlier call by ``toolCallId`` its result; no tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.wild.count import Counts, blank, texts_of

_TOTALS = (("input_tokens", "total_prompt_tokens", "prompt_tokens"), ("output_tokens", "total_completion_tokens", "completion_tokens"),
           ("cache_read_tokens", "total_cached_tokens", "cached_tokens"))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _trajectories(doc: Any) -> list[dict[str, Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
        return []
    subs = doc.get("subagent_trajectories")
    return [doc, *(t for sub in (subs if isinstance(subs, list) else []) for t in _trajectories(sub))]


def atif(path: Path) -> Counts:
    doc = orjson.loads(path.read_bytes())
    c = Counts(cache_write_tokens=None)
    sums = {ours: 0 for ours, _, _ in _TOTALS}
    for trajectory in _trajectories(doc):
        calls: set[str] = set()
        for step in trajectory["steps"]:
            if not isinstance(step, dict):
                continue
            text = "".join(texts_of(step.get("message")))
            copied = step.get("is_copied_context") is True  # the harness's hand-over from an earlier trajectory
            c.human_prompts += step.get("source") == "user" and not blank(text) and not copied
            c.harness_turns += step.get("source") == "user" and copied
            c.assistant_texts += step.get("source") == "agent" and not blank(text)
            for call in step.get("tool_calls") or [] if isinstance(step.get("tool_calls"), list) else []:
                c.tool_calls += 1
                if isinstance(call, dict) and isinstance(call.get("tool_call_id"), str):
                    calls.add(call["tool_call_id"])
            observation = step.get("observation")
            for result in observation.get("results") or [] if isinstance(observation, dict) else []:
                if isinstance(result, dict) and result.get("source_call_id") in calls and ("content" in result or not result.get("subagent_trajectory_ref")):
                    c.tool_returns += 1
                    c.tool_errors += isinstance(result.get("extra"), dict) and result["extra"].get("is_error") is True
            metrics = step.get("metrics") if isinstance(step.get("metrics"), dict) else {}
            for ours, _, theirs in _TOTALS:
                if _int(metrics.get(theirs)) is not None:
                    sums[ours] += metrics[theirs]
                    setattr(c, ours, (getattr(c, ours) or 0) + metrics[theirs])
    final = doc.get("final_metrics") if isinstance(doc, dict) and isinstance(doc.get("final_metrics"), dict) else {}
    given = {ours: final[theirs] for ours, theirs, _ in _TOTALS if _int(final.get(theirs)) is not None}
    for ours, value in given.items():
        setattr(c, ours, value)
    c.usage_totals = int(any(value != sums[ours] for ours, value in given.items()))
    return c


def hf_session_trace(path: Path) -> Counts:
    c = Counts()
    calls: set[str] = set()
    for line in path.read_bytes().splitlines():
        doc = orjson.loads(line) if line.strip() else None
        message = doc.get("message") if isinstance(doc, dict) and doc.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        role, text = message.get("role"), message.get("content")
        c.human_prompts += role == "user" and not blank(text)
        c.assistant_texts += role == "assistant" and not blank(text)
        for call in message.get("toolCalls") or [] if role == "assistant" and isinstance(message.get("toolCalls"), list) else []:
            c.tool_calls += 1
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                calls.add(call["id"])
        c.tool_returns += role == "tool" and message.get("toolCallId") in calls
    c.tool_errors = None
    return c
