"""threadlab.load at scale: the fast path, the process pool, leniency, the cache, Dask.

Data: the bundled threads in data/ (real converter output), threads from the benchmark corpus
generator and ThreadBuilder written into tmp_path; hand-written files only for broken input."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import pandas as pd
import pytest
from genai_prices import Usage, calc_price

import threadlab
from benchmarks.corpus import thread_doc
from threadlab import Problem, ThreadBuilder, ThreadError, frames_from_threads, read_all, write
from threadlab.formats.common.reading import UnreadFilesWarning
from threadlab.frames import DTYPES, TABLES
from threadlab.frames.frames import Frames
from threadlab.loading import api, chunks, expand_sources, pool
from threadlab.loading.files import FileRef, make_chunks
from threadlab.loading.reader import fast_record

DATA = Path(__file__).resolve().parent.parent / "data"


def corpus(folder: Path, n: int, *, seed: int = 7, size: int = 6000) -> list[Path]:
    """n generated thread files (indented, as threadlab.write writes them)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        path = folder / f"t{i:03d}.json"
        path.write_bytes(orjson.dumps(thread_doc(seed, i, target_bytes=size), option=orjson.OPT_INDENT_2))
        paths.append(path)
    return paths


def assert_same_frames(left: Frames, right: Frames, *, check_categorical: bool = True, problems_in_order: bool = True) -> None:
    for name in TABLES:
        a, b = getattr(left, name), getattr(right, name)
        if name == "problems" and not problems_in_order:
            a, b = (f.sort_values(["message", "line"], key=lambda c: c.astype(str)) for f in (a, b))
        pd.testing.assert_frame_equal(
            a.reset_index(drop=True), b.reset_index(drop=True), check_categorical=check_categorical, obj=name
        )


