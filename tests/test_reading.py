"""threadlab.read / read_all / load on good and bad input: every error names the file, the line
or sequence, and the rule; lenient reading keeps every valid action."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

import threadlab as tl
from threadlab.core import InvalidAction
from threadlab.formats.common.source import Source

from .test_core import DATA, minimal

GOOD = DATA / "research_team.thread.json"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def error_of(source: object, **kw: object) -> tl.ThreadError:
    with pytest.raises(tl.ThreadError) as err:
        tl.read(source, **kw)
    return err.value


# --- the source kinds ---------------------------------------------------------------------------


def test_read_accepts_path_str_bytes_text_dict_and_stream() -> None:
    expected = tl.dumps(tl.read(GOOD))
    raw = GOOD.read_bytes()
    for source in (GOOD, str(GOOD), raw, raw.decode(), orjson.loads(raw), io.BytesIO(raw), io.StringIO(raw.decode())):
        assert tl.dumps(tl.read(source)) == expected
    assert tl.read(GOOD).origin == (str(GOOD), "threadprotocol")


def test_read_all_reads_arrays_and_json_lines(tmp_path: Path) -> None:
    one, two = (orjson.loads(p.read_bytes()) for p in (GOOD, DATA / "approval_pending.thread.json"))
    array = write(tmp_path, "both.json", orjson.dumps([one, two]))
    lines = write(tmp_path, "both.jsonl", orjson.dumps(one) + b"\n" + orjson.dumps(two) + b"\n")
    for path in (array, lines):
        threads = tl.read_all(path)
        assert [t.thread_id for t in threads] == [one["thread_id"], two["thread_id"]]
    err = error_of(array)
    assert "holds 2 threads; use threadlab.read_all" in str(err)


# --- bad input ------------------------------------------------------------------------------------


def test_malformed_json_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.json", b'{\n  "thread_id": "x",\n  "actions": [}\n')
    err = error_of(path)
    (problem,) = err.problems
    assert problem.rule == "json" and problem.line == 3 and problem.source == str(path)
    assert "bad.json" in str(err) and "line 3" in str(err)


def test_truncated_file_says_so(tmp_path: Path) -> None:
    path = write(tmp_path, "cut.json", GOOD.read_bytes()[:-200])
    err = error_of(path)
    assert err.problems[0].rule == "json"
    assert "truncated" in str(err) and "cut.json" in str(err)


def test_wrong_type_and_missing_field_name_the_action(tmp_path: Path) -> None:
    doc = minimal()
    doc["actions"][1]["tool_name"] = 42
    del doc["actions"][3]["content"]
    path = write(tmp_path, "types.json", orjson.dumps(doc))
    err = error_of(path)
    messages = [str(p) for p in err.problems]
    assert any("sequence 2" in m and "tool_name" in m and "[schema]" in m for m in messages)
    assert any("sequence 4" in m and "content" in m and "Field required" in m for m in messages)
    assert all("types.json" in m for m in messages)
    # lenient: the thread is kept, every valid action is a normal action, the broken ones kept as they came
    thread = tl.read(path, strict=False)
    assert len(thread.actions) == 4
    assert [type(a).__name__ for a in thread.actions] == ["UserMessage", "InvalidAction", "ToolReturn", "InvalidAction"]
    assert isinstance(thread.actions[1], InvalidAction)
    assert orjson.loads(tl.dumps(thread))["actions"][1]["tool_name"] == 42


def test_unknown_core_action_type_is_reported_and_kept(tmp_path: Path) -> None:
    doc = minimal()
    doc["actions"][3]["action_type"] = "assistant_reply"
    err = error_of(write(tmp_path, "kind.json", orjson.dumps(doc)))
    assert [(p.rule, p.sequence) for p in err.problems] == [("action-type-name", 4)]
    assert "'assistant_reply'" in str(err)


@pytest.mark.parametrize(
    ("change", "rule", "sequence"),
    [
        (lambda d: d["actions"][2].__setitem__("sequence", 2), "sequence-order", 2),
        (lambda d: d["actions"].__setitem__(2, {**d["actions"][2], "sequence": 9}), "sequence-order", 9),
        (lambda d: d["actions"][2].__setitem__("tool_call_id", "nope"), "tool-call-match", 3),
        (lambda d: d["actions"][3].__setitem__("agent_id", "ghost"), "agent-ref", 4),
    ],
)
def test_rule_breaks_in_files_name_file_sequence_and_rule(tmp_path: Path, change, rule: str, sequence: int) -> None:
    doc = minimal()
    change(doc)
    path = write(tmp_path, "rules.json", orjson.dumps(doc))
    err = error_of(path)
    assert [(p.rule, p.sequence, p.source) for p in err.problems] == [(rule, sequence, str(path))]
    assert len(tl.read(path, strict=False).actions) == 4


def test_non_utf8_file(tmp_path: Path) -> None:
    data = orjson.dumps(minimal()).replace(b'"hi"', b'"h\xffi"')
    err = error_of(write(tmp_path, "latin.json", data))
    assert err.problems[0].rule == "encoding" and "not UTF-8" in str(err) and "latin.json" in str(err)


def test_empty_file_and_missing_file(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "empty.json", b""), format="threadprotocol")
    assert err.problems[0].rule == "empty" and "empty.json is empty" in str(err)
    err = error_of(write(tmp_path, "blank.json", b"  \n"))
    assert err.problems[0].rule in ("empty", "format") and "blank.json" in str(err)
    err = error_of(tmp_path / "nope.json", format="threadprotocol")
    assert "nope.json" in str(err) and "no such file" in str(err)


def test_not_a_thread_at_all(tmp_path: Path) -> None:
    err = error_of(write(tmp_path, "other.json", b'{"hello": "world"}'))
    assert err.problems[0].rule == "format" and "other.json" in str(err)


def test_a_200_mb_file_is_read_and_a_truncated_one_reported(tmp_path: Path) -> None:
    doc = minimal()
    text = "word " * 2000  # 10 KB of text per message
    actions = [{"action_type": "user_message", "timestamp": "2026-01-01T00:00:01Z", "sequence": i + 1, "content": text}
               for i in range(20_000)]
    doc["actions"] = actions
    data = orjson.dumps(doc)
    assert len(data) > 200_000_000
    big = write(tmp_path, "big.json", data)
    thread = tl.read(big)
    assert len(thread.actions) == 20_000
    del thread
    cut = write(tmp_path, "big-cut.json", data[: len(data) // 2])
    err = error_of(cut)
    assert err.problems[0].rule == "json" and "big-cut.json" in str(err) and "truncated" in str(err)


# --- folders ---------------------------------------------------------------------------------------


def test_folder_with_a_broken_file_loads_the_rest(tmp_path: Path) -> None:
    for path in DATA.glob("*.json"):
        write(tmp_path, path.name, path.read_bytes())
    write(tmp_path, "zz-broken.json", b'{"thread_id": "x", "actions": [')
    frames = tl.load(tmp_path, progress=False)
    good = [p for p in DATA.glob("*.json")]
    assert len(frames.threads) == len(good)
    broken = frames.problems[frames.problems["source"].astype(str).str.endswith("zz-broken.json")]
    assert list(broken["rule"]) == ["json"]
    invalid = frames.problems[frames.problems["source"].astype(str).str.contains("invalid-")]
    assert set(invalid["rule"]) == set(tl.core.VALIDATION_RULES)
    with pytest.raises(tl.ThreadError) as err:
        tl.load(tmp_path, strict=True, progress=False)
    assert "zz-broken.json" in str(err.value) and "invalid-one_of_each_rule" in str(err.value)


def test_source_sniffing_does_not_read_whole_files() -> None:
    src = Source(GOOD)
    assert src.head(16) == GOOD.read_bytes()[:16]
    assert src._data is None  # sniffing left the file unread
