"""Common mistakes from seed 000, each shown right vs wrong on the same words."""
from __future__ import annotations

import streamlit as st

from explorer import lessons, services, state, tables
from explorer.longest_match import differences

ss = st.session_state
WORDS = ["low", "lower", "newest", "widest", "new", "newer", "lowest", "wider", "slow"]


def _show(rows: list[tuple[str, list[str], list[str]]], *, right: str, wrong: str, same: bool = True) -> int:
    """Draw a right-vs-wrong table; returns how many words differ."""
    st.dataframe(tables.comparison_table(rows, right=right, wrong=wrong, same=same), hide_index=True,
                 width="stretch")
    return sum(1 for _, a, b in rows if list(a) != list(b))


st.title("Common mistakes")
st.caption("The mistakes seed 000 warns about, each computed with the engine on the lesson's corpus "
           "(10 merges) and shown next to the right answer.")

tok = services.lesson_trained("seed000").tokenizer

st.header("1. Applying merges in the wrong order")
st.markdown("The merge list is ordered, and the order is the algorithm. Here the lesson's own 10 merges are "
            "replayed (`encode_replay`) in another order and compared with the learned order (`encode_ranked`).")
orders = lessons.wrong_orders(tok.merges)
choice = st.radio("Wrong order", list(orders), horizontal=True, key=state.W_ORDER)
differ = _show(lessons.order_rows(tok, WORDS, orders[choice]), right="learned order", wrong=choice)
st.markdown(f"**{differ} of {len(WORDS)} words** come out differently. A model fed these tokens would see "
            "pieces it was never trained on.")
st.caption("Sorting by count, highest first, happens to give back the learned order on this tiny corpus (its "
           "counts only ever fall), so it looks harmless here; on real text counts rise and fall, and it is not.")

st.header("2. No end-of-word marker")
st.markdown("Trained without `</w>` (end-of-word style *none*), a piece at the end of a word is the same token "
            "as the same letters at the start of one.")
plain = services.seed000_variant("none")
_show(lessons.marker_rows(tok, plain, ["newest", "west", "estate", "establish", "lowest"]),
      right="with </w>", wrong="no marker", same=False)
st.markdown("With `</w>`, **st</w>** can only end a word, so *estate* starts with plain *e s t*. Without it, "
            "**st** ends *west* and starts *estate* alike: a suffix and a prefix are one token.")
a, b = "lowest", "low est"
st.markdown(
    f"And decoding cannot put the space back: with no marker, \"{b}\" encodes to "
    f"`{' '.join(plain.encode(b).tokens)}` and decodes to **\"{plain.decode(plain.encode(b).ids)}\"**; "
    f"with `</w>` it decodes to **\"{tok.decode(tok.encode(b).ids)}\"**."
)

st.header("3. Greedy longest-match instead of BPE")
st.markdown("BPE replays merges in order. Greedy longest-match (WordPiece's encoder) takes the longest "
            "vocabulary piece from the left. Over the same vocabulary they can disagree.")
_show(lessons.greedy_rows(plain, ["lower", "lowest", "newer", "slow"]), right="BPE (merges in order)",
      wrong="longest match")
st.markdown("With the lesson's merges trained without a marker, *lower* is **lo we r** under BPE: merge 1 "
            "(w + e) fires before l + o, so *low* can never form. Longest-match grabs **low** first.")
current = ss[state.TRAINED]
if current is not None:
    found = differences(current.tokenizer, [w for w, _ in current.top_words] + current.tokenizer.words_of(ss[state.WORDS]))
    if found:
        st.markdown("**Your tokenizer** (sidebar settings): words where the two disagree")
        st.dataframe(tables.comparison_table(found, right="BPE (merges in order)", wrong="longest match"),
                     hide_index=True, width="stretch")

st.header("4. Training on different text than you encode")
st.markdown("A tokenizer fits the text it was trained on. Train on Python code, encode English prose, and "
            "words fall apart into more pieces. (1,000 merges each, word mode; tested on text held out "
            "from training.)")
if st.button("Run the comparison", key=state.B_RUN_MISMATCH, icon=":material/science:") or ss[state.MISMATCH_SHOWN]:
    ss[state.MISMATCH_SHOWN] = True
    result = services.mismatch()
    st.dataframe(tables.fertility_table(result), width="stretch")
    eng = result.encoded.index("English prose")
    st.markdown(
        f"English prose costs **{result.fertility[1][eng]:.2f}** tokens per word with the Python-trained "
        f"tokenizer against **{result.fertility[0][eng]:.2f}** with the English-trained one."
    )
