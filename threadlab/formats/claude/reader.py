"""Sessions → Threads: a transcript with its subagents, or a stream of messages (stream-json
output or Claude Agent SDK objects).

A transcript's subagents come in three layouts, read the same way: files under
``<session>/subagents/`` with ``.meta.json`` sidecars (CLI 2.1), ``agent-<id>.jsonl`` files
beside the session whose lines carry its ``sessionId`` (before 2.1), and ``isSidechain`` lines
inside the session file itself (older CLIs, claude.ai exports, and what ``from_thread`` writes,
with each sidecar as an inline ``agent_metadata`` entry as the Agent SDK's session stores keep
it). Each subagent's lines are ordered by their own chain, start no earlier than the call that
launched them, and are merged with the session's by time."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import Thread
from threadlab.formats.claude.agents import MAIN_AGENT, SubagentInfo, launched_by
from threadlab.formats.claude.chain import assign_times, merge_by_time, order_chain
from threadlab.formats.claude.convert import Converter
from threadlab.formats.claude.layout import SubagentFile, subagent_files
from threadlab.formats.claude.wire import Entry, read_lines
from threadlab.formats.common.source import Source

_TASK_ID = re.compile(r"<task-id>([^<]+)</task-id>\s*<tool-use-id>([^<]+)</tool-use-id>")
_LAUNCHERS = ("Agent", "Task")
# subagents Claude Code starts itself (``/compact`` and auto-compaction: ``agent-acompact-<id>``): no
# tool call launches them, so no sidecar links one, and their chain starts in the session's
HARNESS_AGENTS = ("acompact",)
AGENT_METADATA = "agent_metadata"
TOOL_USES = ("tool_use", "server_tool_use")  # the blocks a subagent's launching call is looked for among


def _label(path: Path, base: Path | None) -> str:
    if base is not None:
        try:
            return str(path.relative_to(base))
        except ValueError:
            pass
    return str(path)


def thread_id(name: str, entries: list[Entry]) -> str:
    """A transcript's thread id: its file's name (how Claude Code names a session; ``name`` is
    the path, or the name given with bytes), else the first ``sessionId`` in it, else an id
    made from its content (the same input always gets the same id)."""
    if not name.startswith("<") and name.endswith((".jsonl", ".json")):
        return Path(name).stem
    session = next((s for s in map(session_id, entries) if s is not None), None)
    return session or _content_id(name, entries)


def _content_id(name: str, entries: list[Entry]) -> str:
    digest = hashlib.sha1(name.encode("utf-8", "replace"))
    for entry in entries[:50]:
        digest.update(repr(sorted(entry.raw.items(), key=lambda kv: kv[0])).encode("utf-8", "replace"))
    return str(uuid.UUID(bytes=digest.digest()[:16], version=5))


def session_id(entry: Entry) -> str | None:
    value = entry.raw.get("session_id") or entry.raw.get("sessionId")
    return value if isinstance(value, str) else None


# --- transcripts --------------------------------------------------------------------------


def transcript_thread(source: Source, *, base: Path | None = None, entries: list[Entry] | None = None) -> Thread:
    """One session: its lines (read from ``source``, or given) and, when read from disk, its
    subagent files."""
    return transcript_builder(source, ThreadBuilder, base=base, entries=entries).build()


class Passes:
    """How a session's streams (its own lines, each subagent's) are ordered and read before they
    are converted: a pass each for the chain order, the tool calls and (``Converter``) the usage
    of each message. The frames route's ``survey.Surveyed`` does the three in one pass a stream."""

    def session(self, lines: list[Entry], builder: ThreadBuilder) -> tuple[dict[str, Entry], list[Entry], dict[str, list[Entry]]]:
        """The session file's sidecars (``agent_metadata`` entries), its own lines in order with
        their times, and its inline sidechain lines by subagent."""
        sidecars = {e.raw["agentId"]: e for e in lines if e.type == AGENT_METADATA and isinstance(e.raw.get("agentId"), str)}
        lines = [e for e in lines if not (e.type == AGENT_METADATA and isinstance(e.raw.get("agentId"), str))]
        builder.took(len(sidecars))  # each is in its agent's metadata
        main_lines, inline = split_sidechains(lines)
        main = self.chain(main_lines, builder)
        assign_times(main)
        return sidecars, main, inline

    def chain(self, entries: list[Entry], builder: ThreadBuilder, outside: frozenset[str] | set[str] = frozenset()) -> list[Entry]:
        return _chain(entries, builder, outside)

    def tool_uses(self, entries: list[Entry], agent: str) -> dict[str, tuple[Entry, Mapping[str, Any], str]]:
        return _tool_uses(entries, agent)

    def merge(self, streams: list[list[Entry]]) -> list[Entry]:
        return merge_by_time(streams)

    def responses(self) -> dict[str, Any] | None:
        """The usage of each message of the streams ordered (None: the converter collects it)."""
        return None


