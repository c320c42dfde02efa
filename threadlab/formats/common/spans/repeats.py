"""JSON arrays that repeat the one before them, parsed once.

Every model call's span carries the whole history as one JSON string (``gen_ai.input.messages``,
pydantic-ai's ``pydantic_ai.all_messages``), each the previous call's array with a few messages
appended: parsing every copy costs the square of a conversation's length. A string that starts
with an earlier array less its closing bracket, followed by a comma, is that array's elements
(the same objects, which also makes the assembly's comparison of them an identity check) and
the parse of what follows. This is only a shortcut: whatever it does not recognise (another
shape, a rewritten or truncated history, a tail that is not JSON) is parsed whole, as
``model.json_value`` does, so the value is always the one a full parse gives."""

from __future__ import annotations

from typing import Any

import orjson

from threadlab.formats.common.spans.model import json_value

_KEEP = 8  # earlier arrays remembered: the histories of the agents a trace interleaves


class Repeats:
    """One file's JSON-array attributes, as ``json_value`` reads them (see the module doc)."""

    __slots__ = ("known", "seen", "shared")

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[Any]]] = []  # (text less its closing bracket, its elements), newest first
        self.known: dict[int, Any] = {}  # id of an element → its message (``messages.message_list``)
        self.shared = 0  # how many elements the last ``value`` took from an earlier array (the same objects)

    def value(self, text: Any) -> Any:
        """``json_value(text)``, by the shortcut where an earlier array is a prefix of ``text``."""
        self.shared = 0
        if not isinstance(text, str) or text[:1] != "[":
            return json_value(text)
        found = self._extended(text)
        if found is None:
            found = json_value(text)
            if not isinstance(found, list):
                return found
        stripped = text.rstrip()
        if stripped.endswith("]") and len(stripped) > 1:
            self.seen.insert(0, (stripped[:-1], found))
            del self.seen[_KEEP:]
        return found

    def _extended(self, text: str) -> list[Any] | None:
        for head, items in self.seen:
            if len(head) >= len(text) or not text.startswith(head):
                continue
            rest = text[len(head):]
            if items:
                if rest[:1] != ",":
                    continue
                rest = rest[1:]
            try:
                tail = orjson.loads("[" + rest)
            except orjson.JSONDecodeError:
                continue
            if isinstance(tail, list) and (tail or not items):  # (``[a,]`` is no JSON)
                self.shared = len(items)
                return [*items, *tail]
        return None
