"""Harbor's job folders: ``jobs/<job>/{config.json, result.json, <trial>/}``, each trial
``{config.json, result.json, agent/trajectory.json, verifier/…}``. The trajectories are read; the
job's and trials' ``config.json`` and ``result.json`` are no conversation, and a folder walk lists
them as what they are instead of reporting files no format reads.

A trial of an agent whose own record Harbor keeps beside the ATIF it converts from it
(``agent/mini-swe-agent.trajectory.json`` beside ``agent/trajectory.json``) holds one run twice:
the agent's own file is read (it holds what the conversion drops: every message's response and
usage, the config, the cost) and ``trajectory.json`` is listed as its conversion."""

from __future__ import annotations

import os
from collections.abc import Sequence

from threadlab.formats.common.registry import FolderPlan

_TRIAL = {"config.json": "a Harbor trial's configuration, not a conversation", "result.json": "a Harbor trial's result (reward, timings), not a conversation"}
# the agent's own record Harbor keeps beside the ATIF it converts from it → why the ATIF is not read
_NATIVE = {"mini-swe-agent.trajectory.json": "Harbor's ATIF conversion of mini-swe-agent.trajectory.json beside it (the same run, read from the agent's own file)"}
_JOB = {"config.json": "a Harbor job's configuration, not a conversation", "result.json": "a Harbor job's results, not a conversation"}


def _trial(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "agent", "trajectory.json")) and os.path.isfile(os.path.join(path, "config.json"))


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """A trial folder (``agent/trajectory.json`` beside ``config.json``) or a job folder (one of
    its first subfolders a trial): its ``config.json`` and ``result.json`` are listed, not read; an
    ``agent/`` folder holding an agent's own record beside ``trajectory.json``: the ATIF is listed."""
    names = {e.name for e in entries}
    native = next((why for name, why in _NATIVE.items() if name in names), None)
    if native is not None and "trajectory.json" in names:
        return FolderPlan(ignore={"trajectory.json": native})
    if "config.json" not in names:
        return None
    if _trial(folder):
        return FolderPlan(ignore={name: why for name, why in _TRIAL.items() if name in names})
    subfolders = [e.path for e in entries if e.is_dir(follow_symlinks=False)][:8]
    if any(_trial(path) for path in subfolders):
        return FolderPlan(ignore={name: why for name, why in _JOB.items() if name in names})
    return None
