"""How much does the folder walk cost on a folder of many small files? (issue 24: the walk sniffs
every file whose name no format claims, and lists what it does not read; it must stay fast.)

    python benchmarks/walk.py                       # 10,000 files under benchmarks/corpus/walk-10000/
    python benchmarks/walk.py --files 10000 --repeat 5 --cold

Two folders of the same number of files, in subfolders of 1,000:

    threads   small ThreadProtocol files (about 2 KB each, ``.json``): the common case
    mixed     the same, with every fifth file something else: prose notes (``.txt``), a README
              (``.md``), a script (``.py``), a PNG, an SSE capture saved as ``.chunks.txt``

and, on each, in this process (imports before the clock), the median and the best of
``--repeat`` rounds:

    walk      ``list(threadlab.loading.files.file_refs(folder))``: the walk as ``load`` makes it
    cached    ``threadlab.load(folder, cache=...)`` with every chunk in the cache (a reload)
    cold      ``threadlab.load(folder)`` (``--cold``: once, the default workers, no cache)

The script uses only what every threadlab since issue 16 has, so a copy of it in another checkout
times that checkout's threadlab on the same folders (the checkout's own folder is imported first):
``cp benchmarks/walk.py /path/to/checkout/benchmarks/ && python /path/to/checkout/benchmarks/walk.py --root benchmarks/corpus``."""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.corpus import thread_doc  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200)
SSE = (
    b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}\n\n'
    b'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,'
    b'"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)
OTHERS: tuple[tuple[str, bytes], ...] = (
    ("notes-{i}.txt", b"Notes from the run: the agent retried twice, then answered.\n" * 8),
    ("README-{i}.md", b"# Run {i}\n\nWhat this folder holds and how it was made.\n"),
    ("script-{i}.py", b"import threadlab\n\nframes = threadlab.load('.')\nprint(frames)\n"),
    ("plot-{i}.png", PNG),
    ("capture-{i}.chunks.txt", SSE),
)


def write_folder(root: Path, n_files: int, *, mixed: bool, seed: int = 7) -> Path:
    """``n_files`` files in subfolders of 1,000 (kept when already made with the same numbers)."""
    stamp = root / ".made"
    wanted = f"{n_files} {mixed} {seed}"
    if stamp.exists() and stamp.read_text() == wanted:
        return root
    shutil.rmtree(root, ignore_errors=True)
    for i in range(n_files):
        folder = root / f"batch-{i // 1000:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        if mixed and i % 5 == 4:
            name, data = OTHERS[(i // 5) % len(OTHERS)]
            (folder / name.format(i=i)).write_bytes(data.replace(b"{i}", str(i).encode()))
        else:
            (folder / f"thread-{i:06d}.json").write_bytes(orjson.dumps(thread_doc(seed, i, target_bytes=2000)))
    stamp.write_text(wanted)
    return root


def timed(run: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(median, best) seconds over ``repeat`` runs, and the last run's result (the best is the
    steadier figure on a shared machine)."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times), result


def bench(folder: Path, repeat: int, cold: bool) -> dict[str, Any]:
    import threadlab
    from threadlab.loading.files import file_refs

    out: dict[str, Any] = {}
    out["walk_s"], out["walk_best_s"], items = timed(lambda: list(file_refs(folder)), repeat)
    out["walked"] = len(items)
    with tempfile.TemporaryDirectory(prefix="threadlab-walk-bench-") as cache:
        threadlab.load(folder, cache=cache, progress=False)  # fills the cache
        out["cached_s"], out["cached_best_s"], frames = timed(lambda: threadlab.load(folder, cache=cache, progress=False), repeat)
    out["threads"] = len(frames.threads)
    out["problems"] = len(frames.problems)
    out["skipped"] = len(getattr(frames, "skipped", ()))
    if cold:
        out["cold_s"], _, _ = timed(lambda: threadlab.load(folder, progress=False), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="also time one load without the cache")
    parser.add_argument("--root", type=Path, default=HERE / "corpus")
    args = parser.parse_args(argv)
    import threadlab

    print(f"threadlab from {Path(threadlab.__file__).parent}")
    for name, mixed in (("threads", False), ("mixed", True)):
        folder = write_folder(args.root / f"walk-{args.files}-{name}", args.files, mixed=mixed)
        result = bench(folder, args.repeat, args.cold)
        figures = "  ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in result.items())
        print(f"{name:<8} {args.files} files  {figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