def converter_frames(paths: list[Path]) -> Frames:
    """The careful way: read_all per file (pydantic Threads) → frames_from_threads."""
    threads, problems = [], []
    for path in paths:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UnreadFilesWarning)
                threads += read_all(path, strict=False)
            # a file no converter reads: its problems, at the end
            problems += [p for w in caught if isinstance(w.message, UnreadFilesWarning) for p in w.message.problems]
        except Exception as exc:  # a converter bug costs that file (as the loader reports it)
            problems.append(Problem("internal", f"{path} could not be loaded: {type(exc).__name__}: {exc}", source=str(path)))
    return frames_from_threads(threads, problems=problems)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make small test corpora split into many chunks, so the pool really has several tasks."""
    monkeypatch.setattr(api, "MIN_CHUNK_BYTES", 4096)


def test_chunks_without_a_cache_are_even_and_with_one_stay_put() -> None:
    """No cache: each chunk closes as soon as it holds the target (no worker is handed a chunk
    four times the others' at the end). With a cache: boundaries depend on the paths only, so
    growing one file moves no other chunk's boundary."""
    import random

    rng = random.Random(3)
    refs = [FileRef(f"/corpus/t{i:04d}.json", rng.randint(1_000, 90_000), 0) for i in range(3_000)]
    target = 1_000_000
    even = make_chunks(refs, "auto", target_bytes=target, stable=False)
    assert [f for c in even for f in c.files] == refs
    assert all(target <= c.size < target + c.files[-1].size for c in even[:-1])
    stable = make_chunks(refs, "auto", target_bytes=target)
    assert [f for c in stable for f in c.files] == refs
    assert max(c.size for c in stable) > 1.5 * max(c.size for c in even)  # what even chunks avoid
    grown = [*refs]
    grown[1_500] = FileRef(refs[1_500].path, refs[1_500].size + 5_000, 1)
    ends = {c.files[-1].path for c in stable}
    assert {c.files[-1].path for c in make_chunks(grown, "auto", target_bytes=target)} == ends


def test_order_kept_across_workers(tmp_path: Path, small_chunks: None) -> None:
    paths = corpus(tmp_path / "c", 24)
    many = threadlab.load(tmp_path / "c", workers=2, progress=False)
    one = threadlab.load(tmp_path / "c", workers=1, progress=False)
    assert list(many.threads["source"].astype(str)) == [str(p) for p in paths]
    assert list(many.threads["thread_id"]) == [f"bench-7-{i:07d}" for i in range(24)]
    # actions stay grouped by file, in file order, each thread's in sequence order
    firsts = many.actions.groupby("thread_id", observed=True, sort=False).head(1)
    assert list(firsts["thread_id"].astype(str)) == list(many.threads["thread_id"])
    assert (many.actions.groupby("thread_id", observed=True)["sequence"].diff().dropna() == 1).all()
    assert_same_frames(many, one)
    # categories of a label are the union over all chunks
    assert set(many.actions["source"].cat.categories) == {str(p) for p in paths}


@contextmanager
def another_thread() -> Iterator[None]:
    """A second Python thread running for the duration (as a Jupyter kernel always has)."""
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        yield
    finally:
        stop.set()
        other.join()


def test_workers_fork_only_a_process_without_other_threads() -> None:
    """Forking while another Python thread runs can copy a held lock into a worker, which then
    waits forever (a Jupyter kernel always runs such threads); the pool must not fork then."""
    with another_thread():
        assert pool._context().get_start_method() == "forkserver"
    # a plain script (no other thread) still gets fork: workers start in milliseconds
    code = "from threadlab.loading import pool; print(pool._context().get_start_method())"
    alone = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert alone.stdout.strip() == "fork"


def test_pool_from_a_threaded_process_loads_everything(tmp_path: Path, small_chunks: None) -> None:
    paths = corpus(tmp_path / "c", 12)
    with another_thread():
        frames = threadlab.load(tmp_path / "c", workers=2, progress=False)
    assert list(frames.threads["source"].astype(str)) == [str(p) for p in paths]
    assert frames.problems.empty


def test_fast_path_equals_converter_path(tmp_path: Path) -> None:
    paths = [p for p in expand_sources(DATA) if isinstance(p, Path)]
    assert any("threadprotocol" in str(p) for p in paths) and any("threadprotocol" not in str(p) for p in paths)
    paths += corpus(tmp_path / "gen", 6)
    fast = threadlab.load(paths, workers=1, progress=False)
    assert_same_frames(fast, converter_frames(paths), problems_in_order=False)
    assert len(fast.problems) > 0  # the bundled invalid thread: its problems are the converter's


def test_fast_path_equals_converter_path_on_irregular_threads(tmp_path: Path) -> None:
    """Offsets and naive times, missing defaults, unsorted keys, schema breaks, unknown types:
    whatever the fast path takes or hands over, the frames are the converter's."""
    doc = thread_doc(3, 1, target_bytes=8000)
    doc.pop("title")
    for action in doc["actions"]:
        if action["action_type"] == "tool_return":
            action.pop("status", None)
    doc["actions"][0]["timestamp"] = "2026-01-05T10:59:00+02:00"  # 08:59 UTC, before the rest
    late = thread_doc(3, 2, target_bytes=8000)
    late["actions"][2]["timestamp"] = "2026-01-05T10:00:00+02:00"  # earlier than action 2's
    naive = thread_doc(3, 3, target_bytes=8000)
    for action in naive["actions"]:
        action["timestamp"] = action["timestamp"].rstrip("Z")
    broken = thread_doc(3, 4, target_bytes=8000)
    broken["actions"][1]["sequence"] = "2"
    broken["actions"][2]["action_type"] = "handoff"
    broken["agents"]["planner"].pop("agent_name")
    assert fast_record(doc, "doc") is not None and fast_record(naive, "naive") is not None  # taken by the fast path
    assert fast_record(late, "late") is None and fast_record(broken, "broken") is None
    files = []
    for i, d in enumerate((doc, late, naive, broken)):
        path = tmp_path / f"odd{i}.json"
        path.write_bytes(orjson.dumps(d))
        files.append(path)
    lines = tmp_path / "threads.jsonl"
    lines.write_bytes(b"\n".join(orjson.dumps(d) for d in (doc, late, naive, broken)) + b"\n{not json\n")
    files.append(lines)
    fast = threadlab.load(files, workers=1, progress=False)
    assert_same_frames(fast, converter_frames(files))
    rules = set(fast.problems["rule"].astype(str))
    assert {"time-order", "action-type-name", "schema", "json"} <= rules  # pydantic takes sequence "2" as 2
    assert fast.problems.loc[fast.problems["rule"] == "json", "line"].tolist() == [5]


def test_corrupt_files_cost_only_themselves(tmp_path: Path) -> None:
    good = corpus(tmp_path, 3)
    (tmp_path / "truncated.json").write_bytes(good[0].read_bytes()[:500])
    (tmp_path / "latin1.json").write_bytes('{"thread_id": "x", "title": "caf\xe9", "actions": []}'.encode("latin-1"))
    (tmp_path / "empty.json").write_bytes(b"")
    frames = threadlab.load(tmp_path, progress=False, workers=2)
    assert len(frames.threads) == 3
    assert sorted(frames.threads["thread_id"]) == [f"bench-7-{i:07d}" for i in range(3)]
    by_source = {Path(str(s)).name: r for s, r in zip(frames.problems["source"], frames.problems["rule"], strict=True)}
    assert by_source == {"truncated.json": "json", "latin1.json": "encoding", "empty.json": "empty"}
    truncated = frames.problems[frames.problems["rule"] == "json"].iloc[0]
    assert "truncated.json" in truncated["message"] and "line" in truncated["message"]


def test_strict_lists_every_problem(tmp_path: Path) -> None:
    corpus(tmp_path, 2)
    (tmp_path / "bad1.json").write_bytes(b'{"thread_id": "a", "actions": [')
    (tmp_path / "bad2.json").write_bytes(b"")
    invalid = DATA / "threadprotocol" / "invalid-one_of_each_rule.thread.json"
    lenient = threadlab.load([tmp_path, invalid], progress=False)
    with pytest.raises(ThreadError) as err:
        threadlab.load([tmp_path, invalid], strict=True, progress=False)
    problems = err.value.problems
    assert len(problems) == len(lenient.problems) >= 7
    assert {p.rule for p in problems} >= {"json", "empty", "sequence-order", "tool-call-match", "agent-ref", "action-type-name", "time-order"}
    text = str(err.value)
    assert "bad1.json" in text and "bad2.json" in text and "invalid-one_of_each_rule" in text


def test_cache_hit_reads_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus(tmp_path / "c", 5)
    cache = tmp_path / "cache"
    first = threadlab.load(tmp_path / "c", cache=cache, workers=1, progress=False)
    assert any(cache.iterdir())

    def no_reading(chunk: object) -> None:
        raise AssertionError("a cached chunk was read again")

    monkeypatch.setattr(chunks, "read_chunk", no_reading)
    again = threadlab.load(tmp_path / "c", cache=cache, workers=1, progress=False)
    assert_same_frames(first, again)


def test_cache_rereads_a_changed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "CHUNK_BYTES", 32 << 10)  # several cache entries for a small corpus
    paths = corpus(tmp_path / "c", 40)
    cache = tmp_path / "cache"
    threadlab.load(tmp_path / "c", cache=cache, workers=1, progress=False)
    doc = orjson.loads(paths[17].read_bytes())
    doc["title"] = "changed on disk"
    paths[17].write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    stat = paths[17].stat()
    os.utime(paths[17], ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    read = []
    real = chunks.read_chunk
    monkeypatch.setattr(chunks, "read_chunk", lambda chunk: read.append(chunk) or real(chunk))
    frames = threadlab.load(tmp_path / "c", cache=cache, workers=1, progress=False)
    assert frames.threads.set_index("thread_id").loc["bench-7-0000017", "title"] == "changed on disk"
    assert len(read) == 1 and str(paths[17]) in [f.path for f in read[0].files]
    assert len(read[0].files) < 40  # only the changed file's chunk, not the corpus


def test_dtypes_as_declared(tmp_path: Path) -> None:
    frames = threadlab.load([DATA, *corpus(tmp_path, 3)], progress=False)
    for name, columns in TABLES.items():
        frame = getattr(frames, name)
        assert list(frame.columns) == [c.name for c in columns]
        for column in columns:
            dtype = frame[column.name].dtype
            if column.kind == "label":
                assert isinstance(dtype, pd.CategoricalDtype), (name, column.name)
            else:
                assert dtype == DTYPES[column.kind], (name, column.name, dtype)
    assert str(frames.actions["timestamp"].dt.tz) == "UTC"
    # what widgets do with them
    by_model = frames.usage.groupby("model_name", observed=True)["cost_usd"].sum()
    assert by_model.loc[["claude-sonnet-4-5", "gpt-4o"]].gt(0).all()
    empty = threadlab.load([], progress=False)
    assert [str(t) for t in empty.actions.dtypes] == [str(t) for t in frames.actions.dtypes]


def test_cost_is_genai_prices(tmp_path: Path) -> None:
    """Vectorised pricing gives genai-prices' own price, in and above a price tier."""
    b = ThreadBuilder("priced")
    agent = b.agent("Claude", metadata={"model_name": "claude-sonnet-4-5"})
    for inp in (1_000, 200_000, 250_000):
        b.add("assistant_message", agent_id=agent, content="ok",
              usage={"input_tokens": inp, "output_tokens": 900, "cache_read_tokens": inp // 4},
              metadata={"provider_name": "anthropic"})
    write(b.build(), tmp_path / "priced.json")
    frames = threadlab.load(tmp_path, progress=False)
    for row in frames.usage.itertuples():
        usage = Usage(input_tokens=row.input_tokens, output_tokens=row.output_tokens, cache_read_tokens=row.cache_read_tokens)
        expected = float(calc_price(usage, model_ref="claude-sonnet-4-5", provider_id="anthropic").total_price)
        assert row.cost_usd == pytest.approx(expected, rel=1e-12)
    assert frames.threads["cost_usd"].iloc[0] == pytest.approx(frames.usage["cost_usd"].sum())


def test_small_loads_stay_in_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under SMALL_LOAD_BYTES no pool starts (its workers would import the converters again on
    every load); above it, the default is one worker per core. The frames are the same."""
    corpus(tmp_path / "c", 6)
    pools: list[int] = []
    real_pool = pool._run_pool
    monkeypatch.setattr(pool, "_run_pool", lambda chunks, workers, *rest: pools.append(workers) or real_pool(chunks, workers, *rest))
    monkeypatch.setattr(api, "MIN_CHUNK_BYTES", 4096)
    monkeypatch.setattr(api, "default_workers", lambda n_chunks: 2)  # as on a 2-core machine
    small = threadlab.load([tmp_path / "c", DATA], progress=False)
    assert pools == []
    monkeypatch.setattr(api, "SMALL_LOAD_BYTES", 0)
    pooled = threadlab.load([tmp_path / "c", DATA], progress=False)
    assert pools == [2]
    assert_same_frames(small, pooled)


def test_jsonl_streamed_and_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = [thread_doc(5, i, target_bytes=3000) for i in range(12)]
    path = tmp_path / "runs.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(d) for d in docs) + b"\n")
    corpus(tmp_path / "more", 9)
    frames = threadlab.load(tmp_path, progress=True, workers=1)
    assert list(frames.threads["thread_id"])[9:] == [d["thread_id"] for d in docs]  # more/ sorts first
    assert "10/10 files" in capsys.readouterr().err
    threadlab.load(tmp_path, progress=False, workers=1)
    assert capsys.readouterr().err == ""


def test_parquet_and_duckdb(tmp_path: Path) -> None:
    frames = threadlab.load([DATA, *corpus(tmp_path / "c", 3)], progress=False)
    frames.to_parquet(tmp_path / "out")
    back = threadlab.read_parquet(tmp_path / "out")
    assert_same_frames(frames, back)
    con = frames.to_duckdb()
    n_calls = con.execute("select count(*) from tool_calls where status = 'pending'").fetchone()[0]
    assert n_calls == (frames.tool_calls["status"] == "pending").sum() > 0
    with pytest.raises(FileNotFoundError, match=r"actions\.parquet"):
        threadlab.read_parquet(tmp_path / "c")


def test_dask_engine_equals_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import dask
    import distributed

    monkeypatch.setattr(api, "MIN_CHUNK_BYTES", 24 << 10)  # a few partitions
    sources = [DATA / "threadprotocol", *corpus(tmp_path / "c", 16)]
    default = threadlab.load(sources, progress=False)
    # forkserver, not fork: this process runs threads (the test runner's, the cluster's event
    # loop), and a worker forked from it can inherit a held lock and hang
    with (
        dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"}),
        distributed.Client(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None) as client,
    ):
        lazy = threadlab.load(sources, engine="dask")
        assert lazy.actions.npartitions >= 3
        computed = lazy.compute()
        assert client.run(lambda: 1)  # really ran on the cluster's worker processes
    assert_same_frames(default, computed, check_categorical=False)


def test_folder_walk_reads_claude_sessions_file_by_file_beside_other_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Claude project folder is walked like any other: each session transcript is a file to
    read (its subagent transcripts go with it, not on their own), and a ThreadProtocol file
    beside the sessions is read too (it used to be dropped: the whole folder was one source).
    Only folders with a subfolder or a .jsonl file are shown to Claude's folder planner."""
    import shutil

    import threadlab.formats.claude as claude

    project = Path(__file__).resolve().parent / "fixtures" / "claude" / "projects" / "-home-user-proj"
    proj = tmp_path / "root" / "sessions" / "proj"
    shutil.copytree(project, proj)
    beside = corpus(proj, 1)
    plain = corpus(tmp_path / "root" / "plain", 3)
    asked: list[str] = []
    real_plan = claude.plan_folder
    monkeypatch.setattr(claude, "plan_folder", lambda folder, entries: asked.append(Path(folder).name) or real_plan(folder, entries))
    found = [str(p) for p in expand_sources(tmp_path / "root")]
    sessions = sorted(str(p) for p in proj.glob("*.jsonl"))
    assert found == [str(p) for p in plain] + sorted([*sessions, *map(str, beside)])
    assert sorted(asked) == ["proj", "root", "sessions"]
    frames = threadlab.load(tmp_path / "root", progress=False)
    assert set(frames.threads["format"]) == {"claude-code", "threadprotocol"}
    assert len(frames.threads) == len(sessions) + 4
    assert frames.problems.empty, frames.problems
    # every subagent of the project is an agent of its session's thread
    subagents = {p.stem.removeprefix("agent-") for p in proj.glob("*/subagents/agent-*.jsonl")}
    assert subagents <= set(frames.actions["agent_id"].dropna())


def test_folder_walk_imports_no_heavy_format(tmp_path: Path) -> None:
    """Looking at folders must not import every format (pydantic-ai alone takes seconds): only
    the formats that plan folders are imported by a walk, and they import no converter library."""
    corpus(tmp_path / "c" / "sub", 3)
    (tmp_path / "c" / "sub" / "s.jsonl").write_text("{}\n")  # a folder the planners are asked about
    code = (
        "import sys, threadlab; from threadlab.formats.common.walk import expand_sources; "
        f"n = len(list(expand_sources({str(tmp_path / 'c')!r}))); "
        "print(n, *(m in sys.modules for m in ('pydantic_ai', 'pandas')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["4", "False", "False"]
