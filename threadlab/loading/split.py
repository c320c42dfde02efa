"""One large file shared out among the workers: a chunk that is one file of a format that
reads parts of a file (``READS_PARTS``: an Inspect ``.eval``, a zip of one member per sample)
becomes several chunks, part k of n of the file each, read by ``read_documents(part=...)``.

Each part inflates only its own samples; a worker reads the zip's directory once for all the
parts it is given (a second for 150,000 members). The parts are about two per worker, and
none larger than ``MAX_PART_BYTES`` (its threads' objects are in memory together), or, when
the chunks key a cache (boundaries that must not depend on the machine), one per
``MAX_PART_BYTES``. The parts add up to the file: the frames are those of one read
(``tests/test_inspect_documents.py``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from threadlab.core.problems import ThreadError
from threadlab.formats import detect_format, get_format
from threadlab.formats.common.source import Source
from threadlab.loading.files import Chunk

MAX_PART_BYTES = 32 << 20  # what one part holds at most: its threads' objects are in memory together
PARTS_PER_WORKER = 2


def split_chunks(chunks: Sequence[Chunk], target: int, *, workers: int | None = None) -> list[Chunk]:
    """``chunks``, each one-file chunk of twice ``target`` or more of a format that reads
    parts replaced by its parts. ``workers`` None: the parts of a cached load (see the module doc)."""
    out: list[Chunk] = []
    for chunk in chunks:
        n = _parts(chunk, target, workers)
        out.extend([Chunk(chunk.files, chunk.format, (k, n)) for k in range(n)] if n > 1 else [chunk])
    return out


def _parts(chunk: Chunk, target: int, workers: int | None) -> int:
    if len(chunk.files) != 1 or chunk.part is not None or chunk.size < 2 * target:
        return 1
    try:
        source = Source(chunk.files[0].path)
        module = detect_format(source) if chunk.format == "auto" else get_format(chunk.format)
    except (ThreadError, ValueError, OSError):
        return 1
    if not getattr(module, "READS_PARTS", False):
        return 1
    if workers is None:
        return max(1, math.ceil(chunk.size / MAX_PART_BYTES))
    return max(1, min(math.ceil(chunk.size / target), PARTS_PER_WORKER * workers), math.ceil(chunk.size / MAX_PART_BYTES))
