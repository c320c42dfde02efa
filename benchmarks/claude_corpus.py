"""A generated ``~/.claude/projects`` folder for ``claude_projects.py`` (see its docstring for
what the sessions hold), deterministic by seed: each session is a function of (seed, index)
only, so the same command always writes the same bytes, whatever the number of cores.

    python benchmarks/claude_projects.py 1GB --make-only
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import random
import shutil
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

SESSIONS_PER_PROJECT = 40
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
VERSION = "2.1.330"
OLD_VERSION = "2.0.46"
MODELS = ("claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805", "claude-haiku-4-5-20251001")
TOOLS = ("Bash", "Read", "Edit", "Grep", "Glob", "Write", "TodoWrite", "WebFetch")
_WORDS = ("the file function test error value config import module class return build run check line path data "
          "frame column index thread agent session tool call result output input parse load cache read write "
          "update fix bug change diff commit branch merge review python pandas arrow json schema field type").split()
_TEXT = " ".join(random.Random(7).choices(_WORDS, k=400_000))  # slices of it make every text


# --- sessions -------------------------------------------------------------------------------


class _Session:
    """One session's lines, written in file order; times only go forward."""

    def __init__(self, rng: random.Random, sid: str, cwd: str, old: bool, moment: datetime) -> None:
        self.rng, self.sid, self.cwd, self.old, self.now = rng, sid, cwd, old, moment
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self.agent: str | None = None  # set while writing a subagent's own lines

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def text(self, low: int, high: int) -> str:
        size = int(min(high, max(low, self.rng.lognormvariate(0, 1) * low * 2)))
        start = self.rng.randrange(0, len(_TEXT) - size - 1)
        return _TEXT[start:start + size]

    def stamp(self, ms: int = 900) -> str:
        self.now += timedelta(milliseconds=self.rng.randint(5, ms))
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    def envelope(self, kind: str, body: dict[str, Any], parent: str | None = None, **extra: Any) -> str:
        """A chain line: Claude Code's envelope around ``body``; returns its uuid."""
        me = self.uid()
        line: dict[str, Any] = {"parentUuid": self.parent if parent is None else parent, "isSidechain": self.agent is not None}
        if self.agent is not None:
            line["agentId"] = self.agent
        line.update({"type": kind, **body, "uuid": me, "timestamp": self.stamp(), **extra, "userType": "external",
                     "entrypoint": "cli", "cwd": self.cwd, "sessionId": self.sid, "version": OLD_VERSION if self.old else VERSION,
                     "gitBranch": "main"})
        self.lines.append(line)
        self.parent = me
        return me

    def prompt(self, text: str) -> None:
        self.lines.append({"type": "queue-operation", "operation": "enqueue", "timestamp": self.stamp(50), "sessionId": self.sid, "content": text})
        self.lines.append({"type": "queue-operation", "operation": "dequeue", "timestamp": self.stamp(5), "sessionId": self.sid})
        self.envelope("user", {"message": {"role": "user", "content": text}}, promptId=self.uid(), permissionMode="default")
        for kind in self.rng.sample(("date", "total_tokens_reminder", "skill_listing", "todo_reminder"), self.rng.randint(0, 2)):
            self.envelope("attachment", {"attachment": {"type": kind, "text": self.text(40, 400)}})

    def response(self, model: str, tools: int, launch: list[str] | None = None) -> list[tuple[str, str, str]]:
        """One API message, one line per block; returns (line uuid, tool_use id, tool name) of its calls."""
        mid = "msg_01" + "".join(self.rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789", k=22))
        blocks: list[dict[str, Any]] = []
        if self.rng.random() < 0.5:
            blocks.append({"type": "thinking", "thinking": self.text(80, 3000), "signature": "Eq" + self.text(60, 300).replace(" ", "")})
        if self.rng.random() < 0.75 or not tools:
            blocks.append({"type": "text", "text": self.text(30, 4000)})
        calls = []
        for n in range(tools):
            tool_id = "toolu_01" + "".join(self.rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", k=22))
            if launch is not None and n == 0:
                calls.append((tool_id, "Agent"))
                blocks.append({"type": "tool_use", "id": tool_id, "name": "Agent", "input": {
                    "description": self.text(10, 40), "prompt": launch[0], "subagent_type": "general-purpose"}})
                continue
            name = self.rng.choice(TOOLS)
            calls.append((tool_id, name))
            blocks.append({"type": "tool_use", "id": tool_id, "name": name, "input": {"command": self.text(10, 200), "description": self.text(10, 60)}})
        fresh = self.rng.randint(3, 3000)
        usage = {"input_tokens": fresh, "cache_creation_input_tokens": self.rng.randint(0, 20000), "cache_read_input_tokens": self.rng.randint(0, 90000),
                 "output_tokens": self.rng.randint(20, 4000), "service_tier": "standard",
                 "cache_creation": {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 300}}
        stop = "tool_use" if tools else "end_turn"
        request = "req_011" + "".join(self.rng.choices("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789", k=21))
        out = []
        for block in blocks:
            message = {"model": model, "id": mid, "type": "message", "role": "assistant", "content": [block], "stop_reason": stop,
                       "stop_sequence": None, "usage": usage}
            me = self.envelope("assistant", {"message": message}, requestId=request)
            if block["type"] == "tool_use":
                out.append((me, block["id"], block["name"]))
        return out

    def results(self, calls: list[tuple[str, str, str]], agents: dict[str, str]) -> None:
        """Each call's result, its parentUuid the line of its own tool_use (the chain forks)."""
        for line, tool_id, name in calls:
            output = self.text(100, 12000)
            failed = self.rng.random() < 0.04
            if name == "Agent":
                agent = agents[tool_id]
                content: Any = [{"type": "text", "text": output}]
                result: dict[str, Any] = {"status": "completed", "prompt": self.text(20, 200), "agentId": agent,
                                          "content": content, "totalDurationMs": self.rng.randint(2000, 90000)}
            elif name == "Read":
                content = output
                result = {"type": "text", "file": {"filePath": f"{self.cwd}/src/{self.text(5, 20).replace(' ', '_')}.py", "content": output,
                                                   "numLines": output.count(" ") // 8 + 1, "startLine": 1}}
            else:
                content = output
                result = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
            block = {"tool_use_id": tool_id, "type": "tool_result", "content": content, **({"is_error": True} if failed else {})}
            self.envelope("user", {"message": {"role": "user", "content": [block]}}, parent=line, toolUseResult=result,
                          sourceToolAssistantUUID=line)


def _session(root: Path, seed: int, index: int) -> int:
    """Write session ``index`` (and its subagents); returns the bytes written."""
    rng = random.Random(f"{seed}-{index}")
    project = root / f"-home-user-code-project-{index // SESSIONS_PER_PROJECT:03d}"
    project.mkdir(parents=True, exist_ok=True)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    old = rng.random() < 0.15  # before 2.1: sidechain files beside the session, summary lines
    moment = START + timedelta(minutes=index * 37 + rng.randint(0, 30))
    s = _Session(rng, sid, f"/home/user/code/project-{index // SESSIONS_PER_PROJECT:03d}", old, moment)
    if old and rng.random() < 0.6:
        for _ in range(rng.randint(1, 3)):
            s.lines.append({"type": "summary", "summary": s.text(20, 80), "leafUuid": s.uid()})
    responses = max(2, min(3000, int(rng.lognormvariate(3.3, 1.1))))
    subagents: list[tuple[str, str, str, str]] = []  # (agent id, tool_use id, prompt, description)
    model = rng.choice(MODELS)
    s.prompt(s.text(20, 600))
    for n in range(responses):
        if n and rng.random() < 0.12:
            s.prompt(s.text(20, 800))
        if rng.random() < 0.03:
            s.lines.append({"type": "file-history-snapshot", "messageId": s.uid(), "isSnapshotUpdate": False,
                            "snapshot": {"messageId": s.uid(), "trackedFileBackups": {}, "timestamp": s.stamp(5)}})
        launch = [s.text(40, 300)] if rng.random() < 0.02 and len(subagents) < 4 else None
        tools = 0 if rng.random() < 0.2 else (1 if rng.random() < 0.8 else rng.randint(2, 4))
        calls = s.response(model, max(tools, 1) if launch else tools, launch)
        agents = {}
        for _line, tool_id, name in calls:
            if name == "Agent" and launch:
                agent = "a" + "".join(rng.choices("0123456789abcdef", k=16 if not old else 7))
                agents[tool_id] = agent
                subagents.append((agent, tool_id, launch[0], s.now.isoformat()))
        s.results(calls, agents)
        if rng.random() < 0.05:
            s.envelope("system", {"subtype": "turn_duration", "durationMs": rng.randint(1000, 600000), "isMeta": False})
    s.lines.append({"type": "last-prompt", "lastPrompt": s.text(20, 200), "leafUuid": s.parent, "sessionId": sid})
    s.lines.append({"type": "ai-title", "aiTitle": s.text(10, 60), "sessionId": sid})
    s.lines.append({"type": "cost-state", "sessionId": sid, "totalCostUSD": round(rng.random() * 5, 6), "totalAPIDuration": rng.randint(1000, 10**6),
                    "modelUsage": {model: {"inputTokens": rng.randint(1000, 10**6), "outputTokens": rng.randint(100, 10**5), "costUSD": round(rng.random() * 5, 6)}}})
    written = _write(project / f"{sid}.jsonl", s.lines)
    for agent, tool_id, prompt, when in subagents:
        sub = _Session(rng, sid, s.cwd, old, datetime.fromisoformat(when))
        sub.agent = agent
        sub.envelope("user", {"message": {"role": "user", "content": prompt}})
        for _ in range(max(2, int(rng.lognormvariate(2.3, 0.8)))):
            sub.results(sub.response(model, rng.randint(0, 2)), {})
        sub.response(model, 0)
        if old:
            written += _write(project / f"agent-{agent}.jsonl", sub.lines)
            continue
        folder = project / sid / "subagents"
        folder.mkdir(parents=True, exist_ok=True)
        written += _write(folder / f"agent-{agent}.jsonl", sub.lines)
        meta = {"agentType": "general-purpose", "isBuiltIn": True, "description": "subtask", "toolUseId": tool_id, "spawnDepth": 1, "model": model}
        written += _write_bytes(folder / f"agent-{agent}.meta.json", orjson.dumps(meta, option=orjson.OPT_INDENT_2))
    return written


def _write(path: Path, lines: list[dict[str, Any]]) -> int:
    return _write_bytes(path, b"".join(orjson.dumps(line) + b"\n" for line in lines))


def _write_bytes(path: Path, data: bytes) -> int:
    path.write_bytes(data)
    return len(data)


def _session_job(job: tuple[Path, int, int]) -> int:
    return _session(*job)


def write_projects(folder: Path, total_bytes: int, *, seed: int = 0) -> list[Path]:
    """A projects folder of about ``total_bytes`` (sessions are made until that much is on
    disk); an existing one of the same size and seed is kept. Returns its .jsonl files."""
    stamp = folder / ".corpus"
    wanted = f"claude {seed} {total_bytes}"
    if stamp.exists() and stamp.read_text() == wanted:
        return jsonl_files(folder)
    shutil.rmtree(folder, ignore_errors=True)
    root = folder / "projects"
    root.mkdir(parents=True)
    written = 0
    count = 0
    with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
        for size in pool.imap(_session_job, ((root, seed, i) for i in itertools.count()), chunksize=4):
            written += size
            count += 1
            if written >= total_bytes:
                break
        pool.terminate()
    _drop_beyond(root, seed, count)
    stamp.write_text(wanted)
    return jsonl_files(folder)


def _drop_beyond(root: Path, seed: int, count: int) -> None:
    """Sessions the pool made ahead, past the size asked for, are removed (so the corpus does
    not depend on the number of cores): their ids are remade from (seed, index). Workers
    finish chunks out of order, so a window of indexes is looked at, not only the next ones."""
    for index in range(count, count + 512):
        rng = random.Random(f"{seed}-{index}")
        project = root / f"-home-user-code-project-{index // SESSIONS_PER_PROJECT:03d}"
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        session = project / f"{sid}.jsonl"
        if not session.exists():
            continue
        session.unlink()
        shutil.rmtree(project / sid, ignore_errors=True)
        for beside in project.glob("agent-*.jsonl"):
            if orjson.loads(beside.read_bytes().split(b"\n", 1)[0]).get("sessionId") == sid:
                beside.unlink()
        if not any(project.iterdir()):
            project.rmdir()


def jsonl_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.jsonl"))
