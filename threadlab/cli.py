"""The ``threadlab`` command: validate, summarise and convert thread files."""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from threadlab.core.problems import ThreadError


def _cmd_validate(args: argparse.Namespace) -> int:
    from threadlab.core.problems import Problem
    from threadlab.formats.reading import UnreadFilesWarning, read_all
    from threadlab.formats.walk import expand_sources

    bad = 0
    checked = 0
    skipped: list[Any] = []
    for item in expand_sources(args.paths, skipped):
        if isinstance(item, Problem):  # a FIFO, a broken link, a symlink loop
            bad += 1
            print(f"✗ {item}")
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UnreadFilesWarning)
            threads = read_all(item, args.format, strict=False)  # lenient: what it cannot read is a warning
        unread = [p for w in caught if isinstance(w.message, UnreadFilesWarning) for p in w.message.problems]
        for problem in unread:
            bad += 1
            print(f"✗ {problem}")
        for thread in threads:
            checked += 1
            if thread.problems:
                bad += len(thread.problems)
                print(f"✗ {item} — thread {thread.thread_id}: {len(thread.problems)} problem(s)")
                for problem in thread.problems:
                    print(f"    [{problem.rule}] {problem.message}" + (f" (sequence {problem.sequence})" if problem.sequence is not None else "") + (f" (line {problem.line})" if problem.line is not None else ""))
            elif not args.quiet:
                print(f"✓ {item} — thread {thread.thread_id}: {len(thread.actions)} actions, valid")
    print(f"{checked} thread(s) checked, {bad} problem(s)" + (f", {len(skipped)} file(s) skipped, not read (threadlab summary --skipped says why)" if skipped else ""))
    return 1 if bad else 0


def _cmd_summary(args: argparse.Namespace) -> int:
    import pandas as pd

    from threadlab.loading import load

    missing = [p for p in args.paths if not any(c in p for c in "*?[") and not Path(p).expanduser().exists()]
    if missing:
        print(f"threadlab summary: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    frames = load(args.paths, format=args.format, progress=False)
    if frames.threads.empty:
        print(f"threadlab summary: no thread found in {', '.join(args.paths)}", file=sys.stderr)
        for row in frames.problems.itertuples():
            print(f"  {row.source}: [{row.rule}] {row.message}", file=sys.stderr)
        _print_skipped(frames.skipped, listing=args.skipped, out=sys.stderr)
        return 1
    columns = ["thread_id", "format", "title", "n_agents", "n_actions", "n_tool_calls", "n_tool_errors", "n_pending", "total_tokens", "cost_usd", "n_problems"]
    with pd.option_context("display.max_rows", 500, "display.width", 200, "display.max_colwidth", 40):
        print(frames.threads[columns].to_string(index=False))
    if len(frames.problems):
        print(f"\n{len(frames.problems)} problem(s):")
        for row in frames.problems.itertuples():
            where = ", ".join(str(x) for x in (row.source, row.thread_id) if x is not None and not pd.isna(x))
            print(f"  {where}: [{row.rule}] {row.message}")
    _print_skipped(frames.skipped, listing=args.skipped, out=sys.stdout)
    return 0


def _print_skipped(skipped: Any, *, listing: bool, out: Any) -> None:
    """How many files the walk did not read, by reason (most frequent first); with
    ``--skipped``, each file and its reason."""
    from threadlab.frames.skipped import reason_counts

    if skipped.empty:
        return
    n = len(skipped)
    hint = "" if listing else "; --skipped lists them"
    print(f"\n{n} file{'s' if n != 1 else ''} skipped (not read{hint}):", file=out)
    for reason, count in reason_counts(skipped):
        print(f"  {count:>6}  {reason}", file=out)
    if listing:
        print("", file=out)
        for path, reason in zip(skipped["path"], skipped["reason"], strict=True):
            print(f"  {path}: {reason}", file=out)


def _cmd_convert(args: argparse.Namespace) -> int:
    from threadlab.formats import format_spec, get_format
    from threadlab.formats.reading import UnreadFilesWarning, read_all

    spec = format_spec(args.to)  # an unknown --to fails before anything is read
    options = {o: getattr(args, o) for o in _write_options() if getattr(args, o) is not None}
    for option in options:
        if option not in spec.write_options:
            takes = ", ".join(f"--{o}" for o in spec.write_options) or "no options"
            raise ValueError(f"the {spec.name} writer takes no --{option} (it takes {takes})")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UnreadFilesWarning)
        threads = read_all(args.input, args.format, strict=not args.lenient)
    unread = [p for w in caught if isinstance(w.message, UnreadFilesWarning) for p in w.message.problems]
    if unread and not threads:
        raise ThreadError(unread)  # nothing to convert: say why
    for problem in unread:
        print(f"skipped: {problem}", file=sys.stderr)
    writer = get_format(args.to)
    out = Path(args.output) if args.output else None
    if (out is not None and out.is_dir()) or (len(threads) > 1 and (out is None or not out.suffix)):  # into a folder, one file a thread
        folder = out or Path(".")
        folder.mkdir(parents=True, exist_ok=True)
        for thread, name in zip(threads, _file_names(threads, spec.suffix), strict=True):
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


def _file_names(threads: Sequence[Any], suffix: str) -> list[str]:
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


def _write_options() -> dict[str, tuple[str, list[str]]]:
    """Every writer option the registry declares: its help and the formats that take it."""
    from threadlab.formats.registry import FORMATS

    options: dict[str, tuple[str, list[str]]] = {}
    for spec in FORMATS:
        for option, help_text in spec.write_options.items():
            options.setdefault(option, (help_text, []))[1].append(spec.name)
    return options


def _formats_help() -> str:
    from threadlab.formats.registry import FORMATS

    return "formats:\n" + "\n".join(f"  {s.name:<20} {s.reads}" for s in FORMATS)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="threadlab",
        description="Validate, summarise and convert multi-agent conversation threads.",
        epilog=_formats_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="check files against the ThreadProtocol rules (exit 1 if any is broken)")
    v.add_argument("paths", nargs="+")
    v.add_argument("--format", default="auto")
    v.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    v.set_defaults(func=_cmd_validate)
    s = sub.add_parser("summary", help="print the threads table of files, folders or globs")
    s.add_argument("paths", nargs="+")
    s.add_argument("--format", default="auto")
    s.add_argument("--skipped", action="store_true", help="list every file the walk did not read, with the reason (counts by reason are always shown)")
    s.set_defaults(func=_cmd_summary)
    c = sub.add_parser("convert", help="convert a file to canonical ThreadProtocol JSON (or --to another format)")
    c.add_argument("input")
    c.add_argument("-o", "--output", help="file (or folder, for several threads); stdout when omitted")
    c.add_argument("--to", default="threadprotocol", help="output format (any format name or alias below)")
    c.add_argument("--format", default="auto", help="input format (auto-detected by default)")
    c.add_argument("--lenient", action="store_true", help="convert even when rules are broken")
    for option, (help_text, formats) in _write_options().items():
        c.add_argument(f"--{option}", help=f"{help_text} (for --to {', '.join(formats)})")
    c.set_defaults(func=_cmd_convert)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ThreadError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError) as exc:
        print(f"threadlab: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
