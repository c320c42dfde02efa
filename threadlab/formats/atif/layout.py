"""Harbor's job folders: ``jobs/<job>/{config.json, result.json, <trial>/}``, each trial
``{config.json, result.json, agent/trajectory.json, verifier/…}``. The trajectories are read; the
job's and trials' ``config.json`` and ``result.json`` are no conversation, and a folder walk lists
them as what they are instead of reporting files no format reads."""

from __future__ import annotations

import os
from collections.abc import Sequence

from threadlab.formats.common.registry import FolderPlan

_TRIAL = {"config.json": "a Harbor trial's configuration, not a conversation", "result.json": "a Harbor trial's result (reward, timings), not a conversation"}
_JOB = {"config.json": "a Harbor job's configuration, not a conversation", "result.json": "a Harbor job's results, not a conversation"}


def _trial(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "agent", "trajectory.json")) and os.path.isfile(os.path.join(path, "config.json"))


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """A trial folder (``agent/trajectory.json`` beside ``config.json``) or a job folder (one of
    its first subfolders a trial): its ``config.json`` and ``result.json`` are listed, not read."""
    names = {e.name for e in entries}
    if "config.json" not in names:
        return None
    if _trial(folder):
        return FolderPlan(ignore={name: why for name, why in _TRIAL.items() if name in names})
    subfolders = [e.path for e in entries if e.is_dir(follow_symlinks=False)][:8]
    if any(_trial(path) for path in subfolders):
        return FolderPlan(ignore={name: why for name, why in _JOB.items() if name in names})
    return None
