"""Values JSON cannot hold: a float NaN or infinity in a thread about to be written.

JSON has no NaN and no infinity. orjson writes them as ``null`` without a word, Python's
``json`` as the bare words ``NaN`` / ``Infinity`` that no strict JSON reader takes back, and any
stand-in (a string ``"NaN"``, a tagged object) would be read back as a different value than
the thread held. So a writer refuses such a thread: ``refuse_non_finite`` raises a
``ThreadError`` with one ``non-finite`` problem per value, naming the action's sequence (or the
thread's or agent's field) and where in the value it sits. The canonical writer and every
format's ``from_thread`` call it before they write. A thread read from a file never holds one
(every reader parses strict JSON); only a thread built in memory can."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps
from math import isfinite
from typing import Any

from pydantic import BaseModel

from threadlab.core.model import Thread
from threadlab.core.problems import Problem, ThreadError, short


def _children(value: Any) -> Iterator[tuple[str, Any]]:
    """(key, child) of a container (a model's fields and extra fields, a dict, a list)."""
    if isinstance(value, BaseModel):
        yield from value.__dict__.items()
        yield from (value.__pydantic_extra__ or {}).items()
    elif isinstance(value, dict):
        yield from ((str(k), v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        yield from ((f"[{i}]", v) for i, v in enumerate(value))


def non_finite(value: Any, path: str = "") -> Iterator[tuple[str, float]]:
    """(path, value) of every float NaN or infinity inside ``value`` (models, dicts, lists,
    tuples; any depth: a stack, not recursion), in document order."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float):
            if not isfinite(item):
                yield where, item
        elif isinstance(item, BaseModel | dict | list | tuple):
            kids = [(f"{where}{k}" if k.startswith("[") else f"{where}.{k}" if where else k, v) for k, v in _children(item)]
            stack.extend(reversed(kids))


def has_non_finite(value: Any) -> bool:
    """Is there a float NaN or infinity anywhere in ``value``? (The check every write pays: no
    paths made, so about a third of the time ``non_finite`` takes.)"""
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float or isinstance(item, float):
            if not isfinite(item):
                return True
        elif kind is dict:
            push(item.values())
        elif kind is list or kind is tuple:
            push(item)
        elif isinstance(item, BaseModel):
            push(item.__dict__.values())
            if item.__pydantic_extra__:
                push(item.__pydantic_extra__.values())
        elif isinstance(item, dict):
            push(item.values())
        elif isinstance(item, list | tuple):
            push(item)
    return False


def non_finite_problems(thread: Thread) -> list[Problem]:
    """One ``non-finite`` problem per NaN or infinity in ``thread``: in its own fields, its
    agents', and each action's (named by sequence)."""
    problems: list[Problem] = []
    if not has_non_finite(thread):
        return problems
    tid = thread.thread_id

    def add(where: str, path: str, value: float, sequence: int | None = None) -> None:
        problems.append(Problem("non-finite", f"{where}: {path} is {short(value)}, which JSON cannot hold; not written", thread_id=tid, sequence=sequence))

    for name, value in _children(thread):
        if name == "actions":
            continue
        for path, bad in non_finite(value, name):
            add("the thread", path, bad)
    for action in thread.actions:
        sequence = getattr(action, "sequence", None)
        kind = getattr(action, "action_type", None)
        for path, bad in non_finite(action):
            add(f"action sequence {sequence} ({kind})", path, bad, sequence if isinstance(sequence, int) else None)
    return problems


def refuse_non_finite(thread: Thread) -> None:
    """Raise a ``ThreadError`` naming every NaN and infinity in ``thread`` (a writer calls this
    before writing: JSON cannot hold them, and writing ``null`` would change the value)."""
    problems = non_finite_problems(thread)
    if problems:
        raise ThreadError(problems)


def refuses_non_finite(writer: Callable[..., bytes]) -> Callable[..., bytes]:
    """A format's ``from_thread`` that first refuses a thread holding a NaN or infinity."""

    @wraps(writer)
    def checked(thread: Thread, *args: Any, **kwargs: Any) -> bytes:
        refuse_non_finite(thread)
        return writer(thread, *args, **kwargs)

    return checked
