"""Families: the lesson's table of every family this app trains, made live on the session's corpus.

They train in worker processes (a job a family, in the lane of a training of their size, under the
pool's limits) on the corpus's first `families.TRAIN_CHARS` characters (the cap keeps the slowest,
pure-Python EM, to seconds); a lesson's few words train in the page's thread, as the sidebar's
training of them does (`store.small_enough_here`). The server keeps the last few results for every
session (`FamiliesCache`). What is particular to a family (how it trains here, its several
segmentations of a word) comes from its folder (`explorer.families.part`).
"""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.families.registry import family
from explorer.data import families as fam
from explorer.display import families as view
from explorer.display import tables
from explorer.display.render import as_clause, as_sentence, md_escape
from explorer.display.table_fit import fit_columns, shown_row_height
from explorer.families import explorer_family, part, taking, titles
from explorer.ui import page_caches, page_header, state, store

ss = st.session_state  # this page's keys are state.FAM_*
_COUNT = {2: "two", 3: "three", 4: "four", 5: "five"}.get(len(fam.FAMILIES), f"{len(fam.FAMILIES)}")


st.title("Families")
st.caption(f"The lesson's comparison of tokenizer families, trained here on your corpus: {titles(fam.FAMILIES)}. "
           "Same text, same vocabulary size.")
try:
    corpus = store.get_corpus(ss[state.CORPUS])
except BPEError as exc:
    st.info(md_escape(as_sentence(str(exc))))
    st.stop()


def _write_vocab() -> None:
    ss[state.FAM_VOCAB] = ss[state.FAM_W_VOCAB]


ss[state.FAM_W_VOCAB] = ss[state.FAM_VOCAB] or fam.default_vocab_size(len(corpus.text))
a, b = st.columns(2)
a.number_input(f"Vocabulary size (all {_COUNT} families, {fam.MIN_VOCAB:,} to {fam.MAX_VOCAB:,})",
               min_value=fam.MIN_VOCAB, max_value=fam.MAX_VOCAB, step=100, key=state.FAM_W_VOCAB,
               on_change=_write_vocab,
               help="The byte-level families start from the 256 bytes; the others count their special tokens "
                    "(the unknown token among them).")
b.slider(f"{titles(taking('transition'))}'s transition (% of the vocabulary learned in phase one)", 50, 99, step=1,
         key=state.FAM_W_PERCENT, on_change=state.bind(ss, state.FAM_W_PERCENT, state.FAM_PERCENT),
         help="Phase one is BPE within words up to this vocabulary size; phase two may merge across spaces. "
              "The paper's best ratio is about 90%.")
vocab_size = int(ss[state.FAM_W_VOCAB])
transition = fam.transition_size(vocab_size, int(ss[state.FAM_PERCENT]))

key = (corpus.digest, vocab_size, transition)
cache = page_caches.families()
found = cache.get(key)
if found is None:
    where = corpus.title + (f" (its first {fam.TRAIN_CHARS:,} characters)" if len(corpus.text) > fam.TRAIN_CHARS
                            else "")
    try:
        fam.check_request(corpus.text, vocab_size)
    except BPEError as exc:
        st.error(md_escape(f"Cannot train: {as_clause(str(exc))}."))
        st.stop()
    # A task a family: two of them train at once (the short lane's workers), the longest first, so that
    # the others share the second worker meanwhile (about half the wait of one task for all four). A
    # lesson's few words train at once in this thread instead: all four take less than one worker's start.
    costs = {name: part(name, "families").COST for name in fam.FAMILIES}
    order = sorted(fam.FAMILIES, key=lambda name: -costs[name])
    sizes = {"vocab_size": vocab_size, "transition": transition}
    work = [(("families", *key, name), fam.families_task(corpus.text, **sizes, where=where, names=(name,)),
             lambda name=name: fam.train_families(corpus.text, **sizes, names=(name,))) for name in order]
    small = store.small_enough_here(min(len(corpus.text), fam.TRAIN_CHARS), vocab_size * sum(costs.values()))
    done = store.run_tasks(work, st.empty(), at_once=small)
    errors = list(dict.fromkeys(error for _, error in done if error))
    if errors:
        st.error(md_escape(f"Cannot train: {as_clause('; '.join(errors))}."))
        st.stop()
    found = fam.merged([result for result, _ in done])
    cache.put(key, found)

