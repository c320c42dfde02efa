"""``threadlab convert`` writes only inside the folder it is given (issue 13): each thread went
to ``<out>/<thread_id><suffix>``, and the id comes from the input, so ``../../x`` or ``/abs/x``
escaped. File names are now a slug and a hash of the id (``core/filenames.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab as tl
from threadlab import ThreadBuilder
from threadlab.core.filenames import thread_file_name


def thread_doc(thread_id: str) -> dict[str, object]:
    b = ThreadBuilder(thread_id, title=f"thread {len(thread_id)}")
    agent = b.agent("A")
    b.add("user_message", content="hi")
    b.add("assistant_message", agent_id=agent, content=f"id of {len(thread_id)} characters")
    return {**b.build().to_dict(), "thread_id": thread_id}  # (the builder makes up an id for "")


def every_file(root: Path) -> set[Path]:
    return {Path(folder) / name for folder, _, names in os.walk(root) for name in names}


def test_hostile_thread_ids_stay_inside_the_output_folder(tmp_path: Path) -> None:
    escape = tmp_path / "escaped" / "x"
    ids = ["../../x", "../x", str(escape), "/tmp/threadlab-abs-x", "", ".", "..", "a/b\\c", "x" * 5000,
           "été 東京 run ✓", "research_team", "research_team"]  # the last twice: both kept
    source = tmp_path / "in" / "threads.json"
    source.parent.mkdir()
    source.write_bytes(orjson.dumps([thread_doc(i) for i in ids]))
    work = tmp_path / "work" / "deeper"
    work.mkdir(parents=True)
    before = every_file(tmp_path)
    for out in ("out", None):  # a folder given, and none (the current folder)
        args = ["convert", str(source), *(["-o", out] if out else [])]
        done = subprocess.run([sys.executable, "-m", "threadlab", *args], cwd=work, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    folder, here = work / "out", work
    written = every_file(tmp_path) - before
    assert {p.parent for p in written} == {folder, here}, written  # nothing anywhere else
    assert not escape.with_suffix(".json").exists() and not Path("/tmp/threadlab-abs-x.json").exists()
    for where in (folder, here):
        files = sorted(where.glob("*.json"))
        assert len(files) == len(ids)
        assert all(len(p.name) < 100 for p in files)
        read_back = sorted(tl.read(p).thread_id for p in files)
        assert read_back == sorted(ids)  # every thread written, none overwritten


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text(max_size=300))
def test_a_file_name_is_never_a_path(thread_id: str) -> None:
    name = thread_file_name(thread_id, ".json")
    assert name == os.path.basename(name) and name not in (".", "..") and "/" not in name and "\\" not in name
    assert name.endswith(".json") and len(name) <= 80 and name.isascii()
    assert (Path("/out") / name).parent == Path("/out")
    assert thread_file_name(thread_id + "x", ".json") != name


def test_a_one_thread_file_converted_into_an_existing_folder_goes_inside_it(tmp_path: Path) -> None:
    """``-o EXISTING_FOLDER`` on a one-thread file ended in an ``IsADirectoryError`` traceback
    (issue 24 §7): the thread is written into the folder, its file named from its id by
    ``thread_file_name`` (never the id itself, nor the input's name)."""
    source = tmp_path / "in.json"
    source.write_bytes(orjson.dumps(thread_doc("../../one")))
    folder = tmp_path / "out"
    folder.mkdir()
    for to, suffix in (("threadprotocol", ".json"), ("pydantic-ai", ".json"), ("claude-code", ".jsonl")):
        done = subprocess.run([sys.executable, "-m", "threadlab", "convert", str(source), "--to", to, "-o", str(folder)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        target = folder / thread_file_name("../../one", suffix)
        assert target.is_file() and f"wrote {target}" in done.stderr
        assert tl.read(target, to).actions
    assert {p.parent for p in every_file(tmp_path)} == {tmp_path, folder}
