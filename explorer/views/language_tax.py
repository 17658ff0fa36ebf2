"""Language tax: what each tokenizer charges fifteen languages for the same content."""
from __future__ import annotations

import hashlib

import streamlit as st

from bpe_core import BPEError
from bpe_core.analysis import TextStats
from bpe_core.analysis.language_tax import TaxRow, language_stats, tax_rows
from bpe_core.builtin import builtin_info
from explorer.data.any_model import AnyModel
from explorer.data.language_tax_cache import builtin_language_stats
from explorer.display import language_tax as view
from explorer.display.render import md_escape
from explorer.ui import state, store
from explorer.ui import tokenizer_picker as picker
from sample_corpora import PARALLEL_NOTE, list_languages, load_parallel

ss = st.session_state  # this page's keys are state.TAX_*
CORPUS_ROW = "corpus"  # the row of the sidebar's corpus (no language code is spelled so)
MAX_CORPUS_BYTES = 500_000  # of the sidebar's corpus, encoded by every tokenizer


@st.cache_resource(show_spinner="Building the multilingual sample set from Django's and Sphinx's catalogs (once)…")
def _texts() -> dict[str, str]:
    """{language code: text}, shared read-only by every session."""
    return load_parallel()


@st.cache_data(show_spinner=False, max_entries=64)
def _builtin_stats(name: str) -> dict[str, TextStats]:
    return builtin_language_stats(name, _texts())


@st.cache_data(show_spinner=False, max_entries=32)
def _own_stats(ident: str, _tok: AnyModel) -> dict[str, TextStats]:
    """Stats of a trained or uploaded tokenizer of any kind; `ident` names it (training key or file digest).

    The engine counts with `encode_ids` alone, which every tokenizer has."""
    return language_stats(_tok, _texts())  # type: ignore[arg-type]  # typed for a merge list; reads only encode_ids


@st.cache_data(show_spinner=False, max_entries=32)
def _corpus_stats(ident: str, corpus_digest: str, _tok: AnyModel, _text: str) -> TextStats:
    return language_stats(_tok, {CORPUS_ROW: _text})[CORPUS_ROW]  # type: ignore[arg-type]  # as above


def _ident(key: str) -> str:
    """What a tokenizer's numbers are cached under: a built-in's name, the training's key, a file digest."""
    if key == picker.SIDEBAR:
        return f"trained:{ss[state.TRAINED_FOR]!r}"
    return key


st.title("Language tax")
st.caption("The same messages in fifteen languages, through each tokenizer: how many tokens each language needs "
           "per character, and how many more than English for the same content (the premium). A premium of 2 "
           "means twice the tokens: twice the cost, half the context, for the same meaning.")

try:
    texts = _texts()
except RuntimeError as exc:  # Django or Sphinx not installed
    st.error(md_escape(f"The multilingual sample set cannot be built: {exc}."))
    st.stop()
languages = {lang.code: (lang.name, lang.script) for lang in list_languages()}

options = picker.choices(families=True)  # any tokenizer: the counts need only its token ids
ss[state.TAX_CHOSEN] = [k for k in ss[state.TAX_CHOSEN] if k in options]
st.multiselect("Tokenizers (built in, trained in the sidebar, or uploaded on the Files page)", list(options),
               format_func=lambda k: options.get(k, k), key=state.TAX_W_CHOSEN,
               on_change=state.bind(ss, state.TAX_W_CHOSEN, state.TAX_CHOSEN),
               placeholder="Choose one or more tokenizers")
left, right = st.columns([2, 3], vertical_alignment="center")
left.radio("Show", list(view.METRICS), format_func=view.METRICS.get, key=state.TAX_W_METRIC,
           on_change=state.bind(ss, state.TAX_W_METRIC, state.TAX_METRIC), horizontal=True)
corpus = store.get_corpus(ss[state.CORPUS])
right.toggle(md_escape(f"Add the sidebar's corpus ({corpus.title}) as one more row"), key=state.TAX_W_CORPUS,
             on_change=state.bind(ss, state.TAX_W_CORPUS, state.TAX_CORPUS),
             help="Its tokens per character are shown; it has no premium, since its content is not the same "
                  "as the English messages'.")
chosen = ss[state.TAX_CHOSEN]
if not chosen:
    st.info("Choose a tokenizer above.")
    st.stop()

corpus_text = corpus.text
corpus_cut = len(corpus_text) > MAX_CORPUS_BYTES // 4 and len(corpus_text.encode("utf-8")) > MAX_CORPUS_BYTES
if corpus_cut:
    corpus_text = corpus_text.encode("utf-8")[:MAX_CORPUS_BYTES].decode("utf-8", errors="ignore")
corpus_digest = hashlib.blake2b(corpus_text.encode("utf-8", errors="surrogatepass"), digest_size=16).hexdigest()
if ss[state.TAX_CORPUS]:
    languages[CORPUS_ROW] = (f"Your corpus: {corpus.title}", "(not parallel)")

rows: list[TaxRow] = []
labels: dict[str, str] = {}
for key in chosen:
    label = options[key]
    try:
        tok = picker.model_for(key)
        with st.spinner(md_escape(f"Counting the tokens of fifteen languages with {label} (once)…")):
            name = picker.builtin_of(key)
            stats = _builtin_stats(name) if name is not None else _own_stats(_ident(key), tok)
            if ss[state.TAX_CORPUS]:
                stats = {**stats, CORPUS_ROW: _corpus_stats(_ident(key), corpus_digest, tok, corpus_text)}
    except BPEError as exc:  # a built-in whose package is missing; a text the tokenizer cannot encode
        st.info(md_escape(f"{label}: {exc}"))
        continue
    rows.extend(tax_rows(key, stats, parallel=set(texts)))
    labels[key] = builtin_info(name).title if name is not None else label
if not rows:
    st.stop()

metric = ss[state.TAX_METRIC]
st.plotly_chart(view.tax_figure(rows, metric, languages, labels, presenter=ss[state.W_PRESENTER]),
                key=state.TAX_CHART, width="stretch")
st.dataframe(view.wide_frame(rows, metric, languages, labels), width="stretch", height=36 * (len(languages) + 1) + 4)
st.caption(md_escape(PARALLEL_NOTE))
if ss[state.TAX_CORPUS] and corpus_cut:
    st.caption(f"Your corpus: its first {MAX_CORPUS_BYTES:,} bytes are counted.")
with st.expander("Every number: bytes, characters, tokens"):
    st.dataframe(view.long_frame(rows, languages, labels), hide_index=True, width="stretch")
with st.expander("Where the texts come from"):
    st.dataframe(view.sources_frame(list_languages(), texts), hide_index=True, width="stretch")
