"""How many input records a file holds, counted from the raw bytes without threadlab: what each
format's reader must account for (``thread.account.records``, ``frames.threads.n_records``).

One counter per format; each says what a record of its format is. A reader's account is
checked against these counts on every fixture, so a reader that drops a line, message, part or
chunk fails. Counters use only the standard library and orjson, never threadlab's readers."""

from __future__ import annotations

import json
import re
import sqlite3
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

Counter = Callable[[Path], int]
_BAD = object()


def _json_lines(data: bytes) -> list[Any]:
    """Every non-empty line parsed (``_BAD`` for a line that is not JSON)."""
    out: list[Any] = []
    for line in data.splitlines():
        if line.strip():
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                out.append(_BAD)
    return out


def _whole_or_lines(path: Path) -> list[Any]:
    """The items of a file: a JSON array's elements, a JSON object as one item, or JSON Lines."""
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _json_lines(data)
    return value if isinstance(value, list) else [value]


def _parts(messages: Iterable[Any], key: str = "parts") -> int:
    """A message's parts are its records (a message with none is one record)."""
    return sum(max(1, len(m[key])) if isinstance(m, dict) and isinstance(m.get(key), list) else 1 for m in messages)


def threadprotocol(path: Path) -> int:
    """A record is an action; a JSON Lines line that is not a thread object is one record."""
    return sum(len(doc["actions"]) if isinstance(doc, dict) and isinstance(doc.get("actions"), list) else 1 for doc in _whole_or_lines(path))


def pydantic_ai(path: Path) -> int:
    """A record is a message part (a message with no parts, or a line that is no message, is one);
    an array of messages (a JSON Lines line holding a history, an array of histories) counts the
    parts of its messages."""
    items: list[Any] = []
    for item in _whole_or_lines(path):
        items.extend(item if isinstance(item, list) and item else [item])
    return _parts(items)


def vercel_ai_messages(path: Path) -> int:
    """A record is a UIMessage part (a message with no parts is one)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("messages"), list):
        items = items[0]["messages"]
    return _parts(items)


def vercel_ai_stream(path: Path) -> int:
    """A record is an SSE event's data (``data: [DONE]`` included; comments, other SSE fields and
    empty ``data:`` lines are not records), or a chunk object of a JSON array / JSON Lines of
    chunks (a byte-order mark before either is not part of the first record)."""
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    if data.lstrip()[:1] in (b"[", b"{"):
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            return len(_json_lines(data))
        return len(value) if isinstance(value, list) else 1
    return sum(1 for line in data.splitlines() if line.startswith(b"data:") and line[5:].strip())


_SDK_WITH_BLOCKS = frozenset({"AssistantMessage", "UserMessage"})


def _claude_records(item: Any) -> int:
    """A line's message content blocks (an SDK message dump's ``content`` blocks), else one."""
    if not isinstance(item, dict):
        return 1
    message = item.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if content is None and item.get("__class__") in _SDK_WITH_BLOCKS:
        content = item.get("content")
    return len(content) if isinstance(content, list) and content else 1


def _claude_sidechains(path: Path) -> list[Path]:
    """A session's subagent transcripts: ``<session>/subagents/**/agent-*.jsonl`` (CLI 2.1) and,
    before 2.1, ``agent-*.jsonl`` beside it whose lines are sidechain lines of its session."""
    files = sorted((path.parent / path.stem / "subagents").rglob("agent-*.jsonl"))
    for other in sorted(path.parent.glob("agent-*.jsonl")):
        first = next((x for x in _json_lines(other.read_bytes()) if isinstance(x, dict) and "sessionId" in x), None)
        if other != path and first is not None and first.get("isSidechain") and first["sessionId"] == path.stem:
            files.append(other)
    return files


def claude_code(path: Path) -> int:
    """A record is a content block of a line's message (a line without blocks is one); a session
    transcript counts its subagent transcripts too; a claude.ai export (``{"loglines": [...]}``)
    counts its entries the same way."""
    files = [path]
    if path.suffix == ".jsonl":
        files += _claude_sidechains(path)
    total = 0
    for file in files:
        items = _whole_or_lines(file)
        if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("loglines"), list):
            items = items[0]["loglines"]
        total += sum(_claude_records(item) for item in items)
    return total


def agency_swarm(path: Path) -> int:
    """A record is a saved item: an element of the JSON array, a JSON Lines line (one that is not
    JSON too), or an item of the list a FastAPI body wraps (``new_messages``, ``chat_history``)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict):
        for key in ("new_messages", "chat_history", "messages"):
            if isinstance(items[0].get(key), list):
                return len(items[0][key])
    return len(items)


