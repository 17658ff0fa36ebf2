"""Report card: the measures research grades tokenizers by, for up to four tokenizers side by side."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.analysis import TextStats
from bpe_core.analysis.language_tax import language_stats
from bpe_core.builtin import builtin_info
from bpe_core.report import ReportCard, checks, report_card
from explorer.data import tasks, warm
from explorer.data.any_model import AnyModel
from explorer.data.corpus import Corpus
from explorer.data.language_tax_cache import builtin_language_stats
from explorer.data.vocabulary_checks_cache import builtin_vocabulary_checks
from explorer.display import language_tax as tax_view
from explorer.display import report as view
from explorer.display.render import as_clause, isolate, md_escape
from explorer.display.tokenize import cap_text, utf8_size
from explorer.ui import page_header, state, store, warming
from explorer.ui import tokenizer_picker as picker
from explorer.ui.size_slider import size_slider
from sample_corpora import PARALLEL_NOTE, list_languages, load_parallel

ss = st.session_state  # this page's keys are state.REP_*
SIZES = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)  # MB of the reference text graded
AT_ONCE_BYTES = 1_000_000  # a reference text up to this size is graded without asking


@st.cache_resource(show_spinner="Reading the multilingual sample set (once)…")
def _texts() -> dict[str, str]:
    """{language code: text}, shared read-only by every session."""
    return load_parallel()


@st.cache_data(show_spinner=False, max_entries=64)
def _builtin_parallel(name: str) -> dict[str, TextStats]:
    """A built-in's languages: read from the disk cache once per server, not on every rerun."""
    return builtin_language_stats(name, _texts())


@st.cache_data(show_spinner=False, max_entries=32)
def _own_parallel(ident: str, _tok: AnyModel) -> dict[str, TextStats]:
    return language_stats(_tok, _texts())  # type: ignore[arg-type]  # reads only encode_ids


@st.cache_data(show_spinner=False, max_entries=24)
def _card(ident: str, corpus_digest: str, size: int, alpha: float, min_made: int, share: float,
          _tok: AnyModel, _builtin: str | None, _label: str, _text: str,
          _parallel: dict[str, TextStats] | None) -> ReportCard:
    """A card: over a short text (the lesson, a paste) graded at once here, over a longer one in a worker
    process (under its limits: the server's threads stay free)."""
    # A built-in's own checks are read from the disk cache the server's warming writes (seconds each otherwise).
    vocabulary = None if _builtin is None else builtin_vocabulary_checks(_builtin)

    def grade() -> ReportCard:
        return report_card(_tok.model, _text, parallel=_parallel, alpha=alpha, min_made=min_made, residue_share=share,
                           checked=vocabulary)

    if utf8_size(_text) < tasks.GRADE_HERE_BYTES:
        return grade()
    task = tasks.report_card_task(tasks.model_ref(_tok.model, _builtin), _text, parallel=_parallel, alpha=alpha,
                                  min_made=min_made, share=share, label=_label, checked=vocabulary)
    return store.run_task(("card", ident, corpus_digest, size), task, here=grade)


def _ident(key: str) -> str:
    """What a tokenizer's card is cached under: a built-in's or upload's key, or the sidebar training's key."""
    return f"trained:{ss[state.TRAINED_FOR]!r}" if key == picker.SIDEBAR else key


def _unread() -> str | None:
    """Why the shipped multilingual set cannot be read (the message names what rebuilds it); None: it can."""
    try:
        _texts()
    except RuntimeError as exc:  # a shipped file missing or damaged (a failure is not cached: read again)
        return str(exc)
    return None


def _parallel(key: str, tok: AnyModel) -> dict[str, TextStats] | None:
    if _unread() is not None:  # said once, where the premium chart would be
        return None
    name = picker.builtin_of(key)
    return _builtin_parallel(name) if name is not None else _own_parallel(_ident(key), tok)


def _corpus() -> Corpus:
    try:
        return store.get_corpus(ss[state.REP_CORPUS] or ss[state.CORPUS])
    except BPEError:
        ss[state.REP_CORPUS] = ""
        return store.get_corpus(ss[state.CORPUS])


def _controls(options: dict[str, str]) -> None:
    ss[state.REP_CHOSEN] = [k for k in ss[state.REP_CHOSEN] if k in options][:view.MAX_TOKENIZERS]
    st.multiselect(f"Tokenizers (up to {view.MAX_TOKENIZERS}: built in, trained in the sidebar, or uploaded on the "
                   "Import and export page)", list(options), format_func=lambda k: options.get(k, k),
                   key=state.REP_W_CHOSEN, on_change=state.bind(ss, state.REP_W_CHOSEN, state.REP_CHOSEN),
                   max_selections=view.MAX_TOKENIZERS, placeholder="Choose one or more tokenizers")
    corpora = {"": f"The sidebar's corpus ({isolate(store.corpus_title(ss[state.CORPUS]))})", **store.corpus_options()}
    if ss[state.REP_CORPUS] not in corpora:
        ss[state.REP_CORPUS] = ""
    left, right = st.columns([3, 2])
    left.selectbox("Reference text", list(corpora), format_func=lambda k: corpora.get(k, k), key=state.REP_W_CORPUS,
                   on_change=state.bind(ss, state.REP_W_CORPUS, state.REP_CORPUS))
    size_slider(right, "Grade its first … MB", _corpus().text, SIZES, widget_key=state.REP_W_MB,
                value_key=state.REP_MB)
    with st.expander("Settings of the measures"):
        one, two, three = st.columns(3)
        one.number_input("Order α of the Rényi efficiency", min_value=0.0, max_value=10.0, step=0.5,
                         key=state.REP_W_ALPHA, on_change=state.bind(ss, state.REP_W_ALPHA, state.REP_ALPHA),
                         help="2.5 tracked translation quality best in Zouhar et al. (2023); 1 is Shannon's entropy.")
        two.number_input("Residue: judged once made … times", min_value=1, max_value=1_000_000, step=1,
                         key=state.REP_W_MIN_MADE, on_change=state.bind(ss, state.REP_W_MIN_MADE, state.REP_MIN_MADE))
        three.slider("Residue: consumed at least this share", min_value=0.5, max_value=1.0, step=0.01,
                     key=state.REP_W_SHARE, on_change=state.bind(ss, state.REP_W_SHARE, state.REP_SHARE))


