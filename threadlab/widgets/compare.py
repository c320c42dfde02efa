"""Side by side: two agents' views of one thread, and two runs of one task.

``compare_perspectives`` shows what each agent saw as its message history — the real
``perspective()`` output (pydantic-ai ``ModelMessage`` parts) — in two columns aligned on the
thread's sequence, tinting the rows where the two views differ. ``compare_threads`` puts two
runs next to each other, turn by turn (a turn starts at each prompt a person wrote; what the
harness wrote in the user's role is labelled as such and starts no turn)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from threadlab.core.agent_names import agent_id
from threadlab.core.model import Thread
from threadlab.widgets.authorship import harness_label, is_human_prompt, who_wrote
from threadlab.widgets.cards import action_card, paired_returns, thread_color
from threadlab.widgets.colors import HARNESS_COLOR, USER_COLOR, text_color
from threadlab.widgets.inputs import as_thread
from threadlab.widgets.perspective_align import AlignedPart, align_perspective
from threadlab.widgets.styles import CSS
from threadlab.widgets.text import as_text, esc
from threadlab.widgets.view import HtmlView

OthersPolicy = Literal["summarize", "show", "hide"]
PART_LABELS = {
    "user-prompt": "user prompt",
    "system-prompt": "system prompt",
    "text": "text",
    "thinking": "thinking",
    "tool-call": "tool call",
    "tool-return": "tool return",
    "retry-prompt": "retry prompt",
}


def part_text(part: Any) -> str:
    """What a pydantic-ai part says, as plain text (for display and for comparing views)."""
    kind = getattr(part, "part_kind", "")
    if kind == "tool-call":
        return f"{part.tool_name}({as_text(part.args)})"
    if kind in ("tool-return", "retry-prompt"):
        return f"{getattr(part, 'tool_name', '') or ''}: {as_text(part.content)}"
    content = getattr(part, "content", None)
    if isinstance(content, list):
        return "\n".join(x if isinstance(x, str) else f"[{type(x).__name__}]" for x in content)
    return as_text(content)


def _part_html(item: AlignedPart, color: str, written_by: str = "") -> str:
    """One part; ``written_by`` names the harness when the part's action is a harness turn (a
    user prompt the harness wrote is not the person's)."""
    kind = getattr(item.part, "part_kind", "part")
    what = written_by if written_by and kind == "user-prompt" and item.traced else PART_LABELS.get(kind, kind)
    label = f"{item.side} · {what}" + ("" if item.traced else " · (not traced to an action)")
    body = f"<pre>{esc(part_text(item.part))}</pre>"
    if kind == "thinking":
        body = f"<details class=\"tl-think\"><summary>thinking</summary>{body}</details>"
    return f'<div class="tl-msg" style="border-left-color:{color}"><div class="tl-meta">{esc(label)}</div>{body}</div>'


def kind_label(action_type: str) -> str:
    """``assistant_message`` as ``assistant message``: words a narrow column can wrap between."""
    return action_type.replace("_", " ").replace(".", " · ")


def _by_sequence(parts: list[AlignedPart]) -> dict[int, list[AlignedPart]]:
    rows: dict[int, list[AlignedPart]] = defaultdict(list)
    for item in parts:
        rows[item.sequence].append(item)
    return rows


def perspectives_html(thread: Thread, agent_a: str, agent_b: str, *, others: OthersPolicy = "summarize") -> str:
    """Two perspective histories in aligned columns (see ``compare_perspectives``)."""
    from threadlab.formats.pydantic_ai import perspective  # lazy: pulls in pydantic-ai

    ids = [agent_id(thread, agent_a), agent_id(thread, agent_b)]
    columns = [_by_sequence(align_perspective(thread, a, perspective(thread, a, others=others))) for a in ids]
    sequences = sorted(set(columns[0]) | set(columns[1]))
    by_seq = {a.sequence: a for a in thread.actions}
    names = [thread.agent_name(a) or a for a in ids]
    cells = [
        '<div class="tl-seq">seq</div>',
        *(f'<div class="tl-who" style="color:{text_color(thread_color(thread, a))}">what {esc(n)} saw</div>' for a, n in zip(ids, names, strict=True)),
    ]
    n_diff = 0
    for seq in sequences:
        texts = [[part_text(p.part) for p in col.get(seq, [])] for col in columns]
        differ = texts[0] != texts[1]
        n_diff += differ
        action = by_seq.get(seq)
        author, kind = who_wrote(action) if action is not None else (None, None)
        harness = harness_label(kind) if author == "harness" else ""
        who = harness or (thread.agent_name(getattr(action, "agent", None)) if action is not None else None)
        color = HARNESS_COLOR if harness else thread_color(thread, action.agent) if action is not None and action.agent else USER_COLOR
        kind_text = kind_label(action.action_type) if action is not None else ""
        cls = " tl-diff" if differ else ""
        cells.append(f'<div class="tl-seq{cls}" data-seq="{seq}">#{seq} {esc(kind_text)}{"<br>" + esc(who) if who else ""}</div>')
        for col in columns:
            parts = col.get(seq, [])
            inner = "".join(_part_html(p, color, harness) for p in parts) or '<div class="tl-empty">— not in this history</div>'
            cells.append(f'<div class="tl-col{cls}">{inner}</div>')
    head = (
        f'<div class="tl-head">{esc(thread.title or thread.thread_id)} — perspectives of {esc(names[0])} and {esc(names[1])} '
        f'<span class="tl-meta">others="{esc(others)}" · {len(sequences)} rows, {n_diff} where the views differ</span></div>'
    )
    return f'{CSS}<div class="tl-root tl-compare" data-differ="{n_diff}">{head}<div class="tl-cols">{"".join(cells)}</div></div>'


