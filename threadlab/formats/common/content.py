"""What a file's first bytes say it is: conversation data a format may read, or something else
(prose, source code, a picture, a Parquet file ...), named.

A folder walk asks this of every file whose name no format claims (``walk.py``), so that a
recorded stream saved as ``capture.chunks.txt`` is read as it would be alone, and a README is
listed as not conversation data instead of being read, or passed over without a word. The
decision is the content's; the suffix only names the kind of text (``.md`` → Markdown).

What may be data is what some format's ``detect`` can claim by its first bytes: JSON (an object
or an array: every JSON and JSON Lines format), a Server-Sent Events body (``data:``,
``event:``, ``id:``, ``retry:`` or a ``:`` comment first), a zip archive (an Inspect AI
``.eval``) or an SQLite database (an Agents SDK session). A format that reads files of another
kind adds their first bytes to ``DATA_HEADS``; the conformance suite checks that every fixture's
head is taken as data (``tests/test_walk_skipped.py``)."""

from __future__ import annotations

HEAD_BYTES = 512  # what the walk reads of a file: enough for a magic number or a first line
BOM = b"\xef\xbb\xbf"
DATA_HEADS = (b"{", b"[", b"data:", b"event:", b"id:", b"retry:", b":")
DATA_MAGIC = (b"PK\x03\x04", b"PK\x05\x06", b"SQLite format 3\x00", b"PAR1")  # zip (Inspect .eval), SQLite, Parquet (Phoenix, Langfuse)
NOT_DATA = "not conversation data"
EMPTY = "an empty file"
BLANK = "a blank file (whitespace only)"

# magic numbers of files that are never conversation data (the first match wins)
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"%PDF-", "a PDF document"),
    (b"ARROW1", "an Arrow IPC (Feather) file"),
    (b"FEA1", "a Feather file"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    (b"\x93NUMPY", "a NumPy array"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"\x28\xb5\x2f\xfd", "a Zstandard archive"),
    (b"\xfd7zXZ\x00", "an xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x7fELF", "an ELF executable"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"\x00asm", "a WebAssembly module"),
    (b"OggS", "an Ogg media file"),
    (b"fLaC", "a FLAC audio file"),
    (b"ID3", "an MP3 audio file"),
)
_RIFF = {b"WEBP": "a WebP image", b"WAVE": "a WAV audio file", b"AVI ": "an AVI video"}
# the kind of text a file holds, by its suffix (what it is not is decided by its content)
_TEXT_KINDS = {
    ".md": "Markdown text",
    ".markdown": "Markdown text",
    ".rst": "reStructuredText",
    ".txt": "plain text",
    ".text": "plain text",
    ".log": "a text log",
    ".py": "Python source",
    ".pyi": "Python source",
    ".ipynb": "a Jupyter notebook",
    ".toml": "TOML",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".ini": "INI configuration",
    ".cfg": "INI configuration",
    ".lock": "a lock file",
    ".csv": "CSV",
    ".tsv": "TSV",
    ".html": "HTML",
    ".htm": "HTML",
    ".xml": "XML",
    ".svg": "an SVG image",
    ".css": "CSS",
    ".js": "JavaScript source",
    ".mjs": "JavaScript source",
    ".cjs": "JavaScript source",
    ".ts": "TypeScript source",
    ".tsx": "TypeScript source",
    ".jsx": "JavaScript source",
    ".sh": "a shell script",
    ".sql": "SQL",
}
# JSON a folder commonly holds that is no conversation (a notebook beside the data it reads)
_JSON_KINDS = ((b'"nbformat"', "a Jupyter notebook"), (b'"cells"', "a Jupyter notebook"))


def binary_kind(head: bytes) -> str | None:
    """What the magic number at the start of ``head`` says the file is, when it is a kind that
    is never conversation data (a picture, a columnar table, a compressed archive ...)."""
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if head.startswith(b"RIFF") and head[8:12] in _RIFF:
        return _RIFF[head[8:12]]
    if head[4:8] == b"ftyp":
        return "an MP4 or QuickTime media file"
    if head[8:12] == b"DUCK":
        return "a DuckDB database"
    return None


def not_data_reason(head: bytes, name: str = "") -> str | None:
    """None when ``head`` (a file's first bytes) may be conversation data, so detection should
    look at the file; else why it is not (``"not conversation data: Markdown text"``, ``"an
    empty file"`` ...). ``name`` only names the kind of text."""
    if not head:
        return EMPTY
    if head.startswith(DATA_MAGIC):
        return None
    binary = binary_kind(head)
    if binary is not None:
        return f"{NOT_DATA}: {binary}"
    text = _as_utf8(head)
    if text is None:
        return f"{NOT_DATA}: binary content"
    stripped = text.removeprefix(BOM).lstrip()
    if not stripped:  # (a full head of blanks: the data may start further on)
        return BLANK if len(head) < HEAD_BYTES else None
    if stripped.startswith(DATA_HEADS):
        return _json_kind(stripped) if stripped[:1] == b"{" else None
    return f"{NOT_DATA}: {_text_kind(name)}"


def _as_utf8(head: bytes) -> bytes | None:
    """``head`` as UTF-8 bytes when it is text (UTF-16 with a byte order mark is decoded), else
    None. The head may end inside a character: up to three bytes are cut before deciding."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return head.decode("utf-16", "ignore").encode("utf-8")
    if b"\x00" in head:
        return None
    for cut in range(4):
        try:
            (head[: len(head) - cut] if cut else head).decode("utf-8")
            return head
        except UnicodeDecodeError:
            continue
    return None


def _json_kind(stripped: bytes) -> str | None:
    first = stripped[1:200].lstrip()
    for key, what in _JSON_KINDS:
        if first.startswith(key):
            return f"{NOT_DATA}: {what}"
    return None


def _text_kind(name: str) -> str:
    dot = name.rfind(".")
    return _TEXT_KINDS.get(name[dot:].lower(), "text") if dot > 0 else "text"


__all__ = ["DATA_HEADS", "DATA_MAGIC", "HEAD_BYTES", "NOT_DATA", "binary_kind", "not_data_reason"]
