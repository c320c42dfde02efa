"""``judge``: a user's function or pydantic-ai Agent over threads (or over findings' spans),
its structured answers gathered in a DataFrame.

Nothing is sent anywhere unless the user passes something that sends it: ``fn`` is theirs. A
plain function (sync or async) is called with each item, a ``Thread`` (for a span, the thread
cut to the span's actions); a pydantic-ai ``Agent`` (anything with an async ``run``) is run on
the item's text (``thread_text``, or ``prompt(item)``). ``concurrency`` items are in flight at
once (sync functions each in a worker thread). One item's failure is its row's ``error``, not
the end of the run. An answer that is a pydantic model, a dataclass or a dict becomes columns;
anything else is the ``answer`` column."""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from threadlab.analysis.arrays import as_frames, ints, objects
from threadlab.core.model import Thread
from threadlab.frames.frames import Frames, ThreadKey, frames_from_threads

KEY_COLUMNS = ("source", "thread_id", "first_sequence", "last_sequence")
TEXT_LIMIT = 2000  # characters of each action in ``thread_text``


@dataclass(frozen=True)
class Item:
    source: str | None
    thread_id: str
    first: int | None
    last: int | None
    thread: Thread


def thread_text(thread: Thread, *, limit: int = TEXT_LIMIT) -> str:
    """A plain-text transcript of ``thread`` for a model to read: one line per action
    (``[sequence] kind · author · harness kind · agent · tool · status: text``, the parts it
    has), each text cut to ``limit`` characters."""
    a = frames_from_threads([thread]).actions
    lines = []
    for seq, kind, author, harness, agent, tool, status, text in zip(
            ints(a["sequence"]), objects(a["action_type"]), objects(a["author"]), objects(a["harness_kind"]), objects(a["agent_name"]),
            objects(a["tool_name"]), objects(a["status"]), objects(a["text"]), strict=True):
        who = " · ".join(str(x) for x in (author, harness, agent, tool, status if kind == "tool_return" else None) if x is not None)
        body = "" if text is None else str(text)
        body = body if len(body) <= limit else body[:limit] + f" … ({len(body) - limit} more characters)"
        lines.append(f"[{seq}] {kind} · {who}: {body}")
    title = f"Thread {thread.thread_id}" + (f": {thread.title}" if thread.title else "")
    return title + "\n" + "\n".join(lines)


def _span(thread: Thread, first: int | None, last: int | None) -> Thread:
    if first is None and last is None:
        return thread
    lo = first if first is not None else last
    hi = last if last is not None else first
    kept = [a for a in thread.actions if lo <= a.sequence <= hi]
    cut = thread.model_copy(update={"actions": kept})
    cut.origin = thread.origin
    return cut


def _items(data: Any) -> list[Item]:
    if isinstance(data, Thread):
        return [Item(data.origin[0], data.thread_id, None, None, data)]
    if isinstance(data, pd.DataFrame):
        frames = getattr(data, "_frames", None)
        if frames is None or not {"source", "thread_id"} <= set(data.columns):
            raise TypeError("judge takes threads, Frames, or the findings / hits of tl.scan, tl.find and tl.search (which keep their frames)")
        first = data["first_sequence"] if "first_sequence" in data.columns else data.get("sequence")
        last = data["last_sequence"] if "last_sequence" in data.columns else data.get("sequence")
        firsts = ints(first) if first is not None else np.full(len(data), -1)
        lasts = ints(last) if last is not None else np.full(len(data), -1)
        out = []
        for s, t, f, la in zip(objects(data["source"]), objects(data["thread_id"]), firsts, lasts, strict=True):
            thread = frames.thread(ThreadKey(s, str(t)))
            f_, l_ = (int(f) if f >= 0 else None), (int(la) if la >= 0 else None)
            out.append(Item(s, str(t), f_, l_, _span(thread, f_, l_)))
        return out
    if isinstance(data, Frames):
        frames = as_frames(data)
        return [Item(key.source, key.thread_id, None, None, frames.thread(key)) for key in frames.keys()]
    if isinstance(data, Iterable) and not isinstance(data, str | bytes | dict):
        threads = list(data)
        if all(isinstance(t, Thread) for t in threads):
            return [Item(t.origin[0], t.thread_id, None, None, t) for t in threads]
    raise TypeError(f"judge takes a Thread, Threads, Frames or findings; got {type(data).__name__}")


