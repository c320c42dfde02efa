"""Inspect AI eval logs → one thread per sample and epoch (and a thread back to a ``.json`` log).

Read: ``.eval`` logs (a zip of JSON, read directly: ``container.py``) and ``.json`` logs (one
document). Each sample becomes a thread (``convert.py``): the model's calls, tool calls and
returns, sub-agents (``as_tool``) and handoffs from the events, the scores, target and sample
metadata in ``thread.metadata["inspect_ai"]``, usage on each model call (per model, the
scorer's grader included)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from threadlab.core.finite import refuses_non_finite
from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError, short
from threadlab.formats.common.documents import DocBuilder
from threadlab.formats.common.source import Source
from threadlab.formats.inspect_ai.container import ZIP_MAGIC, members
from threadlab.formats.inspect_ai.convert import SampleReader
from threadlab.formats.inspect_ai.decode import decode_sample
from threadlab.formats.inspect_ai.messages import KEY
from threadlab.formats.inspect_ai.writing import write_log

NAME = "inspect-ai"
_EVAL_MEMBERS = (b"header.json", b"samples/", b"_journal/", b"summaries.json", b"reductions.json")


def detect(source: Source) -> bool:
    """A zip whose first member is an eval log's, or a JSON document with an eval spec."""
    if source.is_dir or source.is_object:
        return False
    head = source.head(4096)
    if head.startswith(ZIP_MAGIC):
        name_len = int.from_bytes(head[26:28], "little")
        return head[30 : 30 + name_len].startswith(_EVAL_MEMBERS)
    start = head.lstrip()[:1]
    if start != b"{" or b'"eval"' not in head or b'"version"' not in head[:256]:
        return False
    value = source.try_json()
    return isinstance(value, dict) and isinstance(value.get("eval"), dict) and "task" in value["eval"]


def to_threads(source: Source) -> list[Thread]:
    return _read(source, _thread)


def to_documents(source: Source, part: tuple[int, int] | None = None) -> list[tuple[Thread, dict[str, Any]]] | None:
    """The frames route (``formats/common/documents.py``): each sample's thread (without actions) and
    its JSON object, no model per action, a sample member decoded only where the converter
    reads it (``decode.py``). None, for ``to_threads`` to read the file, when the route meets
    something it was not written for.

    ``part`` (k, n): the samples of part k of n of an ``.eval`` (``container.sample_parts``), so
    that several processes share one large log (``threadlab.load`` does); the log's own
    problems (a member that cannot be read) go with the first thread of the part they are
    found in, and a part that holds no readable sample is no ``empty`` log. With a part, the
    careful way reads the same part."""
    try:
        return _read(source, _document, part)
    except ThreadError:
        raise
    except Exception:  # whatever it was, the careful way meets it again and says what it is
        if part is None:
            return None
    return [(thread, thread.to_dict()) for thread in _read(source, _thread, part)]


READS_PARTS = True  # to_documents takes a part of an .eval (threadlab.load splits a large one)

_Sample = tuple[str, int | None, Any, bool]  # member name, its position, the sample, references resolved
_Make = Callable[[Source, dict[str, Any], _Sample], Any]


def _thread(source: Source, header: dict[str, Any], item: _Sample) -> Thread:
    return SampleReader(item[2], header, source.name, item[0], item[1], resolved=item[3]).read()


def _document(source: Source, header: dict[str, Any], item: _Sample) -> tuple[Thread, dict[str, Any]]:
    reader = SampleReader(item[2], header, source.name, item[0], item[1], builder=DocBuilder, resolved=item[3])
    reader.b.plain_metadata = item[3]  # type: ignore[attr-defined]  # (decoded by msgspec, the header by orjson: JSON's values only)
    return reader.read_document()


def _read(source: Source, make: _Make, part: tuple[int, int] | None = None) -> list[Any]:
    if source.head(4).startswith(ZIP_MAGIC):
        return _eval_threads(source, make, part)
    if part is not None and part[0]:
        return []
    log = source.json()
    if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
        raise source.error("format", "is not an Inspect AI log (no eval spec)")
    samples = log.get("samples")
    if samples is not None and not isinstance(samples, list):
        raise source.error("schema", f"is an Inspect AI log whose samples are {short(samples)}, not a list")
    if not samples:
        raise source.error("empty", "is an Inspect AI log with no samples (logged with log_samples=False, or the eval did not run)")
    items = [(f"samples[{index}]", None, sample, False) for index, sample in enumerate(samples, 1)]
    return _sample_threads(source, log, items, [], make)


