"""Which files the conformance suite runs every format over, found by convention (nothing to
register): ``tests/fixtures/<format>/`` and ``tests/fixtures/real/<format>/`` hold files of that
format (the folder's name is a format name or alias: ``claude``, ``pydantic_ai`` ...); files in a
folder are found as ``threadlab.load`` walks it (a Claude session's subagent files go with the
session). ``tests/fixtures/lookalikes/`` holds files no format reads (other tools' streams and
logs), which every detector must refuse. The bundled ``data/<format>/`` files are read and
round-tripped too."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from threadlab.formats.common.registry import FORMATS, format_spec
from threadlab.formats.common.walk import Found, walk

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
REAL = FIXTURES / "real"
LOOKALIKES = FIXTURES / "lookalikes"
DATA = ROOT / "data"


@dataclass(frozen=True)
class Fixture:
    path: Path
    format: str | None  # the registry name the file must be read as (None: bundled data, detected)
    origin: str  # "fixture", "real" or "data"

    @property
    def id(self) -> str:
        return str(self.path.relative_to(ROOT))


def _format_of(folder: Path) -> str | None:
    try:
        return format_spec(folder.name).name
    except ValueError:
        return None


def _files(folder: Path) -> list[Path]:
    return [Path(item.path) for item in walk(folder) if isinstance(item, Found)]


def fixtures(*, origins: tuple[str, ...] = ("fixture", "real", "data")) -> list[Fixture]:
    found: list[Fixture] = []
    for origin, base in (("fixture", FIXTURES), ("real", REAL), ("data", DATA)):
        if origin not in origins or not base.is_dir():
            continue
        for folder in sorted(p for p in base.iterdir() if p.is_dir()):
            name = _format_of(folder)
            if name is None:  # not a format's folder (data/runs: 300 generated runs, widgets/ ...)
                continue
            # data/ folders mix formats (a merged thread beside the histories): detected there
            found += [Fixture(path, None if origin == "data" else name, origin) for path in _files(folder)]
    return found


def lookalikes() -> list[Path]:
    return _files(LOOKALIKES) if LOOKALIKES.is_dir() else []


def formats_with_fixtures() -> set[str]:
    return {f.format for f in fixtures(origins=("fixture", "real")) if f.format is not None}


ALL_FORMATS = [spec.name for spec in FORMATS]