def compare_perspectives(thread: Any, agent_a: str, agent_b: str, *, others: OthersPolicy = "summarize", thread_id: Any = None,
                         source: str | None = None) -> HtmlView:
    """What ``agent_a`` and ``agent_b`` (ids or names) each saw as their pydantic-ai message
    history, side by side, aligned on the thread's sequence; rows where they differ are tinted.
    ``others`` is perspective()'s policy for other agents' tool calls."""
    return HtmlView(value=perspectives_html(as_thread(thread, thread_id, source), agent_a, agent_b, others=others))


def prompt_turns(thread: Thread) -> tuple[list[Any], list[list[Any]]]:
    """The actions before the first prompt a person wrote, and the thread cut at each such
    prompt. What the harness wrote in the user's role (Codex's environment context, an
    interrupt marker, a hook's feedback) stays inside the turn it falls in: it starts none."""
    before: list[Any] = []
    turns: list[list[Any]] = []
    for action in thread.actions:
        if is_human_prompt(action):
            turns.append([])
        (turns[-1] if turns else before).append(action)
    return before, turns


def user_turns(thread: Thread) -> list[list[Any]]:
    """The thread cut at each prompt a person wrote (actions before the first one form turn 0)."""
    before, turns = prompt_turns(thread)
    return [before, *turns] if before else turns


def _turn_html(thread: Thread, actions: list[Any]) -> str:
    returns, drawn = paired_returns(thread)
    return "".join(action_card(a, thread, returns) for a in actions if a.sequence not in drawn)


def threads_html(thread_a: Thread, thread_b: Thread) -> str:
    """The two runs turn by turn: turn k of each starts at its k-th human prompt, so what a
    harness wrote before the first prompt (one run's environment context) is a row of its own,
    never "turn 1"."""
    split = [prompt_turns(thread_a), prompt_turns(thread_b)]
    n = max(len(split[0][1]), len(split[1][1]))
    cells = ['<div class="tl-seq">turn</div>']
    cells += [f'<div class="tl-who">{esc(t.title or t.thread_id)} <span class="tl-meta">{len(t.actions)} actions</span></div>' for t in (thread_a, thread_b)]
    if split[0][0] or split[1][0]:
        cells.append('<div class="tl-seq" data-turn="0">before the first prompt</div>')
        for thread, (before, _) in ((thread_a, split[0]), (thread_b, split[1])):
            inner = _turn_html(thread, before) if before else '<div class="tl-empty">— nothing before the first prompt</div>'
            cells.append(f'<div class="tl-col">{inner}</div>')
    for i in range(n):
        cells.append(f'<div class="tl-seq" data-turn="{i + 1}">turn {i + 1}</div>')
        for thread, (_, side) in ((thread_a, split[0]), (thread_b, split[1])):
            inner = _turn_html(thread, side[i]) if i < len(side) else '<div class="tl-empty">— no such turn in this run</div>'
            cells.append(f'<div class="tl-col">{inner}</div>')
    return f'{CSS}<div class="tl-root tl-compare-threads"><div class="tl-cols">{"".join(cells)}</div></div>'


def compare_threads(thread_a: Any, thread_b: Any) -> HtmlView:
    """Two runs of the same task side by side, aligned on the prompts a person wrote (harness
    turns stay inside their turn)."""
    return HtmlView(value=threads_html(as_thread(thread_a), as_thread(thread_b)))
