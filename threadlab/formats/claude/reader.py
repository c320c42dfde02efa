"""Sessions → Threads: a transcript with its subagent files, or a stream of messages
(stream-json output or Claude Agent SDK objects)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.core.problems import Problem
from threadlab.formats.claude.chain import assign_times, merge_by_time, order_chain
from threadlab.formats.claude.convert import MAIN_AGENT, Converter
from threadlab.formats.claude.layout import SubagentFile, subagent_files
from threadlab.formats.claude.wire import Entry, read_lines
from threadlab.formats.source import Source

_TASK_ID = re.compile(r"<task-id>([^<]+)</task-id>\s*<tool-use-id>([^<]+)</tool-use-id>")


def _label(path: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return str(path.relative_to(base))
        except ValueError:
            pass
    return str(path)


def _tool_uses(entries: list[Entry]) -> dict[str, tuple[Entry, Mapping[str, Any]]]:
    """tool_use id → (the line holding it, the block)."""
    found: dict[str, tuple[Entry, Mapping[str, Any]]] = {}
    for entry in entries:
        message = entry.raw.get("message")
        content = message.get("content") if isinstance(message, Mapping) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, Mapping) and block.get("type") in ("tool_use", "server_tool_use") and isinstance(block.get("id"), str):
                found[block["id"]] = (entry, block)
    return found


def _guess_link(agent_id: str, entries: list[Entry]) -> str | None:
    """The Agent/Task call that launched ``agent_id``, when its sidecar is missing: the tool result
    naming the agent (``toolUseResult.agentId``), or a ``<task-notification>`` naming both."""
    for entry in entries:
        result = entry.raw.get("toolUseResult") or entry.raw.get("tool_use_result")
        if isinstance(result, Mapping) and result.get("agentId") == agent_id:
            content = (entry.raw.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, Mapping) and isinstance(block.get("tool_use_id"), str):
                    return block["tool_use_id"]
    for entry in entries:
        for task, tool_use in _TASK_ID.findall(str(entry.raw.get("content") or "")):
            if task == agent_id:
                return tool_use
    return None


def _chain(entries: list[Entry], problems: list[Problem]) -> list[Entry]:
    ordered, dangling = order_chain(entries)
    for entry in dangling:
        problems.append(
            Problem("chain", f"{entry.where()} parentUuid {entry.raw.get('parentUuid')!r} names no entry of the file; read as the start of a branch", line=entry.line)
        )
    return ordered


def transcript_thread(source: Source, *, base: Path | None = None) -> Thread:
    """One session: ``<session>.jsonl`` plus (when read from disk) its
    ``<session>/subagents/agent-*.jsonl`` files."""
    problems: list[Problem] = []
    path = source.path
    label = _label(path, base) if path is not None else source.name
    main = _chain(read_lines(source, label, MAIN_AGENT, problems), problems)
    assign_times(main)
    streams = [main]
    calls = _tool_uses(main)
    owners = {call_id: MAIN_AGENT for call_id in calls}
    known: dict[str, dict[str, Any]] = {}
    links: dict[str, str] = {}
    subs = subagent_files(path) if path is not None else []
    subs.sort(key=lambda s: (s.meta or {}).get("spawnDepth") or 1)
    for sub in subs:
        entries = _chain(read_lines(Source(sub.path), _label(sub.path, base), sub.agent_id, problems), problems)
        link = _subagent_link(sub, entries, streams, problems, base)
        call = calls.get(link or "")
        assign_times(entries, floor=call[0].time if call else None)
        info = _subagent_info(sub, entries, call[1] if call else None)
        known[sub.agent_id] = info
        if link:
            links[sub.agent_id] = link
        for call_id, found in _tool_uses(entries).items():
            calls[call_id] = found
            owners[call_id] = sub.agent_id
        streams.append(entries)
    for agent_id in _inline_sidechains(main):  # older CLIs (and from_thread) keep subagents in the main file
        link = _guess_link(agent_id, main)
        call = calls.get(link or "")
        known.setdefault(agent_id, _subagent_info(SubagentFile(Path(agent_id), agent_id, None, None),
                                                  [e for e in main if e.raw.get("agentId") == agent_id], call[1] if call else None))
        if link:
            links.setdefault(agent_id, link)
    merged = merge_by_time(streams)
    session = next((s for s in map(_session_id, main) if s is not None), None)
    builder = ThreadBuilder(path.stem if path is not None else session, source=source.name)
    conv = Converter(builder, merged)
    conv.known = known
    conv.links.update(links)
    conv.parents.update({agent: owners[link] for agent, link in links.items() if link in owners})
    conv.main_agent(merged[0] if merged else None)
    for entry in merged:
        conv.add(entry)
    builder.problems.extend(problems)
    return _finish(builder, conv)


def _inline_sidechains(entries: list[Entry]) -> list[str]:
    found = {e.raw["agentId"]: None for e in entries if e.raw.get("isSidechain") and isinstance(e.raw.get("agentId"), str)}
    return list(found)


def _subagent_link(sub: SubagentFile, entries: list[Entry], streams: list[list[Entry]], problems: list[Problem], base: Path | None) -> str | None:
    label = _label(sub.path, base)
    link = (sub.meta or {}).get("toolUseId")
    if isinstance(link, str):
        return link
    everything = [e for stream in streams for e in stream]
    guessed = _guess_link(sub.agent_id, everything)
    how = f"linked to tool call {guessed!r} found in the transcript" if guessed else "not linked to any Agent/Task call"
    problems.append(Problem("subagent-meta", f"{label} {sub.meta_error or 'sidecar has no toolUseId'}; agent read, {how}", line=None))
    return guessed


def _subagent_info(sub: SubagentFile, entries: list[Entry], call: Mapping[str, Any] | None) -> dict[str, Any]:
    """Agent type, description and model from the sidecar, else from the launching call and the
    subagent's own lines."""
    meta = sub.meta or {}
    call_input = call.get("input") if isinstance(call, Mapping) and isinstance(call.get("input"), Mapping) else {}
    attributed = next((e.raw.get("attributionAgent") for e in entries if isinstance(e.raw.get("attributionAgent"), str)), None)
    model = meta.get("model") or next(
        (e.raw["message"].get("model") for e in entries if e.type == "assistant" and isinstance(e.raw.get("message"), Mapping)), None
    )
    extra = {"claude_meta": meta} if meta else {}
    return {
        "agent_type": meta.get("agentType") or call_input.get("subagent_type") or attributed,
        "description": meta.get("description") or call_input.get("description"),
        "model": model,
        "extra": extra,
    }


def stream_threads(entries: list[Entry], *, name: str) -> list[Thread]:
    """stream-json lines or SDK messages, in arrival order: one thread per session id."""
    groups: list[list[Entry]] = []
    current: str | None = None
    for entry in entries:
        session = _session_id(entry)
        if not groups or (session is not None and current is not None and session != current):
            groups.append([])
        current = session or current
        groups[-1].append(entry)
    threads = []
    for group in groups:
        session = next((s for s in map(_session_id, group) if s is not None), None)
        assign_times(group)
        builder = ThreadBuilder(session, source=name)
        conv = Converter(builder, group)
        conv.main_agent(group[0] if group else None)
        for entry in group:
            conv.add(entry)
        threads.append(_finish(builder, conv))
    return threads


def _session_id(entry: Entry) -> str | None:
    value = entry.raw.get("session_id") or entry.raw.get("sessionId")
    return value if isinstance(value, str) else None


def _finish(builder: ThreadBuilder, conv: Converter) -> Thread:
    builder.metadata.update(conv.session.metadata())
    builder.title = conv.session.title()
    return builder.build()
