"""What one session holds, within one memory budget: its corpora, trainings and tokenizer files. Pure.

Each item is charged what it takes in memory (measured, or estimated from its pickled size) when
the session takes it. Over the budget, the oldest items go first, whatever their kind, never the
item just taken; one item alone over the budget is refused before it is kept. The session's
store (`explorer/ui/store.py`) removes what the budget drops from where it lives and says so.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from bpe_core import BPEError

SESSION_BUDGET = 400 * 1024**2  # bytes of memory one session may hold
# kind -> its name in words, one and several
KINDS = {"corpus": ("corpus", "corpora"), "training": ("training", "trainings"),
         "tokenizer": ("tokenizer file", "tokenizer files")}


def megabytes(nbytes: int) -> str:
    """
    >>> megabytes(5 * 1024**2), megabytes(300_000), megabytes(2_000)
    ('5 MB', '293 KB', '2 KB')
    """
    if nbytes >= 1024**2:
        return f"{nbytes / 1024**2:,.0f} MB"
    return f"{max(1, round(nbytes / 1024)):,} KB"


@dataclass(frozen=True)
class Held:
    kind: str  # a key of KINDS
    key: Hashable  # where the item lives in its kind's container
    title: str  # how the user knows it: a corpus's title, a training's description, a file's name
    nbytes: int


class Budget:
    """A session's items, oldest first, within `limit` bytes in all. Locked: a page and the idle
    sweeper (`explorer/data/sessions.py`) may both touch it."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = SESSION_BUDGET if limit is None else limit
        self._items: OrderedDict[tuple[str, Hashable], Held] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        with self._lock:
            return sum(item.nbytes for item in self._items.values())

    def items(self) -> list[Held]:
        with self._lock:
            return list(self._items.values())

    def check(self, kind: str, title: str, nbytes: int) -> None:
        """Refuse, in one line, an item that alone takes more than the whole budget."""
        if nbytes > self.limit:
            raise BPEError(f"{title} takes about {megabytes(nbytes)} of memory, more than one session may hold "
                           f"here ({megabytes(self.limit)} in all, for {_kinds()}); "
                           f"try a smaller {KINDS[kind][0]}")

    def add(self, kind: str, key: Hashable, title: str, nbytes: int) -> list[Held]:
        """Keep an item as the newest; drop the oldest others while over the budget. Returns what was dropped."""
        self.check(kind, title, nbytes)
        dropped: list[Held] = []
        with self._lock:
            self._items.pop((kind, key), None)
            self._items[(kind, key)] = Held(kind, key, title, nbytes)
            while len(self._items) > 1 and sum(i.nbytes for i in self._items.values()) > self.limit:
                dropped.append(self._items.popitem(last=False)[1])
        return dropped

    def touch(self, kind: str, key: Hashable) -> None:
        """The item was used: it is now the newest."""
        with self._lock:
            if (kind, key) in self._items:
                self._items.move_to_end((kind, key))

    def discard(self, kind: str, key: Hashable) -> None:
        with self._lock:
            self._items.pop((kind, key), None)

    def clear(self) -> list[Held]:
        with self._lock:
            items = list(self._items.values())
            self._items.clear()
        return items


def _kinds() -> str:
    names = [several for _, several in KINDS.values()]
    return ", ".join(names[:-1]) + " and " + names[-1]


def dropped_message(dropped: list[Held], limit: int) -> str:
    """The sentence that says what the session dropped to stay within its budget ("" for nothing)."""
    if not dropped:
        return ""
    names = ", ".join(f"“{item.title}” ({KINDS[item.kind][0]}, {megabytes(item.nbytes)})" for item in dropped)
    verb = "was" if len(dropped) == 1 else "were"
    return (f"{names} {verb} dropped from this session to keep it within its share of the server's memory "
            f"(a session holds at most {megabytes(limit)} of {_kinds()}, oldest dropped first); "
            "bring back what you need again.")


def resident_bytes(pid: int | str = "self") -> int | None:
    """The resident memory of process `pid` (this one by default), from Linux's /proc; None elsewhere
    or once the process is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
