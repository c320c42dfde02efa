"""Source: one input to read (a file, a folder, bytes, text or an in-memory object), parsed at
most once and only as far as a format needs, with errors that name the source and the line.

Only regular files are opened: a FIFO, socket or device named like a thread file would block
a read forever (or never end), so it is an ``io`` problem instead, found without blocking
(opened with O_NONBLOCK, then looked at with fstat)."""

from __future__ import annotations

import json
import mmap
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, BinaryIO

import orjson

from threadlab.core.problems import Problem, ThreadError
from threadlab.formats.common.describe import describe_bytes

_MISSING: Any = object()
_NON_BLANK = re.compile(rb"[^ \t\n\r\x0b\x0c]")  # what bytes.strip() keeps


class Source:
    def __init__(self, obj: Any, *, name: str | None = None, data: bytes | None = None, parsed: Any = _MISSING) -> None:
        """``data`` / ``parsed``: the file's bytes / JSON value when the caller already has them,
        so nothing is read or parsed twice."""
        self.path: Path | None = None
        self._data: bytes | None = None
        self._obj: Any = _MISSING
        self._line_before_more: Any = _MISSING
        self._found: dict[bytes, int] = {}  # marker → where it first occurs in the bytes (-1: nowhere)
        if isinstance(obj, Source):
            self.path, self._data, self._obj, self.name = obj.path, obj._data, obj._obj, obj.name
            self._found = obj._found
            return
        if isinstance(obj, os.PathLike) or (isinstance(obj, str) and not _looks_like_text(obj)):
            self.path = Path(obj)
            self.name = name or str(obj)
        elif isinstance(obj, bytes | bytearray | memoryview):
            self._data = bytes(obj)
            self.name = name or "<bytes>"
        elif isinstance(obj, str):
            self._data = obj.encode("utf-8")
            self.name = name or "<text>"
        elif hasattr(obj, "read"):
            self._data = _read_stream(obj)
            self.name = name or getattr(obj, "name", None) or "<stream>"
        else:
            self._obj = obj
            self.name = name or f"<{type(obj).__name__}>"
        if data is not None:
            self._data = data
        if parsed is not _MISSING:
            self._obj = parsed

    # --- what kind of thing it is ---------------------------------------------------------
    @property
    def is_dir(self) -> bool:
        return self.path is not None and self._data is None and self.path.is_dir()  # (bytes in hand: a file's, no stat to ask)

    @property
    def is_object(self) -> bool:
        """True when the source is an in-memory Python object (not bytes, not a file)."""
        return self._obj is not _MISSING and self._data is None and self.path is None

    @property
    def suffix(self) -> str:
        return self.path.suffix.lower() if self.path is not None else ""

    # --- bytes and text -------------------------------------------------------------------
    @property
    def data(self) -> bytes:
        if self._data is None:
            if self.path is None:
                raise TypeError(f"{self.name} is an in-memory object, not bytes")
            if self.path.is_dir():
                raise self.error("format", "is a folder, not a file")
            with self._open() as fh:
                self._data = fh.read()
        return self._data

    def mapped(self) -> bytes | mmap.mmap:
        """The bytes, or the file mapped read-only when they are not read yet: a large archive
        read member by member (an Inspect ``.eval``) need not be in memory whole, and a
        process reading a part of it touches that part only."""
        if self._data is not None or self.path is None or self.path.is_dir():
            return self.data
        with self._open() as fh:
            try:
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            except (OSError, ValueError):  # empty, or a file that cannot be mapped
                return self.data

    def _open(self) -> BinaryIO:
        """The file, opened for reading; a Source error (``io``) when it is missing, unreadable
        or no regular file."""
        assert self.path is not None
        try:
            return open_regular(self.path)
        except FileNotFoundError:
            raise self.error("io", "no such file") from None
        except SpecialFileError as exc:
            raise self.error("io", f"is a {exc.kind}, not a regular file; not read") from None
        except OSError as exc:
            raise self.error("io", f"cannot be read: {exc.strerror or exc}") from None

    def head(self, size: int = 8192) -> bytes:
        """The first bytes, for sniffing, without reading a whole large file (nothing for a
        file that cannot be read: reading it says why)."""
        if self._data is not None:
            return self._data[:size]
        if self.path is None or self.path.is_dir():
            return b""
        try:
            with open_regular(self.path) as fh:
                return fh.read(size)
        except OSError:
            return b""

    def has(self, marker: bytes, within: int | None = None) -> bool:
        """Whether ``marker`` occurs in the first ``within`` bytes (None: anywhere): ``marker in
        self.head(within)``, answered from an earlier search when there was one. Where a marker
        first occurs is kept once the bytes are in hand, so the loader's search for a thread
        object (``"actions"``, over the whole file) also answers ``threadprotocol.detect``'s
        (the first MB), and a file of another format is searched end to end once, not twice."""
        if self._data is None:
            return marker in (self.head(within) if within is not None else self.data)
        at = self._found.get(marker)
        if at is None:
            at = self._found[marker] = self._data.find(marker)
        return at >= 0 and (within is None or at + len(marker) <= within)

    def tail(self, size: int = 8192) -> bytes:
        """The last bytes, for sniffing a marker a writer puts at the end of one JSON object (after
        a value that can outgrow any head), without reading a whole large file."""
        if self._data is not None:
            return self._data[-size:]
        if self.path is None or self.path.is_dir():
            return b""
        try:
            with open_regular(self.path) as fh:
                end = fh.seek(0, os.SEEK_END)
                fh.seek(max(0, end - size))
                return fh.read(size)
        except OSError:
            return b""

    def text(self) -> str:
        data = self.data
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.error("encoding", f"is not UTF-8 (bad byte at offset {exc.start}, line {_line_of(data, exc.start)})", line=_line_of(data, exc.start)) from None

    def lines(self) -> Iterator[tuple[int, bytes]]:
        """(line number, line bytes without the newline), streamed from disk for a file."""
        if self._data is None and self.path is not None and not self.path.is_dir():
            with self._open() as fh:
                for number, line in enumerate(fh, 1):
                    yield number, line.rstrip(b"\r\n")
            return
        for number, line in enumerate(self.data.splitlines(), 1):
            yield number, line

    def line_before_more(self) -> bytes | None:
        """The first line (without its line end) when another non-blank line follows it, else
        None: what tells JSON Lines from a document written on one line (most threads are). A
        file is scanned in blocks and nothing is kept but the answer, so a 300 MB one-line
        file costs one pass over its bytes and no copy; the answer is kept (detection and
        reading both ask)."""
        if self._line_before_more is _MISSING:
            self._line_before_more = self._scan_first_line()
        return self._line_before_more

    def _scan_first_line(self) -> bytes | None:
        if self._data is not None or self.path is None or self.path.is_dir():
            data = self._data if self._data is not None else b""
            end = data.find(b"\n")
            if end < 0 or _NON_BLANK.search(data, end + 1) is None:
                return None
            return data[:end].rstrip(b"\r")
        with self._open() as fh:
            offset, end = 0, -1
            while block := fh.read(1 << 20):
                start = 0
                if end < 0:
                    at = block.find(b"\n")
                    if at < 0:
                        offset += len(block)
                        continue
                    end, start = offset + at, at + 1
                if _NON_BLANK.search(block, start) is not None:
                    fh.seek(0)
                    return fh.read(end).rstrip(b"\r")
                offset += len(block)
        return None

    # --- JSON -----------------------------------------------------------------------------
    def json(self) -> Any:
        """The parsed JSON value (parsed once)."""
        if self._obj is _MISSING:
            self._obj = parse_json(self.data, self.name)
        return self._obj

    def parsed_json(self) -> Any:
        """The JSON value when it has been parsed (or was given), else None; never parses."""
        return None if self._obj is _MISSING else self._obj

    def try_json(self) -> Any:
        """The parsed JSON value, or ``None`` when the source is not JSON."""
        if self._obj is not _MISSING:
            return self._obj
        head = self.head(64).lstrip()
        if head[:1] not in (b"{", b"["):
            return None
        try:
            return self.json()
        except ThreadError:
            return None

    @property
    def obj(self) -> Any:
        """The in-memory object or parsed JSON."""
        return self.json()

    def describe(self) -> str:
        """What the bytes look like, for a message about a file no format reads (see
        ``describe_bytes``)."""
        if self.is_dir:
            return "a folder"
        return describe_bytes(self.head(1 << 16))

    def error(self, rule: str, message: str, *, line: int | None = None) -> ThreadError:
        return ThreadError([Problem(rule, f"{self.name} {message}", source=self.name, line=line)])

    def __repr__(self) -> str:
        return f"Source({self.name!r})"


