"""A minimal, escaped HTML summary of a thread, for when the widgets are not installed."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from threadlab.core.model import Thread


def thread_summary_html(thread: Thread) -> str:
    rows = "".join(
        f"<tr><td>{a.sequence}</td><td>{escape(a.action_type)}</td>"
        f"<td>{escape(thread.agent_name(a.agent) or '')}</td></tr>"
        for a in thread.actions
    )
    return (
        f"<div><b>{escape(thread.title or thread.thread_id)}</b> "
        f"({len(thread.actions)} actions, {len(thread.agents)} agents)"
        f"<table><tr><th>seq</th><th>action</th><th>agent</th></tr>{rows}</table></div>"
    )
