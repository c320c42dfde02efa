"""The ``.eval`` container: a zip of JSON members (``header.json``, ``samples/<id>_epoch_<n>.json``,
``summaries.json``, ``reductions.json``, ``_journal/...``), read with the standard library.

Members are stored deflated (older inspect_ai) or Zstandard-compressed (method 93, recent
releases, which Python's ``zipfile`` reads only from 3.14): those are inflated with pyarrow's
zstd stream, already a dependency. A zip whose central directory is missing (an eval that was
stopped while writing, a cut copy) is read member by member from its local headers, so the
samples written before the break still load.

Only the members a reader needs (``header.json``, ``samples/``) are inflated; the others are
only checked to be there whole (their local header and compressed bytes), never inflated. A
member is inflated a block at a time against the archive's budget: all the members read
together may inflate to ``INFLATE_RATIO`` (100) times the archive's size, or to
``INFLATE_GRACE`` (64 MiB) when that is more. Inspect's own logs inflate about 2 to 10 times;
a zip bomb (a 1 MB archive of a 1 GiB member, deflate's limit is about 1,000 times and zstd's
far beyond) stops at the budget, the member is a problem naming it and the limit, and the
samples before it load."""

from __future__ import annotations

import mmap
import struct
import zipfile
import zlib
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from io import BytesIO
from typing import Any

import orjson

ZIP_MAGIC = b"PK\x03\x04"
SAMPLES = "samples/"
_LOCAL = struct.Struct("<IHHHHHIIIHH")  # local file header, 30 bytes
_ZSTD = 93
INFLATE_RATIO = 100  # the members read may inflate to this many times the archive's bytes ...
INFLATE_GRACE = 64 << 20  # ... or to this many bytes, when that is more
_BLOCK = 1 << 20  # inflated a mebibyte at a time


@dataclass(frozen=True, slots=True)
class Member:
    """One member: its position in the archive (1-based, what problems call its line), name,
    and bytes, or the reason they cannot be read (``limit``: it inflates beyond the budget)."""

    index: int
    name: str
    data: bytes | bytearray | None
    error: str | None = None
    limit: bool = False


class _Budget:
    """How many more bytes the members of one archive may inflate to."""

    def __init__(self, archive_size: int) -> None:
        self.total = max(INFLATE_GRACE, INFLATE_RATIO * archive_size)
        self.left = self.total

    def refusal(self, inflated: int) -> str:
        return (f"inflates beyond the {self.total:,} bytes threadlab inflates from this archive ({INFLATE_RATIO} times its size, "
                f"at least {INFLATE_GRACE >> 20} MiB; {inflated:,} bytes were inflated when it stopped, as a zip bomb would)")


class _TooLarge(Exception):
    pass


def _inflate(method: int, raw: memoryview, budget: _Budget) -> bytearray:
    """The member's bytes, inflated a block at a time; ``_TooLarge`` past the budget."""
    out = bytearray()
    if method == zipfile.ZIP_STORED:
        blocks: Iterator[bytes] = iter([bytes(raw)])
    elif method == zipfile.ZIP_DEFLATED:
        blocks = _deflated(raw)
    elif method == _ZSTD:
        blocks = _zstd(raw)
    else:
        raise ValueError(f"compression method {method} is not one threadlab reads")
    for block in blocks:
        if len(out) + len(block) > budget.left:
            raise _TooLarge(budget.refusal(len(out) + len(block)))
        out += block
    budget.left -= len(out)
    return out


def _deflated(raw: memoryview) -> Iterator[bytes]:
    inflater = zlib.decompressobj(-15)
    pending: bytes | memoryview = raw
    while True:
        block = inflater.decompress(pending, _BLOCK)
        if block:
            yield block
        pending = inflater.unconsumed_tail
        if inflater.eof:
            return
        if not block and not pending:
            raise zlib.error("incomplete or truncated stream")