st.subheader("The lesson's table, on this corpus")
lesson = view.lesson_frame(found)
# long criteria wrap: the four families fit the page side by side
fit = fit_columns(lesson, index=True, presenter=ss[state.W_PRESENTER])
row_height = shown_row_height(fit, presenter=page_header.presenter())
st.dataframe(lesson, width="stretch", height=view.table_height(len(lesson), row_height), key=state.FAM_TABLE,
             column_config=fit.columns, row_height=row_height, placeholder=tables.EMPTY)
notes = [part(name, "families").NOTE for name in fam.FAMILIES]
st.caption(" ".join([view.measured_caption(found), *filter(None, notes)]))
for run in found.runs:
    if run.model is None:
        st.warning(md_escape(f"{family(run.family).title} could not train with these settings: "
                             f"{as_clause(run.error)}."))
trained = view.family_order(found)

st.subheader("Your words, by each family")
st.text_input("Words", key=state.FAM_W_WORDS, on_change=state.bind(ss, state.FAM_W_WORDS, state.FAM_WORDS))
words = str(ss[state.FAM_WORDS])
if len(words) > view.MAX_WORDS_CHARS:
    st.caption(f"Only the first {view.MAX_WORDS_CHARS:,} characters are segmented.")
    words = words[:view.MAX_WORDS_CHARS]
count = len(words.split())
rows = []
for name in trained:
    chips, tokens = view.family_chips_html(found.run(name).model, words)
    rows.append(view.segmentation_row_html(family(name).title, chips, tokens, count))
st.html('<div class="bpe-rows">' + "".join(rows) + "</div>")
marks = [mark for mark in (explorer_family(name).mark for name in fam.FAMILIES) if mark is not None]
st.caption(f"{count:,} words (runs of non-whitespace); at most {view.MAX_CHIPS:,} tokens drawn per family. "
           "A space is drawn ·; ## and ▁ are the families' own word markers"
           + "".join(f"; {mark.plural} ({mark.note}) are outlined" for mark in marks) + ".")

st.subheader("Vocabulary overlap")
st.caption("Two families share a token when the tokens stand for the same text once each family's marker "
           "is dropped (a leading space Ġ or ▁, the ## of a piece inside a word, unless the token is only that "
           "marker); special tokens are left out, and Jaccard = shared / tokens in either. Byte-level "
           "vocabularies hold all 256 bytes, used or not.")
overlaps = fam.overlaps(found)
if overlaps:
    st.dataframe(view.overlap_frame(overlaps), hide_index=True, width="stretch", key=state.FAM_OVERLAP)

st.subheader("Several segmentations of one word")
st.text_input("Word", key=state.FAM_W_WORD, on_change=state.bind(ss, state.FAM_W_WORD, state.FAM_WORD))
word = str(ss[state.FAM_WORD]).strip()
if len(word.split()) != 1 or len(word) > 60:
    st.info("Type one word (no spaces, at most 60 characters).")
    st.stop()
several = [(name, part(name, "families").SEGMENTATIONS) for name in fam.FAMILIES]
several = [(name, shown) for name, shown in several if shown is not None]
for column, (name, shown) in zip(st.columns(len(several), gap="large") if several else [], several):
    with column:
        st.markdown(f"**{shown.title}**")
        model = found.run(name).model
        if model is None:
            st.caption(f"{family(name).title} could not train with these settings.")
            continue
        try:
            table, caption = shown.table(model, word)
        except BPEError as exc:
            st.info(md_escape(as_sentence(str(exc))))
            continue
        st.dataframe(table, hide_index=True, width="stretch", key=state.b_fam_several(name))
        st.caption(caption)