page_header.header(
    "Report card",
    "The measures research grades tokenizers by, side by side: compression, how evenly the vocabulary is used, "
    "what it charges other languages, tokens made only to be merged again, how digits and bytes are cut, and "
    "sanity checks. Each row says what it measures and where the measure comes from.",
    summary=False)
st.html(view.CSS)
options = picker.choices(families=True)
_controls(options)
chosen = ss[state.REP_CHOSEN]
if not chosen:
    st.info("Choose a tokenizer above.")
    st.stop()

corpus = _corpus()
text, cut = cap_text(corpus.text, int(float(ss[state.REP_MB]) * 1_000_000))
size = len(text.encode("utf-8", errors="surrogatepass"))
said = f"the first {size / 1_000_000:.1f} MB ({size:,} bytes)" if cut else f"all {size:,} bytes"
st.caption(md_escape(f"Reference text: {said} of {corpus.title}."))
if not text.strip():
    st.info("The reference text is empty: choose another one above.")
    st.stop()
asked = (corpus.digest, size)
if size > AT_ONCE_BYTES and asked not in ss.get(state.REP_GRADED, ()):
    if not st.button("Grade the tokenizers", key=state.REP_RUN, type="primary"):
        st.info(f"Grading encodes {size:,} bytes with each tokenizer (a few seconds per megabyte each): "
                "press Grade the tokenizers.")
        st.stop()
    ss[state.REP_GRADED] = {*ss.get(state.REP_GRADED, ()), asked}

cards: dict[str, ReportCard] = {}
labels: dict[str, str] = {}
models: dict[str, AnyModel] = {}
waiting = []  # the built-ins whose checks the server's warming is still making
for key in chosen:
    label = options[key]
    name = picker.builtin_of(key)
    if name is not None and warm.waiting_for(name, until=warm.CHECKING):
        waiting.append(name)
        continue
    try:
        tok = picker.model_for(key)
        with st.spinner(md_escape(f"Grading {label} on {size:,} bytes and fifteen languages (once)…")):
            settings = (float(ss[state.REP_ALPHA]), int(ss[state.REP_MIN_MADE]), float(ss[state.REP_SHARE]))
            cards[key] = _card(_ident(key), corpus.digest, size, *settings, tok, name, label, text,
                               _parallel(key, tok))
    except BPEError as exc:  # a built-in whose package is missing; a text the tokenizer cannot encode
        st.info(md_escape(f"{label}: {exc}"))
        continue
    labels[key] = builtin_info(name).title if name is not None else label
    models[key] = tok
warming.wait_for(waiting, until=warm.CHECKING)
if not cards:
    st.stop()

st.html(view.card_table_html(cards, labels))

presenter = page_header.presenter()
left, right = st.columns(2, gap="large")
with left:
    st.subheader("Words by number of tokens")
    st.plotly_chart(view.pieces_figure(cards, labels, presenter=presenter), key=state.REP_PIECES_CHART, width="stretch")
with right:
    st.subheader("Premium over English")
    rows = view.tax_rows(cards)
    if rows:
        languages = {lang.code: (lang.name, lang.script) for lang in list_languages()}
        st.plotly_chart(tax_view.tax_figure(rows, tax_view.PREMIUM, languages, labels, presenter=presenter),
                        key=state.REP_TAX_CHART, width="stretch")
        st.caption(md_escape(PARALLEL_NOTE))
    else:  # the set cannot be read: every card then has no languages
        reason = _unread()
        st.info(md_escape(f"The multilingual sample set cannot be read: {as_clause(reason)}." if reason is not None
                          else "No card has the multilingual sample set's languages."))

st.subheader("Sanity checks")
names = tax_view.unique_labels(labels)
for column, key in zip(st.columns(len(cards), gap="medium"), cards):
    with column:
        st.markdown(f"**{md_escape(names[key])}**")
        st.html(view.checks_html(checks(cards[key])))

st.subheader("Residue: tokens made only to be merged again")
for key, card in cards.items():
    found = card.residue
    title = names[key] if found is None else f"{names[key]}: {len(found.residue):,} residue tokens"
    with st.expander(md_escape(title)):
        if found is None:
            st.caption("This tokenizer has no ranked merges, so no token is made only to be merged.")
            continue
        st.caption(f"Merged tokens made at least {found.min_made:,} times on the reference text and consumed by a "
                   f"later merge at least {found.threshold:.0%} of those times, most made first; {found.judged:,} "
                   "merged tokens were made that often.")
        st.dataframe(view.residue_frame(card, models[key].shown), hide_index=True, width="stretch")
