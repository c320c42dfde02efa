"""Who wrote what, as the widgets show it: a person's prompt, a harness turn, an interrupt.

A ``user_message`` is what was sent in the user's role; the harness around an agent writes
there too (Codex's ``<environment_context>``, Claude Code's interrupt markers and hook
feedback). The widgets must not draw those as the person's prompts: the transcript mutes and
labels them, the timeline gives them a lane of their own (an interrupt stays on the user's lane,
it is the person's act, with a marker of its own), the comparisons align runs on human turns.
One place decides, for a Thread's action (``core.authors``) and for rows of the actions frame
(its ``author`` and ``harness_kind`` columns, missing in frames saved before they existed)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from threadlab.core.authors import INTERRUPT, author_of, harness_kind_of
from threadlab.widgets.inputs import objects as _objects

INTERRUPT_LABEL = "interrupted by the user"  # after a stop square drawn in CSS (⏹ is missing from many fonts)


def harness_label(kind: Any) -> str:
    """``harness · environment context`` (plain text; escape before use)."""
    return f"harness · {str(kind).replace('_', ' ')}" if kind else "harness"


def who_wrote(action: Any) -> tuple[str | None, str | None]:
    """(author, harness kind) of a Thread's action."""
    metadata = getattr(action, "metadata", None)
    return author_of(getattr(action, "action_type", None), metadata), harness_kind_of(metadata)


def is_human_prompt(action: Any) -> bool:
    """A user message a person wrote (what "how many prompts did I type" counts)."""
    return getattr(action, "action_type", None) == "user_message" and who_wrote(action)[0] == "human"


def author_columns(acts: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The author and harness_kind of each row of an actions frame as object arrays (None where
    missing); the kind's default author when the frame predates the columns."""
    n = len(acts)
    if "author" in acts.columns:
        authors = _objects(acts["author"])
    else:
        authors = np.array([author_of(k, None) for k in _objects(acts["action_type"])], dtype=object).reshape(n)
    kinds = _objects(acts["harness_kind"]) if "harness_kind" in acts.columns else np.full(n, None, dtype=object)
    return authors, kinds


def _is(acts: pd.DataFrame, column: str, values: Any) -> np.ndarray:
    """Rows whose ``column`` is one of ``values`` (vectorised on the categorical column; a
    million rows are compared as codes, not strings)."""
    if column not in acts.columns:
        return np.zeros(len(acts), dtype=bool)
    return acts[column].isin(values).to_numpy(dtype=bool)


def row_masks(acts: pd.DataFrame) -> dict[str, np.ndarray]:
    """Boolean masks over the rows: ``harness`` (every row the harness wrote, interrupts
    included), ``interrupt``, ``human_prompt`` (user messages a person wrote; in frames that
    predate the ``author`` column, every user message)."""
    harness = _is(acts, "author", ["harness"])
    interrupt = harness & _is(acts, "harness_kind", [INTERRUPT])
    user_message = _is(acts, "action_type", ["user_message"])
    prompt = user_message & _is(acts, "author", ["human"]) if "author" in acts.columns else user_message
    return {"harness": harness, "interrupt": interrupt, "human_prompt": prompt}


def who_text(acts: pd.DataFrame) -> np.ndarray:
    """Per row, who wrote it, for hover labels (plain text): the agent's name, else
    ``harness · <kind>``, ``human``, ``agent`` ... (the author), else the row's role."""
    authors, kinds = author_columns(acts)
    names = _objects(acts["agent_name"])
    fallback = np.where(pd.isna(authors), _objects(acts["role"]), authors)
    out = np.where(pd.isna(names), fallback, names).astype(object)
    harness = authors == "harness"
    out[harness] = [harness_label(k) for k in kinds[harness]]
    return out


def lane_masks(acts: pd.DataFrame) -> dict[str, np.ndarray]:
    """Which timeline lane each row goes on: ``user`` (the person's messages, and interrupts:
    the person's act, which the harness recorded), ``harness`` (every other harness turn, in
    the user's role or a system action), ``agent``, ``system``; and ``interrupt``."""
    masks = row_masks(acts)
    harness, interrupt = masks["harness"], masks["interrupt"]
    return {
        "user": (_is(acts, "role", ["user"]) & ~harness) | interrupt,
        "interrupt": interrupt,
        "harness": harness & ~interrupt,
        "agent": _is(acts, "role", ["agent"]) & ~harness,
        "system": _is(acts, "role", ["system", "other"]) & ~harness,
    }
