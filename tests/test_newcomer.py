"""What a newcomer tripped on (issue 28), each held to what the code does: the README's counts and
claims, the data folders' READMEs, the names the README uses, an unknown agent's error, and an
agent's ``created_at`` where the source gives none."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from threadlab.formats.common.reading import UnreadFilesWarning
from threadlab.formats.common.registry import FORMATS
from threadlab.loading import cache

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DATA = ROOT / "data"


def _section(text: str, heading: str) -> str:
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def _table_firsts(section: str) -> list[str]:
    """The first cell of each row of the section's first table (header and rule left out)."""
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [row.split("|")[1].strip().strip("`") for row in rows[2:]]


def test_the_intro_counts_the_formats_the_table_lists() -> None:
    counted = re.search(r"in (\d+) formats \(the table below", README)
    assert counted and int(counted.group(1)) == len(FORMATS)
    listed = [name.split("`")[0] for name in _table_firsts(_section(README, "## Formats"))]
    assert sorted(listed) == sorted(spec.name for spec in FORMATS)


def test_the_notebook_table_lists_the_notebooks() -> None:
    section = _section(README, "## The notebooks")
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert sorted(_table_firsts(section)) == notebooks
    assert f"each of the {['zero', 'one', 'two', 'three', 'four', 'five', 'six'][len(notebooks)]} runs" in section


def test_the_readme_says_what_the_cache_is() -> None:
    """The README said LZ4 Feather and SHA-256; the cache writes uncompressed Arrow IPC files and
    checks them with XXH3-128 (``loading/cache.py``)."""
    assert cache.COMPRESSION == "uncompressed" and "xxh3" in cache.ENTRY_FORMAT
    assert "uncompressed Arrow IPC" in README and "XXH3-128 checksum" in README
    assert "SHA-256 of its files" not in README and "LZ4-compressed" not in README
    for module in ("threadlab/loading/api.py", "threadlab/loading/__init__.py", "docs/DEVELOPING.md"):
        text = (ROOT / module).read_text()
        assert "LZ4 Feather" not in text and "Arrow IPC, LZ4" not in text, module


def test_every_data_folder_has_its_readme_and_its_row() -> None:
    table = _table_firsts((DATA / "README.md").read_text())
    folders = sorted(p.name for p in DATA.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))
    assert sorted(name.rstrip("/") for name in table) == folders
    for folder in folders:
        assert (DATA / folder / "README.md").is_file(), folder


def test_set_static_copies_is_where_the_readme_says() -> None:
    from threadlab.widgets import view

    try:
        tl.widgets.set_static_copies(False)
        assert view._STATE["static"] is False
    finally:
        tl.widgets.set_static_copies(True)


def test_an_unknown_agent_names_the_names_one_can_type() -> None:
    """compare_perspectives listed agent ids (planner, researcher, writer), not the names typed."""
    thread = tl.read(DATA / "threadprotocol" / "research_team.thread.json")
    for call in (lambda: tl.compare_perspectives(thread, "Router", "Researcher"), lambda: tl.perspective(thread, "Router"),
                 lambda: tl.to_openai_chat(thread, agent="Router")):
        with pytest.raises(KeyError) as caught:
            call()
        assert str(caught.value) == f"thread {thread.thread_id} has no agent 'Router'; its agents: 'Planner', 'Researcher', 'Writer'"
        assert isinstance(caught.value, ValueError)
    assert tl.compare_perspectives(thread, "Planner", "researcher") is not None  # a name or an id


def test_an_agent_of_unknown_creation_is_not_made_in_1970(tmp_path: Path) -> None:
    """An AI SDK stream names no agent and no time for it: the agent was written as created
    1970-01-01T00:00:00Z in a thread of 2026. Now it is as old as the thread."""
    source = DATA / "vercel_ai" / "ai6_approval.sse"
    thread = tl.read(source)
    assert thread.created_at is not None and thread.created_at.year == 2026
    assert [a.created_at for a in thread.agents.values()] == [thread.created_at]
    out = tmp_path / "thread.json"
    done = subprocess.run([sys.executable, "-m", "threadlab", "convert", str(source), "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert b"1970" not in out.read_bytes()
    assert {a["created_at"] for a in orjson.loads(out.read_bytes())["agents"].values()} == {"2026-01-05T10:00:00Z"}


@pytest.mark.parametrize("folder", ["data/vercel_ai", "data/aitp", "data/claude_code", "data/pydantic_ai", "data/agency_swarm", "data/telemetry",
                                    "tests/fixtures/codex", "tests/fixtures/real/codex", "tests/fixtures/openai_agents_session"])
def test_no_agent_is_older_than_its_thread(folder: str) -> None:
    """A Codex rollout registers its agent before the first timed line, an Agents SDK session
    before its first item: those agents too were made in 1970."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnreadFilesWarning)  # (fixtures that are no conversation, on purpose)
        threads = tl.read_all(ROOT / folder, strict=False)
    for thread in threads:
        assert thread.created_at is not None
        for agent in thread.agents.values():
            assert not (agent.created_at.year == 1970 and thread.created_at.year != 1970), (thread.origin, agent.agent_id)


def test_an_inspect_log_of_a_thread_without_a_start_says_so() -> None:
    """The Inspect writer's ``created`` fell to 1970 whenever the thread had no ``created_at``,
    even where the log it came from gave one (an operator-precedence slip)."""
    b = tl.ThreadBuilder("t1")
    b.add("user_message", content="hi", timestamp="2026-03-01T10:00:00Z")
    thread = b.build()
    thread.created_at = None
    with pytest.warns(tl.core.WriteLoss):
        log = orjson.loads(tl.formats.get_format("inspect-ai").from_thread(thread))
    assert log["eval"]["created"] == "2026-03-01T10:00:00+00:00"
    thread.metadata = {"inspect_ai": {"created": "2026-02-02T00:00:00+00:00"}}
    with pytest.warns(tl.core.WriteLoss):
        log = orjson.loads(tl.formats.get_format("inspect-ai").from_thread(thread))
    assert log["eval"]["created"] == "2026-02-02T00:00:00+00:00"
