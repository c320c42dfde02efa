"""Make data/claude_code/ by running the real Claude Code CLI against a scripted local mock of
the Anthropic Messages API (no network, no key).

The CLI is the one bundled in the PyPI package ``claude-agent-sdk`` (dev extra). It runs with
``CLAUDE_CONFIG_DIR`` in a scratch folder and ``ANTHROPIC_BASE_URL`` at the mock on 127.0.0.1,
so the transcripts it writes under ``<scratch>/projects/`` are genuine; they are then copied
here through ``strip_vendor_text.py`` (the CLI's own prompt text is not ours to commit).

The mock's script: a prompt with ``PLEASE-RUN`` gets thinking, text and three parallel tool
calls (a Bash command that works, one that fails, and an ``Agent`` call); a subagent (its
prompt starts ``SUBAGENT-TASK``) runs one Bash command and reports; any turn that carries
tool results gets a closing text. Usage numbers are made up but consistent.

Usage: ``python data/claude_code/generate.py [OUT [STREAM_DIR]]`` (default OUT: data/claude_code;
STREAM_DIR receives each run's stream-json output).

``python data/claude_code/generate.py --turns OUT`` makes the two sessions of
``tests/fixtures/claude/turns/`` instead, turns the CLI writes in the user's role itself: one with
a ``UserPromptSubmit`` hook that adds context and a ``Stop`` hook that blocks the first stop
(hook attachments, ``Stop hook feedback``, ``stop_hook_summary`` lines), one where the person
interrupts a running tool call through the Agent SDK client (``ClaudeSDKClient.interrupt``: the
rejected call, ``[Request interrupted by user for tool use]``), then prompts again; the mock
streams a ``"\\n\\n"`` text block before that tool call, as models do."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from strip_vendor_text import copy_tree

MODEL = "claude-sonnet-4-5"
_ids = itertools.count(1)


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content or [] if isinstance(b, dict))


def _has_tool_results(message: dict[str, Any]) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def script(body: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """(content blocks, stop_reason) the mock model answers with."""
    messages = body.get("messages") or []
    first = _text_of(messages[0]) if messages else ""
    last = messages[-1] if messages else {}
    n = next(_ids)
    if "SLOW-RUN" in first:  # a long tool call the person interrupts, then a new prompt
        if any(_has_tool_results(m) for m in messages):
            return [{"type": "text", "text": "Hello again."}], "end_turn"
        return [{"type": "text", "text": "\n\n"}, {"type": "tool_use", "id": f"toolu_slow_{n:04d}", "name": "Bash",
                                                   "input": {"command": "sleep 20; echo waited", "description": "Wait"}}], "tool_use"
    if "SUBAGENT-TASK" in first:
        if _has_tool_results(last):
            return [{"type": "text", "text": "Subagent report: 3 files in /tmp/threadlab-demo."}], "end_turn"
        return [{"type": "tool_use", "id": f"toolu_sub_ls_{n:04d}", "name": "Bash",
                 "input": {"command": "ls /tmp/threadlab-demo | wc -l", "description": "Count files"}}], "tool_use"
    if "<task-notification>" in _text_of(last):
        return [{"type": "text", "text": "The subagent counted 3 files."}], "end_turn"
    if _has_tool_results(last):
        return [{"type": "text", "text": "Done: the greeting ran and the missing file was reported."}], "end_turn"
    if "PLEASE-RUN" in first and not any(_has_tool_results(m) for m in messages):
        return [
            {"type": "thinking", "thinking": "Run two commands and delegate the counting.", "signature": "bW9jay1zaWduYXR1cmU="},
            {"type": "text", "text": "Running two commands and delegating the count."},
            {"type": "tool_use", "id": f"toolu_ok_{n:04d}", "name": "Bash", "input": {"command": "echo hello-from-bash", "description": "Greet"}},
            {"type": "tool_use", "id": f"toolu_fail_{n:04d}", "name": "Bash",
             "input": {"command": "cat /tmp/threadlab-demo/missing.txt", "description": "Read a missing file"}},
            {"type": "tool_use", "id": f"toolu_agent_{n:04d}", "name": "Agent",
             "input": {"description": "Count files", "prompt": "SUBAGENT-TASK: count the files in /tmp/threadlab-demo",
                       "subagent_type": "general-purpose", "run_in_background": "SYNC" not in first}},
        ], "tool_use"
    return [{"type": "text", "text": "Hello from the mock."}], "end_turn"


def _usage(body: dict[str, Any], output: int) -> dict[str, Any]:
    size = len(json.dumps(body.get("messages") or []))
    return {"input_tokens": 200 + size // 40, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 5000, "output_tokens": output}


def _events(body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    blocks, stop = script(body)
    mid = f"msg_mock_{next(_ids):04d}"
    usage = _usage(body, 1)
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": {
        "id": mid, "type": "message", "role": "assistant", "model": MODEL, "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": usage}})]
    for index, block in enumerate(blocks):
        kind = block["type"]
        start = {"thinking": {"type": "thinking", "thinking": "", "signature": ""}, "text": {"type": "text", "text": ""},
                 "tool_use": {"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}}}[kind]
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}))
        if kind == "thinking":
            deltas = [{"type": "thinking_delta", "thinking": block["thinking"]}, {"type": "signature_delta", "signature": block["signature"]}]
        elif kind == "text":
            deltas = [{"type": "text_delta", "text": block["text"]}]
        else:
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        events.extend(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d}) for d in deltas)
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 12 * len(blocks) + 6}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


class MockAnthropic(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _json(self, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("request-id", f"req_mock_{next(_ids):04d}")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._json({"data": [{"id": MODEL, "type": "model", "display_name": "Sonnet 4.5"}]})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if "count_tokens" in self.path:
            self._json({"input_tokens": _usage(body, 0)["input_tokens"]})
            return
        events = _events(body)
        if not body.get("stream"):
            start = events[0][1]["message"]
            blocks, stop = script(body)
            self._json({**start, "content": blocks, "stop_reason": stop, "usage": _usage(body, 42)})
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", f"req_mock_{next(_ids):04d}")
        self.end_headers()
        for name, data in events:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()


def _env(server: ThreadingHTTPServer, home: Path) -> dict[str, str]:
    return {**os.environ, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{server.server_port}", "ANTHROPIC_API_KEY": "sk-ant-mock",
            "CLAUDE_CONFIG_DIR": str(home / ".claude"), "HOME": str(home), "IS_SANDBOX": "1", "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}


def _claude(cli: Path, args: list[str], env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run([str(cli), *args, "--output-format", "stream-json", "--verbose", "--model", MODEL,
                           "--permission-mode", "bypassPermissions"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-2000:] + done.stderr[-2000:])
        raise SystemExit(f"claude exited {done.returncode}")
    return done.stdout


def run(out: Path, streams: Path | None) -> None:
    """Two sessions: a background subagent (one turn), a foreground one (two turns, ``--resume``)."""
    import claude_agent_sdk

    cli = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    server = ThreadingHTTPServer(("127.0.0.1", 0), MockAnthropic)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    demo = Path("/tmp/threadlab-demo")
    shutil.rmtree(demo, ignore_errors=True)
    demo.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (demo / name).write_text(name)
    project = Path("/tmp/threadlab-claude/proj")  # its sanitised path names the project folder
    project.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        env = _env(server, home)
        background = _claude(cli, ["-p", "PLEASE-RUN the plan"], env, project)
        foreground = _claude(cli, ["-p", "PLEASE-RUN SYNC the plan"], env, project)
        session = next(json.loads(x)["session_id"] for x in foreground.splitlines() if x.strip())
        resumed = _claude(cli, ["-p", "thanks, anything else?", "--resume", session], env, project)
        server.shutdown()
        target = out / "projects"
        shutil.rmtree(target, ignore_errors=True)
        copy_tree(home / ".claude" / "projects", target)
        if streams is not None:
            for name, text in (("background", background), ("foreground", foreground), ("resumed", resumed)):
                raw = home / f"{name}.stream.jsonl"
                raw.write_text(text)
                copy_tree(raw, streams / raw.name)
    shutil.rmtree(demo, ignore_errors=True)
    shutil.rmtree(project.parent, ignore_errors=True)


# the hook both hook events run: context for a prompt, a block of the first stop (not of the stop after it)
_HOOK = """import json, sys
event = json.load(sys.stdin)
if event.get("hook_event_name") == "UserPromptSubmit":
    print("HOOK-CONTEXT: the project indents with tabs.")
