"""Lessons: the three BPE lessons the app started from, reproduced with their exact numbers."""
from __future__ import annotations

import streamlit as st

from bpe_core.analysis import with_extra
from explorer.data import lessons
from explorer.data.corpus import pasted_corpus
from explorer.display import tables
from explorer.display.render import Chip, chips_html, md_escape
from explorer.ui import animation, lesson_store, page_header, state, store

ss = st.session_state


def _open(lesson_key: str, *, merges: int | None = None, extra: bool = False) -> None:
    """Load a lesson's corpus and settings into the explorer, at its first merge, paused: the user presses play."""
    lesson = lessons.LESSONS[lesson_key]
    state.apply_values(ss, state.values_for_request(lesson.request))
    if merges is not None:
        state.apply_values(ss, {state.W_TARGET: "merges", state.W_MERGES: merges})
    if extra:
        corpus = pasted_corpus(with_extra(store.sample_text(lesson.corpus_id), lessons.TRY_IT_EXTRA))
        store.add_user_corpus(corpus)
    else:
        ss[state.CORPUS] = ss[state.W_CORPUS] = f"sample:{lesson.corpus_id}"
    ss[state.WORDS] = lesson.words
    animation.jump_to(1)


def _open_button(lesson_key: str) -> None:
    st.button("Open in the explorer", key=state.b_open_lesson(lesson_key), on_click=_open, args=(lesson_key,),
              type="primary", icon=":material/open_in_new:")


def _check(ok: bool, what: str) -> None:
    if ok:
        st.success(f"Matches the lesson: {what}", icon=":material/check_circle:")
    else:
        st.error(f"Does not match the lesson: {what}")


st.title("Lessons")
st.caption("Three BPE lessons, each reproduced by the engine with the lesson's own numbers checked. "
           "\"Open in the explorer\" loads the lesson's corpus and settings and shows the animation at its first "
           "merge: press play to watch it learn.")
page_header.bpe_only("Lessons")
tab000, tab003, tab002 = st.tabs([lessons.SEED000.title, lessons.SEED003.title, lessons.SEED002.title])

with tab000:
    lesson = lessons.SEED000
    _open_button("seed000")
    st.markdown("Word mode, a separate `</w>` after each word, ties broken by (count, pair), **10 merges**.")
    tok = lesson_store.lesson_trained("seed000").tokenizer
    st.dataframe(tables.lesson_merges_table(tok.trace), hide_index=True, width="stretch")
    merges = [(m.left, m.right, m.count) for m in tok.trace]
    _check(merges == lessons.EXPECTED_000_MERGES, "the 10 merges and their counts")
    st.markdown("**Encoding words the trainer never saw**")
    unseen = {w: tok.encode_word(w) for w in lessons.EXPECTED_000_UNSEEN}
    st.dataframe(tables.expected_table(unseen, lessons.EXPECTED_000_UNSEEN), hide_index=True, width="stretch")
    _check(unseen == lessons.EXPECTED_000_UNSEEN, "lowest, newer, wider, slow")

    st.subheader("Try it yourself")
    st.markdown(
        f'Add "{lessons.TRY_IT_EXTRA}" to the corpus and train again: watch which merge appears, and '
        "where. Then raise the merge count from 10 to 20 and find the point where every corpus word is "
        "a single token."
    )
    tried = lesson_store.try_it_yourself()
    moves = tables.try_it_table(tried)
    st.dataframe(moves, hide_index=True, width="stretch")
    new = moves[moves["change"] == "new"]
    if len(new):
        first = new.iloc[0]
        st.markdown(
            f"With the extra words, **{md_escape(first['new token'])}** appears at step {first['step']} "
            f"(seen {first['seen']} times)."
        )
    st.markdown(
        f"With 20 merges, every word of the lesson's corpus is a single token after **step "
        f'{tried.collapse_before}**; with "{lessons.TRY_IT_EXTRA}" added, after **step '
        f"{tried.collapse_after}**. Merges after that point cannot shorten the corpus any more."
    )
    st.button(
        "Try it in the explorer (extra words, 20 merges)",
        key=state.b_open_lesson("seed000", "try"),
        on_click=_open,
        args=("seed000",),
        kwargs={"merges": 20, "extra": True},
    )

with tab003:
    lesson = lessons.SEED003
    _open_button("seed003")
    st.markdown(
        "Text mode (spaces are characters too), no pre-tokenizer, ties broken by the pair seen first, "
        "until the **vocabulary has 25 tokens**."
    )
    trained = lesson_store.lesson_trained("seed003")
    tok = trained.tokenizer
    st.markdown(
        f"The text has {trained.alphabet} distinct characters, so 25 tokens leave room for "
        f"{25 - trained.alphabet} merges."
    )
    st.dataframe(tables.added_tokens_table(tok.trace), hide_index=True, width="stretch")
    _check([m.token for m in tok.trace] == lessons.EXPECTED_003_ADDED, "the 9 added tokens")
    final = tok.encode(store.sample_text("seed003")).tokens
    st.markdown(f"**Final tokens** ({len(final)} instead of {len(store.sample_text('seed003'))} characters)")
    st.html(chips_html([Chip(t, birth=tok.birth.get(t)) for t in final]))
    _check(final == lessons.EXPECTED_003_TOKENS, "the final tokens")

with tab002:
    lesson = lessons.SEED002
    _open_button("seed002")
    st.markdown(
        "Twelve sentences about cats and dogs, lowercased, word mode with `</w>`, asking for a **vocabulary of 120**."
    )
    trained = lesson_store.lesson_trained("seed002")
    tok = trained.tokenizer
    st.markdown(
        f"After **{trained.steps} merges** every word of the corpus is a single token, so training stops there: "
        f"the vocabulary has **{tok.vocab_size}** tokens ({trained.alphabet} base symbols, {trained.steps} merged "
        "tokens and the unknown token), not 120."
    )
    st.dataframe(tables.round_trip_table(tok, lessons.SEED002_INPUTS), hide_index=True, width="stretch")
    st.markdown(
        "'z' never occurs in the corpus, so it becomes `<unk>` and decodes as `<unk>`: "
        '"unrecognized" comes back as `unrecogni<unk>ed`. Every other character was seen, so '
        "even a new word is spelled out from known pieces."
    )
    st.caption(
        "The lesson's own encoder forgets to add `</w>` to each word, so its decode runs the words "
        "together; the engine adds it, and every input decodes back to its words."
    )
