"""Where threadlab and the raw counter disagree on a real file today, in one place: file (under
``tests/fixtures/real/``) → (issue 24 item, why, ``{field: (counter, threadlab)}``).

``tests/wild/test_corpus.py`` asserts each file's disagreements are exactly these, so a fix that
makes one disappear (or changes it) fails the test until its entry is trimmed here; a new
disagreement fails it too. ``format`` means the file is not detected as its folder's format
(``threadlab`` is then the formats it was read as, or None)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

HUMAN_HARNESS = "§1 human vs harness turns"
KEYS = "§5 calls keyed / detection of id-less variants"
TORN = "§7 torn files"

EXPECTED: dict[str, tuple[str, str, dict[str, tuple[Any, Any]]]] = {
    # --- Claude Code -----------------------------------------------------------------------------
    # hand-written parser test data, not Claude Code's output: left undetected (read when named: format="claude-code")
    "claude/agentsview-valid-session/valid_session.jsonl": (KEYS, "agentsview's hand-written lines have no uuid, sessionId or message.role, which every line Claude Code writes has: "
                                                            "not detected", {"format": ("claude-code", None)}),
    "claude/vercel-ai-harness-subagent-stream/subagent-step-stream.json": (KEYS, "the AI SDK harness bridge's hand-trimmed stream-json array has no session_id, uuid or message role, "
                                                                           "which every stream-json message has: not detected", {"format": ("claude-code", None)}),
    # --- provider streams ------------------------------------------------------------------------
    "anthropic_messages/vercel_ai_refusal.chunks.jsonl": (HUMAN_HARNESS + " (no empty assistant messages)", "a refusal whose message has no content block is read as an assistant_message with empty content "
                                                          "(it holds the message's usage and stop reason, and gives the message back on write): a row of frames.actions no text backs", {"assistant_texts": (0, 1)}),
    "openai_responses/vercel_ai_parallel_tool_calls.chunks.jsonl": (TORN, "a saved stream whose first and last events are cut (no JSON): detection sees a first line that is no event and the "
                                                                    "complete events between are not read (torn files: the hardening branch)", {"format": ("openai-responses", None)}),
    # --- OTel -----------------------------------------------------------------------------------
    **{f"otel/openinference_vercel_v6_{name}.json": (KEYS, "openinference-vercel's capture of the AI SDK's in-memory ReadableSpans as JSON (spanContext, [s, ns] times, no parent ids) with the "
                                                           "SDK's own ai.* attributes (ai.prompt.messages, ai.response.text): neither that container nor the ai.* convention is read "
                                                           "(an OTLP export of the same spans would be detected, but give only usage)", {"format": ("otel", None)})
       for name in ("ai-generateText-doGenerate", "ai-streamText-doStream")},
}


# the hand-made fixtures of tests/fixtures/<format>/ (made by the real programs), checked by the
# conformance suite's who-wrote-it test: file (under tests/fixtures/) → the same triple
FIXTURES_EXPECTED: dict[str, tuple[str, str, dict[str, tuple[Any, Any]]]] = {}

# variants the raw counter does not read (it counts nothing there): not threadlab's disagreements
COUNTER_GAPS: dict[str, str] = {
    "claude/sdk_query_parsed_messages.json": "Claude Agent SDK message objects (__class__ dumps), not transcript lines",
    "pydantic_ai/pydantic_ai_v2.68.0_run_stream_events_log.jsonl": "pydantic-ai stream events between messages (the prompt is in an event)",
}


def listed_files() -> set[Path]:
    """The real files whose disagreements are listed here: the older per-format tests of the real
    folders leave them to ``tests/wild`` (one place that fails when one is fixed)."""
    real = Path(__file__).resolve().parents[1] / "fixtures" / "real"
    return {real / name for name in EXPECTED}


def expected_disagreement(path: Path) -> dict[str, tuple[Any, Any]] | None:
    """The listed disagreements of a fixture ({} when none; None where the counter has a gap)."""
    parts = path.resolve().parts
    rel = "/".join(parts[parts.index("fixtures") + 1 :])
    if rel in COUNTER_GAPS:
        return None
    if rel.startswith("real/"):
        return EXPECTED.get(rel.removeprefix("real/"), ("", "", {}))[2]
    return FIXTURES_EXPECTED.get(rel, ("", "", {}))[2]
