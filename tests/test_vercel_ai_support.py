"""Shared by the Vercel AI SDK tests: running the npm `ai` scripts, and the facts of a thread
two readings must agree on (no tests here)."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from threadlab.core.builder import ThreadBuilder
from threadlab.core.model import AssistantMessage, Thinking, Thread, ToolCall, ToolReturn

JS = Path(__file__).parent / "js"
FIXTURES = Path(__file__).parent / "fixtures" / "vercel_ai"  # streams (.sse)
MESSAGE_FIXTURES = Path(__file__).parent / "fixtures" / "vercel_ai_messages"  # UIMessage[] (.json)
SCENARIOS = ("multistep", "approval", "agents", "input_error", "stream_error")


def node_modules() -> Path:
    """tests/js/node_modules, installed from the committed lockfile when missing (never skipped)."""
    declared = json.loads((JS / "package.json").read_text())["dependencies"]

    def installed() -> bool:  # a copy older than package.json too
        return all((JS / "node_modules" / name / "package.json").exists() for name in declared)

    if not installed():
        # test workers (xdist) meet a missing node_modules together: one installs, the others
        # wait on the lock and find it installed (two `npm ci` in one folder break each other)
        with open(JS / ".npm-install.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not installed():
                npm = shutil.which("npm")
                assert npm, "npm is needed to install the AI SDK the stream tests drive (make js-deps)"
                subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--silent"], cwd=JS, check=True, timeout=600)
    return JS / "node_modules"


def run_ai_sdk(out: Path, sdk: str) -> None:
    """Run tests/js/generate.mjs against the npm package ``sdk`` (``ai`` = v6, ``ai7`` = v7)."""
    node_modules()
    node = shutil.which("node")
    assert node, "node is needed to drive the AI SDK"
    subprocess.run([node, str(JS / "generate.mjs"), str(out), sdk], cwd=JS, check=True, timeout=120, capture_output=True)


def replay_in_ai_sdk(pairs: list[tuple[Path, Path]], sdk: str) -> list[dict[str, Any]]:
    """Feed threadlab's (stream, UIMessage[]) outputs to the AI SDK's own client code
    (tests/js/replay.mjs), one node process for all pairs."""
    node_modules()
    node = shutil.which("node")
    assert node, "node is needed to drive the AI SDK"
    args = [str(p) for pair in pairs for p in pair]
    done = subprocess.run([node, str(JS / "replay.mjs"), sdk, *args], cwd=JS, check=True, timeout=120, capture_output=True)
    return json.loads(done.stdout)


def facts(thread: Thread) -> dict[str, Any]:
    """What a stream and the UIMessage built from it must both say: texts, reasoning, calls with
    inputs, outcomes, approvals, stored data parts, media, and who did what."""
    calls = [a for a in thread.actions if isinstance(a, ToolCall)]
    returns = {a.tool_call_id: (a.tool_name, a.status, a.content) for a in thread.actions if isinstance(a, ToolReturn)}
    resolved = {
        a.data["tool_call_id"]: a.data["resolution"]  # type: ignore[attr-defined]
        for a in thread.actions
        if a.action_type == "system.tool_resolved"
    }
    data_parts = [
        (a.action_type, a.data)  # type: ignore[attr-defined]
        for a in thread.actions
        if (a.metadata or {}).get("vercel_ai", {}).get("type", "").startswith("data-")
        and not (a.metadata or {})["vercel_ai"].get("transient")
    ]
    return {
        "texts": [a.content for a in thread.actions if isinstance(a, AssistantMessage) and isinstance(a.content, str)],
        "media": [a.content for a in thread.actions if isinstance(a, AssistantMessage) and not isinstance(a.content, str)],
        "thinking": [(a.content, a.signature, a.provider_name) for a in thread.actions if isinstance(a, Thinking)],
        "calls": [(c.tool_call_id, c.tool_name, c.args) for c in calls],
        "approvals": {c.tool_call_id: c.metadata["vercel_ai"].get("approval", {}).get("id") for c in calls if c.metadata},
        "returns": returns,
        "resolved": resolved,
        "data": data_parts,
        "who": [(a.action_type, thread.agent_name(a.agent_id)) for a in thread.actions if isinstance(a, AssistantMessage | Thinking | ToolCall)],
    }


def foreign_thread() -> Thread:
    """A two-agent thread that never was Vercel data (as another format's reader would build it)."""
    b = ThreadBuilder("foreign", title="handoff")
    b.agent("Planner", metadata={"model_name": "gpt-5"})
    b.agent("Coder")
    b.add("user_message", timestamp="2026-01-01T00:00:00Z", content="fix the bug")
    b.add("thinking", timestamp="2026-01-01T00:00:01Z", agent_id="planner", content="delegate", provider_name="openai")
    b.add("assistant_message", timestamp="2026-01-01T00:00:02Z", agent_id="planner", content="Coder, please look.", usage={"input_tokens": 10, "output_tokens": 5})
    b.add("tool_call", timestamp="2026-01-01T00:00:03Z", agent_id="coder", tool_name="read", tool_call_id="c1", args={"path": "a.py"})
    b.add("tool_return", timestamp="2026-01-01T00:00:04Z", tool_call_id="c1", tool_name="read", content="print(1)")
    b.add("system.config_update", timestamp="2026-01-01T00:00:05Z", data={"changes": {"temperature": 0}})
    b.add("assistant_message", timestamp="2026-01-01T00:00:06Z", agent_id="coder", content="Done.", finish_reason="stop", usage={"input_tokens": 20, "output_tokens": 3})
    return b.build()
