"""Trainings one session made, for another that asks for the same: a classroom opening one link trains once.

Pure: no Streamlit here. The server keeps one `SharedTrainings` (the store's). It holds weak
references only, so a bundle lives as long as some session keeps it (each session charges it to
its own budget, as if it had trained it), never longer: closing the sessions frees the memory as
before. A training still under way is shared by the worker pool (`WorkerPool.share`).

The key names the work: the corpus's digest and the request's key, so equal keys mean equal
results (training is deterministic: same corpus and settings, same merges).
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Hashable

from explorer.data.training import Trained


class SharedTrainings:
    """Bundles by key, with the memory each was charged at, for as long as a session keeps them."""

    def __init__(self) -> None:
        self._held: dict[Hashable, tuple[weakref.ref, int]] = {}
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> tuple[Trained, int] | None:
        """The bundle for `key` and its memory, if some session still holds it."""
        with self._lock:
            entry = self._held.get(key)
        if entry is None:
            return None
        trained = entry[0]()
        return None if trained is None else (trained, entry[1])

    def put(self, key: Hashable, trained: Trained, memory: int) -> None:
        """Offer a bundle to the other sessions (and forget the ones nobody holds any more)."""
        with self._lock:
            for gone in [k for k, (ref, _) in self._held.items() if ref() is None]:
                del self._held[gone]
            self._held[key] = (weakref.ref(trained), memory)

    def __len__(self) -> int:
        """How many bundles some session still holds."""
        with self._lock:
            return sum(ref() is not None for ref, _ in self._held.values())
