"""The conformance suite's cases that fail on real files today: test name → {case id: why}.

Each is run as a strict expected failure (``pytest.mark.xfail(strict=True)``), so a fix makes the
test fail until its line is removed here. Found by adding the wild corpus (issue 24 §8); the
files' own disagreements with the raw counter are in ``tests/wild/expected.py`` (the issue-24
item and the reason of each file named here is there too)."""

from __future__ import annotations

# none today: the last ones (a torn saved stream, the AI SDK's ReadableSpan JSON) are read now
CONFORMANCE_XFAIL: dict[str, dict[str, str]] = {}
