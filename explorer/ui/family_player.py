"""The Watch page for WordPiece, Unigram and SuperBPE: a player drawn by the server, frame by frame.

BPE keeps its browser-side player (`animation`). The other families' frames are drawn here from
`display.family_frames`: a slider and buttons move the step (`state.STEP`, so the link's `step=`
follows); while playing, the fragment reruns itself every `interval` seconds and advances.
"""
from __future__ import annotations

import logging
import time
from typing import Any

import pandas as pd
import streamlit as st

from bpe_core import BPEError
from explorer.data.family_training import SCORED_STEPS, TOP_WORDS
from explorer.data.family_view import FAMILY_TITLES
from explorer.data.training import Trained
from explorer.display import charts
from explorer.display import family_frames as ff
from explorer.display.render import cap_token, md_escape, token_text
from explorer.ui import link, state

WORDS_SHOWN = 14
MIN_INTERVAL = 0.4  # seconds between two frames at most speeds: each frame is drawn by the server
UNIT = {"wordpiece": "step", "unigram": "round", "superbpe": "step"}
log = logging.getLogger(__name__)


def interval(speed: float) -> float:
    """Seconds between frames while playing."""
    return max(MIN_INTERVAL, 1.0 / max(speed, 0.1))


def steps_per_tick(speed: float) -> int:
    """Steps one frame advances, so that `speed` steps per second holds at the slowest interval."""
    return max(1, round(speed * interval(speed)))


def show(trained: Trained, *, presenter: bool = False) -> None:
    ss = st.session_state
    first = ff.first_step(trained.family)
    if trained.steps < max(1, first):
        why = trained.stop_reason or "the settings leave nothing to learn"
        st.info(md_escape(f"{FAMILY_TITLES[trained.family]} learned nothing to animate here: {why}. "
                          "Try a larger vocabulary size or another corpus."))
        return
    ss[state.STEP] = ff.clamp(trained, ss[state.STEP])
    if ss[state.STEP] >= trained.steps:
        ss[state.PLAYING] = False
    st.html(ff.FAMILY_CSS)
    every = interval(float(ss[state.SPEED])) if ss[state.PLAYING] else None
    ss[state.WATCH_TICK] = time.monotonic()
    st.fragment(_player, run_every=every)(trained, presenter)


def _slider_moved() -> None:
    ss = st.session_state
    ss[state.STEP] = int(ss[state.WATCH_W_STEP])
    ss[state.PLAYING] = False


def _speed_changed() -> None:
    ss = st.session_state
    ss[state.SPEED] = float(ss[state.WATCH_W_SPEED])


def _advance(trained: Trained) -> None:
    """A timer run while playing: move on by the speed's steps; stop (a whole run) at the end."""
    ss = st.session_state
    speed = float(ss[state.SPEED])
    now = time.monotonic()
    if now - ss.get(state.WATCH_TICK, 0.0) < interval(speed) * 0.8:
        return  # a run caused by something else than the timer
    ss[state.WATCH_TICK] = now
    ss[state.STEP] = min(trained.steps, ss[state.STEP] + steps_per_tick(speed))
    if ss[state.STEP] >= trained.steps:
        ss[state.PLAYING] = False
        st.rerun()  # the whole page: the next fragment has no timer


def _controls(trained: Trained) -> None:
    ss = st.session_state
    first, last = ff.first_step(trained.family), trained.steps
    unit = UNIT[trained.family]
    cols = st.columns([1, 1, 1.4, 1, 1, 2.2])
    moves = {0: ("First", ":material/first_page:", first), 1: ("Back", ":material/chevron_left:", ss[state.STEP] - 1),
             3: ("Next", ":material/chevron_right:", ss[state.STEP] + 1), 4: ("Last", ":material/last_page:", last)}
    for col, (name, icon, target) in moves.items():
        if cols[col].button(name, icon=icon, width="stretch", help=f"{name} {unit}"):
            ss[state.STEP] = max(first, min(last, target))
            ss[state.PLAYING] = False
            st.rerun()
    playing = bool(ss[state.PLAYING])
    if cols[2].button("Pause" if playing else "Play", icon=":material/pause:" if playing else ":material/play_arrow:",
                      type="primary", width="stretch"):
        if not playing and ss[state.STEP] >= last:
            ss[state.STEP] = first  # play again from the start
        ss[state.PLAYING] = not playing
        ss[state.WATCH_TICK] = time.monotonic()
        st.rerun()
    ss[state.WATCH_W_SPEED] = float(ss[state.SPEED])
    cols[5].select_slider("Speed", options=list(state.SPEEDS), key=state.WATCH_W_SPEED, on_change=_speed_changed,
                          format_func=lambda s: f"{s:g} {unit}{'' if s == 1 else 's'} per second",
                          label_visibility="collapsed")
    ss[state.WATCH_W_STEP] = int(ss[state.STEP])
    label = unit.capitalize()
    cut = trained.story.transition if trained.family == "superbpe" else None
    if cut is not None:  # the transition on the timeline too
        label += (f" (phase one: 1 to {cut:,}; phase two: from {cut + 1:,})" if cut < last else " (phase one only)")
    if last > first:  # a slider needs two ends
        st.slider(label, min_value=first, max_value=last, key=state.WATCH_W_STEP, on_change=_slider_moved)


