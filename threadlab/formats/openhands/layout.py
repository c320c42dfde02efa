"""Which files of an OpenHands folder a walk reads together: a V1 conversation (``<id>/`` holding
``base_state.json`` and ``events/``) is read from ``base_state.json`` with its events; an
``events/`` folder with no ``base_state.json`` beside it (V0's session store
``sessions/<sid>/events/<n>.json``) from its first event file, the others with it. A V0 session's
other files beside its events (``metadata.json``, pickles, the ``event_cache/`` pages that repeat the
events) and a V1 conversation's other entries (``observations/``) are listed, not read; so are an
OpenHands home's settings, secrets and whatever else lies beside its ``conversations/`` /
``sessions/``."""

from __future__ import annotations

import os
from collections.abc import Sequence

from threadlab.formats.common.registry import FolderPlan
from threadlab.formats.openhands.wire import BASE_STATE, EVENTS, event_files

# a V0 session's files beside events/ (openhands/storage/locations.py, event_store.py)
_SESSION = {
    "metadata.json": "an OpenHands session's metadata (title, repository, times; the events are read from events/)",
    "init.json": "an OpenHands session's start settings (not a conversation)",
    "llm_registry.json": "an OpenHands session's LLM registry (not a conversation)",
    "exp_config.json": "an OpenHands session's experiment configuration (not a conversation)",
    "event_cache": "an OpenHands session's event cache (pages of the events in events/: the same events again)",
}
_PICKLE = "an OpenHands session's pickled state (Python objects, not read)"
_HOME_MARKERS = frozenset({"settings.json", "secrets.json", "agent_settings.json", "cli_config.json", "mcp.json"})
_HOME = {
    "settings.json": "an OpenHands home's settings (not a conversation)",
    "secrets.json": "an OpenHands home's secrets store (never opened)",
    "agent_settings.json": "an OpenHands home's agent settings (not a conversation)",
    "cli_config.json": "an OpenHands home's CLI configuration (not a conversation)",
    "mcp.json": "an OpenHands home's MCP server configuration (not a conversation)",
}
_HOME_OTHER = "in an OpenHands home, beside conversations/ and sessions/ (only they hold conversations)"
_CONVERSATION_OTHER = "in an OpenHands conversation folder, beside base_state.json and events/ (only they hold the conversation)"
_CONVERSATION = {"observations": "an OpenHands conversation's saved tool outputs (whole command outputs; the events hold what the model read)"}


def _holds_runs(folder: str) -> bool:
    """Whether a ``conversations/`` or ``sessions/`` folder's first subfolders (up to 8) hold a
    conversation: ``base_state.json`` or an ``events/`` folder."""
    try:
        with os.scandir(folder) as it:
            subfolders = [e.path for e in it if e.is_dir(follow_symlinks=False)][:8]
    except OSError:
        return False
    return any(os.path.isfile(os.path.join(p, BASE_STATE)) or os.path.isdir(os.path.join(p, EVENTS)) for p in subfolders)


def plan_folder(folder: str, entries: Sequence[os.DirEntry[str]]) -> FolderPlan | None:
    """Which entries are read together, and which are listed, in an OpenHands home
    (``~/.openhands``: ``conversations/`` or ``sessions/`` beside its settings), a conversation
    folder, an ``events/`` folder and a V0 session folder."""
    names = {e.name for e in entries}
    stores = names & {"conversations", "sessions"}
    if stores and names & _HOME_MARKERS and any(_holds_runs(os.path.join(folder, n)) for n in stores):
        return FolderPlan(ignore={n: _HOME.get(n, _HOME_OTHER) for n in names - stores})
    if BASE_STATE in names and EVENTS in names and event_files(os.path.join(folder, EVENTS)):
        return FolderPlan(companions={BASE_STATE: (EVENTS,)}, ignore={n: _CONVERSATION.get(n, _CONVERSATION_OTHER) for n in names - {BASE_STATE, EVENTS}})
    if os.path.basename(folder) == EVENTS:  # walked itself (a conversation folder's is read with its base_state.json)
        files = [name for _, name in event_files(folder)]
        return FolderPlan(companions={files[0]: tuple(files[1:])}) if len(files) > 1 else None
    if EVENTS in names and event_files(os.path.join(folder, EVENTS)):
        ignore = {n: why for n, why in _SESSION.items() if n in names}
        ignore.update({n: _PICKLE for n in names if n.endswith(".pkl")})
        return FolderPlan(ignore=ignore) if ignore else None
    return None
