"""BPE-dropout: sample a word's segmentation many times with merges skipped at random."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.analysis import dropout_distribution, visible_whitespace
from explorer.display import dropout as view
from explorer.display.render import Chip, as_clause, chips_html, md_escape
from explorer.ui import page_header, state
from explorer.ui import tokenizer_picker as picker

# Session-state keys of this page (the app-wide ones live in explorer/ui/state.py): value, widget.
WORD, W_WORD = "drop_word", "drop_w_word"
P, W_P = "drop_p", "drop_w_p"
SAMPLES, W_SAMPLES = "drop_samples", "drop_w_samples"
SEED, W_SEED = "drop_seed", "drop_w_seed"
W_SOURCE = "drop_w_source"
MAX_SAMPLES = 20_000
ss = st.session_state
for key, value in ((WORD, "newest"), (P, 0.1), (SAMPLES, 1000), (SEED, 0)):
    ss.setdefault(key, value)

page_header.header(
    "BPE-dropout",
    "While encoding, each applicable merge is skipped with probability p, so one word gets many segmentations: "
    "a regularizer used in training (Provilkov et al., 2020).", summary=False)
source = picker.pick("Tokenizer", W_SOURCE)
if source is None:
    st.stop()
st.caption(picker.caption(source))
tok = picker.tokenizer_for(source)
byte_level = tok.settings.mode == "bytes"

a, b, c, d = st.columns([2, 2, 1, 1])
a.text_input("Word", key=W_WORD, on_change=state.bind(ss, W_WORD, WORD))
b.slider("Dropout probability p", 0.0, 1.0, step=0.05, key=W_P, on_change=state.bind(ss, W_P, P))
c.number_input("Samples", min_value=1, max_value=MAX_SAMPLES, step=100, key=W_SAMPLES,
               on_change=state.bind(ss, W_SAMPLES, SAMPLES))
d.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key=W_SEED, on_change=state.bind(ss, W_SEED, SEED))
try:
    dist = dropout_distribution(tok, ss[WORD], p=float(ss[P]), samples=int(ss[SAMPLES]), seed=int(ss[SEED]))
except BPEError as exc:
    st.error(md_escape(f"Cannot sample: {as_clause(str(exc))}."))
    st.stop()


def chips(tokens: tuple[str, ...]) -> str:
    return chips_html([Chip(t, token_id=tok.vocab.get(t), birth=tok.birth.get(t), unknown=t not in tok.vocab)
                       for t in tokens], byte_level=byte_level, show_id=True)


left, right = st.columns([2, 3], gap="large")
with left:
    st.markdown("**Without dropout** (the deterministic segmentation)")
    st.html(chips(dist.deterministic))
    share = view.deterministic_share(dist)
    st.metric("Distinct segmentations", f"{len(dist.outcomes):,}",
              help="Different ways the word came out across the samples.")
    st.metric("Deterministic one sampled", f"{100 * share:.1f}%")
    st.markdown("**Most frequent with dropout**")
    for outcome in dist.outcomes[:6]:
        st.html(f'<div class="bpe-row"><span class="bpe-count">{100 * outcome.count / dist.samples:.1f}%</span>'
                f"{chips(outcome.tokens)}</div>")
with right:
    st.plotly_chart(view.outcomes_figure(dist, byte_level=byte_level, presenter=page_header.presenter()),
                    key="drop_chart", config={"displayModeBar": False}, width="stretch")
with st.expander(f"All {len(dist.outcomes):,} segmentations"):
    st.dataframe(view.outcomes_frame(dist, byte_level=byte_level), hide_index=True, width="stretch")
st.caption(f"Same seed, same samples: the result is reproducible. The word as this tokenizer normalizes it: "
           f"{md_escape(visible_whitespace(dist.word))}")