def _caller(fn: Any, prompt: Callable[[Thread], str] | None) -> Callable[[Thread], Awaitable[Any]]:
    run = getattr(fn, "run", None)
    if not callable(fn) and run is not None and inspect.iscoroutinefunction(run):  # a pydantic-ai Agent
        to_text = prompt or thread_text

        async def ask_agent(thread: Thread) -> Any:
            return (await run(to_text(thread))).output

        return ask_agent
    if not callable(fn):
        raise TypeError(f"fn must be a function of a Thread or a pydantic-ai Agent, got {type(fn).__name__}")

    async def call(thread: Thread) -> Any:
        if inspect.iscoroutinefunction(fn):
            return await fn(thread)
        value = await asyncio.to_thread(fn, thread)
        return await value if inspect.isawaitable(value) else value

    return call


def _columns(answer: Any) -> dict[str, Any]:
    if hasattr(answer, "model_dump") and callable(answer.model_dump):
        return dict(answer.model_dump())
    if dataclasses.is_dataclass(answer) and not isinstance(answer, type):
        return dataclasses.asdict(answer)
    if isinstance(answer, dict):
        return dict(answer)
    return {"answer": answer}


async def judge_async(data: Any, fn: Any, *, concurrency: int = 4, prompt: Callable[[Thread], str] | None = None) -> pd.DataFrame:
    """``judge`` in a running event loop (``await`` it in a notebook cell)."""
    if concurrency < 1:
        raise ValueError(f"concurrency is at least 1; got {concurrency}")
    items = _items(data)
    call = _caller(fn, prompt)
    gate = asyncio.Semaphore(concurrency)

    async def one(item: Item) -> dict[str, Any]:
        async with gate:
            try:
                answer = _columns(await call(item.thread))
                error = None
            except Exception as exc:  # one item's failure is its row, not the end of the run
                answer, error = {}, f"{type(exc).__name__}: {exc}"
        keys = dict(zip(KEY_COLUMNS, (item.source, item.thread_id, item.first, item.last), strict=True))
        return {**keys, **{k: v for k, v in answer.items() if k not in keys}, "error": error}

    rows = await asyncio.gather(*(one(item) for item in items))
    table = pd.DataFrame(rows, columns=list(dict.fromkeys([*KEY_COLUMNS, *(k for r in rows for k in r), "error"])))
    for column in ("first_sequence", "last_sequence"):
        table[column] = pd.array(table[column].astype(object).where(table[column].notna(), None), dtype="Int64")
    table["error"] = pd.Series([r["error"] for r in rows], dtype=object, index=table.index)
    return table


def judge(data: Any, fn: Any, *, concurrency: int = 4, prompt: Callable[[Thread], str] | None = None) -> pd.DataFrame:
    """Run ``fn`` over each thread of ``data`` (a Thread, Threads, Frames) or each span of
    ``data`` (the findings of ``tl.scan`` / ``tl.find``, the hits of ``tl.search``): one row per
    item, ``source``, ``thread_id``, ``first_sequence``, ``last_sequence`` (empty for a whole
    thread), the answer's fields as columns, and ``error`` (why ``fn`` failed on that item).

    ``fn``: a function of a ``Thread`` (sync or async) or a pydantic-ai ``Agent`` (run on
    ``thread_text(item)`` or ``prompt(item)``; its structured output becomes the columns).
    At most ``concurrency`` items run at once. In a running event loop (a notebook), the work runs
    on a loop of its own in a worker thread; ``await judge_async(...)`` runs it in yours."""
    coroutine = judge_async(data, fn, concurrency=concurrency, prompt=prompt)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


__all__ = ["judge", "judge_async", "thread_text"]