def _zstd(raw: memoryview) -> Iterator[bytes]:
    import pyarrow as pa

    with pa.CompressedInputStream(pa.BufferReader(pa.py_buffer(raw)), "zstd") as stream:
        while block := stream.read(_BLOCK):
            yield block


def members(data: bytes | mmap.mmap, wanted: tuple[str, ...] = ("header.json", "samples/"), part: tuple[int, int] | None = None,
            key: Hashable = None) -> tuple[Iterator[Member], str | None, dict[str, Any]]:
    """The members whose names start with one of ``wanted`` (and any other member that is
    damaged, with its error), inflated one at a time as the iterator is walked (an archive's
    samples are never all in memory together), and a note when the central directory could
    not be read (the members then come from the local headers).

    ``part`` (k, n): only the sample members of part k of n (``sample_parts``) and, in part 0,
    the damaged members that are no sample; ``header.json`` is read in every part. Without a
    central directory the members cannot be shared out: part 0 reads them all, the others none.

    The third value is ``header.json`` found through the directory (``first_header``; ``{}``
    without one), so samples can be converted as they are met.

    ``key`` (the file's path, size and mtime): the directory and header are kept for the next
    call with the same key, so a process reading several parts of one large log reads its
    directory once (a second for 150,000 members)."""
    budget = _Budget(len(data))
    view = memoryview(data)
    known = _DIRECTORY.get(key) if key is not None else None
    if known is None:
        try:
            archive = zipfile.ZipFile(data if isinstance(data, mmap.mmap) else BytesIO(data))
        except zipfile.BadZipFile as exc:
            found = iter(()) if part is not None and part[0] else _scan_local(view, wanted, budget)
            return found, f"has no readable zip directory ({exc}); members read from their local headers", {}
        infos = archive.infolist()
        known = (infos, first_header(view, infos))
        if key is not None:
            _DIRECTORY.clear()
            _DIRECTORY[key] = known
    return _listed(view, known[0], wanted, budget, part, key), None, known[1]


_DIRECTORY: dict[Hashable, tuple[list[zipfile.ZipInfo], dict[str, Any]]] = {}  # the last log's, by its key (see ``members``)
_PARTS: dict[tuple[Hashable, int, tuple[str, ...]], list[list[int]]] = {}  # the last log's parts' positions (``_positions``)


def _listed(view: memoryview, infos: list[zipfile.ZipInfo], wanted: tuple[str, ...], budget: _Budget, part: tuple[int, int] | None,
            key: Hashable = None) -> Iterator[Member]:
    later = part is not None and part[0] > 0  # a later part: members other than samples are part 0's to name
    for index in range(1, len(infos) + 1) if part is None else _positions(infos, wanted, part, key):
        info = infos[index - 1]
        name = info.filename
        sample = name.startswith(SAMPLES)
        member = _member(view, index, info, budget if name.startswith(wanted) else None)
        if later and not sample and member.error is not None:
            continue
        if name.startswith(wanted) or member.error is not None:  # a damaged member is named even when unread
            yield member


def _positions(infos: list[zipfile.ZipInfo], wanted: tuple[str, ...], part: tuple[int, int], key: Hashable) -> list[int]:
    """The positions a part walks, in archive order: its own samples, and the members that are
    no sample (part 0: all of them, to name the damaged ones; a later part: the wanted ones).
    Made once per log and process (``key``): a 1 GB log's 150,000 members were shared out
    again, and walked whole, for each of its 33 parts."""
    known = _PARTS.get((key, part[1], wanted)) if key is not None else None
    if known is None:
        others = [(i, info.filename.startswith(wanted)) for i, info in enumerate(infos, 1) if not info.filename.startswith(SAMPLES)]
        first = [i for i, _ in others]
        later = [i for i, read in others if read]
        known = [sorted([*p, *(later if k else first)]) for k, p in enumerate(sample_parts(infos, part[1]))]
        if key is not None:
            _PARTS.clear()
            _PARTS[(key, part[1], wanted)] = known
    return known[part[0]]


