"""Persisting pair threads through the seed's load/save callbacks, and into files."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from threadlab.core.model import Thread
from threadlab.formats.agency_swarm.pairs import merge_pair_threads, pair_key, pair_threads
from threadlab.formats.agency_swarm.reading import from_agency_swarm
from threadlab.formats.agency_swarm.writing import to_agency_swarm

LoadCallback = Callable[[str], Thread | None]
SaveCallback = Callable[[Thread], None]
KeysCallback = Callable[[str], list[str]]


@dataclass
class ThreadStore:
    """The seed's ThreadManager persistence: threads per pair, fetched by key through ``load``
    (None when unknown), written through ``save``; cached in memory.

    ``agency_callbacks(chat_id)`` gives the ``load_threads_callback`` / ``save_threads_callback``
    pair an agency-swarm 1.x ``Agency`` takes, so a running agency persists its chat as pair
    threads (and gets it back) through this store. ``keys`` lists a chat's stored keys."""

    load: LoadCallback | None = None
    save: SaveCallback | None = None
    keys: KeysCallback | None = None
    cache: dict[str, Thread] = field(default_factory=dict, repr=False)

    @staticmethod
    def thread_key(chat_id: str, participant: str, other: str | None = None) -> str:
        return pair_key(chat_id, participant, other)

    def get_thread(self, chat_id: str, agent_name: str, other_participant_name: str | None = None) -> Thread:
        """The pair's thread: from the cache, else from ``load``, else a new empty one."""
        key = self.thread_key(chat_id, agent_name, other_participant_name)
        if key in self.cache:
            return self.cache[key]
        loaded = self.load(key) if self.load is not None else None
        thread = loaded if loaded is not None else Thread(thread_id=key, parent_thread_id=chat_id, metadata={"chat_id": chat_id})
        self.cache[key] = thread
        return thread

    def save_thread(self, thread: Thread) -> None:
        if self.save is not None:
            self.save(thread)
        self.cache[thread.thread_id] = thread

    def save_chat(self, chat: Thread) -> list[str]:
        """Split ``chat`` into its pair threads and save each; returns their keys."""
        pairs = pair_threads(chat)
        for pair in pairs.values():
            self.save_thread(pair)
        return list(pairs)

    def load_chat(self, chat_id: str) -> Thread | None:
        """The whole chat merged back from its stored pair threads (None when none is stored)."""
        keys = self.keys(chat_id) if self.keys is not None else [k for k in self.cache if k.startswith(f"{chat_id}__")]
        pairs = [t for t in (self._fetch(k) for k in keys) if t is not None and t.actions]
        return merge_pair_threads(pairs) if pairs else None

    def _fetch(self, key: str) -> Thread | None:
        if key in self.cache:
            return self.cache[key]
        return self.load(key) if self.load is not None else None

    def agency_callbacks(self, chat_id: str) -> tuple[Callable[[], list[dict[str, Any]]], Callable[[list[dict[str, Any]]], None]]:
        """(load_threads_callback, save_threads_callback) for ``agency_swarm.Agency``."""

        def load_threads() -> list[dict[str, Any]]:
            chat = self.load_chat(chat_id)
            return to_agency_swarm(chat) if chat is not None else []

        def save_threads(items: list[dict[str, Any]]) -> None:
            self.save_chat(from_agency_swarm(items, chat_id=chat_id))

        return load_threads, save_threads


def _file_name(key: str) -> str:
    return quote(key, safe=" -_.@+=,") + ".json"


class FileThreadStore(ThreadStore):
    """A ThreadStore writing one canonical ThreadProtocol JSON file per thread key into
    ``folder`` — files ``threadlab.load(folder)`` reads directly."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        super().__init__(load=self._load_file, save=self._save_file, keys=self._keys)

    def path_of(self, key: str) -> Path:
        return self.folder / _file_name(key)

    def _load_file(self, key: str) -> Thread | None:
        from threadlab.formats.common.reading import read

        path = self.path_of(key)
        return read(path, format="threadprotocol") if path.exists() else None

    def _save_file(self, thread: Thread) -> None:
        from threadlab.core.canonical import write

        target = self.path_of(thread.thread_id)
        partial = target.with_name(target.name + ".tmp")
        write(thread, partial)
        partial.replace(target)  # a reader never sees half a file

    def _keys(self, chat_id: str) -> list[str]:
        prefix = _file_name(f"{chat_id}__").removesuffix(".json")
        found = []
        for path in sorted(self.folder.glob("*.json")):
            if path.name.startswith(prefix):
                found.append(unquote(path.stem))
        return found

    def __repr__(self) -> str:
        return f"FileThreadStore({str(self.folder)!r})"
