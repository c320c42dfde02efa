"""The frameworks' saved histories and logs: pydantic-ai ``ModelMessage`` lists (``kind`` request
/ response, ``part_kind`` parts), AI SDK ``UIMessage`` lists (``parts``; v4 ``toolInvocations``)
and UI message streams (``text-*`` / ``tool-*`` chunks), Inspect AI logs (each sample's
transcript events and ``messages``; a sample's user messages are the eval's, written by the
harness), OTel spans
(GenAI and OpenInference token attributes), LangChain messages, AITP threads and ThreadProtocol."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import orjson

from tests.conformance.records import _zip_member
from tests.wild.count import Counts, blank, texts_of, whole_or_lines

# --- pydantic-ai ----------------------------------------------------------------------------


def _histories(path: Path) -> list[Any]:
    """The messages of a file: an array, JSON Lines of messages, or of histories (a line that
    repeats the history before it, as ``all_messages()`` saved each turn, adds its new messages).
    A run's event log (``run_stream_events()``: ``event_kind`` lines) holds its messages in its
    last event, ``agent_run_result``, whose result keeps the run's history (``_state.message_history``,
    what ``all_messages()`` returns); the events before it repeat parts of those messages."""
    out: list[Any] = []
    previous: list[Any] = []
    for item in whole_or_lines(path):
        if isinstance(item, list):
            out.extend(item[len(previous):] if previous and item[: len(previous)] == previous else item)
            previous = item
        elif isinstance(item, dict) and item.get("event_kind") == "agent_run_result":
            state = (item.get("result") or {}).get("_state") if isinstance(item.get("result"), dict) else None
            history = state.get("message_history") if isinstance(state, dict) else None
            out.extend(history if isinstance(history, list) else [])
        else:
            out.append(item)
    return out


def pydantic_ai(path: Path) -> Counts:
    """A ``user-prompt`` part is a prompt; a ``retry-prompt`` answers a tool call (an error return)
    or, with no ``tool_name``, is pydantic-ai's own message to the model (a harness turn), as is a
    ``retry-feedback`` part (``messages.RetryFeedbackPart``, 2.x: its feedback on a response it
    could not use, sent in the user's voice)."""
    c = Counts()
    for message in _histories(path):
        if not isinstance(message, dict):
            continue
        for part in message.get("parts") or []:
            kind = part.get("part_kind") if isinstance(part, dict) else None
            if kind == "user-prompt":
                c.human_prompts += 1
            elif kind == "retry-feedback":
                c.harness_turns += 1
            elif kind == "retry-prompt":
                if part.get("tool_name"):
                    c.tool_returns += 1
                    c.tool_errors += 1
                else:
                    c.harness_turns += 1
            elif (kind == "tool-return" and message.get("kind") == "request") or kind == "builtin-tool-return":
                c.tool_returns += 1
            elif kind in ("tool-call", "builtin-tool-call"):
                c.tool_calls += 1
            elif kind == "text" and message.get("kind") == "response":
                c.assistant_texts += not blank(part.get("content"))
        u = message.get("usage") if message.get("kind") == "response" else None
        if isinstance(u, dict):
            c.add_tokens(u.get("input_tokens", u.get("request_tokens")), u.get("output_tokens", u.get("response_tokens")),
                         u.get("cache_read_tokens"), u.get("cache_write_tokens"))
    return c


# --- AI SDK ---------------------------------------------------------------------------------


def _retry_feedback(parts: list[Any]) -> bool:
    """pydantic-ai's ``VercelAIAdapter`` dumps its retry feedback as a user or system message whose
    text part carries ``providerMetadata.pydantic_ai.retry_feedback`` (what its ``load_messages``
    reads back as a ``RetryFeedbackPart``): the harness's, not a person's."""
    return any(isinstance(p, dict) and isinstance(p.get("providerMetadata"), dict) and isinstance(p["providerMetadata"].get("pydantic_ai"), dict)
               and "retry_feedback" in p["providerMetadata"]["pydantic_ai"] for p in parts)


def vercel_ai_messages(path: Path) -> Counts:
    items = whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict) and isinstance(items[0].get("messages"), list):
        items = items[0]["messages"]
    c = Counts()
    for m in items:
        if not isinstance(m, dict):
            continue
        parts = m.get("parts") if isinstance(m.get("parts"), list) else [{"type": "text", "text": m.get("content")}]
        texts = [p.get("text") for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        if m.get("role") in ("user", "system") and _retry_feedback(parts):
            c.harness_turns += 1
        elif m.get("role") == "user":
            c.human_prompts += any(not blank(t) for t in texts)
        elif m.get("role") == "assistant":
            c.assistant_texts += sum(not blank(t) for t in texts)
        tools = [p for p in parts if isinstance(p, dict) and (str(p.get("type", "")).startswith("tool-") or p.get("type") == "dynamic-tool")]
        tools += [inv for inv in m.get("toolInvocations") or [] if isinstance(inv, dict) and not isinstance(m.get("parts"), list)]
        for p in tools:
            c.tool_calls += 1
            c.tool_returns += p.get("state") in ("output-available", "output-error", "result")
            c.tool_errors += p.get("state") == "output-error"
    return c


def vercel_ai_stream(path: Path) -> Counts:
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    if data.lstrip()[:1] in (b"[", b"{"):
        chunks = whole_or_lines(path)
    else:
        chunks = []
        for line in data.splitlines():
            if line.startswith(b"data:") and line[5:].strip() not in (b"", b"[DONE]"):
                try:
                    chunks.append(orjson.loads(line[5:]))
                except orjson.JSONDecodeError:
                    pass
    c = Counts(human_prompts=None, harness_turns=None)
    text: dict[Any, str] = {}
    calls: set[Any] = set()
    for ch in chunks:
        kind = ch.get("type") if isinstance(ch, dict) else None
        if kind == "text-delta":
            text[ch.get("id")] = text.get(ch.get("id"), "") + str(ch.get("delta", ch.get("textDelta", "")))
        elif kind in ("tool-input-start", "tool-input-available"):
            calls.add(ch.get("toolCallId"))
        elif kind in ("tool-output-available", "tool-output-error"):
            c.tool_returns += 1
            c.tool_errors += kind == "tool-output-error"
    c.assistant_texts = sum(not blank(t) for t in text.values())
    c.tool_calls = len(calls)
    return c


# --- Inspect AI -----------------------------------------------------------------------------


def _samples(path: Path) -> list[Any]:
    data = path.read_bytes()
    if data[:4] != b"PK\x03\x04":
        return orjson.loads(data).get("samples") or []
    with zipfile.ZipFile(path) as archive:
        return [orjson.loads(_zip_member(archive, n)) for n in archive.namelist() if n.startswith("samples/")]


def _events(events: Any) -> list[dict[str, Any]]:
    """A sample's transcript events in order, the nested ``events`` of older logs included."""
    out = []
    for e in events or []:
        if isinstance(e, dict):
            out.append(e)
            out += _events(e.get("events"))
    return out


def _output(event: dict[str, Any]) -> Any:
    choices = (event.get("output") or {}).get("choices") if isinstance(event.get("output"), dict) else None
    return choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None


def _turn(message: dict[str, Any], attachments: dict[str, Any]) -> tuple[Any, str, tuple[Any, ...]]:
    """An assistant turn's message id, text (``attachment://`` references resolved from the
    sample's attachments) and tool call ids."""
    text = "".join(texts_of(message.get("content")))
    if text.startswith("attachment://"):
        text = str(attachments.get(text.removeprefix("attachment://"), text))
    return message.get("id"), text, tuple(c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict))


