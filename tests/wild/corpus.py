"""The wild corpus's provenance: the rows of the README tables of ``tests/fixtures/real/<format>/``
(file, repository, path, commit, licence), and the per-format counts the project README shows.

A table is any Markdown table whose header has ``file`` and ``commit`` columns. A cell may name
several files (each in backticks); ``repository`` reads ``same`` for the row above's; a README
whose table has no repository or licence column says them once in its text
(``Repository: owner/name`` and ``(MIT`` ...)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.conformance.fixtures import REAL

_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_TICKS = re.compile(r"`([^`]+)`")
_SHA = re.compile(r"\b[0-9a-f]{40}\b")


@dataclass(frozen=True)
class Row:
    folder: str  # the format folder under tests/fixtures/real
    file: str  # relative to tests/fixtures/real
    repository: str
    path: str
    commit: str
    licence: str
    text: str = ""  # the whole row, lower case (says whether the file was trimmed or converted)

    @property
    def verbatim(self) -> bool:
        """Whether the row says the file is the committed bytes (not trimmed, converted or renamed from a literal)."""
        return not any(word in self.text for word in ("trimmed", "literal", "converted", "as json", "json block", "interaction", "cut "))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _defaults(text: str) -> tuple[str, str]:
    repo = re.search(r"Repository: ([\w.-]+/[\w.-]+)", text)
    licence = re.search(r"\((MIT|Apache-2\.0|BSD[\w-]*)", text)
    return (repo.group(1) if repo else ""), (licence.group(1) if licence else "")


def readme_rows(readme: Path) -> list[Row]:
    text = readme.read_text()
    default_repo, default_licence = _defaults(text)
    rows: list[Row] = []
    header: list[str] | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = [c.lower() for c in cells]
            continue
        if set("".join(cells)) <= set("-: ") or "file" not in header or "commit" not in header:
            continue
        cell = dict(zip(header, cells, strict=False))
        repo = _LINK.sub(r"\1", cell.get("repository", "")).strip() or default_repo
        if repo == "same" and rows:
            repo = rows[-1].repository
        repo = repo.split(" ")[0]
        sha = _SHA.search(cell.get("commit", ""))
        for name in _TICKS.findall(cell["file"]):
            path = _TICKS.findall(cell.get("path", ""))
            rows.append(Row(readme.parent.name, f"{readme.parent.name}/{name}", repo, path[0] if path else cell.get("path", ""),
                            sha.group(0) if sha else "", cell.get("licence", "") or default_licence, " ".join(cells).lower()))
    return rows


def corpus_rows() -> list[Row]:
    return [row for readme in sorted(REAL.glob("*/README.md")) for row in readme_rows(readme)]


def table_counts() -> dict[str, str]:
    """Per registered format (by the folder's format): ``"<files> (<repositories>)"`` of the
    real corpus, as the README's formats table shows it; formats with none are left out."""
    from threadlab.formats.common.registry import FORMATS, format_spec

    rows = corpus_rows()
    out = {}
    for spec in FORMATS:
        folders = [d for d in REAL.iterdir() if d.is_dir() and format_spec(d.name).name == spec.name]
        files = [p for d in folders for p in d.rglob("*") if p.is_file() and p.name != "README.md"]
        repos = {r.repository for r in rows if format_spec(r.folder).name == spec.name}
        if files:
            out[spec.name] = f"{len(files)} ({len(repos)})"
    return out


def readme_table_counts(readme: str) -> dict[str, str]:
    """The ``real files (repositories)`` column of the README's formats table."""
    section = readme.split("## Formats", 1)[1]
    header: list[str] | None = None
    out = {}
    for line in section.splitlines():
        if not line.startswith("|"):
            if header:
                break
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            continue
        if set("".join(cells)) <= set("-: "):
            continue
        col = next(i for i, h in enumerate(header) if h.startswith("real files"))
        if cells[col] not in ("", "–", "-"):
            out[cells[0].strip("`").split("`")[0]] = cells[col]
    return out
