"""HTML cards for single actions: the pieces the transcript and the comparisons are made of.

Every user-supplied string goes through ``esc``/``preview``; URLs become links only through
``safe_url``; remote media are links unless ``fetch_media=True`` (inline base64 images are shown
as thumbnails, they fetch nothing)."""

from __future__ import annotations

from typing import Any

from threadlab.core.authors import INTERRUPT
from threadlab.core.model import (
    AssistantMessage,
    BaseAction,
    Thinking,
    Thread,
    ToolCall,
    ToolReturn,
    UserMessage,
)
from threadlab.widgets.authorship import INTERRUPT_LABEL, harness_label, who_wrote
from threadlab.widgets.colors import (
    HARNESS_COLOR,
    INTERRUPT_COLOR,
    SYSTEM_COLOR,
    USER_COLOR,
    agent_color,
    agent_colors,
    status_color,
    status_text_color,
    text_color,
)
from threadlab.widgets.text import as_text, capped, esc, preview, safe_url

HARNESS_OPEN_CHARS = 240  # a harness turn up to this long (and a few lines) is shown open; a longer one folded


def thread_color(thread: Thread, agent_id: Any) -> str:
    """An agent's colour among its thread's agents (two agents never share one: ``agent_colors``)."""
    return agent_colors(list(thread.agents)).get(agent_id) or agent_color(agent_id)


def _field(part: Any, name: str) -> Any:
    if isinstance(part, dict):
        return part.get(name)
    value = getattr(part, name, None)
    if value is None and getattr(part, "__pydantic_extra__", None):
        value = part.__pydantic_extra__.get(name)
    return value


def _size(data: Any) -> str:
    if not isinstance(data, str):
        return ""
    kb = len(data) * 3 / 4 / 1024
    return f", {kb:.0f} KB inline"


def media_html(label: str, media_type: Any, url: Any = None, data: Any = None, *, fetch_media: bool = False) -> str:
    """One media item: a thumbnail for inline images (and remote images when asked), else a
    link; an unsafe URL is shown as text."""
    kind = esc(media_type or label)
    if isinstance(data, str) and str(media_type or "").startswith("image/"):
        src = safe_url(f"data:{media_type};base64,{data}")
        if src:
            return f'<span class="tl-media"><img alt="{kind}" src="{esc(src)}"></span>'
    if data is not None and url is None:
        return f'<span class="tl-media">[{esc(label)}: {kind}{_size(data)}]</span>'
    link = safe_url(url)
    if link is None:
        return f'<span class="tl-media">[{esc(label)}: {kind}] <code>{preview(url, 120)}</code> (not a safe link)</span>'
    if fetch_media and str(media_type or label).startswith("image"):
        return f'<span class="tl-media"><img alt="{kind}" src="{esc(link)}" referrerpolicy="no-referrer"></span>'
    return f'<span class="tl-media">[{esc(label)}: {kind}] <a href="{esc(link)}" target="_blank" rel="noopener noreferrer">{preview(link, 80)}</a></span>'


