"""ThreadProtocol JSON itself: one thread (an object), several (an array), or JSON Lines.

Strict or lenient, nothing is dropped: an action that breaks the schema is kept exactly as it
came (``InvalidAction``) and reported, so writing the thread back loses nothing."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from pydantic import ValidationError

from threadlab.core.account import Account
from threadlab.core.builder import EPOCH
from threadlab.core.canonical import dumps
from threadlab.core.model import WIRE, AgentConfig, InvalidAction, Thread, UnknownAction, action_adapter
from threadlab.core.problems import Problem, ThreadError, short
from threadlab.core.timefmt import parse_timestamp
from threadlab.formats.common.json_lines import Edge, line_failure, with_last
from threadlab.formats.common.source import Source, parse_json

NAME = "threadprotocol"


def is_thread_doc(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("actions"), list) and (
        "thread_id" in value or value.get("version") == "1.0.0"
    )


def detect(source: Source) -> bool:
    if source.is_dir:
        return False
    if source.is_object:
        obj = source.obj
        if isinstance(obj, Thread):
            return True
        return is_thread_doc(obj) or (isinstance(obj, list) and bool(obj) and all(is_thread_doc(x) for x in obj[:3]))
    head = source.head(4096).lstrip()
    if head[:1] == b"{":
        if not source.has(b'"actions"', 1 << 20) and b'"thread_id"' not in head:
            return False
        if _first_line_is_doc(source):
            return True
        obj = source.try_json()
        return is_thread_doc(obj)
    if head[:1] == b"[":
        obj = source.try_json()
        return isinstance(obj, list) and bool(obj) and all(is_thread_doc(x) for x in obj[:3])
    return False


def _first_line_is_doc(source: Source) -> bool:
    """JSON Lines of threads: the first line is a whole thread and another line follows. The
    first line is parsed only once another is seen: a thread written on one line (most are) is
    parsed once, by ``source.json()``, not once more here."""
    first = source.line_before_more()
    if first is None:
        return False
    try:
        return is_thread_doc(orjson.loads(first))
    except orjson.JSONDecodeError:
        return False


def to_threads(source: Source) -> list[Thread]:
    if source.is_object:
        obj = source.obj
        if isinstance(obj, Thread):
            return [obj]
        docs = obj if isinstance(obj, list) else [obj]
        return [thread_from_dict(doc, source=source.name) for doc in docs]
    if _first_line_is_doc(source):
        threads = []
        for number, line, last in with_last(source.lines()):
            try:
                doc = parse_json(line, source.name)
            except ThreadError as exc:  # a broken line is reported; the other lines are read
                threads.append(broken_line_thread(exc, source.name, number, line, last))
                continue
            thread = thread_from_dict(doc, source=source.name, line=number)
            threads.append(thread)
        return threads
    obj = source.json()
    docs = obj if isinstance(obj, list) else [obj]
    return [thread_from_dict(doc, source=source.name) for doc in docs]


def from_thread(thread: Thread) -> bytes:
    return dumps(thread, indent=True) + b"\n"


# --- lenient model building --------------------------------------------------------------


def _loc(error: Mapping[str, Any]) -> str:
    return ".".join(str(p) for p in error["loc"])


def broken_line_thread(error: ThreadError, source: str, line: int, raw: bytes | None = None, last: bool = False) -> Thread:
    """The stand-in for a JSON Lines line that is not JSON: an empty thread carrying the problem,
    so the line is reported where it is and the other lines are read. The ``last`` line torn
    (``raw``'s JSON ends early: a file still being written) is ``truncated``, as in every JSON
    Lines reader (``json_lines.line_failure``)."""
    thread = Thread(thread_id=f"{source}:{line}")
    thread.problems = [Problem(p.rule, p.message, source=source, line=line) for p in error.problems]
    if last and raw is not None:
        try:
            orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            rule, message = line_failure(Edge(line, raw, False, last), exc)
            if rule == "truncated":
                thread.problems = [Problem(rule, message, source=source, line=line)]
    thread.account = Account(failed=1)
    return thread


def thread_from_dict(doc: Any, *, source: str | None = None, line: int | None = None) -> Thread:
    """Build a Thread from its JSON object; whatever breaks the schema is reported on
    ``thread.problems`` (with ``line``, for JSON Lines) and kept as it came. Its account: every
    action is a record, kept when it breaks the schema or its type is no ThreadProtocol name."""
    thread = _thread_from_dict(doc, source)
    kept = sum(1 for a in thread.actions if isinstance(a, InvalidAction | UnknownAction))
    thread.account = Account(converted=len(thread.actions) - kept, kept=kept)
    if line is not None:
        thread.problems = [Problem(p.rule, p.message, p.thread_id, p.sequence, p.source, line) for p in thread.problems]
    return thread


def _thread_from_dict(doc: Any, source: str | None) -> Thread:
    if not isinstance(doc, Mapping):
        thread = Thread(thread_id=source or "<unknown>")
        thread.problems = [Problem("schema", f"a thread must be a JSON object, got {type(doc).__name__}", source=source)]
        return thread
    try:
        return Thread.model_validate(doc, **WIRE)
    except ValidationError:
        pass
    problems: list[Problem] = []
    thread_id = doc.get("thread_id") if isinstance(doc.get("thread_id"), str) else None

    def report(message: str, sequence: int | None = None) -> None:
        problems.append(Problem("schema", message, thread_id, sequence, source))

    head = {k: v for k, v in doc.items() if k not in ("agents", "actions")}
    if thread_id is None:
        report(f"thread_id is missing or not a string (got {doc.get('thread_id')!r})")
        head["thread_id"] = source or "<unknown>"
    try:
        thread = Thread.model_validate(head, **WIRE)
    except ValidationError as exc:
        for err in exc.errors():
            report(f"{_loc(err)}: {err['msg']} (got {short(err.get('input'))})"[:300])
            head.pop(err["loc"][0], None)
        thread = Thread.model_validate({k: v for k, v in head.items() if k in ("thread_id",)} | {"thread_id": head["thread_id"]})
        for key, value in doc.items():  # keep what did not fit as an unknown field
            if key not in ("agents", "actions") and key not in Thread.model_fields:
                (thread.__pydantic_extra__ or {}).setdefault(key, value)
    agents = doc.get("agents") or {}
    if isinstance(agents, Mapping):
        for key, raw in agents.items():
            thread.agents[str(key)] = _lenient_agent(str(key), raw, thread, report)
    else:
        report(f"agents must be an object, got {type(agents).__name__}")
    actions = doc.get("actions")
    if not isinstance(actions, list):
        report(f"actions must be a list, got {type(actions).__name__}")
        actions = []
    for index, raw in enumerate(actions):
        try:
            thread.actions.append(action_adapter.validate_python(raw, **WIRE))
        except ValidationError as exc:
            seq = raw.get("sequence") if isinstance(raw, Mapping) else None
            seq = seq if type(seq) is int else None
            kind = short(raw.get("action_type") if isinstance(raw, Mapping) else raw)
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"][1:]) or "action"
                report(f"action #{index + 1} ({kind}): {loc}: {err['msg']}"[:300], seq)
            thread.actions.append(InvalidAction.model_validate(raw if isinstance(raw, Mapping) else {"value": raw}))
    thread.problems = problems
    return thread


def _lenient_agent(key: str, raw: Any, thread: Thread, report: Any) -> AgentConfig:
    try:
        return AgentConfig.model_validate(raw, **WIRE)
    except ValidationError as exc:
        errors = exc.errors()
    fields = dict(raw) if isinstance(raw, Mapping) else {}
    for err in errors:
        report(f"agents[{key!r}].{_loc(err)}: {err['msg']} (got {short(err.get('input'))})"[:300])
        if err["loc"]:
            fields.pop(err["loc"][0], None)  # reported with its value; the rest of the agent is kept
    fields.setdefault("agent_id", key)
    fields.setdefault("agent_identifier", key)
    fields.setdefault("agent_name", key)
    try:
        fields["created_at"] = parse_timestamp(fields.get("created_at"))
    except ValueError:
        fields["created_at"] = thread.created_at or EPOCH
    try:
        return AgentConfig.model_validate(fields)
    except ValidationError:
        return AgentConfig(agent_id=key, agent_identifier=key, agent_name=key, created_at=fields["created_at"])