elif event.get("hook_event_name") == "Stop" and not event.get("stop_hook_active"):
    print(json.dumps({"decision": "block", "reason": "HOOK-FEEDBACK: run the check before you stop."}))
"""


async def _interrupted(cli: Path, env: dict[str, str], cwd: Path) -> None:
    """A prompt whose tool call the person interrupts a moment after it starts, then another prompt."""
    from claude_agent_sdk import AssistantMessage, ClaudeAgentOptions, ClaudeSDKClient, ResultMessage, ToolUseBlock

    options = ClaudeAgentOptions(cli_path=str(cli), cwd=str(cwd), env=env, model=MODEL, permission_mode="bypassPermissions")
    async with ClaudeSDKClient(options=options) as client:
        await client.query("SLOW-RUN wait for me")
        async for message in client.receive_messages():
            if isinstance(message, AssistantMessage) and any(isinstance(b, ToolUseBlock) for b in message.content):
                await asyncio.sleep(1.5)
                await client.interrupt()
            if isinstance(message, ResultMessage):
                break
        await client.query("fine, just say hello")
        async for _ in client.receive_response():
            pass


def run_turns(out: Path) -> None:
    """The hooks session (``claude -p``) and the interrupted one (the SDK client), see the module doc."""
    import claude_agent_sdk

    cli = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    server = ThreadingHTTPServer(("127.0.0.1", 0), MockAnthropic)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    project = Path("/tmp/threadlab-claude/turns")
    project.mkdir(parents=True, exist_ok=True)
    hook = project.parent / "hook.py"
    hook.write_text(_HOOK)
    with tempfile.TemporaryDirectory() as scratch:
        home = Path(scratch)
        (home / ".claude").mkdir()
        command = {"type": "command", "command": f"python3 {hook}"}
        settings = {"hooks": {"UserPromptSubmit": [{"hooks": [command]}], "Stop": [{"hooks": [command]}]}}
        (home / ".claude" / "settings.json").write_text(json.dumps(settings))
        env = _env(server, home)
        hooked = _claude(cli, ["-p", "hello there"], env, project)
        (home / ".claude" / "settings.json").write_text("{}")
        asyncio.run(asyncio.wait_for(_interrupted(cli, env, project), 120))
        server.shutdown()
        shutil.rmtree(out / "projects", ignore_errors=True)
        copy_tree(home / ".claude" / "projects", out / "projects")
        raw = home / "hooks.stream.jsonl"
        raw.write_text(hooked)
        copy_tree(raw, out / raw.name)
    shutil.rmtree(project.parent, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--turns"]:
        run_turns(Path(sys.argv[2]))
    else:
        run(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent, Path(sys.argv[2]) if len(sys.argv) > 2 else None)
