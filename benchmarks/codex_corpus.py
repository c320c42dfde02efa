"""A generated ``~/.codex/sessions`` folder for ``codex_sessions.py``, deterministic by seed:
each rollout is a function of (seed, index) only, and rollouts are written in index order until
the size asked for is on disk, so the same command always writes the same bytes.

The shapes are those of the real rollouts in ``tests/fixtures/real/codex`` and
``tests/fixtures/codex`` (envelope generation, Codex 0.5x to 0.169): a ``session_meta`` with the
base instructions, the developer message of permissions and the user message of
``AGENTS.md`` + ``<environment_context>`` (harness turns), then turns: ``task_started``,
``turn_context``, the prompt (a ``response_item`` message and the ``user_message`` event that
repeats it), a rate-limits-only ``token_count``, then model steps (an encrypted ``reasoning``
with its summary and the ``agent_reasoning`` event, ``function_call`` ``exec_command`` or
``custom_tool_call`` ``apply_patch`` and their outputs, ``Process exited with code N`` headers)
each followed by a cumulative ``token_count`` (often written twice), a final assistant message
with its ``agent_message`` event, and ``task_complete``. Some sessions are compacted (a
``compacted`` line with its replacement history), some interrupted and resumed (``turn_aborted``
and the ``<turn_aborted>`` message, then more turns in the same file), some forked (a new
rollout whose ``session_meta`` names ``forked_from_id``, with its parent's lines copied ahead).
Session lengths are log-normal (most short, a few of thousands of lines).

    python benchmarks/codex_sessions.py 1GB --make-only
"""

from __future__ import annotations

import random
import shutil
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
VERSIONS = ("0.57.0", "0.104.0", "0.135.0")
MODELS = ("gpt-5-codex", "gpt-5.3-codex", "gpt-5.1-codex-mini")
_WORDS = ("the file function test error value config import module class return build run check line path data "
          "frame column index thread agent session tool call result output input parse load cache read write "
          "update fix bug change diff commit branch merge review python pandas arrow json schema field type").split()
_TEXT = " ".join(random.Random(11).choices(_WORDS, k=400_000))
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_ENV = ("<environment_context>\n  <cwd>{cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write"
        "</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>bash</shell>\n</environment_context>")


class _Rollout:
    """One rollout's lines, in file order; times only go forward."""

    def __init__(self, rng: random.Random, sid: str, moment: datetime) -> None:
        self.rng, self.sid, self.now = rng, sid, moment
        self.lines: list[dict[str, Any]] = []
        self.total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}

    def text(self, low: int, high: int) -> str:
        size = int(min(high, max(low, self.rng.lognormvariate(0, 1) * low * 2)))
        start = self.rng.randrange(0, len(_TEXT) - size - 1)
        return _TEXT[start:start + size]

    def call_id(self) -> str:
        return "call_" + "".join(self.rng.choices(_B64[:62], k=24))

    def put(self, kind: str, payload: dict[str, Any], ms: int = 900) -> None:
        self.now += timedelta(milliseconds=self.rng.randint(1, ms))
        stamp = self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"
        self.lines.append({"timestamp": stamp, "type": kind, "payload": payload})

    def message(self, role: str, texts: list[str]) -> None:
        part = "output_text" if role == "assistant" else "input_text"
        self.put("response_item", {"type": "message", "role": role, "content": [{"type": part, "text": t} for t in texts]})

    def tokens(self, prompt: int) -> None:
        last = {"input_tokens": prompt, "cached_input_tokens": prompt - prompt % 1024 if prompt > 1024 else 0,
                "output_tokens": self.rng.randint(20, 900), "reasoning_output_tokens": self.rng.choice((0, 64, 128, 320))}
        last["total_tokens"] = last["input_tokens"] + last["output_tokens"]
        for key, value in last.items():
            self.total[key] += value
        event = {"type": "token_count", "info": {"total_token_usage": dict(self.total), "last_token_usage": last, "model_context_window": 258400},
                 "rate_limits": {"primary": {"used_percent": float(self.rng.randint(0, 90)), "window_minutes": 300, "resets_at": 1771864834},
                                 "secondary": {"used_percent": 6.0, "window_minutes": 10080, "resets_at": 1772355702}}}
        for _ in range(2 if self.rng.random() < 0.4 else 1):  # the same event is often written twice
            self.put("event_msg", event, 30)

    def step(self, prompt: int) -> None:
        """One model response: reasoning, then a call and its output (or nothing more)."""
        if self.rng.random() < 0.7:
            summary = self.text(20, 200)
            self.put("event_msg", {"type": "agent_reasoning", "text": summary})
            secret = "gAAAAA" + "".join(self.rng.choices(_B64, k=self.rng.randint(400, 4000)))
            self.put("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": summary}], "content": None,
                                       "encrypted_content": secret})
        cid = self.call_id()
        code = 0 if self.rng.random() < 0.9 else 1
        body = self.text(20, 6000)
        if self.rng.random() < 0.8:
            args = orjson.dumps({"cmd": self.text(10, 120), "workdir": "/home/user/project", "yield_time_ms": 10000}).decode()
            self.put("response_item", {"type": "function_call", "name": "exec_command", "arguments": args, "call_id": cid})
            out = f"Chunk ID: {self.rng.getrandbits(24):06x}\nWall time: 0.{self.rng.randint(0, 9999):04d} seconds\nProcess exited with code {code}\n" \
                  f"Original token count: {len(body) // 4}\nOutput:\n{body}"
            self.put("response_item", {"type": "function_call_output", "call_id": cid, "output": out}, 4000)
        else:
            patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-" + self.text(10, 200) + "\n+" + self.text(10, 400) + "\n*** End Patch"
            self.put("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": cid, "name": "apply_patch", "input": patch})
            self.put("response_item", {"type": "custom_tool_call_output", "call_id": cid,
                                       "output": orjson.dumps({"output": "Success. Updated the following files:\nM src/app.py\n",
                                                               "metadata": {"exit_code": code, "duration_seconds": 0.0}}).decode()})
        self.tokens(prompt)

    def turn(self, model: str, cwd: str, steps: int, prompt: int) -> None:
        tid = _uuid7(self.rng.getrandbits(128))
        self.put("event_msg", {"type": "task_started", "turn_id": tid, "model_context_window": 258400})
        self.put("turn_context", {"turn_id": tid, "cwd": cwd, "approval_policy": "on-request",
                                  "sandbox_policy": {"type": "workspace-write", "writable_roots": [cwd], "network_access": False},
                                  "model": model, "effort": "high", "summary": "auto"}, 30)
        ask = self.text(20, 600)
        self.message("user", [ask])
        self.put("event_msg", {"type": "user_message", "message": ask, "images": [], "local_images": [], "text_elements": []}, 5)
        self.put("event_msg", {"type": "token_count", "info": None, "rate_limits": {"primary": None, "secondary": None}}, 200)
        for _ in range(steps):
            self.step(prompt)
            prompt += self.rng.randint(200, 3000)
        answer = self.text(20, 1500)
        self.put("event_msg", {"type": "agent_message", "message": answer})
        self.message("assistant", [answer])
        self.tokens(prompt)
        self.put("event_msg", {"type": "task_complete", "turn_id": tid, "last_agent_message": answer}, 20)