def _player(trained: Trained, presenter: bool) -> None:
    ss = st.session_state
    if ss[state.PLAYING]:
        _advance(trained)
    try:
        _controls(trained)
        _frame(trained, int(ss[state.STEP]), presenter)
    except BPEError as exc:
        st.error(md_escape(str(exc)))
    except Exception:  # noqa: BLE001 - no traceback ever reaches the browser (st.rerun is no Exception)
        log.exception("family frame %s failed", ss[state.STEP])
        st.error("Could not draw this step. Try another step or other settings.")
    link.write_step(st.query_params, int(ss[state.STEP]))


def _chart(fig: Any, key: str) -> None:
    st.plotly_chart(fig, key=key, config={"displayModeBar": False}, width="stretch")


def _frame(trained: Trained, step: int, presenter: bool) -> None:
    family = trained.family
    build = {"wordpiece": ff.wordpiece_frame, "unigram": ff.unigram_frame, "superbpe": ff.superbpe_frame}[family]
    frame = build(trained, step, words=WORDS_SHOWN)
    st.html(frame.card + ff.facts_html(frame))
    left, right = st.columns([1.1, 1])
    with left:
        if family == "wordpiece":
            cands = ff.wordpiece_candidates(trained, step)
            if cands:
                _chart(ff.score_figure(cands, presenter=presenter), state.WATCH_CHART)
                with st.expander("The counts behind each score"):
                    st.dataframe(pd.DataFrame(ff.score_rows(cands)), hide_index=True, width="stretch",
                                 key=state.WATCH_TABLE, column_config={"score": st.column_config.NumberColumn(
                                     format="%.6g")})
            else:
                st.caption(f"The score chart is kept for the first {SCORED_STEPS:,} steps only (each needs a scan "
                           "of every pair in the corpus); this step's merge and the counts behind its score are "
                           "above.")
        elif family == "unigram":
            _chart(ff.rounds_figure(trained, step, presenter=presenter), state.WATCH_CHART)
            rows, total = ff.removed_rows(trained, step)
            what = "score" if rows and "score" in rows[0] else "loss"
            shown = f" (the {len(rows):,} with the least {what})" if total > len(rows) else ""
            st.markdown(f"**Pieces removed in round {step:,}: {total:,}{shown}**")
            if rows:
                st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", height=260, key=state.WATCH_TABLE,
                             column_config={what: st.column_config.NumberColumn(format="%.4g")})
            st.caption("Loss: how much the corpus log-likelihood falls if the piece goes and its text is split "
                       "into the other pieces. Single characters are always kept.")
        else:
            pairs = ff.superbpe_pairs(trained, step)
            if pairs:
                _chart(charts.top_pairs_figure(pairs, byte_level=True, presenter=presenter), state.WATCH_CHART)
    with right:
        what = "phase-two pieces of several words" if family == "superbpe" else "words"
        st.markdown(f"**The most frequent {what}** (of the corpus's top {TOP_WORDS}: {WORDS_SHOWN} shown)")
        st.html(ff.rows_html(frame, byte_level=trained.byte_level))
        if family == "superbpe":
            st.caption("Ringed in gold: superword tokens, which cross a space. Long pieces show their first "
                       f"{ff.CHUNK_SHOWN} characters.")
    if family != "unigram":
        _chart(ff.curve_figure(trained, step, presenter=presenter), state.WATCH_CURVE)


def trace_rows(trained: Trained) -> list[dict]:
    """Every step (round) of the family's trace as table rows; tokens capped for display."""
    family = trained.family
    if family == "wordpiece":
        return [{"step": s.step, "left": cap_token(s.left), "right": cap_token(s.right),
                 "new token": cap_token(s.token),
                 "count(ab)": s.pair_count, "count(a)": s.left_count, "count(b)": s.right_count, "score": s.score,
                 "new entry": s.added} for s in trained.model.trace]
    if family == "unigram":
        return [{"round": r.round, "pieces before": r.vocab_size_before, "pieces after": r.vocab_size,
                 "log-likelihood": round(r.log_likelihood, 2), "removed": len(r.removed),
                 "dropped by EM": len(r.dropped),
                 "final cut": r.final} for r in trained.model.trace]
    return [{"step": s.rank + 1, "left": cap_token(token_text(s.left, byte_level=True)),
             "right": cap_token(token_text(s.right, byte_level=True)),
             "new token": cap_token(token_text(s.token, byte_level=True)), "count": s.count, "phase": s.phase,
             "superword": s.superword} for s in trained.model.trace]