def _same(turn: tuple[Any, str, tuple[Any, ...]], turns: list[tuple[Any, str, tuple[Any, ...]]]) -> bool:
    """Whether a message of ``messages`` is a turn a model call gave: the same message id (a
    solver may rewrite its text, as a handoff's filter does), or without ids the same text and calls."""
    return any(turn[0] == t[0] if turn[0] and t[0] else turn[1:] == t[1:] for t in turns)


def inspect_ai(path: Path) -> Counts:
    """A sample's ``events`` are its transcript: each ``model`` event is one model call (its output
    an assistant turn, a scorer's grader too), each ``tool`` event one tool run (``error`` set: an
    error). ``messages`` is the conversation solvers left: a turn no event gave (a solver's, an
    older log without events) counts too, and its user messages are the eval's (the sample's
    input, a solver's prompt: harness turns)."""
    c = Counts()
    for sample in _samples(path):
        if not isinstance(sample, dict):
            continue
        attachments = sample.get("attachments") if isinstance(sample.get("attachments"), dict) else {}
        events = _events(sample.get("events"))
        turns = [_turn(m, attachments) for m in (_output(e) for e in events if e.get("event") == "model") if isinstance(m, dict)]
        ran = {e.get("id") for e in events if e.get("event") == "tool"}
        c.tool_returns += len([e for e in events if e.get("event") == "tool"])
        c.tool_errors += sum(1 for e in events if e.get("event") == "tool" and e.get("error") is not None)
        for m in sample.get("messages") or []:
            role = m.get("role") if isinstance(m, dict) else None
            if role == "user":
                c.harness_turns += 1
            elif role == "assistant" and not _same(_turn(m, attachments), turns):
                turns.append(_turn(m, attachments))
            elif role == "tool" and m.get("tool_call_id") not in ran:
                c.tool_returns += 1
                c.tool_errors += m.get("error") is not None
        c.assistant_texts += sum(not blank(text) for _, text, _ in turns)
        c.tool_calls += sum(len(calls) for _, _, calls in turns)
    return c