def _rollout(seed: int, index: int) -> tuple[str, datetime, list[dict[str, Any]]]:
    rng = random.Random(f"{seed}-{index}")
    sid = _uuid7(rng.getrandbits(128))
    moment = START + timedelta(minutes=37 * index + rng.randint(0, 30))
    r = _Rollout(rng, sid, moment)
    version, model = rng.choice(VERSIONS), rng.choice(MODELS)
    cwd = f"/home/user/code/project-{rng.randint(0, 40):02d}"
    meta: dict[str, Any] = {"id": sid, "timestamp": r.now.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", "cwd": cwd, "originator": "codex_cli_rs",
                            "cli_version": version, "source": "cli", "model_provider": "openai",
                            "base_instructions": {"text": _TEXT[:12000]},
                            "git": {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": "main", "repository_url": "git@example.com:u/p.git"}}
    forked = index > 0 and rng.random() < 0.05
    if forked:
        meta["forked_from_id"] = _rollout_id(seed, index - 1)
    r.put("session_meta", meta)
    if forked:  # a fork starts with its parent's history
        r.lines.extend(_rollout(seed, index - 1)[2][1:40])
    r.message("developer", ["<permissions instructions>\n" + r.text(400, 3000) + "\n</permissions instructions>"])
    r.message("user", ["# AGENTS.md instructions for " + cwd + "\n\n<INSTRUCTIONS>\n" + r.text(100, 2000) + "\n</INSTRUCTIONS>", _ENV.format(cwd=cwd)])
    steps = max(1, int(rng.lognormvariate(1.6, 1.1)))  # model responses in the session
    prompt = rng.randint(4000, 12000)
    while steps > 0:
        n = min(steps, rng.randint(1, 12))
        r.turn(model, cwd, n, prompt)
        steps -= n
        prompt += 2000 * n
        luck = rng.random()
        if luck < 0.03:
            r.put("compacted", {"message": "", "replacement_history": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": r.text(20, 300)}]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": r.text(200, 6000)}]}]})
            r.put("event_msg", {"type": "context_compacted"}, 10)
            prompt = rng.randint(4000, 12000)
        elif luck < 0.06:
            r.put("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
            r.message("user", ["<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"])
    return sid, moment, r.lines


def _rollout_id(seed: int, index: int) -> str:
    return _uuid7(random.Random(f"{seed}-{index}").getrandbits(128))


def _uuid7(bits: int) -> str:
    """A version-7-looking id (Codex's ids are UUIDv7; Python 3.11's uuid has no version 7)."""
    text = str(uuid.UUID(int=bits, version=4))
    return text[:14] + "7" + text[15:]


def write_sessions(folder: Path, total_bytes: int, *, seed: int = 0) -> list[Path]:
    """A ``sessions/YYYY/MM/DD/rollout-*.jsonl`` tree of about ``total_bytes`` under ``folder``;
    an existing one of the same size and seed is kept. Returns its rollouts."""
    stamp = folder / ".corpus"
    wanted = f"codex {seed} {total_bytes}"
    if stamp.exists() and stamp.read_text() == wanted:
        return rollout_files(folder)
    shutil.rmtree(folder, ignore_errors=True)
    written = 0
    index = 0
    while written < total_bytes:
        sid, moment, lines = _rollout(seed, index)
        day = folder / "sessions" / moment.strftime("%Y/%m/%d")
        day.mkdir(parents=True, exist_ok=True)
        data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
        (day / f"rollout-{moment.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl").write_bytes(data)
        written += len(data)
        index += 1
    stamp.write_text(wanted)
    return rollout_files(folder)


def rollout_files(folder: Path) -> list[Path]:
    return sorted((folder / "sessions").rglob("rollout-*.jsonl"))