def aitp(path: Path) -> int:
    """A record is a message (of ``messages`` or an OpenAI list page's ``data``)."""
    items = _whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict):
        for key in ("messages", "data"):
            if isinstance(items[0].get(key), list):
                return len(items[0][key])
    return len(items)


def atif(path: Path) -> int:
    """A record is a step, of the trajectory and of each trajectory embedded in its
    ``subagent_trajectories`` (and theirs)."""

    def steps(doc: Any) -> int:
        if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
            return 0
        subs = doc.get("subagent_trajectories")
        return len(doc["steps"]) + sum(steps(sub) for sub in (subs if isinstance(subs, list) else []))

    return steps(orjson.loads(path.read_bytes()))


def hf_session_trace(path: Path) -> int:
    """A record is a line (the session header or a message; blank lines are none)."""
    return _lines(path)


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


def line_records(line: bytes) -> list[bytes]:
    """A non-blank line's records: the line, or the JSON objects glued onto it with no line
    break between them (``{...}{...}``), each one's bytes, and a last piece that does not parse
    (a torn record) as one more."""
    try:
        orjson.loads(line)
        return [line]
    except orjson.JSONDecodeError:
        pass
    text, at, out = line.decode(errors="replace"), 0, []
    decoder = json.JSONDecoder()
    while at < len(text):
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            break
        try:
            _, stop = decoder.raw_decode(text, at)
        except ValueError:
            out.append(text[at:].encode())
            break
        out.append(text[at:stop].encode())
        at = stop
    return out if len(out) > 1 else [line]


def _records_of_lines(path: Path) -> int:
    return sum(len(line_records(line)) for line in path.read_bytes().splitlines() if line.strip())


def codex(path: Path) -> int:
    """A record is a rollout line (blank lines are none)."""
    return _lines(path)


def _session_or_lines(path: Path, messages: str, marker: str) -> int:
    """A session object's messages (the object itself when it holds none: ``messages`` names its
    list, ``marker`` a key only such an object has), else the file's lines."""
    try:
        value = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError:
        return _lines(path)
    if isinstance(value, dict) and isinstance(value.get(messages), list) and marker in value:
        return max(1, len(value[messages]))
    return _lines(path)


def gemini_cli(path: Path) -> int:
    """A record is a JSON Lines line; in the JSON generation (one session object with its
    ``messages``), a message (the object itself when it holds none). A session's first file in a
    ``chats/`` folder is read with the later files of its ``-<id8>.jsonl`` (a resume's): their
    lines too."""
    own = _session_or_lines(path, "messages", "projectHash")
    match = re.fullmatch(r"session-.+-([0-9a-f]{8})\.jsonl", path.name)
    if path.parent.name != "chats" or not match:
        return own
    group = sorted(p.name for p in path.parent.glob(f"session-*-{match.group(1)}.jsonl"))
    return own + sum(_lines(path.parent / name) for name in group[1:]) if group and group[0] == path.name else own


def copilot_cli(path: Path) -> int:
    """A record is an event line; in the single-file generation (one object with
    ``chatMessages``), a message (the object itself when it holds none)."""
    return _session_or_lines(path, "chatMessages", "sessionId")


