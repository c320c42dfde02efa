"""AITP threads as the specification's own examples publish them (tests/fixtures/real/aitp/, see
its README), the account of every message, and what the writer says it cannot keep.

Counts the real-file tests compare against are taken from the raw JSON here, without threadlab."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import threadlab
from threadlab.core.loss import WriteLoss
from threadlab.formats import aitp as fmt

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "real" / "aitp"
REAL_FILES = sorted(REAL.glob("*.json"))


def actors_of(doc: dict[str, Any]) -> list[str]:
    actors = doc["metadata"]["actors"]
    return [a["id"] for a in (json.loads(actors) if isinstance(actors, str) else actors)]


def is_payload(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and "$schema" in value


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name)
def test_spec_examples_read_with_their_counts(path: Path) -> None:
    doc = orjson.loads(path.read_bytes())
    actors = actors_of(doc)
    opener = actors[0]  # who opened the thread speaks as the user (the examples' roles say so where given)
    roles = [m.get("role") or ("user" if m["metadata"]["actor"] == opener else "assistant") for m in doc["messages"]]
    thread = threadlab.read(path)  # auto-detected, strict: no problem at all
    assert thread.origin[1] == "aitp" and thread.thread_id == doc["id"]
    assert sum(a.action_type == "user_message" for a in thread.actions) == roles.count("user")
    assert sum(a.action_type == "assistant_message" for a in thread.actions) == roles.count("assistant")
    assert not any(a.action_type in ("tool_call", "tool_return") for a in thread.actions)  # AITP has none
    assert set(thread.agents) == set(actors)
    spoken = [a.agent_id for a in thread.actions if a.action_type == "assistant_message"]
    assert spoken == [m["metadata"]["actor"] for m, role in zip(doc["messages"], roles, strict=True) if role == "assistant"]
    payloads = sum(is_payload(text) for m in doc["messages"] for text in m["content"])
    parts = [p for a in thread.actions for p in (a.content if isinstance(a.content, list) else []) if getattr(p, "type", None) == "aitp"]
    assert len(parts) == payloads and all(p.model_extra["schema"].startswith("https://aitp.dev/") for p in parts)
    assert (thread.account.records, thread.account.unconverted) == (len(doc["messages"]), 0)
    assert int(threadlab.load(path, progress=False).threads["n_records"].sum()) == len(doc["messages"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", WriteLoss)
        assert orjson.loads(fmt.from_thread(thread)) == doc  # written back as published, role-less messages too


def test_writer_names_what_aitp_cannot_hold() -> None:
    other = threadlab.read(ROOT / "data" / "threadprotocol" / "research_team.thread.json", format="threadprotocol")
    with pytest.warns(WriteLoss) as caught:
        doc = orjson.loads(fmt.from_thread(other))
    (loss,) = [w.message for w in caught if isinstance(w.message, WriteLoss)]
    lost = " ".join(loss.lost)
    for what in ("sub-second message times", "usage figures", "model/provider names", "media or other content parts"):
        assert what in lost, what
    # who spoke survives: each actor carries its name when the id does not give it
    names = {a["id"]: a.get("name") for a in doc["metadata"]["actors"]}
    assert {k: names[k] or k for k in names} == {k: a.agent_name for k, a in other.agents.items()}
    back = fmt.from_aitp(doc)
    assert {a.agent_name for a in back.agents.values()} == {a.agent_name for a in other.agents.values()}
    hub = fmt.to_aitp(other, shape="hub")
    assert json.loads(hub["thread"]["metadata"]["agent_names"])  # hub metadata holds strings: a JSON object
    assert {a.agent_name for a in fmt.from_aitp(hub).agents.values()} == {a.agent_name for a in other.agents.values()}


_MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system", "tool"]), "content": st.one_of(st.lists(st.text(max_size=6), max_size=2), st.text(max_size=4), st.none())},
        optional={"created_at": st.one_of(st.integers(-(10**12), 10**12), st.text(max_size=4)), "metadata": st.one_of(st.none(), st.fixed_dictionaries({}, optional={"actor": st.text(max_size=4), "message_type": st.sampled_from(["agent:log", "system:output_file", ""])}))},
    ),
    st.integers(),
    st.text(max_size=3),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_MESSAGE, max_size=8))
def test_any_message_list_is_accounted_for(messages: list[Any]) -> None:
    thread = fmt.from_aitp({"id": "t", "metadata": {"actors": []}, "messages": messages})
    assert thread.account.records == len(messages)
    assert thread.account.failed == sum(not isinstance(m, dict) for m in messages)
    assert len(thread.problems) >= thread.account.unconverted
