"""Built-in scanners over actions and usage: how responses and turns ended, and how the context
grew. Each docstring is the scanner's exact rule; its keyword parameters are the thresholds.

Who wrote an action is ``actions.author`` (``human``, ``harness``, ``agent``, ``tool``,
``system``) and what the harness wrote ``actions.harness_kind`` (``core/authors.py``): a
harness's text in the user's role (an interrupt marker, injected context) is no person's turn."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from threadlab.analysis.arrays import (
    ThreadOrder,
    arrow_strings,
    code_of,
    codes,
    floats,
    ints,
    runs,
    thread_order,
    thread_rows,
    values_at,
)
from threadlab.analysis.calls import short
from threadlab.analysis.findings import finding_rows, no_findings
from threadlab.analysis.registry import register_scanner
from threadlab.frames.frames import Frames

_A = "['’]"  # a straight or curly apostrophe
# Regular expressions (RE2 syntax, matched case-insensitively) of phrasings models refuse with;
# each asks for a refusal of the request, not a sentence that merely says something failed
# ("I can't find the file" is no refusal).
REFUSAL_PHRASES: tuple[str, ...] = (
    rf"I(?: can{_A}t| cannot| am unable to|{_A}m unable to| am not able to|{_A}m not able to| won{_A}t be able to) (?:help|assist) with",
    rf"I(?: can{_A}t| cannot| won{_A}t| will not) (?:comply|fulfil+|do that|help with (?:that|this))",
    rf"I{_A}m sorry,? but I (?:can{_A}t|cannot|won{_A}t|am unable|{_A}m unable|am not able|{_A}m not able)",
    rf"(?:Sorry|I apologi[sz]e),? (?:but )?I (?:can{_A}t|cannot) (?:help|assist|provide|do)",
    r"I must (?:respectfully )?decline",
    r"I have to decline",
    r"As an AI(?: language model)?,? I (?:can|cannot|don|am not|do not|won)",
    r"against my (?:guidelines|policies|programming|principles|usage polic(?:y|ies))",
    rf"I{_A}m not (?:comfortable|going to) (?:help|assist|provid|writ|creat)",
)


def _who(frames: Frames, order: ThreadOrder, authors: tuple[str, ...]) -> np.ndarray:
    """Mask of the ordered actions written by one of ``authors``; frames saved before the
    author column existed give each kind's default author (a user message is a person's)."""
    a = frames.actions
    if "author" in a.columns:
        return code_of(order.take(a["author"]), authors)
    roles = {"human": "user", "agent": "agent", "tool": "tool", "system": "system"}
    return code_of(order.take(a["role"]), [roles[x] for x in authors if x in roles])


def _interrupts(frames: Frames, order: ThreadOrder) -> np.ndarray:
    a = frames.actions
    return code_of(order.take(a["harness_kind"]), ("interrupt",)) if "harness_kind" in a.columns else np.zeros(len(a), dtype=bool)


def _agent_before(frames: Frames, order: ThreadOrder, at: np.ndarray) -> np.ndarray:
    """For the ordered actions ``at``, the name of the last agent that acted before each in its
    thread (itself included), None when none had."""
    a = frames.actions
    acting = code_of(order.take(a["role"]), ("agent",)) & (codes(order.take(a["agent_name"]))[0] >= 0)
    idx = np.maximum.accumulate(np.where(acting, np.arange(len(acting)), -1)) if len(acting) else np.zeros(0, dtype=np.int64)
    run_start = np.repeat(order.starts[:-1], np.diff(order.starts))
    found = np.where(idx[at] >= run_start[at], idx[at], -1)
    names = values_at(a["agent_name"], order.order[np.maximum(found, 0)])
    return np.where(found >= 0, names, None)


@register_scanner("truncated")
def truncated(frames: Frames) -> pd.DataFrame:
    """A response cut by its length limit: an action whose ``finish_reason`` is ``length`` (the
    readers map OpenAI's ``length``, Anthropic's ``max_tokens`` and
    ``model_context_window_exceeded``, the AI SDK's ``length`` to it). Severity warning."""
    a = frames.actions
    at = np.flatnonzero(code_of(a["finish_reason"], ("length",)))
    out = ints(a["output_tokens"].iloc[at])
    kinds = values_at(a["action_type"], at)
    message = [f"{k} cut at its length limit" + (f" after {o:,} output tokens" if o >= 0 else "") for k, o in zip(kinds, out, strict=True)]
    seq = ints(a["sequence"].iloc[at])
    return finding_rows(frames, thread_rows(frames, a)[at], seq, seq, severity="warning", message=message,
                        agent_name=values_at(a["agent_name"], at))


@register_scanner("refusal")
def refusal(frames: Frames, *, phrases: tuple[str, ...] = REFUSAL_PHRASES, within_chars: int | None = 300,
            content_filter: bool = True) -> pd.DataFrame:
    """An assistant message (written by the agent) whose first ``within_chars`` characters (None:
    all of it) hold one of ``phrases`` (``REFUSAL_PHRASES``: regular expressions, matched
    case-insensitively), and, with ``content_filter``, a response the provider stopped with
    ``finish_reason`` ``content_filter`` (Anthropic's ``refusal``). Severity warning."""
    a = frames.actions
    by_agent = code_of(a["author"], ("agent",)) if "author" in a.columns else True
    message_rows = code_of(a["action_type"], ("assistant_message",)) & by_agent
    at = np.flatnonzero(message_rows)
    found = np.zeros(len(a), dtype=bool)
    said: dict[int, str] = {}
    if len(at) and phrases:
        text = arrow_strings(a["text"]).filter(pa.array(message_rows))
        if within_chars is not None:
            text = pc.utf8_slice_codeunits(text, 0, within_chars)
        pattern = "(?i)(?P<phrase>" + "|".join(f"(?:{p})" for p in phrases) + ")"
        hit = pc.fill_null(pc.match_substring_regex(text, pattern), False).to_numpy(zero_copy_only=False)
        rows = at[hit]
        found[rows] = True
        phrase = [p["phrase"] for p in pc.extract_regex(text.filter(pa.array(hit)), pattern).to_pylist()]
        said = {int(r): f'refused: "{p}"' for r, p in zip(rows, phrase, strict=True)}
    if content_filter:
        stopped = np.flatnonzero(code_of(a["finish_reason"], ("content_filter",)))
        found[stopped] = True
        for r in stopped.tolist():
            said[r] = said[r] + "; stopped by the provider's content filter" if r in said else "stopped by the provider's content filter"
    rows = np.flatnonzero(found)
    seq = ints(a["sequence"].iloc[rows])
    return finding_rows(frames, thread_rows(frames, a)[rows], seq, seq, severity="warning", message=[said[int(r)] for r in rows],
                        agent_name=values_at(a["agent_name"], rows))


@register_scanner("context_growth")
def context_growth(frames: Frames, *, factor: float = 4.0, by_agent: bool = False) -> pd.DataFrame:
    """Input tokens per model call more than ``factor`` times the thread's first call's (with
    ``by_agent``, each agent's first call's): one finding per thread (or agent) whose calls
    grew so, from the first call above the threshold to the largest. A model call is a row of
    ``frames.usage`` with input tokens (cached input included, as the usage convention counts
    it); the thread's own totals (``threads.tokens_source`` ``reported``: the producer's running
    total) are no per-call figure and are not used. Severity info."""
    u = frames.usage
    inp = floats(u["input_tokens"])
    thread = thread_rows(frames, u)
    valid = np.flatnonzero((inp > 0) & (thread >= 0))
    agent = codes(u["agent_id"])[0][valid] if by_agent else np.zeros(len(valid), dtype=np.int64)
    key = thread[valid] * (int(agent.max(initial=0)) + 2) + agent
    order = valid[np.lexsort((ints(u["sequence"])[valid], key))]
    key = np.sort(key, kind="stable") if len(key) else key
    starts = runs(key)
    if not len(starts):
        return no_findings(frames)
    group = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(order))))
    values = inp[order]
    base = values[starts][group]
    over = np.flatnonzero(values > factor * base)
    if not len(over):
        return no_findings(frames)
    firsts = over[np.r_[True, group[over][1:] != group[over][:-1]]]
    n_over = np.bincount(group[over], minlength=len(starts))
    by_size = np.lexsort((-values, group))
    peak = by_size[np.r_[True, group[by_size][1:] != group[by_size][:-1]]]  # the largest call of each group
    g = group[firsts]
    peak = peak[g]
    seq = ints(u["sequence"])
    names = values_at(u["agent_name"], order[peak])
    message = [f"input tokens per call grew from {int(values[starts[k]]):,} (step {seq[order[starts[k]]]}) to {int(values[p]):,} "
               f"(step {seq[order[p]]}), {values[p] / values[starts[k]]:.1f}× the first call; {n_over[k]} call{'s' if n_over[k] != 1 else ''} "
               f"above {factor:g}×" for k, p in zip(g, peak, strict=True)]
    return finding_rows(frames, thread[order[firsts]], seq[order[firsts]], seq[order[peak]], severity="info", message=message,
                        agent_name=names if by_agent else None)


