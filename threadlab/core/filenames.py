"""File names made from data: a safe slug and a short hash, never a path.

A thread id comes from the input, so it may be ``../../x``, ``/abs/x``, empty, 10,000
characters long or in any script; writing ``<folder>/<thread_id>.json`` would let the input
choose where a file lands. The name here is a slug of the id's letters, digits, dots, dashes
and underscores (at most 60 of them; ``thread`` when none are left) and 12 hex digits of the
id's SHA-256, so different ids get different names and every name stays inside its folder."""

from __future__ import annotations

import hashlib
import re
import unicodedata

SLUG_CHARS = 60
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_SUFFIX = re.compile(r"\.[A-Za-z0-9]+(\.[A-Za-z0-9]+)*")


def thread_file_name(thread_id: str, suffix: str = ".json") -> str:
    """``<slug>-<hash><suffix>`` for ``thread_id`` (``suffix`` is the writer's own, such as
    ``.json`` or ``.sse``; anything else is refused)."""
    if not _SUFFIX.fullmatch(suffix):
        raise ValueError(f"not a file suffix: {suffix!r}")
    ascii_only = unicodedata.normalize("NFKD", thread_id).encode("ascii", "ignore").decode("ascii")
    slug = _UNSAFE.sub("-", ascii_only).strip(".-_")[:SLUG_CHARS].rstrip(".-_") or "thread"
    digest = hashlib.sha256(thread_id.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{slug}-{digest}{suffix}"
