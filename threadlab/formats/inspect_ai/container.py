"""The ``.eval`` container: a zip of JSON members (``header.json``, ``samples/<id>_epoch_<n>.json``,
``summaries.json``, ``reductions.json``, ``_journal/...``), read with the standard library.

Members are stored deflated (older inspect_ai) or Zstandard-compressed (method 93, recent
releases, which Python's ``zipfile`` reads only from 3.14): those are inflated with pyarrow's
zstd codec, already a dependency. A zip whose central directory is missing (an eval that was
stopped while writing, a cut copy) is read member by member from its local headers, so the
samples written before the break still load."""

from __future__ import annotations

import struct
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO

ZIP_MAGIC = b"PK\x03\x04"
_LOCAL = struct.Struct("<IHHHHHIIIHH")  # local file header, 30 bytes
_ZSTD = 93


@dataclass(frozen=True, slots=True)
class Member:
    """One member: its position in the archive (1-based, what problems call its line), name,
    and bytes, or the reason they cannot be read."""

    index: int
    name: str
    data: bytes | None
    error: str | None = None


def _inflate(method: int, raw: bytes, size: int) -> bytes:
    if method == zipfile.ZIP_STORED:
        return raw
    if method == zipfile.ZIP_DEFLATED:
        return zlib.decompress(raw, -15)
    if method == _ZSTD:
        import pyarrow as pa

        return pa.Codec("zstd").decompress(raw, decompressed_size=size).to_pybytes()
    raise ValueError(f"compression method {method} is not one threadlab reads")


def members(data: bytes, wanted: tuple[str, ...] = ("header.json", "samples/")) -> tuple[list[Member], str | None]:
    """The members whose names start with one of ``wanted`` (and any other member that is
    damaged, with its error), and a note when the central directory could not be read (the
    members then come from the local headers)."""
    try:
        archive = zipfile.ZipFile(BytesIO(data))
    except zipfile.BadZipFile as exc:
        return list(_scan_local(data, wanted)), f"has no readable zip directory ({exc}); members read from their local headers"
    out = []
    for index, info in enumerate(archive.infolist(), 1):
        member = _member(data, index, info)
        if info.filename.startswith(wanted) or member.error is not None:  # a damaged member is named even when unread
            out.append(member)
    return out, None


def _member(data: bytes, index: int, info: zipfile.ZipInfo) -> Member:
    start = info.header_offset
    head = data[start : start + _LOCAL.size]
    if len(head) < _LOCAL.size or head[:4] != ZIP_MAGIC:
        return Member(index, info.filename, None, "its local header is missing or damaged")
    fields = _LOCAL.unpack(head)
    begin = start + _LOCAL.size + fields[9] + fields[10]
    raw = data[begin : begin + info.compress_size]
    if len(raw) < info.compress_size:
        return Member(index, info.filename, None, f"is cut short ({len(raw)} of {info.compress_size} bytes)")
    try:
        body = _inflate(info.compress_type, raw, info.file_size)
    except Exception as exc:  # zlib.error, pyarrow's ArrowException, an unknown method: the member is unreadable
        return Member(index, info.filename, None, f"cannot be decompressed ({exc})")
    if zlib.crc32(body) != info.CRC:
        return Member(index, info.filename, None, "fails its CRC check (damaged)")
    return Member(index, info.filename, body)


def _scan_local(data: bytes, wanted: tuple[str, ...]) -> Iterator[Member]:
    """Members from their local headers, in order, until the data ends or stops making sense.
    Sizes in the local header are what we go by (inspect_ai writes them there)."""
    pos, index = 0, 0
    while data[pos : pos + 4] == ZIP_MAGIC and pos + _LOCAL.size <= len(data):
        index += 1
        _, _, flags, method, _, _, crc, csize, usize, nlen, xlen = _LOCAL.unpack(data[pos : pos + _LOCAL.size])
        name = data[pos + _LOCAL.size : pos + _LOCAL.size + nlen].decode("utf-8", "replace")
        begin = pos + _LOCAL.size + nlen + xlen
        if flags & 0x08 and csize == 0:  # sizes only in a data descriptor: cannot be walked
            yield Member(index, name, None, "gives its size only after its data; the rest of the archive cannot be walked")
            return
        raw = data[begin : begin + csize]
        if len(raw) < csize:
            yield Member(index, name, None, f"is cut short ({len(raw)} of {csize} bytes)")
            return
        if name.startswith(wanted):
            try:
                body = _inflate(method, raw, usize)
                yield Member(index, name, body) if zlib.crc32(body) == crc else Member(index, name, None, "fails its CRC check (damaged)")
            except Exception as exc:  # see _member
                yield Member(index, name, None, f"cannot be decompressed ({exc})")
        pos = begin + csize
