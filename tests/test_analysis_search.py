"""tl.search: exact rows on a thread with a word planted in each field, snippets cut at the
documented width, plain and regular-expression queries, errors that name the position, the same
rows as pandas' str.contains on the bundled data, and hostile text escaped in the HTML."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pandas as pd
import pytest

import threadlab as tl
from tests.analysis_plant import Run

DATA = Path(__file__).resolve().parents[1] / "data"
HOSTILE = "<script>alert('zebra')</script><img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> tl.Frames:
    run = Run("zoo", 3)
    run.prompt("Where is the Zebra report?")  # 1
    run.answer(text="x" * 60 + " zebra " + "y" * 60)  # 2: cut both sides
    run.call(tool="search_web", args={"q": "zebra stripes", "n": 2}, result="ZEBRA found\nline two: zebra")  # 3, 4
    run.answer(text=HOSTILE)  # 5
    run.add("system.log", data={"note": "nothing here"})  # 6
    run.add("thinking", agent_id="main", content="zebras think")  # 7
    run.answer(text="a" * 40 + "zebra")  # 8: exactly 40 characters before, no ellipsis
    folder = tmp_path_factory.mktemp("zoo")
    (folder / "zoo.json").write_bytes(orjson.dumps(run.doc()))
    return tl.load(folder, progress=False)


def _rows(hits: pd.DataFrame) -> list[tuple]:
    return [(int(r.sequence), r.action_type, r.field, r.snippet, r.match, int(r.n_matches)) for r in hits.itertuples()]


def test_plain_search_is_case_insensitive_with_one_row_per_hit(frames: tl.Frames) -> None:
    hits = tl.search(frames, "zebra")
    assert list(hits.columns[:8]) == ["source", "thread_id", "sequence", "action_type", "agent_name", "tool_name", "field", "snippet"]
    assert _rows(hits) == [
        (1, "user_message", "text", "Where is the ⟦Zebra⟧ report?", "Zebra", 1),
        (2, "assistant_message", "text", "…" + "x" * 39 + " ⟦zebra⟧ " + "y" * 39 + "…", "zebra", 1),
        (3, "tool_call", "args", '{"n":2,"q":"⟦zebra⟧ stripes"}', "zebra", 1),
        (4, "tool_return", "result", "⟦ZEBRA⟧ found line two: zebra", "ZEBRA", 2),
        (5, "assistant_message", "text", "<script>alert('⟦zebra⟧')</script><img src=x onerror=alert(1)>", "zebra", 1),
        (7, "thinking", "text", "⟦zebra⟧s think", "zebra", 1),
        (8, "assistant_message", "text", "a" * 40 + "⟦zebra⟧", "zebra", 1),
    ]
    assert set(hits["thread_id"].astype(str)) == {"zoo"}
    assert hits.loc[hits["sequence"] == 3, "tool_name"].tolist() == ["search_web"]
    assert hits.loc[hits["sequence"] == 3, "agent_name"].tolist() == ["Main"]


def test_case_and_fields(frames: tl.Frames) -> None:
    assert tl.search(frames, "Zebra", case=True)["sequence"].tolist() == [1]
    assert tl.search(frames, "zebra", fields="args")["sequence"].tolist() == [3]
    assert tl.search(frames, "zebra", fields=("result", "args"))["sequence"].tolist() == [3, 4]
    with pytest.raises(ValueError, match="fields are some of text, args, result; got 'content'"):
        tl.search(frames, "zebra", fields=("content",))


def test_regular_expressions(frames: tl.Frames) -> None:
    assert _rows(tl.search(frames, r"two: (ze)(bra)$", regex=True)) == [(4, "tool_return", "result", "ZEBRA found line ⟦two: zebra⟧", "two: zebra", 1)]
    assert tl.search(frames, r"zebra\b", regex=True)["sequence"].tolist() == [1, 2, 3, 4, 5, 8]
    assert tl.search(frames, r"^zebras", regex=True, case=True)["sequence"].tolist() == [7]
    # lookbehind: RE2 has none, Python's re runs it, same rows and snippets
    assert _rows(tl.search(frames, r"(?<=the )zebra", regex=True)) == [(1, "user_message", "text", "Where is the ⟦Zebra⟧ report?", "Zebra", 1)]
    assert tl.search(frames, "no such word")["sequence"].tolist() == []


@pytest.mark.parametrize(("query", "message"), [
    ("ze(bra", "bad regular expression 'ze(bra' at position 2: missing ), unterminated subpattern"),
    ("zebra[", "bad regular expression 'zebra[' at position 5: unterminated character set"),
    ("*zebra", "bad regular expression '*zebra' at position 0: nothing to repeat"),
    ("z*", "matches the empty text"),
])
def test_a_bad_regular_expression_names_the_position(frames: tl.Frames, query: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        tl.search(frames, query, regex=True)


def test_plain_text_is_never_a_pattern(frames: tl.Frames) -> None:
    assert tl.search(frames, "ze(bra")["sequence"].tolist() == []
    assert tl.search(frames, "src=x")["sequence"].tolist() == [5]
    with pytest.raises(ValueError, match="the query is empty"):
        tl.search(frames, "")


@pytest.mark.parametrize("query", ["error", "timeout", "Researcher", "{\"", "é"])
def test_the_same_rows_as_pandas_str_contains_on_the_bundled_data(query: str) -> None:
    data = tl.load(DATA, progress=False)
    text = data.actions["text"]
    wanted = text.str.contains(query, case=False, regex=False).fillna(False).to_numpy()
    hits = tl.search(data, query)
    got = data.actions.reset_index(drop=True)[wanted][["source", "thread_id", "sequence"]]
    assert hits[["source", "thread_id", "sequence"]].astype(str).values.tolist() == got.astype(str).values.tolist()


def test_the_html_highlights_the_match_and_escapes_everything(frames: tl.Frames) -> None:
    page = tl.search(frames, "zebra")._repr_html_()
    assert "<mark>zebra</mark>&#x27;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<script>" not in page and "<img" not in page
    assert page.count("<details") == 7
    assert "7 hits for “zebra” in 1 threads" in page
    hostile_query = tl.search(frames, "<script>")._repr_html_()
    assert "“&lt;script&gt;”" in hostile_query and "<script>" not in hostile_query
    # the steps around the hit unfold under it, the hit's own step highlighted
    assert '<tr class="tl-an-in"><td>5</td><td>assistant_message</td>' in page