def _looks_like_text(value: str) -> bool:
    stripped = value.lstrip()
    return stripped[:1] in ("{", "[") or stripped.startswith(("data:", ":")) or "\n" in value


def _read_stream(stream: IO[Any]) -> bytes:
    data = stream.read()
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


class SpecialFileError(OSError):
    """A path that is no regular file (a FIFO, socket or device)."""

    def __init__(self, path: str | os.PathLike[str], kind: str) -> None:
        super().__init__(f"{os.fspath(path)} is a {kind}")
        self.kind = kind


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISDIR(mode):
        return "folder"
    return "special file"


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``open(path, "rb")`` for a regular file only; SpecialFileError for anything else, found
    without blocking (a FIFO opened without O_NONBLOCK waits for a writer forever)."""
    fd, _ = _regular_fd(path)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file (SpecialFileError for a FIFO, socket or device). Read with
    ``os.read`` straight into one bytes object: no buffered file object is made for a read
    that takes the whole file (a tenth of a millisecond per file, on folders of thousands)."""
    fd, size = _regular_fd(path)
    try:
        parts = [os.read(fd, size + 1)]
        while parts[-1]:  # until the end of the file, should it have grown since fstat
            parts.append(os.read(fd, max(size, 1 << 16)))
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 2 else b"".join(parts)


