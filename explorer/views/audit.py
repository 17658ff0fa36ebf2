"""Token audit: where BPE spends more tokens than its vocabulary needs, and under-trained token candidates."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError, Tokenizer
from explorer.data import tasks
from explorer.data.corpus import Corpus
from explorer.display import audit as view
from explorer.display.render import isolate, md_escape
from explorer.display.table_fit import fit_columns, shown_row_height
from explorer.display.tokenize import cap_text
from explorer.ui import page_header, state, store
from explorer.ui import tokenizer_picker as picker
from explorer.ui.size_slider import size_slider

ss = st.session_state  # this page's keys are state.AUD_*
SIZES = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)  # MB of the reference corpus audited
AT_ONCE_BYTES = 1_000_000  # a corpus up to this size and ...
AT_ONCE_VOCAB = 50_000  # ... a vocabulary up to this size are audited without asking
MEMO_SIZE = 2  # audits kept per session (a 200k-token vocabulary's rare list is ~15 MB)


def _ident(key: str) -> str:
    """What an audit is remembered under: a built-in's or upload's key, or the sidebar training's key."""
    return f"trained:{ss[state.TRAINED_FOR]!r}" if key == picker.SIDEBAR else key


def _corpus() -> Corpus:
    chosen = ss[state.AUD_CORPUS] or ss[state.CORPUS]
    try:
        return store.get_corpus(chosen)
    except BPEError:
        ss[state.AUD_CORPUS] = ""
        return store.get_corpus(ss[state.CORPUS])


def _corpus_picker() -> None:
    options = {"": f"The sidebar's corpus ({isolate(store.corpus_title(ss[state.CORPUS]))})", **store.corpus_options()}
    if ss[state.AUD_CORPUS] not in options:
        ss[state.AUD_CORPUS] = ""
    st.selectbox("Reference corpus", list(options), format_func=lambda k: options.get(k, k), key=state.AUD_W_CORPUS,
                 on_change=state.bind(ss, state.AUD_W_CORPUS, state.AUD_CORPUS))


def _remembered(memo_key: tuple, tok: Tokenizer) -> view.Audit | None:
    found = ss.get(state.AUD_MEMO, {}).get(memo_key)
    return found[1] if found is not None and found[0] is tok else None


def _remember(memo_key: tuple, tok: Tokenizer, result: view.Audit) -> None:
    memo = dict(ss.get(state.AUD_MEMO) or {})
    memo.pop(memo_key, None)
    memo[memo_key] = (tok, result)
    while len(memo) > MEMO_SIZE:
        memo.pop(next(iter(memo)))
    ss[state.AUD_MEMO] = memo


page_header.header(
    "Token audit",
    "How many tokens BPE spends beyond the fewest its own vocabulary allows (BPE is deterministic, not minimal), "
    "and which tokens look under-trained: never produced on a reference corpus, or not produced even by "
    "encoding their own text.",
    summary=False)
page_header.bpe_only("The token audit")
st.html(view.CSS)

options = picker.choices()
if not options:
    st.info("No tokenizer to audit: train one in the sidebar or upload one on the Import and export page.")
    st.stop()
left, right = st.columns(2, gap="large")
with left:
    key = picker.pick("Tokenizer", state.AUD_W_TOKENIZER, remember=state.AUD_TOKENIZER) or next(iter(options))
    picker.show_about(key)
with right:
    _corpus_picker()
    size_col, threshold_col = st.columns(2)
    size_slider(size_col, "Use the corpus's first … MB", _corpus().text, SIZES, widget_key=state.AUD_W_MB,
                value_key=state.AUD_MB)
    threshold_col.number_input("Rare: produced at most … times", min_value=0, max_value=1_000_000, step=1,
                               key=state.AUD_W_THRESHOLD,
                               on_change=state.bind(ss, state.AUD_W_THRESHOLD, state.AUD_THRESHOLD))

tok = picker.tokenizer_or_stop(key)
corpus = _corpus()
limit = int(float(ss[state.AUD_MB]) * 1_000_000)
text, cut = cap_text(corpus.text, limit)
size = len(text.encode("utf-8", errors="surrogatepass"))
threshold = int(ss[state.AUD_THRESHOLD])
said = f"the first {size / 1_000_000:.1f} MB ({size:,} bytes)" if cut else f"all {size:,} bytes"
st.caption(md_escape(f"Reference corpus: {said} of {corpus.title}."))

