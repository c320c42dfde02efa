"""``threadlab.sync(sources, dataset)``: an archive of sessions that updates, converting only what
changed since the last sync.

The dataset's ``threadlab-schema.json`` keeps a manifest under ``"sources"``: every file a sync
converted, with the key the load cache gives it (path, size and modification time, a Claude Code
session's subagent files counted in: ``loading/files.FileRef``) and the part its rows are in.
A sync walks the sources as ``threadlab.load`` does and sorts each file:

- **unchanged** (same key): not read at all;
- **converted**: new, or changed (a live session's JSON Lines file that grew, an edited file): read
  again whole, since a converter needs the whole file to know a line's thread and turn; a changed
  file's old rows are marked deleted in the part that holds them (the schema document lists them
  and every reader leaves them out: ``frames/deletions.py``; no part is rewritten until its
  deleted rows reach half its bytes) and its new rows go into this sync's part;
- **removed** (in the manifest, gone from the sources): reported, and kept in the dataset, which is
  an archive (Claude Code deletes sessions older than a month; the archive should not): pass
  ``prune=True`` to take their rows out. A removed file stays in the report until it comes back
  or is pruned.

Files a walk skips (a README, an image) are added to ``skipped`` the first time they are met.
Sources are named by absolute path (or URL), whatever folder the sync runs from. A sync writes a
part per ``PART_BYTES`` of files it converted (so a part's compaction, once half of it changed,
rewrites that much), then the schema file, so a reader sees the archive before the sync or after
it (``frames/dataset.py``). One sync at a time per dataset."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from threadlab.core.location import Location
from threadlab.core.problems import Problem
from threadlab.formats.common.walk import Skipped
from threadlab.frames import deletions
from threadlab.frames.dataset import DatasetWriter, frame_tables
from threadlab.frames.frames import Frames
from threadlab.frames.labels import concat
from threadlab.frames.memory import arrow_memory
from threadlab.frames.skipped import skipped_frame
from threadlab.loading.chunks import no_gc
from threadlab.loading.files import CHUNK_BYTES, FileRef, file_refs, make_chunks
from threadlab.loading.pool import Progress, default_workers, run_chunks
from threadlab.loading.remote import named_by_url, staged_sources, url_namer

MANIFEST = "sources"
SMALL_SYNC_BYTES = 8 << 20  # below this, files are converted in this process (as load does)
PART_BYTES = 16 << 20  # files converted into one part: what a compaction rewrites at most


@dataclass
class SyncReport:
    """What a sync did: the sources (paths or URLs) in each class, sorted."""

    dataset: str
    converted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    pruned: bool = False
    seconds: float = 0.0

    def __repr__(self) -> str:
        gone = f"{len(self.removed)} removed at the source ({'pruned' if self.pruned else 'kept in the archive'})"
        return (f"SyncReport({self.dataset}: {len(self.converted)} converted, {len(self.unchanged)} unchanged, {gone}; "
                f"{self.seconds:.2f} s)")


def sync(sources: Any, dataset: str | os.PathLike[str], *, format: str = "auto", prune: bool = False,
         partition_by: tuple[str, ...] | str | None = None, workers: int | None = None, progress: bool | None = None,
         storage_options: Mapping[str, Any] | None = None, source_options: Mapping[str, Any] | None = None) -> SyncReport:
    """Bring the dataset at ``dataset`` (a folder or URL; made on the first sync) up to date with
    ``sources`` (what ``threadlab.load`` takes: folders, files, globs, URLs), converting only the
    files that are new or changed since the last sync. ``storage_options`` go to the dataset's
    filesystem, ``source_options`` to the sources'. Returns a ``SyncReport``; read the archive
    with ``threadlab.read_parquet(dataset)`` or ``threadlab.sql(query, dataset)``."""
    started = time.perf_counter()
    location = Location.of(dataset, storage_options)
    writer = DatasetWriter(location, mode="append", partition_by=(partition_by,) if isinstance(partition_by, str) else partition_by)
    if writer.document is not None and writer.document["parts"] and MANIFEST not in writer.document:
        raise ValueError(f"{location.url} holds a dataset frames.to_parquet wrote, not an archive tl.sync keeps: its rows name no "
                         "synced file, so a sync would add them again; sync into another folder")
    manifest = _manifest(writer.document)
    held: dict[str, list[Any]] = manifest["files"]
    report = SyncReport(location.url, pruned=prune)
    with staged_sources(_absolute(sources), storage_options=source_options, cache=None) as (local, mirrors), arrow_memory():
        with no_gc():
            items = list(file_refs(local))
        name = url_namer(mirrors)
        seen: set[str] = set()
        todo: list[FileRef] = []
        for item in items:
            if isinstance(item, FileRef):
                key = name(item.path)
                seen.add(key)
                entry = held.get(key)
                if entry is not None and entry[0] == item.size and entry[1] == item.mtime_ns:
                    report.unchanged.append(key)
                else:
                    todo.append(item)
        skipped = [s for s in items if isinstance(s, Skipped) and name(s.path) not in manifest["skipped"]]
        walk_problems = [p for p in items if isinstance(p, Problem) and (p.source or "") not in manifest["skipped"]]
        report.removed = sorted(k for k in held if k not in seen)
        report.converted = sorted(name(f.path) for f in todo)
        replaced = [k for k in report.converted if k in held] + (report.removed if prune else [])
        _take_out(writer, held, replaced)
        if prune:
            for key in report.removed:
                held.pop(key, None)
        for frames, refs in _convert(todo, format, workers, progress, skipped, walk_problems):
            part = writer.add(frame_tables(named_by_url(frames, mirrors)))
            for ref in refs:
                held[name(ref.path)] = [ref.size, ref.mtime_ns, part]
    if skipped or walk_problems:  # each recorded once (a FIFO's problem, a README's row)
        manifest["skipped"] = sorted({*manifest["skipped"], *(name(s.path) for s in skipped), *(p.source or "" for p in walk_problems)})
    if todo or skipped or walk_problems or replaced or writer.document is None:
        writer.commit({MANIFEST: manifest})
    report.unchanged.sort()
    report.seconds = time.perf_counter() - started
    return report


def _absolute(sources: Any) -> Any:
    """Paths made absolute: the manifest and the rows name a file the same way whichever folder
    a sync runs from, so a changed file's old rows are found."""
    if isinstance(sources, list | tuple):
        return [_absolute(item) for item in sources]
    if isinstance(sources, os.PathLike) or (isinstance(sources, str) and "://" not in sources):
        return os.path.abspath(os.path.expanduser(os.fspath(sources)))
    return sources


