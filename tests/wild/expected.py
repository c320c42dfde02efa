"""Where threadlab and the raw counter disagree on a real file today, in one place: file (under
``tests/fixtures/real/``) → (issue 24 item, why, ``{field: (counter, threadlab)}``).

``tests/wild/test_corpus.py`` asserts each file's disagreements are exactly these, so a fix that
makes one disappear (or changes it) fails the test until its entry is trimmed here; a new
disagreement fails it too. ``format`` means the file is not detected as its folder's format
(``threadlab`` is then the formats it was read as, or None)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

# none today: the last ones (a torn saved stream, the AI SDK's ReadableSpan JSON, a refusal with no
# content block, Claude look-alikes) were fixed or moved to tests/fixtures/lookalikes
EXPECTED: dict[str, tuple[str, str, dict[str, tuple[Any, Any]]]] = {}


# the hand-made fixtures of tests/fixtures/<format>/ (made by the real programs), checked by the
# conformance suite's who-wrote-it test: file (under tests/fixtures/) → the same triple
FIXTURES_EXPECTED: dict[str, tuple[str, str, dict[str, tuple[Any, Any]]]] = {}

# variants the raw counter does not read (it counts nothing there): not threadlab's disagreements
# (none today: the Claude Agent SDK's message objects and pydantic-ai's run event log are counted)
COUNTER_GAPS: dict[str, str] = {}


def listed_files() -> set[Path]:
    """The real files whose disagreements are listed here: the older per-format tests of the real
    folders leave them to ``tests/wild`` (one place that fails when one is fixed)."""
    real = Path(__file__).resolve().parents[1] / "fixtures" / "real"
    return {real / name for name in EXPECTED}


def expected_disagreement(path: Path) -> dict[str, tuple[Any, Any]] | None:
    """The listed disagreements of a fixture ({} when none; None where the counter has a gap)."""
    parts = path.resolve().parts
    rel = "/".join(parts[parts.index("fixtures") + 1 :])
    if rel in COUNTER_GAPS:
        return None
    if rel.startswith("real/"):
        return EXPECTED.get(rel.removeprefix("real/"), ("", "", {}))[2]
    return FIXTURES_EXPECTED.get(rel, ("", "", {}))[2]
