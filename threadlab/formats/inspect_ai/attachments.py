"""``attachment://<hash>`` references → the text they stand for.

inspect_ai condenses a sample before writing it: every string longer than a hundred characters
in its events (model inputs and outputs, tool arguments, state changes, the provider calls) and
images in its messages are moved to the sample's ``attachments`` table and replaced by
``attachment://<hash>``. A reader that does not resolve them shows the hash where the model's
answer, its reasoning or the grader's verdict belongs. The reference is always the whole string
(``inspect_ai.log._condense``), so that is all that is replaced; a reference the table lacks is
left as it is and named."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PREFIX = "attachment://"


def resolve_attachments(sample: dict[str, Any]) -> list[str]:
    """Replace, in place, every reference in ``sample`` (its ``attachments`` table aside) by its
    text; returns the references the table does not hold. Walked with a stack, not recursion:
    a sample nests as deep as its JSON allows."""
    table = sample.get("attachments")
    return resolve_in([sample], table if isinstance(table, Mapping) else {})


def resolve_in(roots: list[Any], table: Mapping[str, Any]) -> list[str]:
    """Replace, in place, every reference in the dicts and lists ``roots`` (``table`` aside);
    returns the references ``table`` does not hold."""
    missing: list[str] = []
    stack: list[Any] = list(roots)
    while stack:
        node = stack.pop()
        for key, value in node.items() if isinstance(node, dict) else enumerate(node):
            if isinstance(value, str):
                if value.startswith(PREFIX):
                    _replace(node, key, value, table, missing)
            elif isinstance(value, dict | list) and value is not table:
                stack.append(value)
    return missing


def _replace(node: Any, key: Any, ref: str, table: Mapping[str, Any], missing: list[str]) -> None:
    text = table.get(ref[len(PREFIX):])
    if isinstance(text, str):
        node[key] = text
    else:
        missing.append(ref)