def _manifest(document: Mapping[str, Any] | None) -> dict[str, Any]:
    found = (document or {}).get(MANIFEST)
    files = found.get("files") if isinstance(found, dict) else None
    skipped = found.get("skipped") if isinstance(found, dict) else None
    return {"files": dict(files) if isinstance(files, dict) else {}, "skipped": list(skipped) if isinstance(skipped, list) else []}


def _convert(files: list[FileRef], format: str, workers: int | None, progress: bool | None, skipped: list[Skipped],
             problems: list[Problem]) -> Iterator[tuple[Frames, list[FileRef]]]:
    """The frames of ``files`` (with the walk's new skipped files and problems, in the last), as a
    load gives them, in pieces of about ``PART_BYTES`` of files: each piece becomes a part, so the
    compaction of a piece whose files changed rewrites that piece, not everything converted with it."""
    from threadlab.frames.arrow import batch_to_tables
    from threadlab.frames.extract import extract

    total = sum(max(f.size, 0) for f in files)
    chunks = make_chunks(files, format, stable=False, target_bytes=min(CHUNK_BYTES, PART_BYTES))
    n_workers = workers if workers is not None else 1 if total < SMALL_SYNC_BYTES else default_workers(len(chunks))
    bar = Progress(total, len(files), progress if progress is not None else len(files) > 8)
    try:
        tables = run_chunks(chunks, workers=n_workers, cache_dir=None, on_done=bar.advance)
    finally:
        bar.close()
    pieces: list[tuple[list[dict[str, pa.Table]], list[FileRef]]] = [([], [])]
    held = 0
    for chunk, found in zip(chunks, tables, strict=True):
        if held >= PART_BYTES:
            pieces.append(([], []))
            held = 0
        pieces[-1][0].append(found)
        pieces[-1][1].extend(chunk.files)
        held += chunk.size
    if problems:
        pieces[-1][0].append(batch_to_tables(extract(problems)))
    for i, (piece, refs) in enumerate(pieces):
        last = i == len(pieces) - 1
        if not piece and not (last and skipped):
            continue
        with no_gc():
            yield Frames.from_tables(concat(piece), skipped=skipped_frame(skipped if last else ())), refs


def _take_out(writer: DatasetWriter, held: dict[str, list[Any]], names: list[str]) -> None:
    """Mark the rows of ``names`` deleted in the parts that hold them (``frames/deletions.py``),
    and rewrite a part without its deleted rows once they reach ``COMPACT_SHARE`` of its bytes
    (each such part rewritten once, in its place); the manifest's entries of the other files of a
    rewritten part follow it."""
    gone: dict[str, dict[str, int]] = {}
    for key in names:
        if key in held and held[key][2] in writer.parts:
            gone.setdefault(held[key][2], {})[key] = max(int(held[key][0]), 0)
    live: dict[str, int] = {}
    for key, entry in held.items():
        if entry[2] in gone and key not in gone[entry[2]]:
            live[entry[2]] = live.get(entry[2], 0) + max(int(entry[0]), 0)
    compact = []
    for part, sources in gone.items():
        dead = sum(writer.delete(part, sources).values())
        if dead >= deletions.COMPACT_SHARE * (dead + live.get(part, 0)):
            compact.append(part)
    news = writer.filter_parts(dict.fromkeys(compact, _keep_all))
    for entry in held.values():
        if entry[2] in news:
            entry[2] = news[entry[2]]


def _keep_all(table_name: str, table: pa.Table) -> None:
    """A compaction's filter: nothing but the part's deleted rows goes."""
    return None


__all__ = ["SyncReport", "sync"]
