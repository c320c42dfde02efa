"""``threadlab validate`` and ``threadlab convert``."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from threadlab.cli.report import formats_hint, print_problems, problem_lines, refuse_missing, warning_lines
from threadlab.core.problems import Problem, ThreadError


def validate(args: argparse.Namespace) -> int:
    from threadlab.formats.common.reading import UnreadFilesWarning, read_all
    from threadlab.formats.common.walk import expand_sources

    refused = refuse_missing("validate", args.paths)
    if refused is not None:
        return refused
    found: list[Problem] = []
    checked = 0
    skipped: list[Any] = []
    for item in expand_sources(args.paths, skipped):
        if isinstance(item, Problem):  # a FIFO, a broken link, a symlink loop
            found.append(item)
            print_problems([item], sys.stdout, mark="✗ ")
            continue
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always", UnreadFilesWarning)
            threads = read_all(item, args.format, strict=False)  # lenient: what it cannot read is a warning
        unread = _unread(records)
        found.extend(unread)
        for line in problem_lines(unread, mark="✗ "):
            print(line)
        for thread in threads:
            checked += 1
            found.extend(thread.problems)
            if thread.problems:
                for line in problem_lines(thread.problems, mark="✗ "):
                    print(line)
            elif not args.quiet:
                print(f"✓ {item} — thread {thread.thread_id}: {len(thread.actions)} actions, valid")
    hint = formats_hint(found)
    if hint:
        print(hint)
    print(f"{checked} thread(s) checked, {len(found)} problem(s)" + (f", {len(skipped)} file(s) skipped, not read (threadlab summary --skipped says why)" if skipped else ""))
    return 1 if found else 0


def _unread(records: Sequence[warnings.WarningMessage]) -> list[Problem]:
    """The problems of the files a lenient ``read_all`` could not read (its
    ``UnreadFilesWarning``s); any other warning is printed as a line."""
    from threadlab.formats.common.reading import UnreadFilesWarning

    problems: list[Problem] = []
    for record in records:
        if isinstance(record.message, UnreadFilesWarning):
            problems.extend(record.message.problems)
        else:
            for line in warning_lines(record.message):
                print(line, file=sys.stderr)
    return problems


def convert(args: argparse.Namespace) -> int:
    from threadlab.core.loss import OptionNeeded
    from threadlab.formats import format_spec, get_format
    from threadlab.formats.common.reading import UnreadFilesWarning, read_all

    spec = format_spec(args.to)  # an unknown --to fails before anything is read
    options = {o: getattr(args, o) for o in write_options() if getattr(args, o) is not None}
    for option in options:
        if option not in spec.write_options:
            takes = ", ".join(f"--{o}" for o in spec.write_options) or "no options"
            raise ValueError(f"the {spec.name} writer takes no --{option} (it takes {takes})")
    refused = refuse_missing("convert", [args.input], globs=False)
    if refused is not None:
        return refused
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always", UnreadFilesWarning)
        try:
            threads = read_all(args.input, args.format, strict=not args.lenient)
        except ThreadError as exc:
            return _not_converted(args.input, exc.problems)
    unread = _unread(records)
    if unread and not threads:
        return _not_converted(args.input, unread)
    if unread:
        print(f"threadlab convert: {len(unread)} problem(s) in files not read, the others converted:", file=sys.stderr)
        print_problems(unread, sys.stderr, mark="  ")
    writer = get_format(args.to)
    try:
        return _write(args, threads, writer, spec.suffix, options)
    except OptionNeeded as exc:
        print(f"threadlab convert: {exc.message(lambda option: f'--{option}')}", file=sys.stderr)
        return 2


def _not_converted(source: str, problems: Sequence[Problem]) -> int:
    """Nothing written: why, and, when a thread was read but breaks rules, that ``--lenient``
    converts it anyway."""
    print(f"threadlab convert: {source} was not converted:", file=sys.stderr)
    print_problems(problems, sys.stderr, mark="  ")
    if any(p.thread_id is not None for p in problems):
        print("(convert refuses a thread that breaks a rule; --lenient converts it as it is, "
              "its problems and all: threadlab validate lists them)", file=sys.stderr)
    return 1


def _write(args: argparse.Namespace, threads: Sequence[Any], writer: Any, suffix: str, options: dict[str, Any]) -> int:
    out = Path(args.output) if args.output else None
    if (out is not None and out.is_dir()) or (len(threads) > 1 and (out is None or not out.suffix)):  # into a folder, one file a thread
        folder = out or Path(".")
        folder.mkdir(parents=True, exist_ok=True)
        for thread, name in zip(threads, file_names(threads, suffix), strict=True):
            target = folder / name  # a name made from the id, never a path: it stays in ``folder``
            target.write_bytes(writer.from_thread(thread, **options))
            print(f"wrote {target}", file=sys.stderr)
        return 0
    if len(threads) != 1:
        raise SystemExit(f"{args.input} holds {len(threads)} threads; give -o a folder")
    data = writer.from_thread(threads[0], **options)
    if out is None:
        sys.stdout.buffer.write(data)
    else:
        out.write_bytes(data)
        print(f"wrote {out}", file=sys.stderr)
    return 0


def file_names(threads: Sequence[Any], suffix: str) -> list[str]:
    """One file name per thread (``thread_file_name``); a thread id met twice in one input
    gets ``-2``, ``-3`` ... rather than overwriting the first thread's file."""
    from threadlab.core.filenames import thread_file_name

    names: list[str] = []
    for thread in threads:
        name = thread_file_name(thread.thread_id, suffix)
        stem, n = name.removesuffix(suffix), 2
        while name in names:
            name, n = f"{stem}-{n}{suffix}", n + 1
        names.append(name)
    return names


def write_options() -> dict[str, tuple[str, list[str]]]:
    """Every writer option the registry declares: its help and the formats that take it."""
    from threadlab.formats.common.registry import FORMATS

    options: dict[str, tuple[str, list[str]]] = {}
    for spec in FORMATS:
        for option, help_text in spec.write_options.items():
            options.setdefault(option, (help_text, []))[1].append(spec.name)
    return options