def cline(path: Path) -> int:
    """A record is a message of a Cline task's api history, with its folder's UI log records
    and ``task_metadata.json`` (one); a UI log by itself, its records; a CLI session's
    messages and its ``<id>.json`` (one)."""
    value = orjson.loads(path.read_bytes())
    if isinstance(value, dict):  # a CLI session: its messages, and the run's <id>.json beside
        run = path.with_name(path.name.removesuffix(".messages.json") + ".json")
        return len(value["messages"]) + (1 if run.is_file() and run != path else 0)
    if path.name != "api_conversation_history.json":
        return len(value)
    ui, meta = path.parent / "ui_messages.json", path.parent / "task_metadata.json"
    return len(value) + (len(orjson.loads(ui.read_bytes())) if ui.is_file() else 0) + (1 if meta.is_file() else 0)


def goose(path: Path) -> int:
    """A record is a row of sessions.db's ``sessions`` and ``messages`` tables (its other tables
    hold no conversation), or a line of a legacy session file (blank lines are none)."""
    if path.read_bytes()[:16] != b"SQLite format 3\x00":
        return _lines(path)
    return _table_rows(path, ("sessions", "messages"))


def crush(path: Path) -> int:
    """A record is a row of ``sessions`` and a row of ``messages`` (a message's parts are pieces of
    its record)."""
    return _table_rows(path, ("sessions", "messages"))


