"""The training animation: controls and one frame, drawn in a fragment so playing reruns only this.

How playing works: `st.fragment(run_every=...)` registers its timer only when the whole app
runs, so pressing Play or Pause (which changes the timer) asks for one full rerun; every tick
after that reruns the fragment alone and advances the step.
"""
from __future__ import annotations

import logging
import time

import streamlit as st

from bpe_core import BPEError

from . import charts, state
from .frames import build_frame, clamp_step
from .render import merge_card_html, token_html, word_rows_html
from .training import Trained

WORDS_SHOWN = 14
log = logging.getLogger(__name__)


def _toggle(steps: int) -> None:
    ss = st.session_state
    if ss[state.PLAYING]:
        ss[state.PLAYING] = False
        return
    if ss[state.STEP] >= steps:
        ss[state.STEP] = 0  # play again from the start
    ss[state.PLAYING] = True
    ss[state.LAST_TICK] = time.monotonic()


def _move(delta: int, steps: int) -> None:
    ss = st.session_state
    ss[state.PLAYING] = False
    ss[state.STEP] = clamp_step(ss[state.STEP] + delta, steps)


def _scrub() -> None:
    ss = st.session_state
    ss[state.PLAYING] = False
    ss[state.STEP] = int(ss[state.W_STEP])


def _speed() -> None:
    st.session_state[state.SPEED] = float(st.session_state[state.W_SPEED])


def show(trained: Trained, *, presenter: bool = False) -> None:
    """Draw the animation; while playing, only this part reruns, once per tick."""
    ss = st.session_state
    if trained.steps == 0:
        st.info("No merge was learned with these settings, so there is nothing to animate. " + trained.stop_reason)
        return
    ss[state.TIMER] = (ss[state.PLAYING], ss[state.SPEED])
    if ss[state.PLAYING]:
        ss[state.LAST_TICK] = time.monotonic()  # a full run shows the current step first
    interval = 1.0 / ss[state.SPEED] if ss[state.PLAYING] else None
    st.fragment(run_every=interval)(_animate)(trained, presenter)


def _advance(steps: int) -> None:
    """On a timer tick, move one step; at the last step stop (the next tick clears the timer)."""
    ss = st.session_state
    now = time.monotonic()
    if now - ss[state.LAST_TICK] >= 0.6 / ss[state.SPEED] and ss[state.STEP] < steps:
        ss[state.LAST_TICK] = now
        ss[state.STEP] += 1
    if ss[state.STEP] >= steps:
        ss[state.PLAYING] = False


def _animate(trained: Trained, presenter: bool) -> None:
    ss = st.session_state
    steps = trained.steps
    if (ss[state.PLAYING], ss[state.SPEED]) != ss[state.TIMER]:
        st.rerun()  # the timer changed: a full run registers the new one
    if ss[state.PLAYING]:
        _advance(steps)
    step = clamp_step(ss[state.STEP], steps)
    ss[state.STEP] = step
    _controls(step, steps)
    try:
        _frame(trained, step, presenter)
        st.query_params["step"] = str(step)
    except BPEError as exc:
        ss[state.PLAYING] = False
        st.error(str(exc))
    except Exception:  # noqa: BLE001 - no traceback ever reaches the browser
        log.exception("frame %s failed", step)
        ss[state.PLAYING] = False
        st.error("Could not draw this step. Try another step or other settings.")


def _controls(step: int, steps: int) -> None:
    ss = st.session_state
    playing = ss[state.PLAYING]
    cols = st.columns([1.1, 1.1, 1.2, 2.6], vertical_alignment="bottom")
    cols[0].button("Back", key=state.B_BACK, icon=":material/skip_previous:", on_click=_move, args=(-1, steps),
                   disabled=step <= 0, width="stretch")
    cols[1].button("Pause" if playing else "Play", key=state.B_PLAY, type="primary", on_click=_toggle, args=(steps,),
                   icon=":material/pause:" if playing else ":material/play_arrow:", width="stretch")
    cols[2].button("Forward", key=state.B_FORWARD, icon=":material/skip_next:", on_click=_move, args=(1, steps),
                   disabled=step >= steps, width="stretch")
    ss[state.W_SPEED] = ss[state.SPEED]
    cols[3].select_slider("Speed (steps per second)", options=state.SPEEDS, key=state.W_SPEED, on_change=_speed,
                          format_func=lambda s: f"{s:g}")
    ss[state.W_STEP] = step
    # While playing, the slider only shows progress: an enabled slider whose value the server
    # moves every tick sometimes sends an old value back, which would read as a scrub and stop.
    st.slider(f"Merge step (0 to {steps:,}): " + ("pause to scrub" if playing else "scrub to any merge"),
              min_value=0, max_value=steps, key=state.W_STEP, on_change=_scrub, disabled=playing)


def _frame(trained: Trained, step: int, presenter: bool) -> None:
    frame = build_frame(trained, step, words=WORDS_SHOWN)
    byte_level = trained.byte_level
    left, right = st.columns([5, 6], gap="medium")
    with left:
        if frame.merge is not None:
            m = frame.merge
            st.markdown(f"**Step {step:,} of {frame.steps:,}: the merge just made**")
            st.html(merge_card_html(left=m.left, right=m.right, token=m.token, count=m.count, rank=m.rank,
                                    vocab_size=m.vocab_size, births=trained.tokenizer.birth,
                                    byte_level=byte_level))
        else:
            st.markdown(f"**Step 0 of {frame.steps:,}: before any merge**")
            nxt = frame.pairs[0] if frame.pairs else None
            coming = (
                f" The first merge will be {token_html(nxt[0], byte_level=byte_level)} + "
                f"{token_html(nxt[1], byte_level=byte_level)} ({nxt[2]:,} times)." if nxt else ""
            )
            st.html(f'<div class="bpe-card">Every word is split into single symbols.{coming}</div>')
        a, b = st.columns(2)
        a.metric("Tokens in the corpus", f"{frame.total_tokens:,}")
        b.metric("Tokens per word", f"{frame.tokens_per_word:.2f}")
        st.markdown(f"**The corpus's most frequent words after {step:,} merge{'s' if step != 1 else ''}** "
                    "(● marks a word this merge changed)")
        st.html(word_rows_html(frame.rows, byte_level=byte_level))
    with right:
        if frame.pairs:
            title = "Highest pair counts at this step (red: merged)" if step else "Highest pair counts (red: merged next)"
            st.plotly_chart(charts.top_pairs_figure(frame.pairs, byte_level=byte_level, presenter=presenter, title=title),
                            key="pairs_chart", config={"displayModeBar": False}, width="stretch")
        st.plotly_chart(charts.compression_figure(trained.curve, step=step, collapse=trained.collapse_step,
                                                  presenter=presenter),
                        key="curve_chart", config={"displayModeBar": False}, width="stretch")

