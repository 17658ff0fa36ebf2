"""BPE explorer: `python -m explorer` (or `streamlit run explorer/app.py`) from the repository root.

This file only sets up the page, the shared sidebar and training, then routes to a page.
"""
from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from explorer.data import strangers, warm
from explorer.display import render
from explorer.ui import animation, link, link_corpus, page_header, presenter, sessions, sidebar, state, store

log = logging.getLogger("explorer")

# The icon is a file of ours, sent inside the page: a Material icon or an emoji as the page icon is
# fetched from the internet, which fails offline.
ICON = Path(__file__).resolve().parent / "assets" / "icon.svg"
st.set_page_config(page_title="BPE explorer", page_icon=str(ICON), layout="wide")
warm.start()  # once per server: a background process builds the built-in tokenizers' caches
state.init(st.session_state)
sessions.checkin()  # an idle session's holdings are let go (explorer/ui/sessions.py)
link.read_once(st.session_state, st.query_params.to_dict(), samples=store.samples())
link_corpus.load()
st.html(render.CSS)
if st.session_state[state.W_PRESENTER]:
    st.html(render.PRESENTER_CSS)
    presenter.styles()

WATCH = st.Page("views/train.py", title="Watch training", icon=":material/play_circle:", url_path="watch",
                default=True)
PAGES = {
    "Train and watch": [
        WATCH,
        st.Page("views/corpus.py", title="Corpus", icon=":material/description:", url_path="corpora"),
        st.Page("views/unseen.py", title="Unseen words", icon=":material/spellcheck:", url_path="unseen-words"),
        st.Page("views/stability.py", title="Training stability", icon=":material/stacked_line_chart:",
                url_path="training-stability"),
    ],
    "Learn": [
        st.Page("views/lessons.py", title="Lessons", icon=":material/school:", url_path="seed-lessons"),
        st.Page("views/families.py", title="Families", icon=":material/account_tree:", url_path="families"),
        st.Page("views/mistakes.py", title="Common mistakes", icon=":material/report:", url_path="common-mistakes"),
        st.Page("views/dropout.py", title="BPE-dropout", icon=":material/shuffle:", url_path="bpe-dropout"),
    ],
    "Inspect tokenizers": [
        st.Page("views/tokenize.py", title="Tokenize", icon=":material/text_fields:", url_path="tokenize"),
        st.Page("views/compare.py", title="Compare tokenizers", icon=":material/compare:", url_path="side-by-side"),
        st.Page("views/vocabulary.py", title="Vocabulary", icon=":material/table:", url_path="vocab-table"),
        st.Page("views/overlap.py", title="Vocabulary overlap", icon=":material/join_left:", url_path="vocab-overlap"),
        st.Page("views/language_tax.py", title="Language tax", icon=":material/translate:", url_path="language-tax"),
        st.Page("views/audit.py", title="Token audit", icon=":material/fact_check:", url_path="token-audit"),
        st.Page("views/report.py", title="Report card", icon=":material/grading:", url_path="report-card"),
        st.Page("views/files.py", title="Import and export", icon=":material/swap_vert:", url_path="import-export"),
    ],
}
# The page files live in views/, not pages/: Streamlit would take a pages/ folder beside this
# script for an old-style multipage app and answer a server's first deep link with "Page not found".
page = st.navigation(PAGES, expanded=True)  # all 16 pages shown, no "View more"
animation.follow_jump(WATCH)  # a button asked for the animation (`animation.jump_to`)

with st.sidebar:
    sidebar.render()
presenter.switch()  # at the top of every page, beside the app menu
sessions.show_notice()
notice = st.empty()
page_header.link_notice(notice, page.url_path)  # before training: a link that asks for a long one is told at once

store.ensure_trained(st.empty())
page_header.link_notice(notice, page.url_path)  # and after: the first training says a link's step past its end

try:
    page.run()
except BaseException as exc:  # noqa: BLE001 - no traceback ever reaches the browser
    if not strangers.answered(exc):
        raise  # Streamlit's own stop and rerun, Ctrl-C
    log.exception("page %s failed", page.title)
    st.error("Something went wrong while drawing this page. Try other settings, or reload the page.")
finally:
    sessions.checkout()  # the run has ended, however it ended (st.stop included): its idle time starts

try:
    link.sync_url(st.query_params, state.current_values(st.session_state), corpus_text=link_corpus.own_text())
except Exception:  # noqa: BLE001 - the link is a convenience
    log.exception("could not update the link")