# --- OTel spans -----------------------------------------------------------------------------


def _spans(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, list):
        return [s for v in value for s in _spans(v)]
    if not isinstance(value, dict):
        return []
    resource_spans = value.get("resourceSpans", value.get("resource_spans"))
    if isinstance(resource_spans, list):
        return [s for rs in resource_spans if isinstance(rs, dict) for ss in rs.get("scopeSpans") or rs.get("scope_spans") or [] if isinstance(ss, dict) for s in ss.get("spans") or []]
    return [value]


def _attributes(span: dict[str, Any]) -> dict[str, Any]:
    attrs = span.get("attributes")
    if isinstance(attrs, list):  # OTLP: [{key, value: {intValue|stringValue...}}]
        return {a.get("key"): next(iter((a.get("value") or {}).values()), None) for a in attrs if isinstance(a, dict)}
    return attrs if isinstance(attrs, dict) else {}


def otel(path: Path) -> Counts:
    """Tokens of LLM spans only (``gen_ai.usage.*``, ``llm.token_count.*``); the messages a span
    holds repeat the conversation so far, so no text count is taken."""
    c = Counts(None, None, None, None, None, None)
    for span in _spans(whole_or_lines(path)):
        a = _attributes(span)
        inp = a.get("gen_ai.usage.input_tokens", a.get("gen_ai.usage.prompt_tokens", a.get("llm.token_count.prompt")))
        out = a.get("gen_ai.usage.output_tokens", a.get("gen_ai.usage.completion_tokens", a.get("llm.token_count.completion")))
        c.add_tokens(int(inp) if isinstance(inp, str) and inp.isdigit() else inp, int(out) if isinstance(out, str) and out.isdigit() else out)
    return c


# --- LangChain, AITP, ThreadProtocol --------------------------------------------------------


