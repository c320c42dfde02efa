"""How a bare Thread renders in a notebook: a minimal, escaped HTML summary here, or whatever
renderer a higher layer registers (``threadlab`` registers the widgets' transcript), so the
core never imports upwards."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING, Any

from threadlab.core.authors import author_of, harness_kind_of

if TYPE_CHECKING:
    from threadlab.core.model import Thread

_renderer: Callable[[Thread], str] | None = None


def register_renderer(render: Callable[[Thread], str] | None) -> None:
    """Make ``render`` what ``Thread._repr_html_`` shows (None: the summary table)."""
    global _renderer
    _renderer = render


def render_html(thread: Thread) -> str:
    if _renderer is not None:
        try:
            return _renderer(thread)
        except ImportError:  # the widgets' libraries are optional for server use of the core
            pass
    return thread_summary_html(thread)


def _who(action: Any) -> str:
    """Who wrote the action: ``human``, ``agent`` ..., ``harness · interrupt`` for what the
    harness wrote (in the user's role too: not a person's prompt)."""
    author = author_of(action.action_type, action.metadata) or ""
    kind = harness_kind_of(action.metadata)
    return f"{author} · {kind}" if kind else author


def thread_summary_html(thread: Thread) -> str:
    rows = "".join(
        f"<tr><td>{a.sequence}</td><td>{escape(a.action_type)}</td><td>{escape(_who(a))}</td>"
        f"<td>{escape(thread.agent_name(a.agent) or '')}</td></tr>"
        for a in thread.actions
    )
    return (
        f"<div><b>{escape(thread.title or thread.thread_id)}</b> "
        f"({len(thread.actions)} actions, {len(thread.agents)} agents)"
        f"<table><tr><th>seq</th><th>action</th><th>who</th><th>agent</th></tr>{rows}</table></div>"
    )