memo_key = (_ident(key), corpus.digest, size, threshold)
result = _remembered(memo_key, tok)
if result is None:
    heavy = size > AT_ONCE_BYTES or tok.vocab_size > AT_ONCE_VOCAB
    slot = st.empty()
    if heavy and not slot.button("Run the audit", key=state.AUD_RUN, type="primary"):
        st.info(f"This audit encodes {size:,} bytes and every one of {tok.vocab_size:,} tokens (a few seconds): "
                "press Run the audit.")
        st.stop()
    slot.empty()
    try:
        task = view.audit_task(tasks.model_ref(tok, picker.builtin_of(key)), text, threshold=threshold,
                               label=options.get(key, key))
        result = store.run_task(("audit", *memo_key), task, st.empty(),
                                here=lambda: view.audit(tok, text, threshold=threshold),
                                at_once=store.small_enough_here(size, tok.vocab_size))  # a lesson: no worker
    except BPEError as exc:
        st.error(md_escape(str(exc)))
        st.stop()
    _remember(memo_key, tok, result)

report = result.minimal
st.subheader("Minimal vs BPE")
st.caption("For each distinct word (pre-token) of the reference corpus, BPE's tokens beside a shortest cut into "
           "tokens of the same vocabulary (ties: the longest first token). Counts are over every occurrence.")
metrics = st.columns(len(view.summary(report)))
for column, (label, (value, help_text)) in zip(metrics, view.summary(report).items()):
    column.metric(label, value, help=help_text)
if view.caps_text(report):
    st.caption(md_escape(view.caps_text(report)))
shown = min(len(report.examples), view.MAX_EXAMPLES)
if report.examples:
    st.caption(f"The {shown:,} most frequent of the {report.affected_words:,} words BPE splits into more pieces "
               "than needed:")
with st.container(height=420 if len(report.examples) > 8 else "content", border=False):
    st.html(view.examples_html(tok, report.examples))

st.subheader("Under-trained token candidates")
st.markdown(f"**Unreachable alone**: {len(result.unreachable):,} tokens that encoding their own text does not "
            "produce, with why (the tokenizer alone decides this).")
st.text_input("Search these tokens or reasons", key=state.AUD_W_UNREACH_SEARCH,
              on_change=state.bind(ss, state.AUD_W_UNREACH_SEARCH, state.AUD_UNREACH_SEARCH))
query = ss[state.AUD_UNREACH_SEARCH]
found_u = view.search_unreachable(tok, result.unreachable, query)
unreachable = view.unreachable_frame(tok, found_u)
fit = fit_columns(unreachable, presenter=ss[state.W_PRESENTER])  # the reasons wrap: none is cut
row_height = shown_row_height(fit, presenter=ss[state.W_PRESENTER])
st.dataframe(unreachable, hide_index=True, width="stretch", column_config=fit.columns, row_height=row_height,
             height=min(360, 38 + (row_height or 35) * max(1, len(found_u))))
st.caption(md_escape(view.table_caption("tokens", min(len(found_u), view.MAX_ROWS), len(found_u),
                                        len(result.unreachable), query)))

never = "never produces" if threshold == 0 else f"produces at most {threshold:,} times"
st.markdown(f"**Rare on the corpus**: {len(result.rare):,} of {tok.vocab_size:,} tokens that encoding the "
            f"reference corpus {never}, fewest first, then by id.")
st.text_input("Search these tokens (· matches a space)", key=state.AUD_W_RARE_SEARCH,
              on_change=state.bind(ss, state.AUD_W_RARE_SEARCH, state.AUD_RARE_SEARCH))
query = ss[state.AUD_RARE_SEARCH]
found = view.search_rare(tok, result.rare, query)
rare = view.rare_frame(tok, found, result.inside)
fit = fit_columns(rare, presenter=ss[state.W_PRESENTER])
st.dataframe(rare, hide_index=True, width="stretch", height=360, column_config=fit.columns,
             row_height=shown_row_height(fit, presenter=ss[state.W_PRESENTER]))
st.caption(md_escape(view.table_caption("tokens", min(len(found), view.MAX_ROWS), len(found),
                                        len(result.rare), query)))
st.caption("Candidates, not verdicts: a token cut apart by the pre-tokenizer when alone may still come up inside "
           "longer text, and a token a few megabytes never use may be common elsewhere. A token \"only as a whole "
           "piece\" is made only when a pre-token is exactly its text (tiktoken's rule), never by merges. \"Made "
           "inside longer tokens\" counts the times a merge made the token and a later merge consumed it: a token "
           "made often but rarely produced is an intermediate token, a step of the merging (see Report card).")
