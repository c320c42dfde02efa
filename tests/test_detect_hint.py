"""Detection's path hint (``FormatSpec.path_hint``): a file where a format's files usually live
(a Claude Code session under ``projects/<project>/<uuid>.jsonl``) is offered to that format
first, and the content still decides: whatever else sits at such a path is read as what it
is, or reported."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from threadlab.core.problems import ThreadError
from threadlab.formats import Source, detect_format
from threadlab.formats.common.registry import FORMATS

FIXTURES = Path(__file__).parent / "fixtures"
SESSION = "projects/-home-user-code-app/0b7c2f3e-9a41-4c52-8d1e-3f6a2b9c1d07.jsonl"
ROLLOUT = "sessions/2026/01/05/rollout-2026-01-05T09-00-00-0b7c2f3e-9a41-7c52-8d1e-3f6a2b9c1d07.jsonl"  # Codex's hint
JSONL = sorted(p for p in FIXTURES.rglob("*.jsonl") if p.is_file())


def _at_session_path(tmp_path: Path, source: Path, where: str = SESSION) -> Path:
    target = tmp_path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def _name_or_error(path: Path) -> str:
    try:
        return detect_format(Source(path)).NAME
    except ThreadError as exc:
        return "error: " + ";".join(sorted(p.rule for p in exc.problems))


@pytest.mark.parametrize("fixture", JSONL, ids=[str(p.relative_to(FIXTURES)) for p in JSONL])
def test_a_file_at_a_session_path_is_detected_as_anywhere_else(tmp_path: Path, fixture: Path) -> None:
    """Every JSON Lines fixture of every format, moved to where Claude Code keeps sessions, is
    detected as it is at its own path (or fails the same way): the hint only changes the order."""
    assert _name_or_error(_at_session_path(tmp_path, fixture)) == _name_or_error(fixture)


@pytest.mark.parametrize("fixture", JSONL, ids=[str(p.relative_to(FIXTURES)) for p in JSONL])
def test_a_file_at_a_rollout_path_is_detected_as_anywhere_else(tmp_path: Path, fixture: Path) -> None:
    """The same where Codex keeps its rollouts (``sessions/YYYY/MM/DD/rollout-*.jsonl``)."""
    assert _name_or_error(_at_session_path(tmp_path, fixture, ROLLOUT)) == _name_or_error(fixture)


def test_a_rollout_path_is_sniffed_by_codex_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from threadlab.formats import codex

    rollout = next(p for p in JSONL if "fixtures/codex/" in p.as_posix() and codex.detect(Source(p)))
    asked: list[str] = []
    module = __import__(FORMATS[0].module, fromlist=["detect"])
    real = module.detect
    monkeypatch.setattr(module, "detect", lambda source: asked.append(source.name) or real(source))
    assert detect_format(Source(_at_session_path(tmp_path, rollout, ROLLOUT))).NAME == "codex"
    assert asked == []


def test_a_session_path_is_sniffed_by_its_format_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Claude session where Claude Code keeps it is claimed without asking the formats before
    Claude in the detection order (the cost the hint saves); elsewhere they are asked."""
    from threadlab.formats import claude

    session = next(p for p in JSONL if "fixtures/claude/" in p.as_posix() and claude.detect(Source(p)))
    asked: list[str] = []
    first = FORMATS[0]
    module = __import__(first.module, fromlist=["detect"])
    real = module.detect
    monkeypatch.setattr(module, "detect", lambda source: asked.append(source.name) or real(source))
    assert detect_format(Source(_at_session_path(tmp_path, session))).NAME == "claude-code"
    assert asked == []
    assert detect_format(Source(session)).NAME == "claude-code"
    assert len(asked) == 1


def test_what_is_not_a_session_at_a_session_path_is_reported(tmp_path: Path) -> None:
    target = tmp_path / SESSION
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{"hello": 1}\n{"hello": 2}\n')
    with pytest.raises(ThreadError) as exc:
        detect_format(Source(target))
    assert [p.rule for p in exc.value.problems] == ["format"]
