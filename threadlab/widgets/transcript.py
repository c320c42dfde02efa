"""``transcript``: a thread as a chat, one column, every text escaped.

Speaker and agent colour on each message; what the harness wrote in the user's role muted,
labelled and folded when long, an interrupt a small marker (not a person's prompt); thinking folded, each tool call paired with its
return in one card, media as thumbnails or links, system actions as thin separators. Pure HTML
and CSS (no script), so it renders the same in JupyterLab, VS Code and exported HTML;
``Thread._repr_html_`` uses ``transcript_html``."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import INTERRUPT
from threadlab.core.model import Thread
from threadlab.widgets.authorship import who_wrote
from threadlab.widgets.cards import action_card, paired_returns
from threadlab.widgets.inputs import as_thread
from threadlab.widgets.styles import CSS
from threadlab.widgets.text import esc
from threadlab.widgets.view import HtmlView

DEFAULT_MAX_ACTIONS = 500


def transcript_html(thread: Thread, *, max_actions: int | None = DEFAULT_MAX_ACTIONS, fetch_media: bool = False, start: int | None = None) -> str:
    """The chat view of ``thread`` as one HTML string (the first ``max_actions`` actions; with
    ``start``, from the action of that sequence on: a finding opens the transcript at its first step)."""
    returns, drawn = paired_returns(thread)
    skipped = 0 if start is None else next((i for i, a in enumerate(thread.actions) if a.sequence >= start), len(thread.actions))
    rest = thread.actions[skipped:]
    if skipped:  # a return whose call lies before the start is shown on its own
        calls_shown = {a.tool_call_id for a in rest if a.action_type == "tool_call"}
        drawn = {r.sequence for call_id, r in returns.items() if call_id in calls_shown}
    shown = rest if max_actions is None else rest[:max_actions]
    cards = [action_card(a, thread, returns, fetch_media=fetch_media) for a in shown if a.sequence not in drawn]
    agents = ", ".join(esc(a.agent_name) for a in thread.agents.values())
    head = (
        f'<div class="tl-head">{esc(thread.title or thread.thread_id)}'
        f'<span class="tl-meta">{len(thread.actions)} actions · {len(thread.agents)} agents: {agents}{_turns(thread)}</span></div>'
    )
    more = ""
    if max_actions is not None and len(rest) > max_actions:
        more = f'<div class="tl-note">… {len(rest) - max_actions} more actions (transcript(thread, max_actions=None) shows all)</div>'
    earlier = f'<div class="tl-note">… {skipped} earlier actions (shown from step {start} on)</div>' if skipped else ""
    problems = ""
    if thread.problems:
        problems = f'<div class="tl-note">{len(thread.problems)} problems found when reading (see frames.problems)</div>'
    return f'{CSS}<div class="tl-root tl-transcript">{head}{problems}{earlier}{"".join(cards)}{more}</div>'


def _turns(thread: Thread) -> str:
    """' · 3 prompts, 2 harness turns, 1 interrupt' (the harness parts only when there are any)."""
    prompts = harness = interrupts = 0
    for action in thread.actions:
        author, kind = who_wrote(action)
        prompts += author == "human" and action.action_type == "user_message"
        harness += author == "harness"
        interrupts += kind == INTERRUPT
    bits = [f"{prompts} prompt{'s' if prompts != 1 else ''}"]
    if harness:
        bits.append(f"{harness} harness turn{'s' if harness != 1 else ''}")
    if interrupts:
        bits.append(f"{interrupts} interrupt{'s' if interrupts != 1 else ''}")
    return " · " + ", ".join(bits)


def transcript(data: Any, *, thread_id: Any = None, source: str | None = None, max_actions: int | None = DEFAULT_MAX_ACTIONS, fetch_media: bool = False,
               start: int | None = None) -> HtmlView:
    """A chat view of a Thread (or of one thread of Frames) as a widget; ``start``: from the
    action of that sequence on.

    Remote images are links unless ``fetch_media=True``; inline images are thumbnails."""
    thread = as_thread(data, thread_id, source)
    return HtmlView(value=transcript_html(thread, max_actions=max_actions, fetch_media=fetch_media, start=start))
