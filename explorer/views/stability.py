"""Training stability: train on 1%, 10% and 50% of the sidebar's corpus and compare with the full run.

The full run is the sidebar's own training (the same corpus, settings and target). The three
shorter runs go through the app's training machinery (`store.train_cached`: the worker pool, its
limits and this session's cache), one after another. A small corpus is compared at once; a large
one only after a button press, and a run interrupted by a click goes on at the next run of the page.
"""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.analysis.stability import FRACTIONS, compare_runs, corpus_prefix
from explorer.data.corpus import Corpus, digest
from explorer.display import stability as view
from explorer.display import tables
from explorer.display.render import md_escape
from explorer.ui import page_header, state, store

ss = st.session_state  # this page's keys are state.STAB_*

trained = page_header.header(
    "Training stability",
    "Train with the sidebar's settings and target on the first 1%, 10% and 50% of the corpus (cut at a word "
    "boundary) and see how much of the full run's vocabulary each already has, and where its merges first "
    "differ from the full run's.")
if trained is None or ss[state.TRAINED_FOR] is None:
    st.stop()
page_header.bpe_only("Training stability", stop=True)
try:
    corpus = store.get_corpus(ss[state.TRAINED_FOR][0])
except BPEError as exc:
    st.info(md_escape(f"{exc}."))
    st.stop()
request = trained.request
wanted = (corpus.digest, request.key())
title = corpus.title
shorter = [f for f in FRACTIONS if f < 1]


def _prefix(fraction: float) -> Corpus:
    text = "".join(corpus_prefix([corpus.text], fraction))
    name = f"the first {view.fraction_label(fraction)} of {title} ({len(text):,} characters)"
    corpus_key = f"{corpus.key}#{fraction}"  # a corpus's key (never stored in the session), not a widget's
    return Corpus(key=corpus_key, title=name, text=text, digest=digest(text))


def _compare() -> None:
    """Train the shorter runs (each from the cache when it is there) and keep the comparison."""
    runs = {1.0: (len(corpus.text), trained.tokenizer.merges)}
    status = st.empty()
    slot = st.empty()
    for n, fraction in enumerate(shorter, 1):
        part = _prefix(fraction)
        status.caption(md_escape(f"Run {n} of {len(shorter)}: training on {part.title}…"))
        if not part.text.strip():
            raise BPEError(f"the first {view.fraction_label(fraction)} of the corpus holds no word to train on")
        runs[fraction] = (len(part.text), store.train_cached(part, request, slot=slot).tokenizer.merges)
    status.empty()
    ss[state.STAB_RESULT] = (wanted, compare_runs(runs))
    ss[state.STAB_WANTED] = None


result = ss.get(state.STAB_RESULT)
if result is None or result[0] != wanted:
    small = store.trains_in_thread(corpus, request)
    if not small and ss.get(state.STAB_WANTED) != wanted:
        st.info(md_escape(
            f"{title} is large ({len(corpus.text):,} characters): the comparison trains three more times, on its "
            "first 1%, 10% and 50%, in the server's training queue. The full run is the sidebar's training, "
            "already made. Press the button to start."))
        if st.button(md_escape(f"Train on 1%, 10% and 50% of {title}"), key=state.STAB_RUN, type="primary"):
            ss[state.STAB_WANTED] = wanted
            st.rerun()
        st.stop()
    try:
        _compare()
    except BPEError as exc:
        ss[state.STAB_WANTED] = None
        st.error(md_escape(f"Could not train the shorter runs: {exc}"))
        st.stop()
    except MemoryError:
        ss[state.STAB_WANTED] = None
        st.error("The server ran out of memory; try a smaller corpus or fewer merges.")
        st.stop()
    result = ss[state.STAB_RESULT]

found = result[1]
byte_level = trained.byte_level
st.html(view.CSS)
st.plotly_chart(view.shares_figure(found, presenter=page_header.presenter()), key=state.STAB_CHART,
                config={"displayModeBar": False})
st.subheader("Where the merges first differ")
for one in found.fractions[:-1]:
    st.html(view.divergence_html(one, found, byte_level=byte_level))
st.subheader("Every fraction")
st.dataframe(view.stability_frame(found, byte_level=byte_level), hide_index=True, width="stretch",
             key=state.STAB_TABLE, placeholder=tables.EMPTY)
st.caption("Final vocabulary: the full run's merged tokens this run also made. First N merges: how many of the "
           "full run's first N merges this run made anywhere in its list. Agree as sets: how many of the first "
           "k merges the two lists share, in any order. Steps are counted from 1. "
           f"{tables.EMPTY}: no difference, the same merges in the same order as the full run (the full run itself).")
