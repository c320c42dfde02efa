"""One colour per participant, the same in every widget and every notebook.

An agent's colour comes from a hash of its id (not from its position in a thread), so "planner"
is drawn in the same colour in the timeline, the transcript, the usage bars and the explorer,
and in two different runs. Red and amber are kept for tool errors and pending calls; the
harness's turns are a muted grey, interrupts violet."""

from __future__ import annotations

import hashlib

USER_COLOR = "#34495e"
TOOL_COLOR = "#7f8c8d"
SYSTEM_COLOR = "#a0a7ad"
HARNESS_COLOR = "#8a94a6"  # what the harness wrote in the user's role: muted, never a person's colour
INTERRUPT_COLOR = "#6d28d9"  # the person stopped the agent (not red: red means a tool error)
ERROR_COLOR = "#d62728"
PENDING_COLOR = "#e69500"
ORPHAN_COLOR = "#8c1c13"

# distinct, colour-blind-friendlier hues with no red/amber (those mean error/pending)
AGENT_PALETTE: tuple[str, ...] = (
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
    "#006d77",
    "#3f51b5",
    "#6a994e",
    "#7b2cbf",
    "#0096c7",
    "#b5838d",
    "#52796f",
    "#5e60ce",
    "#9c6644",
)

STATUS_COLORS: dict[str, str] = {
    "success": "#2ca02c",
    "error": ERROR_COLOR,
    "validation_error": ERROR_COLOR,
    "pending": PENDING_COLOR,
    "orphan_return": ORPHAN_COLOR,
}


def agent_color(agent_id: object) -> str:
    """The colour of an agent, from a hash of its id (stable across threads and sessions)."""
    if agent_id is None:
        return SYSTEM_COLOR
    digest = hashlib.blake2b(str(agent_id).encode(), digest_size=4).digest()
    return AGENT_PALETTE[int.from_bytes(digest, "big") % len(AGENT_PALETTE)]


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