def _lc_type(m: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    if m.get("lc") == 1 and isinstance(m.get("kwargs"), dict):  # dumpd: {lc, type: constructor, id: [..., "HumanMessage"], kwargs}
        name = str((m.get("id") or [""])[-1]).removesuffix("Chunk").removesuffix("Message").lower()
        return name, m["kwargs"]
    if isinstance(m.get("data"), dict):  # messages_to_dict: {type, data}
        return m.get("type"), m["data"]
    return m.get("type"), m


def _stream_messages(docs: list[Any]) -> list[Any] | None:
    """A LangGraph stream capture's messages (parts ``[mode, chunk]``, ``[ns, mode, chunk]`` or
    ``{event, data}``): the last ``values`` state's, else the ``updates``' in order, else the
    ``messages`` parts' (chunks of one id are one message); None for no stream capture."""
    parts = [(d[-2], d[-1]) if isinstance(d, list) and len(d) in (2, 3) and isinstance(d[-2], str)
             else (d["event"], d["data"]) if isinstance(d, dict) and isinstance(d.get("event"), str) and "data" in d else None for d in docs]
    if not parts or parts[0] is None:
        return None
    parts = [p for p in parts if p is not None]
    states = [c["messages"] for m, c in parts if m == "values" and isinstance(c, dict) and isinstance(c.get("messages"), list)]
    if states:
        return states[-1]
    updates = [msg for m, c in parts if m == "updates" and isinstance(c, dict) for u in c.values() if isinstance(u, dict) for msg in u.get("messages") or []]
    if updates:
        return updates
    out: list[Any] = []
    for m, c in parts:
        if m in ("messages", "messages/complete"):
            msg = c[0] if isinstance(c, list) and c else c
            body = msg.get("kwargs", msg.get("data", msg)) if isinstance(msg, dict) else {}
            last = out[-1] if out else None
            lbody = last.get("kwargs", last.get("data", last)) if isinstance(last, dict) else {}
            if body.get("id") and lbody.get("id") == body.get("id"):
                continue  # a chunk of the message before (its text only joins it)
            out.append(msg)
    return out


def langchain(path: Path) -> Counts:
    docs = whole_or_lines(path)
    stream = _stream_messages(docs)
    if stream is not None:
        docs = stream
    elif len(docs) == 1 and isinstance(docs[0], dict):
        state = docs[0].get("values") if isinstance(docs[0].get("values"), dict) else docs[0]
        docs = state.get("messages") if isinstance(state.get("messages"), list) else docs
    c = Counts()
    for m in docs:
        if not isinstance(m, dict):
            continue
        kind, body = _lc_type(m)
        text = "".join(texts_of(body.get("content")))
        if kind == "human" and isinstance((body.get("additional_kwargs") or {}).get("lc_source"), str) and body["additional_kwargs"]["lc_source"]:
            c.harness_turns += 1  # langchain_core's add_notification_metadata: a human message nobody typed (a summary, a task update)
        elif kind == "human":
            c.human_prompts += not blank(text)
        elif kind == "ai":
            c.assistant_texts += not blank(text)
            c.tool_calls += len(body.get("tool_calls") or [])
            u = body.get("usage_metadata")
            if isinstance(u, dict):
                c.add_tokens(u.get("input_tokens"), u.get("output_tokens"))
        elif kind == "tool":
            c.tool_returns += 1
            c.tool_errors += body.get("status") == "error"
    return c


def aitp(path: Path) -> Counts:
    """Messages with a ``role``: user ones are prompts, assistant ones texts (AITP messages
    without a role name only an actor, and are not counted)."""
    items = whole_or_lines(path)
    if len(items) == 1 and isinstance(items[0], dict):
        for key in ("messages", "data"):
            if isinstance(items[0].get(key), list):
                items = items[0][key]
    c = Counts(tool_calls=None, tool_returns=None, tool_errors=None)
    if not any(isinstance(m, dict) and "role" in m for m in items):
        return Counts(None, None, None, None, None, None)  # actors only: who is the user is the hub's to say
    for m in items:
        if isinstance(m, dict):
            text = "".join(texts_of(m.get("content"))) + "".join(
                p["text"]["value"] for p in m.get("content") or [] if isinstance(p, dict) and isinstance(p.get("text"), dict) and isinstance(p["text"].get("value"), str))
            c.human_prompts += m.get("role") == "user" and not blank(text)
            c.assistant_texts += m.get("role") == "assistant" and not blank(text)
    return c


def threadprotocol(path: Path) -> Counts:
    """Actions by ``action_type`` and ``metadata.author`` (ThreadProtocol says who wrote one
    where it differs from its kind's default)."""
    c = Counts()
    for doc in whole_or_lines(path):
        for a in doc.get("actions") or [] if isinstance(doc, dict) else []:
            kind = a.get("action_type") if isinstance(a, dict) else None
            author = (a.get("metadata") or {}).get("author") if isinstance(a.get("metadata"), dict) else None
            c.harness_turns += author == "harness"
            c.human_prompts += kind == "user_message" and author in (None, "human")
            c.assistant_texts += kind == "assistant_message"
            c.tool_calls += kind == "tool_call"
            c.tool_returns += kind == "tool_return"
            c.tool_errors += kind == "tool_return" and a.get("status") not in (None, "success")
    return c
