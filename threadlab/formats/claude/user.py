"""User lines: which are the person's prompts and which Claude Code writes itself, and user
content blocks as ThreadProtocol content parts (kept exactly, so the writer gives them back)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.formats.claude.wire import Entry

# user text Claude Code writes itself, by its opening tag → the system.* action it becomes
_WRAPPED_USER_TEXT = (
    ("<task-notification>", "task_notification"),
    ("<command-name>", "command"),
    ("<command-message>", "command"),
    ("<local-command-stdout>", "command_output"),
    ("<local-command-stderr>", "command_output"),
)
_SNAKE = re.compile(r"[^a-z0-9]+")
# the part of an image/document source the part's url/data holds; the rest is kept in metadata
_SOURCE_VALUE = {"url": "url", "base64": "data", "text": "data"}


def snake(name: Any) -> str:
    """A name fit for ``system.<snake_case>``."""
    text = _SNAKE.sub("_", str(name).lower()).strip("_")
    return text if text and text[0].isalpha() else f"x_{text or 'unnamed'}"


def system_name(raw: Mapping[str, Any], content: Any) -> str | None:
    """The ``system.*`` name of a user line Claude Code wrote itself (None: a real prompt)."""
    if raw.get("isMeta"):
        return "meta_message"
    if raw.get("isCompactSummary"):
        return "compact_summary"
    blocks = content if isinstance(content, list) else ()
    text = content if isinstance(content, str) else "".join(b["text"] for b in blocks if isinstance(b, Mapping) and isinstance(b.get("text"), str))
    return next((name for prefix, name in _WRAPPED_USER_TEXT if text.lstrip().startswith(prefix)), None)


def user_part(block: Any, builder: ThreadBuilder, entry: Entry, index: int) -> Any:
    """A user content block as a content part: text as a text part (its other fields kept on
    it), an image or document with a url/base64/text source as a media part (the block's other
    fields under the part's ``metadata.claude``); anything else is kept as it came, reported."""
    if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str):
        return dict(block)
    if isinstance(block, Mapping) and block.get("type") in ("image", "document") and isinstance(block.get("source"), Mapping):
        source = block["source"]
        value_key = _SOURCE_VALUE.get(source.get("type"))
        if value_key is not None and isinstance(source.get(value_key), str):
            kept = {"source": {k: v for k, v in source.items() if k != value_key}, **{k: v for k, v in block.items() if k not in ("type", "source")}}
            part = {"type": "file", "content_type": "url" if value_key == "url" else "binary",
                    "media_type": source.get("media_type") if isinstance(source.get("media_type"), str) else "application/octet-stream",
                    "media_category": "image" if block["type"] == "image" else "document", value_key: source[value_key],
                    "metadata": {"claude": {"type": block["type"], **kept}}}
            return part
    kind = block.get("type") if isinstance(block, Mapping) else type(block).__name__
    builder.kept("unknown-type", f"{entry.where()} user content block {index} of type {kind!r} is not one threadlab maps; kept as an unknown part",
                 line=entry.line)
    if isinstance(block, Mapping) and isinstance(kind, str) and kind not in ("text", "image", "unknown") and "content_type" not in block:
        return dict(block)  # an unknown part with the block's own fields
    return {"type": "unknown", "claude_block": block}  # a block an unknown part cannot stand for as it is
