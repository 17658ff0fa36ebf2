"""BPE explorer: `streamlit run explorer/app.py` from the repository root.

This file only sets up the page, the shared sidebar and training, then routes to a page.
"""
from __future__ import annotations

import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # so that bpe_core, sample_corpora and explorer import

import streamlit as st  # noqa: E402

from explorer import render, services, sidebar, state  # noqa: E402

log = logging.getLogger("explorer")

st.set_page_config(page_title="BPE explorer", page_icon=":material/join_inner:", layout="wide")
state.init(st.session_state, st.query_params.to_dict(), samples=set(services.samples()))
st.html(render.CSS)
if st.session_state[state.W_PRESENTER]:
    st.html(render.PRESENTER_CSS)

PAGES = [
    st.Page("views/train.py", title="Watch training", icon=":material/play_circle:", url_path="watch", default=True),
    st.Page("views/corpus.py", title="Corpus", icon=":material/description:", url_path="corpora"),
    st.Page("views/unseen.py", title="Unseen words", icon=":material/spellcheck:", url_path="unseen-words"),
    st.Page("views/lessons.py", title="Lessons", icon=":material/school:", url_path="seed-lessons"),
    st.Page("views/mistakes.py", title="Common mistakes", icon=":material/report:", url_path="common-mistakes"),
    st.Page("views/compare.py", title="Compare tokenizers", icon=":material/compare:", url_path="side-by-side"),
    st.Page("views/vocabulary.py", title="Vocabulary", icon=":material/table:", url_path="vocab-table"),
    st.Page("views/files.py", title="Import and export", icon=":material/swap_vert:", url_path="import-export"),
    st.Page("views/dropout.py", title="BPE-dropout", icon=":material/shuffle:", url_path="bpe-dropout"),
]
# The page files live in views/, not pages/: Streamlit would take a pages/ folder beside this
# script for an old-style multipage app and answer a server's first deep link with "Page not found".
page = st.navigation(PAGES)

with st.sidebar:
    sidebar.render()

services.ensure_trained(st.empty())

try:
    page.run()
except Exception:  # noqa: BLE001 - no traceback ever reaches the browser
    log.exception("page %s failed", page.title)
    st.error("Something went wrong while drawing this page. Try other settings, or reload the page.")

try:
    state.sync_url(st.query_params, state.current_values(st.session_state))
except Exception:  # noqa: BLE001 - the link is a convenience
    log.exception("could not update the link")
