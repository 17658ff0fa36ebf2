"""The Corpus page's statistics of the corpus in use, kept per corpus, in the page's thread or a worker."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from explorer.data.corpus import CorpusStats, corpus_stats
from explorer.data.tasks import STATS_HERE_CHARS, corpus_stats_task
from explorer.ui.server_caches import kept_while_used
from explorer.ui.store import PassingError, run_task


@kept_while_used(st.cache_data(show_spinner=False, max_entries=32))
def stats(digest: str, _text: str) -> CorpusStats | str:
    """Statistics of a corpus, or the one line why they could not be counted; the digest is the cache key
    (hashing 50 MB on every call is slow). A large corpus is counted in a worker. A count that fails the
    same way whenever it is tried (a limit) is kept as its answer, so the page's next runs send no job
    again (`count_again` forgets it); one that may pass (a busy server) raises a PassingError, kept by no one."""
    if len(_text) < STATS_HERE_CHARS:
        return corpus_stats(_text)
    try:
        return run_task(("stats", digest), corpus_stats_task(_text), here=lambda: corpus_stats(_text))
    except PassingError:
        raise
    except BPEError as exc:
        return str(exc)


def count_again(digest: str) -> None:
    """Forget the statistics kept for the corpus `digest` names (its text is no part of the cache's key)."""
    stats.clear(digest, "")  # type: ignore[attr-defined]  # kept_while_used gives the cache's clear
