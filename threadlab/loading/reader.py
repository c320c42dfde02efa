"""One file → thread records (JSON objects ready for ``frames.extract``) and file problems.

The fast path is for ThreadProtocol JSON. First the typed decode (``structs.decode``: msgspec
Structs, one per action kind, checking every JSON type while parsing) and the rules over whole
columns (``struct_rules.rules_hold``); a file either refuses goes on as below, as if the typed
decode had never been tried. Then the file is parsed once with orjson; each thread object that fits the models exactly (``shape.thread_fits``) and breaks none of the
five rules (``core.validation.validate_dict``, run on the same parsed object) goes straight to the
column extractor, without one pydantic object per action. Anything else (another wire format,
a thread that breaks a rule or the schema, a file that is not JSON) goes the careful way,
through ``read_all`` and the converters, with the bytes already read handed over, so the frames
and problems are the same either way. JSON Lines files are streamed line by line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from threadlab.core.account import Account
from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError, failure
from threadlab.core.shape import thread_fits
from threadlab.core.validation import validate_and_pair
from threadlab.formats.common.json_lines import with_last
from threadlab.formats.common.reading import read_documents
from threadlab.formats.common.registry import FORMATS
from threadlab.formats.common.source import Source, loads, open_regular, parse_json, read_regular
from threadlab.formats.threadprotocol import NAME as THREADPROTOCOL
from threadlab.formats.threadprotocol import broken_line_thread, is_thread_doc, thread_from_dict
from threadlab.frames.batch import ThreadRecord
from threadlab.loading.struct_rules import rules_hold
from threadlab.loading.structs import columns, decode

Item = ThreadRecord | Problem
_FAST_FORMATS = ("auto", *(n for spec in FORMATS if spec.fast_path for n in spec.names()))
_LINES_SUFFIXES = (".jsonl", ".ndjson")


def read_items(path: Path, format: str = "auto", part: tuple[int, int] | None = None) -> Iterator[Item]:
    """Every thread record in the file at ``path`` (or in ``part`` k of n of it: ``split.py``),
    and the problems that cost a whole file."""
    name = str(path)
    try:
        if part is not None:
            yield from careful(Source(path), format, part)
        elif format.lower() not in _FAST_FORMATS or not path.is_file():
            yield from careful(Source(path), format)
        elif path.suffix.lower() in _LINES_SUFFIXES:
            yield from _lines(path, name, format)
        else:
            yield from _whole(path, name, format)
    except ThreadError as exc:
        yield from (p.with_source(name) for p in exc.problems)
    except Exception as exc:  # a bug in a converter costs only this file, and says so
        yield Problem("internal", f"{name} could not be loaded: {failure(exc)}", source=name)


def careful(source: Source, format: str = "auto", part: tuple[int, int] | None = None) -> Iterator[Item]:
    """The converter path: ``read_all`` (lenient), every thread as its canonical JSON object."""
    try:
        yield from records(source, format, part)
    except ThreadError as exc:
        yield from (p.with_source(source.name) for p in exc.problems)


def records(source: Source, format: str = "auto", part: tuple[int, int] | None = None) -> list[ThreadRecord]:
    """Threads read leniently, each with the canonical JSON object validation already made."""
    pairs: list[Any] = []
    read = read_documents(source, format, part=part, pairs=pairs)
    return [
        ThreadRecord(doc, thread.origin[0], thread.origin[1], thread.problems, thread.account, tool_pairs=paired)
        for (thread, doc), paired in zip(read, pairs, strict=True)
    ]


def fast_record(doc: Any, name: str) -> ThreadRecord | None:
    """The record of a thread object that needs no converter, else None."""
    if not is_thread_doc(doc) or not thread_fits(doc):
        return None
    problems, pairs = validate_and_pair(doc)
    if problems:
        return None
    return ThreadRecord(doc, name, THREADPROTOCOL, (), Account(converted=len(doc["actions"])), tool_pairs=pairs)


def typed_records(data: bytes, name: str, *, single: bool = False) -> list[ThreadRecord] | None:
    """The records of ``data`` by the typed decode, when every thread in it fits the models and
    breaks no rule; else None (and the caller reads ``data`` the usual way)."""
    if b'"actions"' not in data:  # no thread object: not worth a parse
        return None
    docs = decode(data, single=single)
    if docs is None:
        return None
    out = []
    for doc in docs:
        cols = columns(doc["actions"])  # read once, for the rules and the extractor
        pairs = rules_hold(cols, doc["agents"])
        if pairs is None:
            return None
        account = Account(converted=len(doc["actions"]))
        out.append(ThreadRecord(doc, name, THREADPROTOCOL, (), account, typed=True, columns=cols, tool_pairs=pairs))
    return out


def _whole(path: Path, name: str, format: str) -> Iterator[Item]:
    data = read_regular(path)
    source = Source(path, data=data)
    if data.lstrip()[:1] not in (b"{", b"["):
        yield from careful(source, format)
        return
    if not source.has(b'"actions"'):  # no thread object (an OTLP export, a log): the converters parse it once, not here too
        yield from careful(source, format)  # (and detection knows it without searching again: Source.has)
        return
    typed = typed_records(data, name)
    if typed is not None:
        yield from typed
        return
    try:
        obj = loads(data)
    except orjson.JSONDecodeError:
        if _first_line_is_thread(data):  # JSON Lines in a .json file
            yield from _each_line(enumerate(data.splitlines(), 1), name)
        else:  # broken JSON: the careful path says where
            yield from careful(Source(path, data=data), format)
        return
    docs = obj if isinstance(obj, list) else [obj]
    if not docs or not all(is_thread_doc(d) for d in docs):
        yield from careful(Source(path, data=data, parsed=obj), format)
        return
    for doc in docs:
        record = fast_record(doc, name)
        yield record if record is not None else from_thread_doc(doc, name)


def from_thread_doc(doc: Any, name: str, line: int | None = None) -> ThreadRecord:
    """The careful way for one thread object (as ``threadprotocol.to_threads`` + ``read_all``
    do it for a whole file: schema problems carry the line, rule problems do not)."""
    return _record(thread_from_dict(doc, source=name, line=line), name)


def _first_line_is_thread(data: bytes) -> bool:
    first, _, rest = data.partition(b"\n")
    try:
        return is_thread_doc(orjson.loads(first)) and bool(rest.strip())
    except orjson.JSONDecodeError:
        return False


def _lines(path: Path, name: str, format: str) -> Iterator[Item]:
    with open_regular(path) as fh:
        first = fh.readline()
        try:
            is_lines = is_thread_doc(orjson.loads(first))
        except orjson.JSONDecodeError:
            is_lines = False
        if not is_lines:
            yield from _whole(path, name, format)
            return
        fh.seek(0)
        yield from _each_line(enumerate(fh, 1), name)


def _each_line(lines: Any, name: str) -> Iterator[Item]:
    """Threads of a JSON Lines source, one line at a time (a broken line costs that line; the
    last one torn is ``truncated``, as ``threadprotocol.to_threads`` says)."""
    for number, line, last in with_last((number, raw.rstrip(b"\r\n")) for number, raw in lines):
        typed = typed_records(line, name, single=True)
        if typed is not None:
            yield typed[0]
            continue
        try:
            doc = parse_json(line, name)
        except ThreadError as exc:
            yield from_broken_line(exc, name, number, line, last)
            continue
        record = fast_record(doc, name)
        yield record if record is not None else from_thread_doc(doc, name, number)


def from_broken_line(exc: ThreadError, name: str, number: int, raw: bytes | None = None, last: bool = False) -> ThreadRecord:
    return _record(broken_line_thread(exc, name, number, raw, last), name)


def _record(thread: Thread, name: str) -> ThreadRecord:
    """One thread built here, through ``read_documents`` so the rules are applied as for a file."""
    (record,) = records(Source(thread, name=name), THREADPROTOCOL)
    return record
