"""The ``threadlab`` command: validate, summarise and convert thread files.

The parser is built from the format registry without importing any format or pandas
(``threadlab --help`` must be quick); each command imports what it needs when it runs. Every
argument has its help; ``convert --help`` lists the formats ``--to`` writes. Problems and
warnings are printed for a person (``report.py``); a missing path is one message and exit code
2 for every command."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from threadlab._version import __version__
from threadlab.cli.commands import write_options
from threadlab.cli.report import readable_warnings
from threadlab.core.problems import ThreadError

FORMAT_HELP = "read every file as this format (a name or alias listed by threadlab --help); auto-detected by default"


def _formats_help() -> str:
    from threadlab.formats.common.registry import FORMATS

    read_only = [s.name for s in FORMATS if not s.writes]
    writes = "convert --to writes any" + (f" but {', '.join(read_only)} (read only)" if read_only else "")
    return f"formats ({len(FORMATS)}; --format names one, {writes}):\n" + "\n".join(f"  {s.name:<22}{s.reads}" for s in FORMATS)


def _writers_help() -> str:
    """What ``--to`` writes: every registered format, with the suffix of its files, the
    options its writer takes and its aliases."""
    from threadlab.formats.common.registry import FORMATS

    writers = [spec for spec in FORMATS if spec.writes]
    lines = [f"--to writes any of these {len(writers)} formats (file suffix; writer options; other names):"]
    for spec in writers:
        options = ", ".join(f"--{o}" for o in spec.write_options)
        aliases = ", ".join(spec.aliases)
        lines.append(f"  {spec.name:<22}{spec.suffix:<7}" + "; ".join(x for x in (options, aliases and f"also {aliases}") if x))
    lines.append("threadlab --help says what each format reads.")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="threadlab",
        description="Validate, summarise and convert multi-agent conversation threads.",
        epilog=_formats_help(),
        formatter_class=raw,
    )
    parser.add_argument("--version", action="version", version=f"threadlab {__version__}", help="print threadlab's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{validate,summary,convert}")
    v = sub.add_parser("validate", help="check files against the ThreadProtocol rules (exit 1 if any is broken)",
                       description="Check every thread of the files, folders or globs given; exit 1 when a rule is broken or a file cannot be read.")
    v.add_argument("paths", nargs="+", help="files, folders (every file in them some format reads) or globs")
    v.add_argument("--format", default="auto", help=FORMAT_HELP)
    v.add_argument("-q", "--quiet", action="store_true", help="print only problems")
    v.set_defaults(func="validate")
    s = sub.add_parser("summary", help="print the threads table of files, folders or globs",
                       description="One row per thread of each file (source): agents, actions, tool calls, errors, pending calls, "
                                   "tokens, cost and problems (the threads frame's n_agents, n_actions, n_tool_calls, n_tool_errors, "
                                   "n_pending, total_tokens, cost_usd, n_problems), cut to the terminal's width; then the problems "
                                   "and the files not read.")
    s.add_argument("paths", nargs="+", help="files, folders (every file in them some format reads) or globs")
    s.add_argument("--format", default="auto", help=FORMAT_HELP)
    s.add_argument("--skipped", action="store_true", help="list every file the walk did not read, with the reason (counts by reason are always shown)")
    s.set_defaults(func="summary")
    c = sub.add_parser("convert", help="convert a file to canonical ThreadProtocol JSON (or --to another format)",
                       description="Read a file (or every file of a folder) and write its threads in another format.",
                       epilog=_writers_help(), formatter_class=raw)
    c.add_argument("input", help="a file, or a folder (each of its threads is written to a file of its own)")
    c.add_argument("-o", "--output", help="file (or folder, for several threads); stdout when omitted")
    c.add_argument("--to", default="threadprotocol", help="output format: a name or alias listed below (default: threadprotocol)")
    c.add_argument("--format", default="auto", help="input format: a name or alias listed by threadlab --help; auto-detected by default")
    c.add_argument("--lenient", action="store_true", help="convert a thread that breaks a rule as it is (by default it is refused)")
    for option, (help_text, formats) in write_options().items():
        c.add_argument(f"--{option}", help=f"{help_text} (for --to {', '.join(formats)})")
    c.set_defaults(func="convert")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with readable_warnings():
            return _run(args)
    except ThreadError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError) as exc:
        print(f"threadlab: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `threadlab summary data/ | head`: the reader has gone; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _run(args: argparse.Namespace) -> int:
    if args.func == "summary":
        from threadlab.cli import summary

        return summary.run(args)
    from threadlab.cli import commands

    return commands.validate(args) if args.func == "validate" else commands.convert(args)


if __name__ == "__main__":
    raise SystemExit(main())
