"""Common mistakes from the "low, lower, newest, widest" lesson, each shown right vs wrong on the same words."""
from __future__ import annotations

import streamlit as st

from bpe_core.analysis import mistakes
from bpe_core.analysis.longest_match import WORD_CAP, differences
from explorer.data import lessons
from explorer.display import tables
from explorer.display.render import token_text
from explorer.ui import lesson_store, page_header, state

ss = st.session_state
LONG_WORD = 80  # characters of a word shown whole in the "your tokenizer" table
WORDS = ["low", "lower", "newest", "widest", "new", "newer", "lowest", "wider", "slow"]


def _show(rows: list[tuple[str, list[str], list[str]]], *, right: str, wrong: str, same: bool = True) -> int:
    """Draw a right-vs-wrong table; returns how many words differ."""
    st.dataframe(tables.comparison_table(rows, right=right, wrong=wrong, same=same), hide_index=True,
                 width="stretch")
    return sum(1 for _, a, b in rows if list(a) != list(b))


st.title("Common mistakes")
st.caption(f"The mistakes the lesson \u201c{lessons.SEED000.title}\u201d warns about, each computed with the engine "
           "on that lesson's corpus (10 merges) and shown next to the right answer.")
sidebar_is_bpe = page_header.bpe_only("Common mistakes")

tok = lesson_store.lesson_trained("seed000").tokenizer

st.header("1. Applying merges in the wrong order")
st.markdown("The merge list is ordered, and the order is the algorithm. Here the lesson's own 10 merges are "
            "replayed (`encode_replay`) in another order and compared with the learned order (`encode_ranked`).")
orders = mistakes.wrong_orders(tok.merges)
choice = st.radio("Wrong order", list(orders), horizontal=True, key=state.W_ORDER)
differ = _show(mistakes.order_rows(tok, WORDS, orders[choice]), right="learned order", wrong=choice)
st.markdown(f"**{differ} of {len(WORDS)} words** come out differently. A model fed these tokens would see "
            "pieces it was never trained on.")
st.caption("Sorting by count, highest first, happens to give back the learned order on this tiny corpus (its "
           "counts only ever fall), so it looks harmless here; on real text counts rise and fall, and it is not.")

st.header("2. No end-of-word marker")
st.markdown("Trained without `</w>` (end-of-word style *none*), a piece at the end of a word is the same token "
            "as the same letters at the start of one.")
plain = lesson_store.seed000_variant("none")
_show(mistakes.marker_rows(tok, plain, ["newest", "west", "estate", "establish", "lowest"]),
      right="with </w>", wrong="no marker", same=False)
st.markdown("With `</w>`, **st**`</w>` can only end a word, so *estate* starts with plain *e s t*. Without it, "
            "**st** ends *west* and starts *estate* alike: a suffix and a prefix are one token.")
a, b = "lowest", "low est"
st.markdown(
    f"And decoding cannot put the space back: with no marker, \"{b}\" encodes to "
    f"`{' '.join(plain.encode(b).tokens)}` and decodes to **\"{plain.decode(plain.encode(b).ids)}\"**; "
    f"with `</w>` it decodes to **\"{tok.decode(tok.encode(b).ids)}\"**."
)

st.header("3. Greedy longest-match instead of BPE")
st.markdown("BPE replays merges in order. Greedy longest-match (BERT's encoder) takes the longest "
            "vocabulary piece from the left. Over the same vocabulary they can disagree.")
_show(mistakes.greedy_rows(plain, ["lower", "lowest", "newer", "slow"]), right="BPE (merges in order)",
      wrong="longest match")
st.markdown("With the lesson's merges trained without a marker, *lower* is **lo we r** under BPE: merge 1 "
            "(w + e) fires before l + o, so *low* can never form. Longest-match grabs **low** first.")
current = ss[state.TRAINED]
if current is not None and sidebar_is_bpe:
    mine = current.tokenizer
    words = [w for w, _ in current.top_words] + mine.words_of(ss[state.WORDS])
    found = differences(mine, words, cap=WORD_CAP)
    if found:
        st.markdown("**Your tokenizer** (sidebar settings): words where the two disagree")
        byte_level = mine.settings.mode == "bytes"

        def shown(pieces: list[str]) -> list[str]:
            return [token_text(t, byte_level=byte_level) for t in pieces]

        rows = []
        for row in found:
            if len(row.word) <= LONG_WORD:
                rows.append((row.word, shown(row.bpe), shown(row.greedy)))
                continue
            text, bpe, greedy, before, after = mistakes.around_first_difference(row.bpe, row.greedy)
            dots = ["…"] * before, ["…"] * after
            rows.append((f"{'…' * before}{token_text(text, byte_level=byte_level)}{'…' * after}",
                         [*dots[0], *shown(bpe), *dots[1]], [*dots[0], *shown(greedy), *dots[1]]))
        st.dataframe(tables.comparison_table(rows, right="BPE (merges in order)", wrong="longest match"),
                     hide_index=True, width="stretch")
        if any(len(row.word) > LONG_WORD for row in found):
            st.caption(f"For a word longer than {LONG_WORD} characters the table shows the part where the two first "
                       "cut differently (… marks what is left out).")
    longest = max(map(len, words), default=0)
    if longest > WORD_CAP:
        # Text mode without a pre-tokenizer makes the whole corpus one word: comparing it all would
        # take minutes, so each word is cut (BPE and longest match see the same cut word).
        one_word = mine.settings.mode != "word" and mine.settings.pretokenizer == "none"
        st.caption(f"Only the first {WORD_CAP:,} characters of each word are compared: the longest word here has "
                   f"{longest:,} characters" + (" (without a pre-tokenizer the whole text is one word)." if one_word
                                                 else "."))
    elif not found:
        st.caption("On your tokenizer's most frequent words and your unseen words, the two agree.")

st.header("4. Training on different text than you encode")
st.markdown("A tokenizer fits the text it was trained on. Train on Python code, encode English prose, and "
            f"words fall apart into more pieces. ({lesson_store.MISMATCH_MERGES:,} merges each, word mode, "
            f"trained on the first {lesson_store.MISMATCH_BYTES:,} characters of each sample corpus and tested on "
            f"its last {lesson_store.MISMATCH_TEST_CHARS:,}, never seen in training.)")
if st.button("Run the comparison", key=state.B_RUN_MISMATCH, icon=":material/science:") or ss[state.MISMATCH_SHOWN]:
    ss[state.MISMATCH_SHOWN] = True
    result = lesson_store.mismatch()
    st.dataframe(tables.fertility_table(result), width="stretch")
    eng = result.encoded.index("English prose")
    st.markdown(
        f"English prose costs **{result.fertility[1][eng]:.2f}** tokens per word with the Python-trained "
        f"tokenizer against **{result.fertility[0][eng]:.2f}** with the English-trained one."
    )
