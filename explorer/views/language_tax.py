"""Language tax: what each tokenizer charges fifteen languages for the same content."""
from __future__ import annotations

import hashlib

import streamlit as st

from bpe_core import BPEError
from bpe_core.analysis import TextStats
from bpe_core.analysis.language_tax import TaxRow, language_stats, tax_rows
from bpe_core.builtin import builtin_info
from explorer.data import warm
from explorer.data.any_model import AnyModel
from explorer.data.language_tax_cache import builtin_language_stats
from explorer.display import language_tax as view
from explorer.display import tables
from explorer.display.render import as_clause, md_escape
from explorer.display.table_fit import FIT_WIDTH, fit_columns, shown_row_height
from explorer.ui import state, store, warming
from explorer.ui import tokenizer_picker as picker
from sample_corpora import PARALLEL_NOTE, list_languages, load_parallel, load_parallel_messages

ss = st.session_state  # this page's keys are state.TAX_*
CORPUS_ROW = "corpus"  # the row of the sidebar's corpus (no language code is spelled so)
MAX_CORPUS_BYTES = 500_000  # of the sidebar's corpus, encoded by every tokenizer
FIT_IN_EXPANDER = FIT_WIDTH - 34  # an expander's frame and padding
EVERY = ""  # the sentence picker's choice of every language (no language code is empty)
FIRST_SHOWN = "hi"  # a sentence is first shown in English and Hindi, a script far from English's


@st.cache_resource(show_spinner="Reading the multilingual sample set (once)…")
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


@st.cache_data(show_spinner=False, max_entries=64)
def _unknown(ident: str, corpus_digest: str | None, _tok: AnyModel, _text: str) -> dict[str, int]:
    """Each language's unknown tokens (and the corpus's, given its digest); {} for a model without an unknown token."""
    return view.unknown_counts(_tok, {**_texts(), **({CORPUS_ROW: _text} if corpus_digest is not None else {})})


@st.cache_resource(show_spinner=False)
def _messages() -> dict[str, tuple[str, ...]] | None:
    """The texts message by message, shared read-only by every session (None: they cannot be matched)."""
    try:
        messages = load_parallel_messages()
    except RuntimeError:  # a shipped file missing or damaged: the page's numbers say so already
        return None
    texts = _texts()  # message i must be the same message in the texts the numbers count
    same = all("".join(m + "\n" for m in messages.get(code, ())) == text for code, text in texts.items())
    return messages if same else None


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
except RuntimeError as exc:  # a shipped file missing or damaged: the message names the command that rebuilds it
    st.error(md_escape(f"The multilingual sample set cannot be read: {as_clause(str(exc))}."))
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
models: dict[str, AnyModel] = {}
unknown: dict[str, dict[str, int]] = {}  # tokenizer key -> language -> unknown tokens
short: dict[str, str] = {}  # a built-in's header in the wide table: its title without its name, which is in the tooltip
waiting = []  # the built-ins the server's warming is still counting
for key in chosen:
    label = options[key]
    if picker.builtin_of(key) is not None and warm.waiting_for(picker.builtin_of(key), until=warm.COUNTING):
        waiting.append(picker.builtin_of(key))
        continue
    try:
        tok = picker.model_for(key)
        with st.spinner(md_escape(f"Counting the tokens of fifteen languages with {label} (once)…")):
            name = picker.builtin_of(key)
            stats = _builtin_stats(name) if name is not None else _own_stats(_ident(key), tok)
            if ss[state.TAX_CORPUS]:
                stats = {**stats, CORPUS_ROW: _corpus_stats(_ident(key), corpus_digest, tok, corpus_text)}
            unknown[key] = _unknown(_ident(key), corpus_digest if ss[state.TAX_CORPUS] else None, tok, corpus_text)
    except BPEError as exc:  # a built-in whose package is missing; a text the tokenizer cannot encode
        st.info(md_escape(f"{label}: {exc}"))
        continue
    rows.extend(tax_rows(key, stats, parallel=set(texts)))
    models[key] = tok
    labels[key] = builtin_info(name).title if name is not None else label
    if name is not None:
        short[key] = labels[key].removesuffix(f" ({name})")
warming.wait_for(waiting, until=warm.COUNTING)
if not rows:
    st.stop()

metric = ss[state.TAX_METRIC]
st.plotly_chart(view.tax_figure(rows, metric, languages, labels, presenter=ss[state.W_PRESENTER]),
                key=state.TAX_CHART, width="stretch")
wide = view.wide_frame(rows, metric, languages, labels)
fit = fit_columns(wide, index=True, labels=view.short_headers(labels, short),  # the whole table in the page
                 presenter=ss[state.W_PRESENTER])
row_height = shown_row_height(fit, presenter=ss[state.W_PRESENTER])  # a language's name may wrap: whole
st.dataframe(wide, width="stretch", height=36 + (row_height or 36) * len(languages) + 4, column_config=fit.columns,
             row_height=row_height, placeholder=tables.EMPTY)
st.caption(md_escape(PARALLEL_NOTE))
if ss[state.TAX_CORPUS] and corpus_cut:
    st.caption(f"Your corpus: its first {MAX_CORPUS_BYTES:,} bytes are counted.")
for key, model in models.items():  # a count of unknown tokens is no cost: say where one makes a language cheap
    note = view.unknown_note(labels[key], unknown[key], [r for r in rows if r.tokenizer == key], languages,
                             token=model.unk_token or "<unk>")
    if note:
        st.warning(md_escape(note), icon=":material/warning:")
with st.expander("Every number: bytes, characters, tokens"):
    every = view.long_frame(rows, languages, labels, unknown)
    fit = fit_columns(every, width=FIT_IN_EXPANDER, presenter=ss[state.W_PRESENTER])
    st.dataframe(every, hide_index=True, width="stretch", column_config=fit.columns,
                 row_height=shown_row_height(fit, presenter=ss[state.W_PRESENTER]), placeholder=tables.EMPTY)
with st.expander("Where the texts come from"):
    sources = view.sources_frame(list_languages(), texts)
    fit = fit_columns(sources, width=FIT_IN_EXPANDER, presenter=ss[state.W_PRESENTER])
    st.dataframe(sources, hide_index=True, width="stretch", column_config=fit.columns,
                 row_height=shown_row_height(fit, presenter=ss[state.W_PRESENTER]))

st.subheader("The same sentence, token by token")
messages = _messages()
choices = view.sentence_choices(messages) if messages else []
if messages is None or not choices:
    st.info("The sentences cannot be matched across the languages: the catalogs the texts came from "
            "cannot be read again.")
else:
    st.html(view.CSS)
    one, which = st.columns([3, 2])
    picked = one.selectbox("Sentence (a message of the set, in English here)", choices,
                           format_func=lambda i: messages["en"][i])
    codes = [code for code in texts if code != "en"]
    language = which.selectbox("Language, beside English", [EVERY, *codes],
                               index=1 + codes.index(FIRST_SHOWN) if FIRST_SHOWN in codes else 0,
                               format_func=lambda c: "every language" if c == EVERY else
                               f"{languages[c][0]} ({languages[c][1]})")
    drawn = [(labels[key], model) for key, model in models.items()]
    for code in texts if language == EVERY else ["en", language]:
        sentence = messages[code][picked]
        st.html(view.sentence_html(*languages[code], sentence, view.sentence_rows(drawn, sentence)))
    st.caption("Each chip is one token with its id, drawn as on the Tokenize page; red chips are unknown tokens.")