def transcript_builder(source: Source, make: type[ThreadBuilder], *, base: Path | None = None, entries: list[Entry] | None = None,
                       convert: type[Converter] = Converter, passes: Passes | None = None) -> Any:
    """The builder (of class ``make``) that has read one session: ``ThreadBuilder`` for a
    Thread, ``documents.DocBuilder`` for its JSON object only (with ``fused.FusedConverter``
    and ``survey.Surveyed`` passes when only its frames are wanted)."""
    passes = passes or Passes()
    path = source.path
    label = _label(path, base) if path is not None else source.name
    lines = entries if entries is not None else read_lines(source, label)
    builder = make(thread_id(source.name, lines), source=source.name)
    sidecars, main, inline = passes.session(lines, builder)
    subs = _subagent_streams(path, base, inline, sidecars, builder)
    # (only a harness agent's chain may start in the session's)
    session_uuids = {e.uuid for e in main if e.uuid} if any(sub.agent_id.startswith(HARNESS_AGENTS) for sub in subs) else frozenset()
    calls = passes.tool_uses(main, MAIN_AGENT) if subs else {}  # (only subagents look their launching call up)
    known: dict[str, SubagentInfo] = {}
    links: dict[str, str] = {}
    streams = [main]
    for sub in subs:
        harness = sub.agent_id.startswith(HARNESS_AGENTS)
        entries_of = passes.chain(sub.entries, builder, session_uuids if harness else frozenset())
        link = sub.link or _guess_link(sub.agent_id, entries_of, [e for s in streams for e in s], calls, set(links.values()))
        if sub.broken_sidecar or (sub.needs_sidecar and link is None and not harness):
            how = f"linked to tool call {link!r} found in the transcript" if link else "not linked to any Agent/Task call"
            builder.problem("subagent-meta", f"{sub.label} {sub.meta_error or 'sidecar has no toolUseId'}; agent read, {how}")
        call = calls.get(link or "")
        assign_times(entries_of, floor=call[0].time if call else None)
        known[sub.agent_id] = _subagent_info(sub.meta, entries_of, call)
        if link:
            links[sub.agent_id] = link
            if known[sub.agent_id].parent is None and call is not None and call[2] != MAIN_AGENT:
                known[sub.agent_id].parent = call[2]
        calls.update(passes.tool_uses(entries_of, sub.agent_id))
        streams.append(entries_of)
    merged = passes.merge(streams)
    conv = convert(builder, merged, responses=passes.responses())
    conv.agents.known = known
    conv.agents.links.update(links)
    conv.agents.main(merged[0] if merged else None)
    conv.feed(merged)
    conv.finish()
    _describe(builder, conv)
    return builder


def split_sidechains(entries: list[Entry]) -> tuple[list[Entry], dict[str, list[Entry]]]:
    """The session's own lines, and inline sidechain lines by subagent: by their ``agentId``,
    or (older CLIs wrote none) by the root of their ``parentUuid`` chain."""
    main: list[Entry] = []
    inline: dict[str, list[Entry]] = {}
    anonymous = [e for e in entries if e.raw.get("isSidechain") is True and not isinstance(e.raw.get("agentId"), str)]
    roots = _chain_roots(anonymous)
    for entry in entries:
        side = entry.raw.get("isSidechain")
        agent_id = entry.raw.get("agentId")
        if entry.agent is not None:  # read from a subagent's own file
            agent = entry.agent
        elif side is True or (side is None and isinstance(agent_id, str)):  # a bookkeeping line of a subagent says only its agentId
            agent = agent_id if isinstance(agent_id, str) else roots[id(entry)]
        else:
            entry.agent = MAIN_AGENT
            main.append(entry)
            continue
        entry.agent = agent
        inline.setdefault(agent, []).append(entry)
    return main, inline


def _sidechain_agents(entries: list[Entry]) -> None:
    """In a stream, the ``isSidechain`` lines that name no agent (neither ``agentId`` nor the
    ``parent_tool_use_id`` of stream-json's subagent lines) are a subagent's, as in a transcript
    (``split_sidechains``): Claude Code writes a sidechain for the conversation a subagent has
    with the agent that launched it, whose prompt that agent wrote. A session of sidechain lines
    alone is such a conversation without its launcher's, not a person's."""
    anonymous = [e for e in entries if e.agent is None and e.raw.get("isSidechain") is True
                 and not isinstance(e.raw.get("agentId"), str) and not isinstance(e.raw.get("parent_tool_use_id"), str)]
    roots = _chain_roots(anonymous)
    for entry in anonymous:
        entry.agent = roots[id(entry)]