def _regular_fd(path: str | os.PathLike[str]) -> tuple[int, int]:
    """A blocking descriptor open for reading on a regular file, and its size."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SpecialFileError(path, _kind(info.st_mode))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return fd, info.st_size
    except BaseException:
        os.close(fd)
        raise


# bytes -> b"0" for a digit, b"." for anything else: a run of 19 digits is then one substring
# search away (a translate and a find cost about a tenth of the parse they guard)
_DIGIT_MAP = bytes(0x30 if 0x30 <= b <= 0x39 else 0x2E for b in range(256))
_LONG_RUN = b"0" * 19


def loads(data: bytes) -> Any:
    """``orjson.loads``, with integers kept exact. orjson reads an integer beyond 64 bits as a
    float (2**64 becomes 1.8446744073709552e19): when the text holds a run of 19 or more
    digits, it is read again by the standard library's parser, which keeps every integer as
    it is (orjson has already checked that the text is strict JSON)."""
    value = orjson.loads(data)
    if isinstance(data, bytes | bytearray) and _LONG_RUN in data.translate(_DIGIT_MAP):
        try:
            return json.loads(data)
        except ValueError:  # an integer of more digits than Python converts (4,300)
            raise orjson.JSONDecodeError("an integer has more digits than can be read exactly", "", 0) from None
    return value


def parse_json(data: bytes, name: str) -> Any:
    """``loads`` with an error that names the source, line and column."""
    if not data.strip():
        raise ThreadError([Problem("empty", f"{name} is empty", source=name)])
    try:
        return loads(data)
    except orjson.JSONDecodeError as exc:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as uexc:
            line = _line_of(data, uexc.start)
            raise ThreadError(
                [Problem("encoding", f"{name} is not UTF-8 (bad byte at offset {uexc.start})", source=name, line=line)]
            ) from None
        truncated = exc.pos >= len(data.rstrip()) - 1
        reason = "ends before the JSON does (truncated?)" if truncated else f"is not valid JSON: {exc.msg}"
        raise ThreadError(
            [Problem("json", f"{name} {reason} at line {exc.lineno} column {exc.colno}", source=name, line=exc.lineno)]
        ) from None
