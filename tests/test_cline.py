"""Cline task folders: the api history read with its UI log, a UI log alone, older histories
detected by their tags, and a broken UI log costing only itself."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

import threadlab as tl
from threadlab.formats import detect_format
from threadlab.formats.common.source import Source

TASK = Path(__file__).parent / "fixtures" / "cline" / "1732000000000"
HISTORY = TASK / "api_conversation_history.json"


def test_the_ui_log_gives_each_request_usage_to_the_message_it_answered() -> None:
    thread = tl.read(HISTORY, strict=False)
    assert thread.account.converted == 8 + 20 + 1  # messages, UI records, task metadata
    answers = [a for a in thread.actions if a.action_type == "assistant_message"]
    first = answers[0].usage
    assert first is not None and (first.input_tokens, first.output_tokens, first.cache_write_tokens) == (2012, 40, 2000)
    assert thread.metadata["cost_usd"] == 0.0163
    kinds = [a.data["say"] for a in thread.actions if a.action_type == "system.cline_ui"]
    assert kinds == ["checkpoint_created", "error", "api_req_failed"]


def test_tool_answers_in_text_are_the_returns_of_their_calls() -> None:
    thread = tl.read(HISTORY, strict=False)
    returns = {a.tool_call_id: a for a in thread.actions if a.action_type == "tool_return"}
    assert set(returns) == {"toolu_01", "toolu_02", "toolu_03", "toolu_04"}
    assert returns["toolu_03"].metadata["cline"]["derived"] is True
    prompts = [a.content for a in thread.actions if a.action_type == "user_message" and "author" not in (a.metadata or {})]
    assert prompts[0].startswith("<task>") and prompts[-1].startswith("<feedback>")


def test_a_history_without_ts_is_told_by_its_task_tag(tmp_path: Path) -> None:
    history = [{k: v for k, v in m.items() if k != "ts"} for m in orjson.loads(HISTORY.read_bytes())]
    path = tmp_path / "api_conversation_history.json"
    path.write_bytes(orjson.dumps(history))
    assert detect_format(Source(path)).NAME == "cline"
    shutil.copyfile(TASK / "ui_messages.json", tmp_path / "ui_messages.json")
    answer = next(a for a in tl.read(path, strict=False).actions if a.action_type == "assistant_message")
    assert answer.timestamp.timestamp() == 1732000002.0  # the time of the request it answered (record 3)


def test_a_broken_ui_log_costs_only_itself(tmp_path: Path) -> None:
    task = tmp_path / "1732000000000"
    shutil.copytree(TASK, task)
    (task / "ui_messages.json").write_bytes(b'[{"ts": 1, "type": "say", "say": "ta')
    before = {p.name: p.read_bytes() for p in task.iterdir()}
    thread = tl.read(task / "api_conversation_history.json", strict=False)
    assert [p.rule for p in thread.problems if p.rule == "io"] == ["io"]
    assert len([a for a in thread.actions if a.action_type == "tool_call"]) == 4
    assert {p.name: p.read_bytes() for p in task.iterdir()} == before


def test_a_task_folder_loads_as_one_thread_and_lists_what_it_does_not_read() -> None:
    frames = tl.load(TASK)
    assert list(frames.threads["thread_id"]) == ["1732000000000"]
    assert [Path(p).name for p in frames.skipped["path"]] == ["context_history.json"]
    assert frames.threads["n_human_prompts"].iloc[0] == 3 and frames.threads["n_harness_turns"].iloc[0] == 4


CLI = Path(__file__).parent / "fixtures" / "cline" / "cline-3.0.65" / "data"


def test_the_cli_sessions_count_as_the_raw_counter_says() -> None:
    from tests.wild.compare import disagreements

    files = sorted(CLI.rglob("*.messages.json"))
    assert len(files) == 2
    assert all(disagreements(f, "cline") == {} for f in files)


def test_a_cli_session_keeps_its_run_beside_it() -> None:
    frames = tl.load(CLI, progress=False)
    assert len(frames.threads) == 2 and set(frames.threads["format"]) == {"cline"}
    thread = tl.read(sorted(CLI.rglob("*.messages.json"))[0], strict=False)
    assert thread.metadata["cline"]["session"]["status"] == "completed"
    assert thread.account.converted == 4 + 1  # four messages and the run's <id>.json


def test_a_file_block_is_the_harnesss_attachment() -> None:
    """Cline's SDK sends a file the person named as a ``file`` block (``FileContent``: its path and
    the text the CLI read); Cline's own session fixture starts with one."""
    session = Path(__file__).parent / "fixtures" / "real" / "cline" / "cline-sdk-session"
    thread = tl.read(session / "session.messages.json")
    attached = [a for a in thread.actions if (a.metadata or {}).get("harness") == "attachment"]
    assert len(attached) == 1 and attached[0].action_type == "user_message" and attached[0].metadata["author"] == "harness"
    assert attached[0].metadata["cline"]["block"]["path"].endswith("agent-sidebar.tsx")
    assert attached[0].content.startswith('"use client"')
    assert not any(a.action_type == "system.unknown_block" for a in thread.actions) and thread.problems == []


def test_a_cli_sessions_unmarked_text_is_the_persons() -> None:
    """The mid-2026 CLI sent what the person typed unwrapped (no ``<user_input>``) and marks its
    own texts, but its compaction summary (``Context summary:``): Cline's own fixtures."""
    real = Path(__file__).parent / "fixtures" / "real" / "cline"
    frames = tl.load(real, progress=False)
    by_file = frames.threads.set_index(frames.threads.source.map(lambda s: Path(s).name))
    assert by_file.loc["session.messages.json", ["n_human_prompts", "n_harness_turns"]].tolist() == [5, 1]
    assert by_file.loc["cline-sdk-basic.compaction.json", ["n_human_prompts", "n_harness_turns"]].tolist() == [5, 4]  # <SYSTEM_NOTICE>s
    summary = frames.actions[frames.actions.source.str.endswith("agentic.compaction.json") & (frames.actions.author == "harness")]
    assert summary.harness_kind.tolist() == ["compaction_summary"]