def _chain_roots(entries: list[Entry]) -> dict[int, str]:
    """Sidechain lines without an ``agentId`` → ``sidechain-<root uuid>`` of the chain they are on
    (``sidechain`` for lines with no uuid either: nothing else names where they belong). A
    parent whose uuid two lines carry is not followed: which one is meant would depend on the
    order of the lines."""
    seen: dict[str, int] = {}
    for entry in entries:
        if entry.uuid:
            seen[entry.uuid] = seen.get(entry.uuid, 0) + 1
    by_uuid = {e.uuid: e for e in entries if e.uuid and seen[e.uuid] == 1}
    out: dict[int, str] = {}
    for entry in entries:
        node, visited = entry, set()
        while isinstance(node.raw.get("parentUuid"), str) and node.raw["parentUuid"] in by_uuid and node.uuid not in visited:
            visited.add(node.uuid)
            node = by_uuid[node.raw["parentUuid"]]
        out[id(entry)] = f"sidechain-{node.uuid[:8]}" if node.uuid else "sidechain"
    return out


class _SubStream:
    """A subagent's lines and what its sidecar says. A 2.1 ``subagents/`` file without a
    sidecar (CLI versions before sidecars, or one lost) is a problem only when nothing else in
    the session links the agent to its call; an unreadable sidecar always is."""

    __slots__ = ("agent_id", "broken_sidecar", "depth", "entries", "label", "link", "meta", "meta_error", "needs_sidecar")

    def __init__(self, agent_id: str, entries: list[Entry], label: str, meta: dict[str, Any] | None, meta_error: str | None, needs_sidecar: bool) -> None:
        self.agent_id = agent_id
        self.entries = entries
        self.label = label
        self.meta = meta
        self.meta_error = meta_error
        link = (meta or {}).get("toolUseId")
        self.link = link if isinstance(link, str) else None
        self.needs_sidecar = needs_sidecar and self.link is None
        self.broken_sidecar = needs_sidecar and meta_error is not None and not meta_error.startswith("has no ")
        depth = (meta or {}).get("spawnDepth")
        self.depth = depth if isinstance(depth, int) and not isinstance(depth, bool) else 1


def _subagent_streams(path: Path | None, base: Path | None, inline: dict[str, list[Entry]], sidecars: dict[str, Entry],
                      builder: ThreadBuilder) -> list[_SubStream]:
    """Every subagent's lines with what its sidecar says, ordered by spawn depth then id."""
    streams: dict[str, _SubStream] = {}
    for sub in subagent_files(path) if path is not None else []:
        label = _label(sub.path, base)
        entries = read_lines(Source(sub.path), label, sub.agent_id)
        streams[sub.agent_id] = _SubStream(sub.agent_id, entries, label, sub.meta, sub.meta_error, sub.layout == SubagentFile.SUBAGENTS)
    for agent, entries in inline.items():
        sidecar = sidecars.get(agent)
        meta = {k: v for k, v in sidecar.raw.items() if k not in ("type", "agentId")} if sidecar is not None else None
        if agent in streams:
            streams[agent].entries = [*streams[agent].entries, *entries]
        else:
            streams[agent] = _SubStream(agent, entries, entries[0].file, meta, None, False)
    for agent, sidecar in sidecars.items():  # a sidecar whose agent wrote no line
        if agent not in streams:
            builder.problem("subagent-meta", f"{sidecar.where()} agent_metadata for {agent!r}, which wrote no line", line=sidecar.line)
    return sorted(streams.values(), key=lambda s: (s.depth, s.agent_id))


def _chain(entries: list[Entry], builder: ThreadBuilder, outside: frozenset[str] | set[str] = frozenset()) -> list[Entry]:
    """The entries in chain order; a parent named that is not among them is a problem (but one of
    ``outside``: a harness agent's chain starts at the session's entry it was started from)."""
    ordered, dangling = order_chain(entries)
    report_dangling(dangling, builder, outside)
    return ordered


def report_dangling(dangling: list[Entry], builder: ThreadBuilder, outside: frozenset[str] | set[str]) -> None:
    """A ``chain`` problem for each entry whose parent is not in its file (nor in ``outside``)."""
    for entry in dangling:
        if entry.raw.get("parentUuid") in outside:
            continue
        builder.problem("chain", f"{entry.where()} parentUuid {entry.raw.get('parentUuid')!r} names no entry of the file; read as the start of a branch",
                        line=entry.line)