def first_header(view: memoryview, infos: list[zipfile.ZipInfo]) -> dict[str, Any]:
    """``header.json`` (the last one that is an object, as reading the members in order keeps);
    ``{}`` when there is none to read (its member's problem is named where it is met)."""
    header: dict[str, Any] = {}
    budget = _Budget(len(view))
    for index, info in enumerate(infos, 1):
        if info.filename == "header.json":
            member = _member(view, index, info, budget)
            try:
                value = orjson.loads(member.data) if member.data is not None else None
            except orjson.JSONDecodeError:
                continue
            header = value if isinstance(value, dict) else header
    return header


def sample_parts(infos: list[zipfile.ZipInfo], n: int) -> list[set[int]]:
    """The positions (from 1) of the sample members in each of ``n`` parts: runs of members in
    archive order, about equal in compressed bytes (a member goes to the part its middle byte
    falls in), so every reader of a part computes the same parts and they add up to the whole."""
    sized = [(index, max(info.compress_size, 1)) for index, info in enumerate(infos, 1) if info.filename.startswith(SAMPLES)]
    total = sum(size for _, size in sized) or 1
    parts: list[set[int]] = [set() for _ in range(n)]
    before = 0
    for index, size in sized:
        parts[min(n - 1, n * (2 * before + size) // (2 * total))].add(index)
        before += size
    return parts


def _member(data: memoryview, index: int, info: zipfile.ZipInfo, budget: _Budget | None) -> Member:
    """One member, inflated when a ``budget`` is given, else only found whole (its bytes None)."""
    start = info.header_offset
    head = bytes(data[start : start + _LOCAL.size])
    if len(head) < _LOCAL.size or head[:4] != ZIP_MAGIC:
        return Member(index, info.filename, None, "its local header is missing or damaged")
    fields = _LOCAL.unpack(head)
    begin = start + _LOCAL.size + fields[9] + fields[10]
    raw = data[begin : begin + info.compress_size]
    if len(raw) < info.compress_size:
        return Member(index, info.filename, None, f"is cut short ({len(raw)} of {info.compress_size} bytes)")
    if budget is None:
        return Member(index, info.filename, None)
    return _read(index, info.filename, info.compress_type, raw, info.CRC, budget)


def _read(index: int, name: str, method: int, raw: memoryview, crc: int, budget: _Budget) -> Member:
    try:
        body = _inflate(method, raw, budget)
    except _TooLarge as exc:
        return Member(index, name, None, str(exc), limit=True)
    except Exception as exc:  # zlib.error, pyarrow's ArrowException, an unknown method: the member is unreadable
        return Member(index, name, None, f"cannot be decompressed ({exc})")
    if zlib.crc32(body) != crc:
        return Member(index, name, None, "fails its CRC check (damaged)")
    return Member(index, name, body)


def _scan_local(data: memoryview, wanted: tuple[str, ...], budget: _Budget) -> Iterator[Member]:
    """Members from their local headers, in order, until the data ends or stops making sense.
    Sizes in the local header are what we go by (inspect_ai writes them there)."""
    pos, index = 0, 0
    while bytes(data[pos : pos + 4]) == ZIP_MAGIC and pos + _LOCAL.size <= len(data):
        index += 1
        _, _, flags, method, _, _, crc, csize, _, nlen, xlen = _LOCAL.unpack(data[pos : pos + _LOCAL.size])
        name = bytes(data[pos + _LOCAL.size : pos + _LOCAL.size + nlen]).decode("utf-8", "replace")
        begin = pos + _LOCAL.size + nlen + xlen
        if flags & 0x08 and csize == 0:  # sizes only in a data descriptor: cannot be walked
            yield Member(index, name, None, "gives its size only after its data; the rest of the archive cannot be walked")
            return
        raw = data[begin : begin + csize]
        if len(raw) < csize:
            yield Member(index, name, None, f"is cut short ({len(raw)} of {csize} bytes)")
            return
        if name.startswith(wanted):
            yield _read(index, name, method, raw, crc, budget)
        pos = begin + csize