def content_html(content: Any, *, fetch_media: bool = False) -> str:
    """Message content (a string or a list of text/image/media/unknown parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return capped(content)
    if not isinstance(content, list):
        return capped(as_text(content), "pre", "")
    pieces = []
    for part in content:
        kind = _field(part, "type")
        if kind == "text" and isinstance(_field(part, "text"), str):
            pieces.append(capped(_field(part, "text")))
        elif kind == "image" and _field(part, "content_type") is None:
            media_type = _field(part, "media_type") or "image/*"
            pieces.append(media_html("image", media_type, _field(part, "image_url"), _field(part, "image_base64"), fetch_media=fetch_media))
        elif _field(part, "media_category") is not None:
            pieces.append(
                media_html(str(_field(part, "media_category")), _field(part, "media_type"), _field(part, "url"), _field(part, "data"), fetch_media=fetch_media)
            )
        else:
            raw = part.model_dump(mode="json") if hasattr(part, "model_dump") else part
            pieces.append(capped(as_text(raw), "pre", "", title="unknown part"))
    return "".join(pieces)


def attachments_html(action: BaseAction, *, fetch_media: bool = False) -> str:
    items = getattr(action, "attachments", None) or []
    return "".join(media_html(f"attachment {a.name}", a.media_type, a.url, a.data, fetch_media=fetch_media) for a in items)


def speaker(name: Any, color: str, meta: str = "") -> str:
    return f'<div class="tl-who" style="color:{text_color(color)}">{esc(name)}<span class="tl-meta">{meta}</span></div>'


def _meta(action: BaseAction, extra: str = "") -> str:
    model = (action.metadata or {}).get("model_name")
    bits = [f"#{action.sequence}", action.timestamp.strftime("%H:%M:%S")]
    if model:
        bits.append(str(model))
    if extra:
        bits.append(extra)
    return esc(" · ".join(bits))


def badge(status: Any) -> str:
    return f'<span class="tl-badge" style="background:{status_text_color(status)}">{esc(status)}</span>'


def tool_card(call: ToolCall | None, ret: ToolReturn | None, thread: Thread) -> str:
    """A tool call with its return in one card (pending: no return yet; orphan: no call)."""
    either = call or ret
    assert either is not None
    status = "orphan_return" if call is None else ("pending" if ret is None else ret.status)
    border = status_color(status) if status != "success" else thread_color(thread, call.agent_id if call else None)
    who = thread.agent_name(call.agent_id) if call else "unknown caller"
    latency = ""
    if call is not None and ret is not None:
        latency = f" · {(ret.timestamp - call.timestamp).total_seconds():.2f} s"
    head = f"<span class=\"tl-meta\" style=\"margin:0 4px 0 0\">tool</span>{esc(either.tool_name)}{badge(status)}<span class=\"tl-meta\">{esc(who)} · #{either.sequence}{esc(latency)}</span>"
    args = f"<div class=\"tl-meta\">args</div>{capped(as_text(call.args), 'pre', '')}" if call is not None else ""
    result = f"<div class=\"tl-meta\">result #{ret.sequence}</div>{capped(as_text(ret.content), 'pre', '')}" if ret is not None else ""
    if ret is None:
        result = '<div class="tl-note">waiting for a return (pending)</div>'
    return f'<div class="tl-tool" style="border-left-color:{border}"><div class="tl-who">{head}</div>{args}{result}</div>'


def _system_data(action: BaseAction) -> Any:
    data = getattr(action, "data", None)
    if data is None and getattr(action, "__pydantic_extra__", None):
        data = action.__pydantic_extra__
    return data


def system_line(action: BaseAction) -> str:
    data = _system_data(action)
    detail = f": {preview(data, 140)}" if data not in (None, {}, "") else ""
    return f'<div class="tl-sys" style="border-color:{SYSTEM_COLOR}">{esc(action.action_type)}{detail} <span class="tl-meta">#{action.sequence}</span></div>'


def plain_text(content: Any) -> str:
    """The text of message content (text parts joined; other parts as JSON), for previews."""
    if isinstance(content, list):
        texts = [_field(p, "text") for p in content if _field(p, "type") == "text"]
        if all(isinstance(t, str) for t in texts) and len(texts) == len(content):
            return "\n".join(texts)
    return as_text(content)


def interrupt_line(action: BaseAction, text: str) -> str:
    """An interrupt marker: the person stopped the agent here (the harness's own words after it)."""
    return (f'<div class="tl-interrupt" data-harness="{INTERRUPT}" style="color:{text_color(INTERRUPT_COLOR)}"><span class="tl-stop"></span>{esc(INTERRUPT_LABEL)}'
            f'<span class="tl-meta">{_meta(action)} · {preview(text, 100)}</span></div>')


def harness_card(action: BaseAction, body: str, text: str) -> str:
    """What the harness wrote (in the user's role, or a system action recording a harness turn):
    muted and labelled with what it is, folded when long, an interrupt as a small marker."""
    _, kind = who_wrote(action)
    if kind == INTERRUPT:
        return interrupt_line(action, text)
    head = f'<span class="tl-who" style="color:{text_color(HARNESS_COLOR)}">{esc(harness_label(kind))}</span><span class="tl-meta">{_meta(action, f"{len(text):,} chars")}</span>'
    attrs = f'class="tl-harness" data-harness="{esc(kind)}" style="border-left-color:{HARNESS_COLOR}"'
    if len(text) <= HARNESS_OPEN_CHARS and text.count("\n") < 4:
        return f"<div {attrs}>{head}{body}</div>"
    return f'<details {attrs}><summary>{head}<span class="tl-preview">{preview(text, 120)}</span></summary>{body}</details>'


def user_role_card(action: UserMessage, *, fetch_media: bool = False) -> str:
    """A message in the user's role: the person's prompt, or a harness turn shown as such (an
    agent's message to another in the user's role is labelled with its author)."""
    author, _ = who_wrote(action)
    body = content_html(action.content, fetch_media=fetch_media) + attachments_html(action, fetch_media=fetch_media)
    if author == "harness":
        return harness_card(action, body, plain_text(action.content))
    name = "User" if author in ("human", None) else f"{author} · in the user's role"
    return f'<div class="tl-msg" style="border-left-color:{USER_COLOR}">{speaker(name, USER_COLOR, _meta(action))}{body}</div>'


def action_card(action: BaseAction, thread: Thread, returns: dict[str, ToolReturn], *, fetch_media: bool = False) -> str:
    """The HTML of one action in a chat view. ``returns`` maps tool_call_id → its return, so a
    call is drawn with its return; returns that have a call are drawn there, not again."""
    if isinstance(action, UserMessage):
        return user_role_card(action, fetch_media=fetch_media)
    if isinstance(action, AssistantMessage):
        color = thread_color(thread, action.agent_id)
        extra = f"finish: {action.finish_reason}" if action.finish_reason else ""
        name = thread.agent_name(action.agent_id)
        return f'<div class="tl-msg" style="border-left-color:{color}">{speaker(name, color, _meta(action, extra))}{content_html(action.content, fetch_media=fetch_media)}</div>'
    if isinstance(action, Thinking):
        color = thread_color(thread, action.agent_id)
        text = action.content or "(redacted)"
        summary = f"{esc(thread.agent_name(action.agent_id))} thinking · {len(action.content or '')} chars · #{action.sequence}"
        return f'<details class="tl-think" style="border-left:3px dotted {color};padding-left:6px"><summary>{summary}</summary>{capped(text, "pre", "")}</details>'
    if isinstance(action, ToolCall):
        return tool_card(action, returns.get(action.tool_call_id), thread)
    if isinstance(action, ToolReturn):
        return tool_card(None, action, thread)
    if who_wrote(action)[0] == "harness":  # a system action recording a harness turn (a hook's output, a compaction summary)
        data = _system_data(action)
        text = as_text(data)
        return harness_card(action, capped(text, "pre", ""), text)
    return system_line(action)


def paired_returns(thread: Thread) -> tuple[dict[str, ToolReturn], set[int]]:
    """tool_call_id → its return, and the sequences of returns drawn with their call."""
    from threadlab.core.derive import tool_pairs

    returns: dict[str, ToolReturn] = {}
    drawn: set[int] = set()
    for pair in tool_pairs(thread):
        if pair.call is not None and pair.ret is not None:
            returns[pair.tool_call_id] = pair.ret
            drawn.add(pair.ret.sequence)
    return returns, drawn
