"""One pydantic-ai message as the reader holds it (2.x JSON, parts normalised or kept as they
came), apart from the code that makes it, so that reading a history needs no pydantic-ai import
when the fast route (``fast``) takes every message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MISSING = "_missing"  # key of a normalised part or envelope: keys the file did not have


@dataclass
class BadPart:
    """A part pydantic-ai cannot validate: kept as it came, with the rule and the reason."""

    raw: Any
    rule: str  # "unknown-type" (a part kind pydantic-ai does not know) or "schema"
    reason: str

    @property
    def kind(self) -> str:
        kind = self.raw.get("part_kind") if isinstance(self.raw, Mapping) else None
        return kind if isinstance(kind, str) and kind else "unknown_part"


@dataclass
class Message:
    """One ModelMessage as 2.x JSON: ``envelope`` (every field but ``parts``), ``parts`` (each a
    normalised dict or a ``BadPart``), ``raw_kinds`` (each part's kind as the file wrote it),
    ``line`` (its JSON Lines line), ``counted`` (its parts are input records of the file; False
    for messages rebuilt from stream events or read from a run result), ``problems`` (rule,
    message) about the message as a whole."""

    envelope: dict[str, Any]
    parts: list[dict[str, Any] | BadPart]
    raw_kinds: list[str | None] = field(default_factory=list)
    line: int | None = None
    counted: bool = True
    problems: list[tuple[str, str]] = field(default_factory=list)
    part_problems: dict[int, tuple[str, str]] = field(default_factory=dict)  # parts read with something kept as it came
    exact: bool = True  # keep what the round trip needs (False: a writer's read-back, which compares actions only)
    vouched: bool = field(default=False, compare=False)  # every field checked by the fast route's table (``fast.message``)

    @classmethod
    def of_validated(cls, dumped: Mapping[str, Any]) -> Message:
        """A message pydantic-ai itself just dumped (mode="json"): nothing to validate again."""
        envelope = {k: v for k, v in dumped.items() if k != "parts"}
        parts = [dict(p) for p in dumped["parts"]]
        return cls(envelope, list(parts), [p.get("part_kind") for p in parts], exact=False)

    @property
    def kind(self) -> str:
        return str(self.envelope["kind"])

    @property
    def records(self) -> int:
        return max(1, len(self.parts)) if self.counted else 0
