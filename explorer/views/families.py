"""Families: the lesson's table of BPE, WordPiece, Unigram and SuperBPE made live on the session's corpus.

The four train one after another in the page's thread on the corpus's first
`families.TRAIN_CHARS` characters (the cap keeps Unigram's pure-Python EM to seconds), and the
server keeps the last few results for every session (`FamiliesCache`).
"""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from explorer.data import families as fam
from explorer.display import families as view
from explorer.display.render import as_clause, as_sentence, md_escape
from explorer.ui import state, store

ss = st.session_state  # this page's keys are state.FAM_*


@st.cache_resource(show_spinner=False)
def _cache() -> fam.FamiliesCache:
    return fam.FamiliesCache()


st.title("Families")
st.caption("The lesson's comparison of tokenizer families, trained here on your corpus: BPE, WordPiece and "
           "Unigram, plus SuperBPE, whose second phase merges across spaces. Same text, same vocabulary size.")
try:
    corpus = store.get_corpus(ss[state.CORPUS])
except BPEError as exc:
    st.info(md_escape(as_sentence(str(exc))))
    st.stop()


def _write_vocab() -> None:
    ss[state.FAM_VOCAB] = ss[state.FAM_W_VOCAB]


ss[state.FAM_W_VOCAB] = ss[state.FAM_VOCAB] or fam.default_vocab_size(len(corpus.text))
a, b = st.columns(2)
a.number_input(f"Vocabulary size (all four families, {fam.MIN_VOCAB:,} to {fam.MAX_VOCAB:,})",
               min_value=fam.MIN_VOCAB, max_value=fam.MAX_VOCAB, step=100, key=state.FAM_W_VOCAB,
               on_change=_write_vocab,
               help="Byte-level BPE and SuperBPE start from the 256 bytes; WordPiece counts its five special "
                    "tokens, Unigram its unknown token.")
b.slider("SuperBPE's transition (% of the vocabulary learned in phase one)", 50, 99, step=1,
         key=state.FAM_W_PERCENT, on_change=state.bind(ss, state.FAM_W_PERCENT, state.FAM_PERCENT),
         help="Phase one is BPE within words up to this vocabulary size; phase two may merge across spaces. "
              "The paper's best ratio is about 90%.")
vocab_size = int(ss[state.FAM_W_VOCAB])
transition = fam.transition_size(vocab_size, int(ss[state.FAM_PERCENT]))

key = (corpus.digest, vocab_size, transition)
cache = _cache()
found = cache.get(key)
if found is None:
    where = corpus.title + (f" (its first {fam.TRAIN_CHARS:,} characters)" if len(corpus.text) > fam.TRAIN_CHARS
                            else "")
    bar = st.progress(0.0, text="Training…")

    def progress(index: int, family: str) -> None:
        bar.progress(index / len(fam.FAMILIES), text=md_escape(
            f"Training {family} ({index + 1} of {len(fam.FAMILIES)}) on {where}…"))

    try:
        found = fam.train_families(corpus.text, vocab_size=vocab_size, transition=transition, progress=progress)
    except BPEError as exc:
        bar.empty()
        st.error(md_escape(f"Cannot train: {as_clause(str(exc))}."))
        st.stop()
    bar.empty()
    cache.put(key, found)

st.subheader("The lesson's table, on this corpus")
st.dataframe(view.lesson_frame(found), hide_index=True, width="stretch", key=state.FAM_TABLE)
st.caption(view.measured_caption(found) + " BPE here is our engine in bytes mode with GPT-4o's split (o200k); "
           "SuperBPE's phase one uses the same split, so its first merges are BPE's.")
for run in found.runs:
    if run.model is None:
        st.warning(md_escape(f"{run.family} could not train with these settings: {as_clause(run.error)}."))
trained = view.family_order(found)

st.subheader("Your words, by each family")
st.text_input("Words", key=state.FAM_W_WORDS, on_change=state.bind(ss, state.FAM_W_WORDS, state.FAM_WORDS))
words = str(ss[state.FAM_WORDS])
if len(words) > view.MAX_WORDS_CHARS:
    st.caption(f"Only the first {view.MAX_WORDS_CHARS:,} characters are segmented.")
    words = words[:view.MAX_WORDS_CHARS]
count = len(words.split())
rows = []
for family in trained:
    chips, tokens = view.family_chips_html(family, found.run(family).model, words)
    rows.append(view.segmentation_row_html(family, chips, tokens, count))
st.html('<div class="bpe-rows">' + "".join(rows) + "</div>")
st.caption(f"{count:,} words (runs of non-whitespace); at most {view.MAX_CHIPS:,} tokens drawn per family. "
           "A space is drawn ·; WordPiece's ## and Unigram's ▁ are the families' own word markers; SuperBPE's "
           "superwords (tokens that cross a space) are outlined.")

st.subheader("Vocabulary overlap")
st.caption("Two families share a token when the tokens stand for the same text once each family's marker "
           "is dropped (BPE's and SuperBPE's leading space Ġ, WordPiece's ##, Unigram's ▁, unless the token is "
           "only that marker); special tokens are left out, and Jaccard = shared / tokens in either. Byte-level "
           "vocabularies (BPE, SuperBPE) hold all 256 bytes, used or not.")
overlaps = fam.overlaps(found)
if overlaps:
    st.dataframe(view.overlap_frame(overlaps), hide_index=True, width="stretch", key=state.FAM_OVERLAP)

st.subheader("Several segmentations of one word")
st.text_input("Word", key=state.FAM_W_WORD, on_change=state.bind(ss, state.FAM_W_WORD, state.FAM_WORD))
word = str(ss[state.FAM_WORD]).strip()
if len(word.split()) != 1 or len(word) > 60:
    st.info("Type one word (no spaces, at most 60 characters).")
    st.stop()
left, right = st.columns(2, gap="large")
with left:
    st.markdown(f"**Unigram: the {fam.NBEST} most probable segmentations**")
    unigram = found.run("Unigram").model
    if unigram is None:
        st.caption("Unigram could not train with these settings.")
    else:
        st.dataframe(view.nbest_frame(fam.unigram_nbest(unigram, word)), hide_index=True, width="stretch",
                     key=state.FAM_NBEST)
        st.caption("Share of the n best: each one's probability over the sum of the n shown (exp of the "
                   "log-probability, normalised).")
with right:
    st.markdown(f"**BPE-dropout: {fam.DROPOUT_SAMPLES:,} samples at p = {fam.DROPOUT_P}, seed {fam.DROPOUT_SEED}**")
    bpe = found.run("BPE").model
    if bpe is None:
        st.caption("BPE could not train with these settings.")
    else:
        try:
            dist = fam.bpe_dropout(bpe, word)
        except BPEError as exc:
            st.info(md_escape(f"Cannot sample: {as_clause(str(exc))}."))
        else:
            st.dataframe(view.dropout_frame(dist), hide_index=True, width="stretch", key=state.FAM_DROPOUT)
            st.caption(f"The word after a space, as BPE sees it in running text; {len(dist.outcomes):,} distinct "
                       "segmentations, the 8 most frequent shown. The seed makes the samples the same every time.")
