"""How far would the field's native JSON reader get on the two corpora whose targets are not met?
(issue #27: Claude Code against ``read_json`` 10x, span exports against ``json_normalize`` 3x)

    python benchmarks/native_floor.py claude /work/bench/corpus/claude-1gb
    python benchmarks/native_floor.py spans benchmarks/corpus/spans-1024mb

DuckDB (as many threads as the machine's cores) reads the files and projects the raw fields a
frames route starts from, with none of the format's meaning (for Claude: no chain order, no
merge of a message's streamed lines, no sidechains or subagents, no tool pairing; for spans: no
GenAI message parsing, no assembly into a thread), and nothing turned into pandas. Each step is
timed on its own (each reads the files again); the fields of a line or span are extracted by one
call with a list of paths, so each is parsed once (``->>`` a field parses it again for each):

    claude   every line parsed (``read_ndjson_objects``); the envelope and ``message.content``
             projected (type, uuid, parent, time, session, sidechain, message id, role, model,
             usage, content) into a table
    spans    every file parsed (``read_json_objects``); its spans unnested
             (``resourceSpans → scopeSpans → spans``) with ids, name, times and attributes

A route built on it has this much of its time gone before any of the work threadlab does in
Python: against the target's budget (the baseline's time over the target ratio), it says whether
a native reader is the way to the target."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path


def claude_steps(root: Path) -> list[tuple[str, str]]:
    files = f"{root}/projects/**/*.jsonl"
    lines = f"read_ndjson_objects('{files}', filename=true)"
    return [
        ("every line parsed", f"SELECT count(*) FROM {lines}"),
        (
            "envelope and content projected",
            f"""CREATE OR REPLACE TEMP TABLE lines AS SELECT filename,
            json_extract_string(json, ['$.type', '$.uuid', '$.parentUuid', '$.timestamp', '$.sessionId', '$.isSidechain',
                                       '$.message.id', '$.message.role', '$.message.model']) AS envelope,
            json_extract(json, ['$.message.usage', '$.message.content']) AS message
            FROM {lines}""",
        ),
    ]


def spans_steps(root: Path) -> list[tuple[str, str]]:
    docs = f"read_json_objects('{root}/*.json', format='auto', maximum_object_size=1000000000)"
    return [
        ("every file parsed", f"SELECT count(*) FROM {docs}"),
        (
            "spans unnested and projected",
            f"""CREATE OR REPLACE TEMP TABLE spans AS
            WITH d AS (SELECT json FROM {docs}),
            rs AS (SELECT unnest(json_extract(json, '$.resourceSpans[*]')) AS rs FROM d),
            ss AS (SELECT unnest(json_extract(rs, '$.scopeSpans[*]')) AS ss FROM rs),
            sp AS (SELECT unnest(json_extract(ss, '$.spans[*]')) AS s FROM ss)
            SELECT json_extract_string(s, ['$.traceId', '$.spanId', '$.parentSpanId', '$.name', '$.startTimeUnixNano',
                                           '$.endTimeUnixNano']) AS span, json_extract(s, '$.attributes') AS attributes FROM sp""",
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    import duckdb

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", choices=("claude", "spans"))
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args(argv)
    threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    con = duckdb.connect()
    con.execute(f"SET threads={threads}")
    steps = claude_steps(args.folder) if args.corpus == "claude" else spans_steps(args.folder)
    print(f"# DuckDB {duckdb.__version__}, {threads} threads, {args.folder}")
    for name, query in steps:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            con.execute(query).fetchall()
            times.append(time.perf_counter() - start)
        print(f"{name}: best {min(times):.2f} s of {args.repeat}", flush=True)
    table = "lines" if args.corpus == "claude" else "spans"
    print(f"rows projected: {con.execute(f'SELECT count(*) FROM {table}').fetchone()[0]:,}")  # type: ignore[index]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
