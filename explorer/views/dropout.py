"""BPE-dropout: sample a word's segmentation many times with merges skipped at random."""
from __future__ import annotations

import streamlit as st

from bpe_core import BPEError
from bpe_core.analysis import dropout_distribution, visible_whitespace
from explorer.display import dropout as view
from explorer.display.render import Chip, as_clause, chips_html, md_escape
from explorer.ui import page_header, state
from explorer.ui import tokenizer_picker as picker

MAX_SAMPLES = 20_000
ss = st.session_state  # this page's keys are state.DROP_*

page_header.header(
    "BPE-dropout",
    "While encoding, each applicable merge is skipped with probability p, so one word gets many segmentations: "
    "a regularizer used in training (Provilkov et al., 2020).", summary=False)
page_header.bpe_only("BPE-dropout")
source = picker.pick("Tokenizer", state.DROP_W_SOURCE)
if source is None:
    st.stop()
picker.show_about(source)
tok = picker.tokenizer_or_stop(source)
byte_level = tok.settings.mode == "bytes"

a, b, c, d = st.columns([2, 2, 1, 1])
a.text_input("Word", key=state.DROP_W_WORD, on_change=state.bind(ss, state.DROP_W_WORD, state.DROP_WORD))
b.slider("Dropout probability p", 0.0, 1.0, step=0.05, key=state.DROP_W_P,
         on_change=state.bind(ss, state.DROP_W_P, state.DROP_P))
c.number_input("Samples", min_value=1, max_value=MAX_SAMPLES, step=100, key=state.DROP_W_SAMPLES,
               on_change=state.bind(ss, state.DROP_W_SAMPLES, state.DROP_SAMPLES))
d.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key=state.DROP_W_SEED,
               on_change=state.bind(ss, state.DROP_W_SEED, state.DROP_SEED))
try:
    dist = dropout_distribution(tok, ss[state.DROP_WORD], p=float(ss[state.DROP_P]),
                                samples=int(ss[state.DROP_SAMPLES]), seed=int(ss[state.DROP_SEED]))
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
                    key=state.DROP_CHART, config={"displayModeBar": False}, width="stretch")
with st.expander(f"All {len(dist.outcomes):,} segmentations"):
    st.dataframe(view.outcomes_frame(dist, byte_level=byte_level), hide_index=True, width="stretch")
st.caption(f"Same seed, same samples: the result is reproducible. The word as this tokenizer normalizes it: "
           f"{md_escape(visible_whitespace(dist.word))}")
