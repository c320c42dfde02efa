"""One colour per participant, the same in every widget and every notebook, and readable text.

An agent's colour comes from a hash of its id (not from its position in a thread), so "planner"
is drawn in the same colour in the timeline, the transcript, the usage bars and the explorer,
and in two different runs. Two agents whose hashes fall on one colour would look like one agent,
so a figure that shows several asks ``agent_colors`` for all of them at once: each keeps its own
colour unless an agent before it took it, then it gets the next free one. The palette's colours
are far apart (CIEDE2000 > 15 for every pair) and far from red and amber, kept for tool errors
and pending calls; the harness's turns are a muted grey, interrupts violet.

A colour used for text (an agent's name in a table, a status) is ``text_color(colour)``: the same
hue darkened until it reads at WCAG AA (contrast 4.5:1) on every background a widget puts text on."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache

USER_COLOR = "#34495e"
TOOL_COLOR = "#7f8c8d"
SYSTEM_COLOR = "#a0a7ad"
HARNESS_COLOR = "#8a94a6"  # what the harness wrote in the user's role: muted, never a person's colour
INTERRUPT_COLOR = "#6d28d9"  # the person stopped the agent (not red: red means a tool error)
ERROR_COLOR = "#d62728"
PENDING_COLOR = "#e69500"
ORPHAN_COLOR = "#8c1c13"
MUTED_TEXT = "#5d636f"  # secondary text (meta lines, notes, placeholders): AA on every background below

# twelve hues with no red, orange or amber, each pair at least 17 apart in CIEDE2000
AGENT_PALETTE: tuple[str, ...] = (
    "#1f77b4",  # blue
    "#2ca02c",  # green
    "#9467bd",  # purple
    "#17becf",  # cyan
    "#e377c2",  # pink
    "#bcbd22",  # olive
    "#754904",  # brown
    "#12503e",  # dark green
    "#8b0654",  # wine
    "#576411",  # moss
    "#40bf99",  # mint
    "#128672",  # teal
)

STATUS_COLORS: dict[str, str] = {
    "success": "#2ca02c",
    "error": ERROR_COLOR,
    "validation_error": ERROR_COLOR,
    "pending": PENDING_COLOR,
    "orphan_return": ORPHAN_COLOR,
}

# what text sits on in the widgets: white, the page's table stripes and hover, the tinted rows
# (error, pending, orphan, a selected thread, a differing view, a harness turn), code blocks
TEXT_BACKGROUNDS: tuple[str, ...] = (
    "#ffffff", "#f5f5f5", "#e1f5fe", "#fdecea", "#fff4d6", "#f3d9d6", "#eef4ff", "#fff8e1", "#f4f5f7", "#fafbfc", "#f6f8fa", "#f5f3ff",
)
AA_CONTRAST = 4.5


def _index(agent_id: object) -> int:
    digest = hashlib.blake2b(str(agent_id).encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") % len(AGENT_PALETTE)


def agent_color(agent_id: object) -> str:
    """The colour of an agent, from a hash of its id (stable across threads and sessions)."""
    if agent_id is None:
        return SYSTEM_COLOR
    return AGENT_PALETTE[_index(agent_id)]


def agent_colors(agent_ids: Iterable[object]) -> dict[object, str]:
    """The colours of agents shown together: in the order given, each agent its own colour
    (``agent_color``) unless an earlier one has it, then the next colour no one has (colours
    repeat only when there are more agents than colours)."""
    out: dict[object, str] = {}
    taken: set[int] = set()
    for agent in agent_ids:
        if agent in out:
            continue
        if agent is None:
            out[agent] = SYSTEM_COLOR
            continue
        if len(taken) == len(AGENT_PALETTE):
            taken.clear()
        start = _index(agent)
        index = next(i % len(AGENT_PALETTE) for i in range(start, start + len(AGENT_PALETTE)) if i % len(AGENT_PALETTE) not in taken)
        taken.add(index)
        out[agent] = AGENT_PALETTE[index]
    return out


def role_color(role: str, agent_id: object = None) -> str:
    """Colour of a participant lane: user, an agent, tools or system."""
    if role == "user":
        return USER_COLOR
    if role == "agent":
        return agent_color(agent_id)
    if role == "tool":
        return TOOL_COLOR
    return SYSTEM_COLOR


def status_color(status: object) -> str:
    return STATUS_COLORS.get(str(status), TOOL_COLOR)


def _rgb(color: str) -> tuple[float, float, float]:
    h = color.lstrip("#")
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def relative_luminance(color: str) -> float:
    """WCAG 2 relative luminance of an sRGB colour ``#rrggbb``."""
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in _rgb(color)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21; text needs 4.5 for AA)."""
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@lru_cache(maxsize=256)
def text_color(color: str) -> str:
    """``color`` as a text colour: itself when it reads at AA on every ``TEXT_BACKGROUNDS``,
    else the same hue darkened (its channels scaled toward black) just enough to."""
    r, g, b = _rgb(color)
    for step in range(101):
        f = 1 - step / 100
        shade = f"#{round(r * f * 255):02x}{round(g * f * 255):02x}{round(b * f * 255):02x}"
        if all(contrast_ratio(shade, bg) >= AA_CONTRAST for bg in TEXT_BACKGROUNDS):
            return shade
    return "#000000"  # pragma: no cover - black reads on every light background


def agent_text_color(agent_id: object) -> str:
    return text_color(agent_color(agent_id))


def status_text_color(status: object) -> str:
    return text_color(status_color(status))
