"""Copy Claude Code transcripts / stream-json / SDK dumps with the CLI's own prompt text removed.

Claude Code writes its system prompt, model blurb, agent listings and harness wrappers into
transcripts (``prompt_snapshot`` attachments, tool-result frames). Those are Anthropic's text,
not ours to commit, so every such string becomes ``[vendor prompt text omitted: N chars]``;
everything else (ids, timestamps, usage, the conversation) is copied unchanged.

Usage: ``python data/claude_code/strip_vendor_text.py SRC DST`` (files or folders)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Any

import orjson

# attachment type → fields whose strings are vendor text
_VENDOR_FIELDS = {
    "prompt_snapshot": ("systemPrompt", "cliPrefix"),
    "model": ("text",),
    "agent_listing_delta": ("addedLines",),
    "skill_listing": ("content",),
}
_RENDERED = ("rendered", "renderedInHumanTurn")
_HAND_BACK = re.compile(r"\[Subagent hand-back\].*?(The report follows:|$)", re.DOTALL)
_NOTE = re.compile(r"<note>.*?</note>", re.DOTALL)
_REMINDER = re.compile(r"<system-reminder>(.*?)</system-reminder>", re.DOTALL)
_MARK = "[vendor prompt text omitted"


def _omit(value: Any) -> Any:
    if isinstance(value, str):
        return value if value.startswith(_MARK) else f"{_MARK}: {len(value)} chars]"
    if isinstance(value, list):
        return [_omit(v) for v in value]
    if isinstance(value, dict):
        return {k: _omit(v) for k, v in value.items()}
    return value


def _reminder(match: re.Match[str]) -> str:
    inner = match.group(1)
    return match.group(0) if len(inner) <= 120 or inner.startswith(_MARK) else f"<system-reminder>{_MARK}: {len(inner)} chars]</system-reminder>"


def _scrub_text(value: str) -> str:
    if value.startswith("Async agent launched successfully."):
        return _omit(value)
    value = _REMINDER.sub(_reminder, value)
    value = _HAND_BACK.sub(lambda m: f"{_MARK}: {len(m.group(0))} chars]", value)
    return _NOTE.sub(lambda m: f"<note>{_MARK}: {len(m.group(0))} chars]</note>", value)


def _tool_names(tools: Any) -> list[Any]:
    return [{"name": t.get("name"), "__rest__": "omitted"} if isinstance(t, dict) else _omit(t) for t in tools or []]


def scrub(value: Any) -> Any:
    """The value with vendor text replaced, recursively."""
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, str):
        return _scrub_text(value)
    if not isinstance(value, dict):
        return value
    out = {k: scrub(v) for k, v in value.items()}
    kind = value.get("type")
    for key in _VENDOR_FIELDS.get(str(kind), ()):
        if key in out:
            out[key] = _omit(out[key])
    for key in _RENDERED:
        if key in out:
            out[key] = _omit(out[key])
    if kind == "prompt_snapshot" and "tools" in out:
        out["tools"] = _tool_names(value["tools"])
    if kind == "api-request-shape" and isinstance(value.get("shape"), dict) and "__summary__" not in value["shape"]:
        shape = value["shape"]
        out["shape"] = {"__summary__": "omitted by strip_vendor_text.py", "keys": sorted(shape),
                        "tool_names": [t.get("name") for t in shape.get("tools") or [] if isinstance(t, dict)]}
    if kind == "api-request-blob" and isinstance(out.get("message"), dict):
        content = out["message"].get("content")
        if isinstance(content, list):
            out["message"]["content"] = [{**b, "text": _omit(b["text"])} if isinstance(b, dict) and isinstance(b.get("text"), str) else b for b in content]
    return out


def copy_file(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.suffix == ".jsonl":
        lines = [orjson.dumps(scrub(orjson.loads(line))) for line in src.read_bytes().splitlines() if line.strip()]
        dst.write_bytes(b"\n".join(lines) + b"\n")
    elif src.suffix == ".json":
        dst.write_bytes(orjson.dumps(scrub(orjson.loads(src.read_bytes())), option=orjson.OPT_INDENT_2) + b"\n")
    else:
        shutil.copyfile(src, dst)


def copy_tree(src: Path, dst: Path) -> None:
    if src.is_file():
        copy_file(src, dst)
        return
    for path in sorted(src.rglob("*")):
        if path.is_file():
            copy_file(path, dst / path.relative_to(src))


if __name__ == "__main__":
    copy_tree(Path(sys.argv[1]), Path(sys.argv[2]))