def _tool_uses(entries: list[Entry], agent: str) -> dict[str, tuple[Entry, Mapping[str, Any], str]]:
    """tool_use id → (the line holding it, the block, the agent whose line it is)."""
    found: dict[str, tuple[Entry, Mapping[str, Any], str]] = {}
    for entry in entries:
        message = entry.raw.get("message")
        content = message.get("content") if type(message) is dict or isinstance(message, Mapping) else None  # (the cheap test first)
        for block in content if isinstance(content, list) else []:
            if (type(block) is dict or isinstance(block, Mapping)) and block.get("type") in TOOL_USES and isinstance(block.get("id"), str):
                found[block["id"]] = (entry, block, agent)
    return found


def _guess_link(agent_id: str, own: list[Entry], seen: list[Entry], calls: dict[str, tuple[Entry, Mapping[str, Any], str]], taken: set[str]) -> str | None:
    """The Agent/Task call that launched ``agent_id`` when no sidecar says: the tool result
    naming the agent (``toolUseResult.agentId``), a ``<task-notification>`` naming both, or
    (older CLIs) the one call whose prompt is the subagent's first prompt."""
    for entry in seen:
        result = entry.raw.get("toolUseResult") or entry.raw.get("tool_use_result")
        if isinstance(result, Mapping) and result.get("agentId") == agent_id:
            content = (entry.raw.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, Mapping) and isinstance(block.get("tool_use_id"), str):
                    return block["tool_use_id"]
    for entry in seen:
        for task, tool_use in _TASK_ID.findall(str(entry.raw.get("content") or "")):
            if task == agent_id:
                return tool_use
    prompt = _first_prompt(own)
    if prompt:
        matches = [cid for cid, (_, block, _) in calls.items()
                   if cid not in taken and block.get("name") in _LAUNCHERS and launched_by(block).get("prompt") == prompt]
        if len(matches) == 1:
            return matches[0]
    return None


def _first_prompt(entries: list[Entry]) -> str | None:
    for entry in entries:
        if entry.type == "user":
            message = entry.raw.get("message")
            content = message.get("content") if isinstance(message, Mapping) else None
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                text = "".join(b["text"] for b in content if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str))
                return text or None
            return None
    return None


def _subagent_info(meta: dict[str, Any] | None, entries: list[Entry], call: tuple[Entry, Mapping[str, Any], str] | None) -> SubagentInfo:
    """Agent type, description, name and model from the sidecar, else from the launching call
    and the subagent's own lines."""
    meta = meta or {}
    call_input = launched_by(call[1] if call else None)
    attributed = next((e.raw.get("attributionAgent") for e in entries if isinstance(e.raw.get("attributionAgent"), str)), None)
    model = meta.get("model") or next(
        (e.raw["message"].get("model") for e in entries if e.type == "assistant" and isinstance(e.raw.get("message"), Mapping)), None
    )
    parent = meta.get("parentAgentId")
    return SubagentInfo(
        agent_type=_text(meta.get("agentType")) or _text(call_input.get("subagent_type")) or attributed,
        description=_text(meta.get("description")) or _text(call_input.get("description")),
        model=_text(model),
        name=_text(meta.get("name")),
        meta=dict(meta) or None,
        parent=parent if isinstance(parent, str) else None,
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# --- streams ------------------------------------------------------------------------------


def stream_threads(entries: list[Entry], *, name: str) -> list[Thread]:
    """stream-json lines or SDK messages, in arrival order: one thread per session id."""
    # a line without a session id belongs with the lines around it (before the first id: the
    # first session); a session met again (a file of interleaved sessions) joins its thread
    by_session: dict[str | None, list[Entry]] = {}
    current: str | None = None
    for entry in entries:
        current = session_id(entry) or current
        by_session.setdefault(current, []).append(entry)
    leading = by_session.pop(None, [])
    groups = list(by_session.values())
    if leading:
        groups = [leading + groups[0], *groups[1:]] if groups else [leading]
    threads = []
    for group in groups:
        session = next((s for s in map(session_id, group) if s is not None), None)
        _sidechain_agents(group)
        assign_times(group)
        builder = ThreadBuilder(session or thread_id(name, group), source=name)
        conv = Converter(builder, group, stream=True)
        conv.agents.main(group[0] if group else None)
        for entry in group:
            conv.add(entry)
        conv.finish()
        _describe(builder, conv)
        if len(groups) > 1:  # each session is written alone: its writer says so
            builder.metadata.setdefault("claude", {})["sessions_in_file"] = len(groups)
        threads.append(builder.build())
    return threads


def _describe(builder: ThreadBuilder, conv: Converter) -> None:
    builder.metadata.update(conv.session.metadata())
    builder.title = conv.session.title()
