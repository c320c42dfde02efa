"""A session made only of sidechain lines is a subagent's conversation, not a person's.

Claude Code writes ``isSidechain: true`` on the lines of a subagent's conversation with the agent
that launched it (a ``Task``/``Agent`` call): its first user message is the prompt that agent
wrote (``userType`` says "external" all the same). Older CLIs wrote those lines without an
``agentId``. The transcript route read such lines as a subagent's (``split_sidechains``); the
stream route (a file whose lines carry ``session_id``, as stream-json and Agent Sessions' mixed
fixture ``agent-sessions-small/small.jsonl`` do) read them as the session's main agent, so the
launching agent's prompt counted as a person's (``threads.n_human_prompts`` 1 where the raw
counter, ``tests/claude_raw.py``, says 0). Built from a real 2.1.17 subagent transcript: its
lines as they are, without ``agentId``, and with ``session_id``, each way read alone."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from tests import claude_raw

SUB = (Path(__file__).resolve().parent / "fixtures" / "real" / "claude" / "cli-2.1.17-subagents-without-sidecar"
       / "29ccd257-68b1-427f-ae5f-6524b7cb6f20" / "subagents" / "agent-a2271d1.jsonl")


@pytest.mark.parametrize("anonymous", [False, True], ids=["agentId", "no-agentId"])
@pytest.mark.parametrize("stream", [False, True], ids=["transcript", "session_id"])
def test_a_session_of_sidechain_lines_alone_has_no_human_prompt(stream: bool, anonymous: bool, tmp_path: Path) -> None:
    lines = [orjson.loads(line) for line in SUB.read_bytes().splitlines() if line.strip()]
    assert all(line.get("isSidechain") is True for line in lines)
    for line in lines:
        if anonymous:
            line.pop("agentId", None)
        if stream and "sessionId" in line:
            line["session_id"] = line["sessionId"]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(line) for line in lines) + b"\n")
    raw = claude_raw.raw_counts(path)
    frames = tl.load(path, workers=1, progress=False)
    assert frames.threads["n_human_prompts"].sum() == raw["prompts"] == 0
    prompts = frames.actions[frames.actions["action_type"] == "user_message"]
    assert len(prompts) >= 1 and set(prompts["author"]) == {"agent"}  # the launching agent's prompt
    thread = tl.read(path)
    assert "main" not in {getattr(a, "agent_id", None) for a in thread.actions}  # every action is the subagent's


def test_the_sidechain_files_beside_sessions_are_read_again_when_they_change(tmp_path: Path) -> None:
    """``layout.sidechains_beside`` keeps what a project folder's pre-2.1 ``agent-*.jsonl`` files
    belong to (every session asks); a file rewritten for another session, or one added, is seen."""
    from threadlab.formats.claude.layout import subagent_files

    def line(session: str) -> bytes:
        return orjson.dumps({"type": "user", "sessionId": session, "isSidechain": True, "uuid": "u1",
                             "message": {"role": "user", "content": "hi"}}) + b"\n"

    def settle(path: Path, seconds_ago: int) -> None:  # as a folder last changed long ago (kept, not read again)
        moment = time.time() - seconds_ago
        os.utime(path, (moment, moment))

    for session in ("s1", "s2"):
        (tmp_path / f"{session}.jsonl").write_bytes(line(session))
    agent = tmp_path / "agent-a.jsonl"
    agent.write_bytes(line("s1"))
    settle(agent, 100)
    settle(tmp_path, 100)
    names = lambda session: [f.path.name for f in subagent_files(tmp_path / f"{session}.jsonl")]  # noqa: E731
    assert (names("s1"), names("s2")) == (["agent-a.jsonl"], [])
    agent.write_bytes(line("s2") + b"\n")  # rewritten in place: another session's now
    settle(agent, 50)
    assert (names("s1"), names("s2")) == ([], ["agent-a.jsonl"])
    (tmp_path / "agent-b.jsonl").write_bytes(line("s1"))
    settle(tmp_path / "agent-b.jsonl", 40)
    settle(tmp_path, 40)
    assert (names("s1"), names("s2")) == (["agent-b.jsonl"], ["agent-a.jsonl"])
