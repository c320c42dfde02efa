"""What the format tests count on threads read: actions by kind, a token count summed."""

from __future__ import annotations

from typing import Any


def action_kinds(threads: list[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for t in threads:
        for a in t.actions:
            out[a.action_type] = out.get(a.action_type, 0) + 1
    return out


def token_total(threads: list[Any], key: str) -> int:
    total = 0
    for t in threads:
        for a in t.actions:
            u = getattr(a, "usage", None)
            if u is not None:
                total += (u.get(key) if isinstance(u, dict) else getattr(u, key)) or 0
    return total
