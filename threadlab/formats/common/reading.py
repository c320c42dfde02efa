"""``threadlab.read`` / ``threadlab.read_all``: any supported input to Threads.

Here, in the formats layer, because the converters use it too (``from_claude``, the
agency-swarm store): detection, conversion, the validation rules and the account of the input
are applied in one place for every caller."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from threadlab.core.location import is_url, local_path
from threadlab.core.model import CORE_ACTION_TYPES, Thread
from threadlab.core.nogc import no_gc
from threadlab.core.problems import Problem, ThreadError, failure
from threadlab.core.validation import validate_and_pair, validate_dict
from threadlab.formats import detect_format, format_spec, get_format
from threadlab.formats.common.remote import stage
from threadlab.formats.common.source import Source
from threadlab.formats.common.walk import expand_sources

_CORE = frozenset(CORE_ACTION_TYPES)
THREADPROTOCOL = "threadprotocol"


def read_documents(
    source: Any, format: str = "auto", *, documents: bool = True, part: tuple[int, int] | None = None, pairs: list[Any] | None = None
) -> list[tuple[Thread, Any]]:
    """Lenient ``read_all`` of one source that also returns each thread's canonical JSON
    object: computed once, it serves the validation rules here and the frames in the loaders.

    ``documents=False`` (``read_all``): no canonical object is wanted, and a ThreadProtocol
    thread the models took exactly as its JSON came (strictly, without a problem) is checked
    on that JSON; only when a rule is broken is the canonical object made, so problems read
    the same either way. (Making it took a third of ``read`` on a 1M-action thread.)

    ``part`` (k, n): part k of n of the source, for a format that shares one large file out
    (``READS_PARTS``: an Inspect ``.eval``, by sample); of any other, part 0 is the whole
    source and the other parts are empty.

    ``pairs``: a list to which each returned thread's tool pairs are appended, as the rules
    found them (``validation.validate_and_pair``; None where they did not), so the frames do
    not pair the tools again."""
    src = source if isinstance(source, Source) else Source(source)
    module = detect_format(src) if format == "auto" else get_format(format)
    if part is not None and not getattr(module, "READS_PARTS", False):
        if part[0]:
            return []
        part = None
    with no_gc():  # a big thread is millions of objects, all alive until the end: nothing to collect
        built = _built_documents(module, src, part) if documents else None
        if part is not None and (built == [] or (built is None and part[0])):  # a part with no sample of its own
            return []  # (a part the route gave up on: part 0 reads the whole source the careful way)
        threads = _converted(module, src) if built is None else [thread for thread, _ in built]
        if module.NAME != THREADPROTOCOL:
            _no_actions(threads, src, built)
        wire = [None] * len(threads) if documents else _wire_documents(src, module.NAME, threads)
        made = [doc for _, doc in built] if built is not None else wire
        out = []
        for thread, raw, ready in zip(threads, wire, made, strict=True):
            doc = paired = None
            found = validate_dict(raw) if raw is not None and not thread.problems else None
            if ready is not None and raw is None:  # the format gave the object itself (no models per action)
                doc = ready
                found, paired = validate_and_pair(doc)
            elif found != []:
                doc = thread.to_dict()
                found, paired = validate_and_pair(doc)
            if pairs is not None:
                pairs.append(paired)
            thread.problems = _unique([p.with_source(src.name) for p in (*thread.problems, *found)])
            thread.origin = (src.name, module.NAME)
            out.append((thread, doc))
    return out


def _converted(module: Any, source: Source) -> list[Thread]:
    """``module.to_threads(source)``; a converter that fails on odd input (a bug) raises a
    ThreadError naming the file and the failure, like any file that cannot be read, so
    ``read(strict=False)`` raises nothing else and ``load`` reports it as a problem row."""
    try:
        return module.to_threads(source)
    except ThreadError:
        raise
    except Exception as exc:
        raise ThreadError(
            [Problem("internal", f"{source.name} could not be read as {module.NAME}: {failure(exc)}", source=source.name)]
        ) from exc


def _built_documents(module: Any, source: Source, part: tuple[int, int] | None = None) -> list[tuple[Thread, Any]] | None:
    """(thread without actions, its canonical JSON object) from a format that makes the object
    directly (``to_documents``, where frames are all that is wanted); None: use ``to_threads``."""
    make = getattr(module, "to_documents", None)
    if make is None:
        return None
    return make(source) if part is None else make(source, part)


def _wire_documents(source: Source, format: str, threads: list[Thread]) -> list[Any]:
    """The JSON object each ThreadProtocol thread was built from, when the source was parsed
    whole (one thread or an array of them; not JSON Lines, not in-memory Threads), else None."""
    parsed = source.parsed_json() if format == THREADPROTOCOL else None
    docs = parsed if isinstance(parsed, list) else [parsed]
    if len(docs) != len(threads) or not all(type(d) is dict for d in docs):
        return [None] * len(threads)
    return docs


def _no_actions(threads: list[Thread], source: Source, built: list[tuple[Thread, Any]] | None = None) -> None:
    """A non-empty input of a conversation format that gave no message, thinking, tool call or
    return is a problem, not an empty thread (ThreadProtocol is exempt: an empty thread is a
    thread)."""
    if built is not None and any(a.get("action_type") in _CORE for _, doc in built for a in doc["actions"]):
        return
    if any(a.action_type in _CORE for t in threads for a in t.actions):
        return
    problem = Problem("no-actions", f"{source.name} gave no message, thinking, tool call or tool return", source=source.name)
    if not threads:
        raise ThreadError([problem])
    threads[0].problems = [*threads[0].problems, problem]


def read_all(source: Any, format: str = "auto", *, strict: bool = True, storage_options: Mapping[str, Any] | None = None) -> list[Thread]:
    """Read every thread in ``source``: a path (a file, or a folder: every file in it that some
    format reads, as ``threadlab.load`` walks it), bytes, a str of JSON/SSE text, a dict or
    list, or an in-memory object of a supported library.

    Strict (default): raise ``ThreadError`` listing every problem. Lenient: never raise; return
    the threads with their problems on ``thread.problems`` (whatever broke a rule is kept, not
    dropped), and name what cannot be read at all (a file no format reads, or not the named
    format; of a folder, each such file) in an ``UnreadFilesWarning`` (``threadlab.load`` puts
    them in frames.problems).

    A URL (``s3://bucket/runs/``, ``memory://``, ...; ``storage_options`` go to its fsspec
    filesystem) is read as the same folder or file on disk would be (``formats/common/remote.py``)."""
    if is_url(source):
        return _read_url(read_all, source, format, strict=strict, storage_options=storage_options)
    source = local_path(source) if isinstance(source, str) and source.startswith("file://") else source
    if _is_folder(source, format):
        return _read_folder(source, format, strict=strict)
    try:
        return _read_one(source, format, strict=strict)
    except ThreadError as exc:
        if strict:
            raise
        warnings.warn(UnreadFilesWarning(exc), stacklevel=2)
        return []


def _read_one(source: Any, format: str, *, strict: bool) -> list[Thread]:
    """The threads of one source; a source that gives none raises ``ThreadError`` saying why,
    strict or not (the callers decide what a lenient read does with it)."""
    src = source if isinstance(source, Source) else Source(source)
    threads = [thread for thread, _ in read_documents(src, format, documents=False)]
    problems = [p for thread in threads for p in thread.problems]
    if strict and problems:
        raise ThreadError(problems, source=src.name)
    return threads


def _is_folder(source: Any, format: str) -> bool:
    """A folder path read file by file (a format may still read a whole folder as one source
    when named: ``read_all(project_folder, "claude-code")``)."""
    if isinstance(source, Source) or not isinstance(source, str | os.PathLike):
        return False
    path = os.path.expanduser(os.fspath(source))
    if not os.path.isdir(path):
        return False
    return format == "auto" or not get_format(format).detect(Source(path))


def _read_folder(folder: Any, format: str, *, strict: bool) -> list[Thread]:
    threads: list[Thread] = []
    problems: list[Problem] = []
    if format != "auto":
        format_spec(format)  # an unknown name raises before the walk
    for item in expand_sources(folder):
        if isinstance(item, Problem):
            problems.append(item)
            continue
        try:
            found = _read_one(item, format, strict=False)
        except ThreadError as exc:
            problems.extend(exc.problems)
            continue
        threads.extend(found)
        problems.extend(p for t in found for p in t.problems)
    if strict and problems:
        raise ThreadError(problems, source=os.fspath(folder))
    unread = [p for p in problems if p.thread_id is None and p.sequence is None]
    if unread:
        warnings.warn(UnreadFilesWarning(ThreadError(unread, source=os.fspath(folder))), stacklevel=3)
    return threads


class UnreadFilesWarning(UserWarning):
    """Files (or a source) read leniently by ``read_all`` that gave no thread at all; its
    argument is the ``ThreadError`` naming each, with its problems."""

    @property
    def problems(self) -> list[Problem]:
        error = self.args[0] if self.args else None
        return list(error.problems) if isinstance(error, ThreadError) else []


def read(source: Any, format: str = "auto", *, strict: bool = True, storage_options: Mapping[str, Any] | None = None) -> Thread:
    """Read exactly one thread (see ``read_all`` for what ``source`` may be, a URL too): a
    source that holds none or several raises ``ThreadError``, lenient or not (there is no one
    thread to give)."""
    if is_url(source):
        return _read_url(read, source, format, strict=strict, storage_options=storage_options)
    source = local_path(source) if isinstance(source, str) and source.startswith("file://") else source
    threads = read_all(source, format, strict=strict) if _is_folder(source, format) else _read_one(source, format, strict=strict)
    if len(threads) != 1:
        name = source.name if isinstance(source, Source) else str(source)[:80]
        raise ThreadError([Problem("format", f"holds {len(threads)} threads; use threadlab.read_all", source=name)])
    return threads[0]


def _read_url(reader: Callable[..., Any], url: str, format: str, *, strict: bool, storage_options: Mapping[str, Any] | None) -> Any:
    """``reader`` over a URL's mirror on disk, with every name it gives back spelled as the URL."""
    with stage(url, storage_options=storage_options) as staged, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            found = reader(staged.local, format, strict=strict)
        except ThreadError as exc:
            raise ThreadError([staged.problem(p) for p in exc.problems], source=url) from None
    for w in caught:
        message = w.message
        if isinstance(message, UnreadFilesWarning):
            message = UnreadFilesWarning(ThreadError([staged.problem(p) for p in message.problems], source=url))
        warnings.warn(message, stacklevel=3)
    return [staged.thread(t) for t in found] if isinstance(found, list) else staged.thread(found)


def _unique(problems: list[Problem]) -> list[Problem]:
    seen: set[tuple[Any, ...]] = set()
    out = []
    for p in problems:
        key = (p.rule, p.message, p.sequence, p.line)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out