def _table_rows(path: Path, tables: tuple[str, ...]) -> int:
    """The rows of ``tables`` of an SQLite database (opened immutable: nothing written)."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        return sum(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in tables)
    finally:
        conn.close()


def pi(path: Path) -> int:
    """A record is a session line (the header and each entry; blank lines are none)."""
    return _lines(path)


def mini_swe_agent(path: Path) -> int:
    """A record is a message of the trajectory (the object itself when it holds none)."""
    return _session_or_lines(path, "messages", "info")


def smolagents(path: Path) -> int:
    """A record is a memory step (a line of a JSON Lines file, an item of a steps list or of a
    RunResult's ``steps``: the RunResult itself when it holds none) or a dumped ChatMessage."""
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return len(_json_lines(data))
    if isinstance(value, dict) and isinstance(value.get("steps"), list):
        return max(1, len(value["steps"]))
    return len(value) if isinstance(value, list) else 1


def swe_agent(path: Path) -> int:
    """A record is a ``history`` message and a ``trajectory`` step (the object itself when it
    holds none), of each attempt of a ``RetryAgent``'s file."""
    def one(value: dict[str, Any]) -> int:
        history, steps = value.get("history"), value.get("trajectory")
        return max(1, len(history if isinstance(history, list) else []) + len(steps if isinstance(steps, list) else []))

    value = orjson.loads(path.read_bytes())
    attempts = value.get("attempts")
    return sum(one(a) for a in attempts) if isinstance(attempts, list) and attempts else one(value)


def qwen_code(path: Path) -> int:
    """A record is a session line (blank lines are none), or each record glued onto a line."""
    return _records_of_lines(path)


def codex_exec(path: Path) -> int:
    """A record is an event line (blank lines are none)."""
    return _lines(path)


def openai_agents_session(path: Path) -> int:
    """A record is a session item: a row of a table with ``session_id`` and ``message_data``
    columns of an SQLite database, a line of JSON Lines, or an element of a JSON array."""
    if not path.read_bytes()[:16] == b"SQLite format 3\x00":
        return len(_whole_or_lines(path))
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        quoted = ['"' + t.replace('"', '""') + '"' for t in tables]
        return sum(
            conn.execute(f"SELECT count(*) FROM {q}").fetchone()[0]
            for q in quoted
            if {"session_id", "message_data"} <= {r[1] for r in conn.execute(f"PRAGMA table_info({q})")}
        )
    finally:
        conn.close()


def google_adk(path: Path) -> int:
    """A record is an event (of a saved session, the object itself when it holds none, or of
    ``/run``'s array), or a row of session.db's ``sessions`` and ``events`` tables (its state
    tables hold no conversation)."""
    if path.read_bytes()[:16] == b"SQLite format 3\x00":
        conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
        try:
            return sum(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("sessions", "events"))
        finally:
            conn.close()
    value = orjson.loads(path.read_bytes())
    return len(value) if isinstance(value, list) else max(1, len(value["events"]))


def autogen_agentchat(path: Path) -> int:
    """A record is a message: of a ``TaskResult``'s ``messages`` or a list; of an agent state's
    ``llm_context`` or ``llm_messages`` (the state itself when it holds none); of a team state, each message of the
    manager's ``message_thread``, of each agent's ``llm_context`` and ``message_buffer``."""
    value = orjson.loads(path.read_bytes())
    if isinstance(value, list):
        return len(value)

    def context(state: Any) -> int:
        ctx = state.get("llm_context") if isinstance(state, dict) else None
        if isinstance(ctx, dict) and isinstance(ctx.get("messages"), list):
            return len(ctx["messages"])
        early = state.get("llm_messages") if isinstance(state, dict) else None  # the 0.4.0 previews' plain list
        return len(early) if isinstance(early, list) else 0

    if value.get("type") == "TeamState":
        total = 0
        for state in value["agent_states"].values():
            if not isinstance(state, dict):
                continue
            total += len(state.get("message_thread") or []) + len(state.get("message_buffer") or [])
            total += context(state.get("agent_state", state))
        return max(1, total)
    if value.get("type") == "AssistantAgentState":
        return max(1, context(value))
    return max(1, len(value["messages"]))


def crewai(path: Path) -> int:
    """A record is a message of a ``latest_kickoff_task_outputs`` row's ``output.messages`` (a row
    holding none, or whose output is no JSON, is one record)."""
    conn = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        total = 0
        for (output,) in conn.execute("SELECT output FROM latest_kickoff_task_outputs ORDER BY rowid"):
            try:
                messages = orjson.loads(output).get("messages")
            except (orjson.JSONDecodeError, AttributeError, TypeError):
                messages = None
            total += len(messages) if isinstance(messages, list) and messages else 1
        return total
    finally:
        conn.close()


def opencode(path: Path) -> int:
    """A record is a row of opencode.db's ``session``, ``message`` and ``part`` tables (its
    other tables hold no conversation), or a file of ``storage/``: a session file, the message
    files of ``storage/message/<session id>/`` and the part files of ``storage/part/<message
    id>/``, for the session and the sessions beside it whose ``parentID`` leads to it."""
    if path.read_bytes()[:16] == b"SQLite format 3\x00":
        return _table_rows(path, ("session", "message", "part"))
    storage = path.parent.parent.parent
    if path.parent.parent.name != "session" or storage.name != "storage":  # a session file out of its storage/ folder: itself
        return 1
    sessions = {p: orjson.loads(p.read_bytes()) for p in path.parent.glob("*.json")}
    wanted, grew = {orjson.loads(path.read_bytes())["id"]}, True
    while grew:
        more = {v["id"] for v in sessions.values() if v.get("parentID") in wanted} - wanted
        wanted, grew = wanted | more, bool(more)
    total = 0
    for sid in wanted:
        messages = sorted((storage / "message" / sid).glob("*.json")) if (storage / "message" / sid).is_dir() else []
        total += 1 + len(messages)
        for message in messages:
            folder = storage / "part" / orjson.loads(message.read_bytes())["id"]
            total += len(list(folder.glob("*.json"))) if folder.is_dir() else 0
    return total


def _inspect_sample_records(sample: Any) -> int:
    def events(items: Any) -> int:
        return sum(
            (e.get("event") in ("model", "tool")) + events(e.get("events"))
            for e in items or ()
            if isinstance(e, dict)
        )

    if not isinstance(sample, dict):
        return 0
    return len(sample.get("messages") or []) + events(sample.get("events"))


def inspect_ai(path: Path) -> int:
    """A record is a message of a sample's ``messages`` or one of its ``model`` / ``tool``
    events (nested ones too), over every sample of the log (``samples/*.json`` of an ``.eval``
    zip, ``samples`` of a ``.json`` log)."""
    data = path.read_bytes()
    if data[:4] != b"PK\x03\x04":
        return sum(_inspect_sample_records(s) for s in orjson.loads(data).get("samples") or [])
    with zipfile.ZipFile(path) as archive:
        names = [n for n in archive.namelist() if n.startswith("samples/")]
        return sum(_inspect_sample_records(orjson.loads(_zip_member(archive, n))) for n in names)


def _zip_member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes; Zstandard members (method 93, recent inspect_ai) through pyarrow's codec
    (Python's zipfile reads them only from 3.14)."""
    info = archive.getinfo(name)
    if info.compress_type != 93:
        return archive.read(name)
    import pyarrow as pa

    raw = archive.fp.getvalue() if hasattr(archive.fp, "getvalue") else Path(archive.filename or "").read_bytes()
    start = info.header_offset + 30 + int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little") + int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    return pa.Codec("zstd").decompress(raw[start : start + info.compress_size], decompressed_size=info.file_size).to_pybytes()
def _otel_items(value: Any) -> int:
    """Spans of one OTLP document (``resourceSpans``/``resource_spans`` → scope → spans); any
    other object is one record (a flat span, or a line that is no span)."""
    if isinstance(value, list):
        return sum(_otel_items(v) for v in value)
    if isinstance(value, dict):
        resource_spans = value.get("resourceSpans", value.get("resource_spans"))
        if isinstance(resource_spans, list):
            return sum(
                len(ss.get("spans") or [])
                for rs in resource_spans
                if isinstance(rs, dict)
                for ss in (rs.get("scopeSpans") or rs.get("scope_spans") or rs.get("instrumentationLibrarySpans") or [])
                if isinstance(ss, dict)
            )
    return 1


def otel(path: Path) -> int:
    """A record is a span (OTLP documents count their spans; a line that is not JSON is one).
    Concatenated pretty-printed span objects (ConsoleSpanExporter) are decoded one by one."""
    data = path.read_bytes()
    try:
        return _otel_items(orjson.loads(data))
    except orjson.JSONDecodeError:
        pass
    first = next((ln for ln in data.splitlines() if ln.strip()), b"")
    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:
        import json

        text, pos, n, decoder = data.decode(), 0, 0, json.JSONDecoder()
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                return n
            value, pos = decoder.raw_decode(text, pos)
            n += _otel_items(value)
    return sum(1 if item is _BAD else _otel_items(item) for item in _json_lines(data))


def openai_agents_trace(path: Path) -> int:
    """A record is a trace or span object (a JSON Lines line, or an element of a JSON array)."""
    return len(_whole_or_lines(path))


def _sse_data_lines(data: bytes) -> int:
    return sum(1 for line in data.splitlines() if line.startswith(b"data:") and line[5:].strip())


def _docs(path: Path) -> list[Any] | None:
    """The documents of a provider file: a JSON array's elements (None for a bare message list,
    which the caller counts), a JSON object, or JSON Lines."""
    data = path.read_bytes()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return _json_lines(data)
    return value if isinstance(value, list) else [value]


def _bodies(doc: Any, request_key: str) -> tuple[Any, Any]:
    """The request and response bodies of a logged document, wherever people put them: the
    document itself, ``request`` / ``response`` (HTTP envelopes with a ``body`` too), ``body``
    (OpenAI Batch input lines)."""
    if not isinstance(doc, dict):
        return None, None

    def find(candidates: list[Any], test: Callable[[dict[str, Any]], bool]) -> Any:
        return next((c for c in candidates if isinstance(c, dict) and test(c)), None)

    req_paths = [doc, (doc.get("request") or {}).get("body") if isinstance(doc.get("request"), dict) else None, doc.get("request"), doc.get("body")]
    resp_paths = [doc, (doc.get("response") or {}).get("body") if isinstance(doc.get("response"), dict) else None, doc.get("response")]
    request = find(req_paths, lambda c: request_key in c and "choices" not in c and c.get("object") != "response" and c.get("type") != "message")
    response = find(resp_paths, lambda c: "choices" in c or c.get("object") == "response" or (c.get("type") == "message" and c.get("role") == "assistant"))
    return request, response


def _provider(path: Path, is_event: Callable[[Any], bool], list_records: Callable[[list[Any]], int], request_key: str,
              request_records: Callable[[dict[str, Any]], int], response_records: Callable[[dict[str, Any]], int]) -> int:
    data = path.read_bytes()
    if data.lstrip()[:5] in (b"data:", b"event") or data.lstrip()[:1] == b":":
        return _sse_data_lines(data)
    docs = _docs(path)
    if docs and is_event(docs[0]):  # a stream's events saved as JSON
        return len(docs)
    whole = orjson.loads(data) if data.lstrip()[:1] == b"[" else None
    if isinstance(whole, list) and whole and isinstance(whole[0], dict) and not any(_bodies(d, request_key) != (None, None) for d in whole[:1]):
        return list_records(whole)
    total = 0
    for doc in docs or []:
        request, response = _bodies(doc, request_key)
        n = (request_records(request) if request is not None else 0) + (response_records(response) if response is not None else 0)
        total += n if (request is not None or response is not None) else 1
    return total


def _chat_chunk(value: Any) -> bool:
    """A ``chat.completion.chunk``; the compatible vendors' chunks may leave ``object`` out
    (Moonshot) or empty (Azure's first chunk, of prompt filter results): an ``id`` and choices of deltas."""
    if not isinstance(value, dict):
        return False
    if value.get("object") == "chat.completion.chunk":
        return True
    choices = value.get("choices")
    return (value.get("object") in (None, "") and "id" in value and isinstance(choices, list)
            and all(isinstance(c, dict) and "delta" in c for c in choices) and (bool(choices) or "prompt_filter_results" in value))


def openai_chat(path: Path) -> int:
    """A record is a message (of a request's ``messages``, or a response's choice), or a stream
    event (an SSE ``data:`` line, or a saved chunk)."""
    return _provider(path, _chat_chunk, len, "messages", lambda r: len(r.get("messages") or []), lambda r: len(r.get("choices") or []))


def _blocks(message: Any) -> int:
    content = message.get("content") if isinstance(message, dict) else None
    return len(content) if isinstance(content, list) and content else 1


def anthropic_messages(path: Path) -> int:
    """A record is a content block (a message with string content, or none, is one; a
    request's ``system`` is one, or one per block), or a stream event."""
    events = {"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping"}

    def request(r: dict[str, Any]) -> int:
        system = r.get("system")
        n = 0 if system is None else len(system) if isinstance(system, list) and system else 1
        return n + sum(_blocks(m) for m in r.get("messages") or [])

    return _provider(path, lambda v: isinstance(v, dict) and v.get("type") in events, lambda ms: sum(_blocks(m) for m in ms), "messages",
                     request, _blocks)


def openai_responses(path: Path) -> int:
    """A record is an item (of a request's ``input``, or a response's ``output``; a string
    ``input`` and non-empty ``instructions`` are one each), or a stream event."""

    def request(r: dict[str, Any]) -> int:
        items = r.get("input")
        return (1 if r.get("instructions") else 0) + (1 if isinstance(items, str) else len(items or []))

    return _provider(path, lambda v: isinstance(v, dict) and str(v.get("type", "")).startswith("response."), len, "input",
                     request, lambda r: len(r.get("output") or []))


def _lg_part(item: Any) -> tuple[str, Any] | None:
    """(mode, chunk) of a LangGraph stream part: ``[mode, chunk]``, ``[ns, mode, chunk]``, ``{event, data}``."""
    if isinstance(item, list) and len(item) in (2, 3) and isinstance(item[-2], str):
        return item[-2], item[-1]
    if isinstance(item, dict) and isinstance(item.get("event"), str) and "data" in item:
        return item["event"], item["data"]
    return None


def _langgraph_stream(parts: list[tuple[str, Any]]) -> int:
    """The last ``values`` state's messages and every other part; without one, the updates'
    messages and every part that adds none; else every part (a message's chunks each count)."""
    states = [c["messages"] for m, c in parts if m == "values" and isinstance(c, dict) and isinstance(c.get("messages"), list)]
    if states:
        return len(states[-1]) + len(parts) - 1
    added = [sum(len(u.get("messages") or []) for u in c.values() if isinstance(u, dict)) if isinstance(c, dict) else 0
             for m, c in parts if m == "updates"]
    if sum(added):
        return sum(added) + len(parts) - sum(1 for n in added if n)
    return len(parts)


def langchain(path: Path) -> int:
    """A record is a message: of a JSON array, of a LangGraph state's ``messages`` (also under
    ``values``), or a JSON Lines line; in a LangGraph stream capture, a stream part, but the
    chosen state's messages (``_langgraph_stream``)."""
    docs = _docs(path) or []
    parts = [_lg_part(d) for d in docs]
    if parts and parts[0] is not None:
        return _langgraph_stream([p for p in parts if p is not None]) + parts.count(None)
    if len(docs) == 1 and isinstance(docs[0], dict):
        state = docs[0].get("values") if isinstance(docs[0].get("values"), dict) else docs[0]
        if isinstance(state.get("messages"), list):
            return len(state["messages"])
    return len(docs)


def phoenix(path: Path) -> int:
    """A record is a row of the span dataframe: of a Parquet file (its footer's row count, read by
    pyarrow), a JSON array of records, or a JSON Lines line."""
    data = path.read_bytes()
    if data.startswith(b"PAR1"):
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    return len(_docs(path) or [])


_LANGFUSE_TYPES = {"GENERATION", "SPAN", "EVENT", "AGENT", "TOOL", "CHAIN", "RETRIEVER", "EVALUATOR", "EMBEDDING", "GUARDRAIL"}


def _langfuse_items(value: Any) -> int:
    if isinstance(value, list):
        return sum(_langfuse_items(v) for v in value)
    if not isinstance(value, dict):
        return 1
    if isinstance(value.get("data"), list) and isinstance(value.get("meta"), dict):
        return _langfuse_items(value["data"])
    if isinstance(value.get("trace"), dict) and isinstance(value.get("observations"), list):
        return len(value["observations"])
    if value.get("type") in _LANGFUSE_TYPES:
        return 1
    return len(value["observations"]) if isinstance(value.get("observations"), list) else 1


def langfuse(path: Path) -> int:
    """A record is an observation: of a trace's ``observations``, a page's ``data``, a JSON array
    or a JSON Lines line; a Parquet row."""
    if path.read_bytes().startswith(b"PAR1"):
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    return sum(_langfuse_items(d) for d in _docs(path) or [])


def openhands(path: Path) -> int:
    """A record is an event: of a JSON array, an evaluation row's ``history`` (of each row of JSON
    Lines), or, for a V1 ``base_state.json``, of the ``events/`` folder beside it (and the state
    itself); one event file is one (the object itself when a list holds none)."""
    from tests.wild.rules_openhands import event_paths

    try:
        value = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError:
        return sum(max(1, len(orjson.loads(line)["history"])) for line in path.read_bytes().splitlines() if line.strip())
    if isinstance(value, dict) and "execution_status" in value and (path.parent / "events").is_dir():
        return 1 + len(event_paths(path.parent / "events"))
    if isinstance(value, dict) and isinstance(value.get("history"), list):
        value = value["history"]
    return max(1, len(value)) if isinstance(value, list) else 1


COUNTERS: dict[str, Counter] = {
    "langfuse": langfuse,
    "phoenix": phoenix,
    "threadprotocol": threadprotocol,
    "pydantic-ai": pydantic_ai,
    "vercel-ai-messages": vercel_ai_messages,
    "vercel-ai-stream": vercel_ai_stream,
    "claude-code": claude_code,
    "agency-swarm": agency_swarm,
    "aitp": aitp,
    "codex": codex,
    "codex-exec": codex_exec,
    "gemini-cli": gemini_cli,
    "copilot-cli": copilot_cli,
    "cline": cline,
    "goose": goose,
    "pi": pi,
    "crush": crush,
    "mini-swe-agent": mini_swe_agent,
    "smolagents": smolagents,
    "swe-agent": swe_agent,
    "openhands": openhands,
    "qwen-code": qwen_code,
    "opencode": opencode,
    "google-adk": google_adk,
    "autogen-agentchat": autogen_agentchat,
    "crewai": crewai,
    "openai-agents-session": openai_agents_session,
    "inspect-ai": inspect_ai,
    "otel": otel,
    "openai-agents-trace": openai_agents_trace,
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic-messages": anthropic_messages,
    "langchain": langchain,
    "atif": atif,
    "hf-session-trace": hf_session_trace,
}
