"""Compare: up to four tokenizers of any family side by side on the same text, with the disagreements marked."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError, Tokenizer
from bpe_core.analysis import compare_segmentations, token_count_curve
from bpe_core.builtin import builtin_info, builtin_names
from bpe_core.families.registry import family
from bpe_core.settings import EOW_STYLES, MODES, PRETOKENIZERS, TIE_BREAKS
from explorer.data.any_model import AnyModel, pieces_encoding
from explorer.data.tokenizer_files import UPLOAD_TYPES
from explorer.data.training import TrainRequest, request_for
from explorer.display import compare as view
from explorer.display.compare import Entry
from explorer.display.render import md_escape
from explorer.display.table_fit import fit_columns, shown_row_height
from explorer.families import explorer_family, taking, titles, trainable
from explorer.ui import page_header, state, store
from explorer.ui import tokenizer_picker as picker

ss = st.session_state  # this page's keys are state.CMP_*


def _add(entry: Entry) -> None:
    ss[state.CMP_ENTRIES], ss[state.CMP_NOTICE] = view.add_entry(ss[state.CMP_ENTRIES], entry)


def _remove(key: str) -> None:
    ss[state.CMP_ENTRIES] = [e for e in ss[state.CMP_ENTRIES] if e.key != key]
    ss[state.CMP_NOTICE] = ""


def _uploaded() -> None:
    files = ss.get(state.CMP_W_UPLOAD) or []
    for item in picker.add_uploads([(f.name, f.getvalue()) for f in files]):
        _add(Entry("file", item.key, item.label))


def _train_entry(corpus_key: str, request: TrainRequest, slot) -> None:
    corpus = store.get_corpus(corpus_key)
    trained = store.train_cached(corpus, request, slot=slot)
    label = f"{corpus.title}: {view.short_description(request)}"
    _add(Entry("trained", f"trained:{corpus.digest}:{request.key()}", label, trained))


trained_here = page_header.header(
    "Compare tokenizers",
    "The same text through up to four tokenizers. Red outlines mark where their token boundaries disagree.")
st.html(view.CSS)

if state.CMP_ENTRIES not in ss:  # first visit: the sidebar's tokenizer and (a merge list) it with half its merges
    ss[state.CMP_ENTRIES] = [view.sidebar_entry()] if trained_here is not None else []
    if trained_here is not None and isinstance(trained_here.tokenizer_model, Tokenizer) and trained_here.steps >= 2:
        try:  # cut from the sidebar's training, not trained again (seconds on a large corpus)
            corpus = store.get_corpus(ss[state.TRAINED_FOR][0])
            half = trained_here.first_merges(trained_here.steps // 2)
            _add(Entry("trained", f"trained:{corpus.digest}:{half.request.key()}",
                       f"{corpus.title}: {view.short_description(half.request)}", half))
        except BPEError:
            pass  # the comparison still works with one column; the user can add more

st.text_area("Text to compare", key=state.CMP_W_TEXT, height=90,
             on_change=state.bind(ss, state.CMP_W_TEXT, state.CMP_TEXT))
text = ss[state.CMP_TEXT][: view.MAX_TEXT]
if len(ss[state.CMP_TEXT]) > view.MAX_TEXT:
    st.caption(f"Comparing the first {view.MAX_TEXT:,} of {len(ss[state.CMP_TEXT]):,} characters.")
a, b = st.columns(2)
a.toggle("Byte-level tokens as hex bytes", key=state.CMP_W_AS_HEX,
         on_change=state.bind(ss, state.CMP_W_AS_HEX, state.CMP_AS_HEX),
         help="Off: the text where the bytes are valid UTF-8 and hex like `<e6 97>` only where a token "
              "holds part of a character. On: every byte-level token as its bytes.")
b.toggle("Ignore where the spaces go", key=state.CMP_W_IGNORE_WS,
         on_change=state.bind(ss, state.CMP_W_IGNORE_WS, state.CMP_IGNORE_WS),
         help="Word mode drops spaces; byte-level tokens carry them in front. On: that alone is no disagreement.")

in_use = len(ss[state.CMP_ENTRIES])
full = view.unavailable(ss[state.CMP_ENTRIES])  # a sentence when all four places are taken
with st.expander(f"Add a tokenizer ({in_use} of {view.MAX_ENTRIES} in use)", expanded=in_use < 2):
    train_tab, upload_tab, builtin_tab = st.tabs(["Train one here", "Upload a file", "Built-in tokenizers"])
    if trained_here is not None and all(e.kind != "sidebar" for e in ss[state.CMP_ENTRIES]):
        train_tab.button("Add the tokenizer trained in the sidebar", key=state.CMP_ADD_SIDEBAR, on_click=_add,
                         args=(view.sidebar_entry(),), disabled=bool(full), help=full or None)
    with train_tab, st.form(state.CMP_FORM, border=False):
        options = store.corpus_options()
        c0, c1, c2, c3 = st.columns(4)
        chosen = c0.selectbox("Family", trainable(), format_func=lambda name: family(name).title,
                              key=state.CMP_W_FAMILY)
        corpus_key = c1.selectbox("Corpus", list(options), format_func=lambda k: options.get(k, k),
                                  index=list(options).index(ss[state.CORPUS]) if ss[state.CORPUS] in options else 0)
        mode = c2.selectbox(f"Mode ({titles(taking('mode'))})", MODES, key=state.CMP_W_MODE)
        by_size = [name for name in trainable() if name not in taking("target")]
        merges = c3.number_input(f"Merges ({titles(taking('target'))}) or vocabulary size", min_value=0,
                                 max_value=state.MAX_INPUT, value=20, step=1, key=state.CMP_W_MERGES,
                                 help=f"{titles(taking('target'))} learns this many merges; {titles(by_size)} train "
                                      "to this vocabulary size.")
        c4, c5, c6, c7 = st.columns(4)
        eow = c4.selectbox("End of word (word mode)", EOW_STYLES, key=state.CMP_W_EOW)
        pretok = c5.selectbox("Pre-tokenizer (text, bytes)", ("", *PRETOKENIZERS), key=state.CMP_W_PRETOK,
                              format_func=lambda p: p or "the mode's default")
        tie = c6.selectbox("Tie-break", TIE_BREAKS, key=state.CMP_W_TIE)
        phased = taking("transition")
        transition = c7.number_input(f"Transition ({titles(phased)})", min_value=0, max_value=state.MAX_INPUT,
                                     value=0, step=1, key=state.CMP_W_TRANSITION,
                                     help=" ".join(explorer_family(name).option_help.get("transition", "")
                                                   for name in phased))
        if st.form_submit_button("Train and add", type="primary", icon=":material/add:", disabled=bool(full),
                                 help=full or None):
            try:
                asked = {"mode": mode, "eow": eow, "pretokenizer": pretok if mode != "word" else "", "tie_break": tie,
                         "target": "merges", "merges": int(merges), "vocab": int(merges),
                         "transition": int(transition)}
                request = request_for(chosen, asked, limit=state.MAX_APP_MERGES)
                _train_entry(corpus_key, request, st.empty())
            except BPEError as exc:
                ss[state.CMP_NOTICE] = f"Could not train: {exc}"
    with upload_tab:
        st.file_uploader("Hugging Face tokenizer.json (any model), a SentencePiece .model, a Tekken JSON, GPT-2 "
                         f"vocab.json + merges.txt (both together), a .tiktoken file or our model.json "
                         f"({titles(trainable(), 'or')})", type=UPLOAD_TYPES,
                         accept_multiple_files=True,
                         key=state.CMP_W_UPLOAD, on_change=_uploaded)
        picker.show_upload_notice()
        for key, item in picker.uploaded().items():
            if all(e.key != key for e in ss[state.CMP_ENTRIES]):
                st.button(f"Add {md_escape(item.label)}", key=state.b_cmp_add(key), on_click=_add,
                          args=(Entry("file", key, item.label),), disabled=bool(full), help=full or None)
    with builtin_tab:
        st.caption("Production tokenizers, read offline from pinned packages (nothing is downloaded). Each loads "
                   "in about a second, then every visitor shares it.")
        for name in builtin_names(parts=True):
            info, missing = builtin_info(name), picker.builtin_missing(name)
            taken = view.unavailable(ss[state.CMP_ENTRIES], picker.builtin_key(name))  # compared already, or full
            row = st.columns([2, 5], vertical_alignment="center")
            row[0].button(f"Add {info.title}", key=state.b_cmp_add_builtin(name), on_click=_add,
                          args=(Entry("builtin", picker.builtin_key(name), info.title),),
                          disabled=bool(missing or taken), width="stretch")
            row[1].caption(md_escape(missing or " ".join(filter(None, [
                taken, f"{info.vocab_size:,} tokens. Terms: {info.terms}"]))))
if ss[state.CMP_NOTICE]:
    st.warning(md_escape(ss[state.CMP_NOTICE]))

# ---- resolve the entries into tokenizers -----------------------------------------------------
columns = []  # (entry, label, AnyModel, trained bundle or None)
for entry in ss[state.CMP_ENTRIES]:
    try:
        if entry.kind == "sidebar":
            if trained_here is not None:
                label = (f"Sidebar: {store.corpus_title(ss[state.TRAINED_FOR][0])}: "
                         f"{view.short_description(trained_here.request)}")
                columns.append((entry, label, AnyModel.of_trained(trained_here), trained_here))
        elif entry.kind == "trained":
            columns.append((entry, entry.label, AnyModel.of_trained(entry.trained), entry.trained))
        elif entry.kind == "file":
            if entry.key in picker.uploaded():
                columns.append((entry, entry.label, picker.uploaded()[entry.key].any, None))
            else:
                st.warning(f"{md_escape(entry.label)} is no longer in this session: upload it again.")
        elif entry.kind == "builtin":
            columns.append((entry, entry.label, picker.model_for(entry.key), None))
    except BPEError as exc:  # e.g. a built-in's package was removed since it was added
        st.warning(md_escape(f"{entry.label}: {exc}"))
if not columns:
    st.info("Add a tokenizer above to start comparing.")
    st.stop()
if not text:
    st.info("Type some text above.")
    st.stop()

segments, usable = [], []
for column_info in columns:
    try:
        segments.append(column_info[2].segment(text))
        usable.append(column_info)
    except BPEError as exc:  # e.g. an imported tokenizer without an unknown token meets an unseen character
        st.error(f"{md_escape(column_info[1])} cannot encode this text: {md_escape(str(exc))}")
columns = usable
if not columns:
    st.stop()
encodings = [pieces_encoding(pieces) for pieces in segments]
comparison = compare_segmentations(text, encodings, ignore_whitespace=ss[state.CMP_IGNORE_WS])
labels = [label for _, label, _, _ in columns]
models = [model for _, _, model, _ in columns]
unknown = [[p.unknown for p in pieces] for pieces in segments]
if len(columns) > 1:
    st.markdown(f"**{comparison.disagreements:,} place{'s' * (comparison.disagreements != 1)} where the token "
                "boundaries disagree** (red bars; shaded: a character whose bytes some tokenizers split)")
    st.html(view.marked_text_html(comparison))
counts = view.counts_table(labels, models, comparison, unknown=[sum(u) for u in unknown])
# long labels wrap, long headers shorten: the table fits the page
fit = fit_columns(counts, presenter=ss[state.W_PRESENTER])
st.dataframe(counts, hide_index=True, width="stretch", column_config=fit.columns,
             row_height=shown_row_height(fit, presenter=page_header.presenter()))

cols = st.columns(len(columns), gap="medium")
for col, (entry, label, model, _), column, pieces in zip(cols, columns, comparison.columns, segments):
    with col, st.container(border=True):
        st.markdown(f"**{md_escape(label)}**")
        merges = "" if model.merge_count is None else f" · {model.merge_count:,} merges"
        st.caption(f"{model.title} · {column.token_count:,} tokens · {column.chars_per_token:.2f} characters per "
                   f"token · vocabulary {model.vocab_size:,}{merges}")
        st.html(view.column_html(model, text, column, as_hex=ss[state.CMP_AS_HEX], unknown=[p.unknown for p in pieces],
                                 special=[p.special for p in pieces]))
        if any(p.special for p in pieces):
            st.caption("Dashed: added or special tokens, cut out of the text whole.")
        if model.mark is not None and any(p.marked for p in pieces):
            st.caption(f"Underlined in purple: {model.mark.plural}, {model.mark.note}.")
        st.button("Remove", key=state.b_cmp_remove(entry.key), on_click=_remove, args=(entry.key,),
                  icon=":material/close:", type="tertiary")

if len(columns) > 1:
    held = [m.model for m in models]  # the objects themselves: an id could be reused
    memo = ss.get(state.CMP_OVERLAP_MEMO)
    if memo is None or len(memo[0]) != len(held) or any(a is not b for a, b in zip(memo[0], held)) \
            or memo[2] != labels:
        memo = ss[state.CMP_OVERLAP_MEMO] = (held, view.overlap_table(labels, models), labels)
    st.markdown("**Vocabulary overlap:** tokens compared by the text they stand for (the markers ## and ▁, byte "
                "letters and the space of a word's start or end read away); unknown tokens left out")
    fit = fit_columns(memo[1], presenter=ss[state.W_PRESENTER])
    st.dataframe(memo[1], hide_index=True, width="stretch", column_config=fit.columns,
                 row_height=shown_row_height(fit, presenter=page_header.presenter()))

curves = [(label, token_count_curve(model.tokenizer, text, points=view.CURVE_POINTS))
          for _, label, model, bundle in columns
          if bundle is not None and isinstance(model.model, Tokenizer) and model.merge_count]
if curves:
    st.markdown("**The vocabulary-size question in miniature:** this text's token count with only the first k "
                "merges of each trained BPE tokenizer")
    st.plotly_chart(view.curve_figure(curves, presenter=page_header.presenter()), key=state.CMP_CURVE,
                    config={"displayModeBar": False}, width="stretch")
