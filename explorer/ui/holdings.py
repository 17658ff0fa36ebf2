"""What this session holds, within its memory budget (`explorer.data.budget`), and where each kind lives.

Corpora, trainings and tokenizer files are charged when the session takes them; over the budget
the oldest go first, removed from their place in the session state, and the page says which.
"""
from __future__ import annotations

from collections.abc import Hashable

import streamlit as st

from explorer.data.budget import Budget, Held, dropped_message
from explorer.ui import state

# Where each kind of item lives in the session state: a mapping keyed by the item's key.
PLACES = {"corpus": state.USER_CORPORA, "training": state.TRAIN_CACHE, "tokenizer": state.PICK_UPLOADED}


def budget() -> Budget:
    return st.session_state[state.BUDGET]


def keep(kind: str, key: Hashable, title: str, nbytes: int) -> str:
    """Charge a new item to the session; drop what no longer fits. Returns the sentence that says
    what was dropped ("" for nothing). A one-line BPEError if the item alone is over the budget."""
    dropped = budget().add(kind, key, title, nbytes)
    forget(dropped)
    return dropped_message(dropped, budget().limit)


def forget(items: list[Held]) -> None:
    """Remove dropped items from where they live (a corpus takes its trainings with it)."""
    ss = st.session_state
    for item in items:
        found = ss[PLACES[item.kind]].pop(item.key, None)
        digest = getattr(found, "digest", None)  # a corpus: its trainings are keyed by its digest
        if digest is not None:
            forget_trainings(digest)


def forget_trainings(digest: str) -> None:
    """Drop the trained bundles of a corpus the session no longer keeps, and stop its training."""
    ss = st.session_state
    cache = ss[state.TRAIN_CACHE]
    for key in [k for k in cache if k[0] == digest]:
        del cache[key]
        budget().discard("training", key)
    job = ss.get(state.TRAIN_JOB)
    if job is not None and job.key[0] == digest:
        job.cancel()
        ss[state.TRAIN_JOB] = None


def touch(kind: str, key: Hashable) -> None:
    budget().touch(kind, key)


def discard(kind: str, key: Hashable) -> None:
    budget().discard(kind, key)