def _eval_threads(source: Source, make: _Make, part: tuple[int, int] | None) -> list[Any]:
    """Samples are read, converted and let go one at a time (the header comes first, from the
    zip directory): a large log is never in memory whole."""
    data = source.mapped()
    found, note, header = members(data, part=part, key=_file_key(source) if part is not None else None)
    problems: list[Problem] = []
    if note:
        problems.append(Problem("truncated", f"{source.name} {note}", source=source.name))
    typed = make is _document
    pending: list[_Sample] = []  # without a directory the header may come last: samples wait for it
    out: list[Any] = []
    odd: list[Problem] = []  # samples that are no object (named after the members' problems)
    later = part is not None and part[0] > 0  # the log's other members are part 0's to name
    for member in found:
        if later and not member.name.startswith("samples/"):
            continue
        if member.data is None:
            rule = "size-limit" if member.limit else "truncated" if "cut short" in (member.error or "") else "io"
            problems.append(Problem(rule, f"{source.name}: member {member.index} ({member.name}) {member.error}; skipped", source=source.name, line=member.index))
            continue
        if not member.name.startswith(("header.json", "samples/")):
            continue
        value = decode_sample(member.data) if typed and member.name.startswith("samples/") else None
        resolved = value is not None
        try:
            value = orjson.loads(member.data) if value is None else value
        except orjson.JSONDecodeError as exc:
            problems.append(Problem("json", f"{source.name}: member {member.index} ({member.name}) is not JSON ({exc.msg}); skipped", source=source.name, line=member.index))
            continue
        if member.name == "header.json":
            if note and isinstance(value, dict):
                header = value
        elif member.name.startswith("samples/"):
            if note:
                pending.append((member.name, member.index, value, resolved))
            else:
                _one(source, header, (member.name, member.index, value, resolved), make, out, odd)
    for item in pending:
        _one(source, header, item, make, out, odd)
    return _finish(source, out, [*problems, *odd], part)


def _file_key(source: Source) -> tuple[str, int, int] | None:
    """What names this version of the file (its directory is read once per process for all its parts)."""
    try:
        info = source.path.stat() if source.path is not None else None
    except OSError:
        return None
    return (str(source.path), info.st_size, info.st_mtime_ns) if info is not None else None


def _one(source: Source, header: dict[str, Any], item: _Sample, make: _Make, out: list[Any], odd: list[Problem]) -> None:
    """A thread per sample that is an object; any other is a ``schema`` problem naming it."""
    name, line, sample, _ = item
    if isinstance(sample, dict):
        out.append(make(source, header, item))
    else:
        where = f"member {line} ({name})" if line is not None else name
        odd.append(Problem("schema", f"{source.name}: {where} is {short(sample)}, not a sample; skipped", source=source.name, line=line))


def _sample_threads(source: Source, header: dict[str, Any], samples: list[_Sample], problems: list[Problem], make: _Make) -> list[Any]:
    out: list[Any] = []
    odd: list[Problem] = []
    for item in samples:
        _one(source, header, item, make, out, odd)
    return _finish(source, out, [*problems, *odd], None)


def _finish(source: Source, out: list[Any], problems: list[Problem], part: tuple[int, int] | None) -> list[Any]:
    """The log's problems on its first thread; none read is an ``empty`` log (a part: its problems)."""
    if not out:
        if part is None or part[1] == 1:
            problems.append(Problem("empty", f"{source.name} holds no readable sample", source=source.name))
        if problems:
            raise ThreadError(problems)
        return []
    first = out[0][0] if isinstance(out[0], tuple) else out[0]
    first.problems = [*first.problems, *problems]
    return out


@refuses_non_finite
def from_thread(thread: Thread) -> bytes:
    """The thread as a ``.json`` eval log with one sample (see ``writing.py``)."""
    return write_log(thread)


__all__ = ["KEY", "NAME", "READS_PARTS", "detect", "from_thread", "to_documents", "to_threads"]
