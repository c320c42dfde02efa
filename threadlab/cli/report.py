"""How the ``threadlab`` command says what is wrong, to a person at a terminal.

- A problem names its file once: a reader's message starts with the file name too (a Python
  caller sees the message alone), so the file is said once, before the rule, not twice.
  Several problems of one file are listed under it, each with its line or sequence.
- A file no format reads says so; the formats are listed once, at the end, not on every line.
- A warning (a writer's ``WriteLoss``, a ``CacheWarning`` ...) is a line of text, not Python's
  ``file.py:98: WriteLoss: ...`` followed by the source line that warned; a ``WriteLoss`` gives
  each thing it could not keep on a line of its own.
- A path that does not exist is the same answer for every command: one message, exit code 2."""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO

from threadlab.core.problems import Problem

MISSING = 2  # exit code of a path that does not exist (argparse's code for a usage error)
UNREAD = "no format threadlab reads recognises this"


def is_glob(path: str) -> bool:
    return any(ch in path for ch in "*?[")


def missing_paths(paths: Iterable[str], *, globs: bool = True) -> list[str]:
    """The paths that name nothing: no file, folder or link (a broken link is read, and reading
    says what is wrong with it), and no glob when ``globs`` (a glob that matches nothing is no
    missing path: the command says it found nothing)."""
    return [p for p in paths if not os.path.lexists(os.path.expanduser(p)) and not (globs and is_glob(p))]


def refuse_missing(command: str, paths: Sequence[str], *, globs: bool = True) -> int | None:
    """Exit code ``MISSING`` and one line naming every path that does not exist; None when all do."""
    missing = missing_paths(paths, globs=globs)
    if not missing:
        return None
    print(f"threadlab {command}: no such file or folder: {', '.join(missing)}", file=sys.stderr)
    return MISSING


def own_text(problem: Problem) -> str:
    """The message without the file name (and line) it starts with, when the place says them."""
    text = problem.message
    if problem.source and text.startswith(problem.source) and text[len(problem.source) : len(problem.source) + 1] in (" ", ":"):
        text = text[len(problem.source) :].lstrip(" :")
    if problem.line is not None:
        text = re.sub(rf"^line {problem.line}\b[:,]?\s*", "", text)
    return text


def place(problem: Problem, *, file: bool = True, thread: bool = True) -> str:
    """Where: ``file:line``, thread, sequence (each only when known and asked for)."""
    parts = []
    if file and problem.source:
        parts.append(problem.source + (f":{problem.line}" if problem.line is not None else ""))
    elif problem.line is not None:
        parts.append(f"line {problem.line}")
    if thread and problem.thread_id:
        parts.append(f"thread {problem.thread_id}")
    if problem.sequence is not None:
        parts.append(f"sequence {problem.sequence}")
    return ", ".join(parts)


def problem_lines(problems: Iterable[Problem], *, mark: str = "") -> Iterator[str]:
    """Each file's problems, the file named once: one line for a file with one problem, else a
    line naming the file (and its thread, when all are of one) and a line per problem under it."""
    by_source: dict[str | None, list[Problem]] = {}
    for problem in problems:
        by_source.setdefault(problem.source, []).append(problem)
    for source, group in by_source.items():
        if len(group) == 1:
            p = group[0]
            yield f"{mark}{_joined(place(p), f'[{p.rule}] {own_text(p)}')}"
            continue
        threads = {p.thread_id for p in group}
        one = next(iter(threads)) if len(threads) == 1 else None
        yield f"{mark}{source or '(no file)'}{f' — thread {one}' if one else ''}: {len(group)} problems"
        for p in group:
            yield f"    {_joined(place(p, file=False, thread=one is None), f'[{p.rule}] {own_text(p)}')}"


def _joined(where: str, what: str) -> str:
    return f"{where}: {what}" if where else what


def print_problems(problems: Sequence[Problem], out: TextIO, *, mark: str = "") -> None:
    for line in problem_lines(problems, mark=mark):
        print(line, file=out)
    hint = formats_hint(problems)
    if hint:
        print(hint, file=out)


def formats_hint(problems: Iterable[Problem]) -> str | None:
    """One line listing the formats, when some file was of none of them."""
    unread = sum(1 for p in problems if p.rule == "format" and UNREAD in p.message)
    if not unread:
        return None
    from threadlab.formats.common.registry import FORMATS

    files = "1 file is" if unread == 1 else f"{unread} files are"
    return (f"({files} of no format threadlab reads. It reads these {len(FORMATS)}: {', '.join(s.name for s in FORMATS)}; "
            "`threadlab --help` says what each is, and --format names one.)")


def warning_lines(message: Warning | str) -> list[str]:
    """A warning as a person reads it: a ``WriteLoss`` as a line naming the writer and thread and
    a line per thing lost; any other warning as one line."""
    from threadlab.core.loss import WriteLoss

    if isinstance(message, WriteLoss):
        head = f"the {message.format} writer could not keep, of thread {message.thread_id}:"
        return [head, *(f"  - {lost}" for lost in message.lost)]
    return [f"warning: {message}"]


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int, file: TextIO | None = None, line: str | None = None) -> None:
    for text in warning_lines(message):
        print(text, file=file or sys.stderr)


@contextmanager
def readable_warnings() -> Iterator[None]:
    """Warnings raised inside print as ``warning_lines`` on stderr, every one (a writer warns
    once per thread; Python's own format would add the file, line and source that warned)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _show_warning
        yield