@register_scanner("interrupted")
def interrupted(frames: Frames) -> pd.DataFrame:
    """A human interrupt: an action the harness wrote with ``harness_kind`` ``interrupt`` (Claude
    Code's "[Request interrupted by user]", Codex's aborted turn ...); ``agent_name`` is the
    agent that was acting. Severity warning."""
    order = thread_order(frames)
    at = np.flatnonzero(_interrupts(frames, order))
    seq = ints(frames.actions["sequence"].iloc[order.order[at]])
    agents = _agent_before(frames, order, at)
    message = [f"the person interrupted {n}" if n else "the person interrupted the run" for n in agents]
    return finding_rows(frames, order.thread[at], seq, seq, severity="warning", message=message, agent_name=agents)


@register_scanner("unanswered")
def unanswered(frames: Frames) -> pd.DataFrame:
    """A thread that ends on a human turn: its last turn (a user message a person wrote, an
    action of an agent or a tool, or a harness interrupt; system actions, other harness actions
    and a person's slash commands or queued prompts are no turn) is a person's prompt, so no
    agent answered it. Spans that prompt to the thread's end. Severity warning."""
    order = thread_order(frames)
    human = _who(frames, order, ("human",)) & code_of(order.take(frames.actions["action_type"]), ("user_message",))
    turn = np.flatnonzero(human | _who(frames, order, ("agent", "tool")) | _interrupts(frames, order))
    if not len(turn):
        return no_findings(frames)
    th = order.thread[turn]
    last = turn[np.r_[th[1:] != th[:-1], True]]
    at = last[human[last]]
    run_end = np.repeat(order.starts[1:] - 1, np.diff(order.starts))
    seq = frames.actions["sequence"]
    text = values_at(frames.actions["text"], order.order[at])
    message = [f'the thread ends on a prompt no agent answered: "{short(t, 60)}"' for t in text]
    return finding_rows(frames, order.thread[at], ints(seq.iloc[order.order[at]]), ints(seq.iloc[order.order[run_end[at]]]),
                        severity="warning", message=message, agent_name=_agent_before(frames, order, at))


__all__ = ["REFUSAL_PHRASES", "context_growth", "interrupted", "refusal", "truncated", "unanswered"]
