"""The training animation of any family: the browser-side player (explorer/ui/player) and a curve.

Each family's folder (`explorer.families.part(family, "player")`) builds the player's windows of
frames, its texts and the chart under it; this module only carries them. The browser plays the
frames of a window of steps on its own and tells the server (a "view" event) when the user
pauses, steps, scrubs or changes speed, and when it needs the next window.
The session state keeps the step, playing and speed, so the link (`?step=`) follows a pause or a
scrub and other pages can move the player ("jump to the step"): a change the player did not report
itself is sent to it as a command (a new `seq`).
"""
from __future__ import annotations

import logging
from contextlib import nullcontext
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from bpe_core import BPEError
from explorer.data.training import Trained
from explorer.families import part
from explorer.ui import link, player, state

WORDS_SHOWN = 14
PRESENTER_BARS = 10  # bars a frame shows in presenter mode: every one fits a 1280x720 screen
# The player's and the curve's shares of the width in presenter mode, side by side: on a projector
# beside the sidebar, under the player the curve would start below the screen.
PRESENTER_COLUMNS = (0.6, 0.4)
log = logging.getLogger(__name__)

# The player's session keys are state.ANIM_*, beside state.STEP, state.PLAYING and state.SPEED.


def jump_to(step: int) -> None:
    """A button's callback on any page: show the animation at `step`, paused (the switch is `follow_jump`'s).

    The player never starts by itself after a jump: the user presses play.
    """
    ss = st.session_state
    ss[state.STEP] = step
    ss[state.PLAYING] = False
    ss[state.GOTO_TRAIN] = True


def follow_jump(page: Any) -> None:
    """At the start of a run: if a button asked for the animation, go to its page (`page`).

    A callback cannot switch pages itself, so it leaves GOTO_TRAIN for the run it causes.
    """
    if st.session_state.get(state.GOTO_TRAIN):
        st.session_state[state.GOTO_TRAIN] = False
        st.switch_page(page)


def frames_of(trained: Trained) -> Any:
    """The family's player module: its windows, texts, first step and chart."""
    return part(trained.family, "player")


def no_merge_message(trained: Trained) -> str:
    """Why there is nothing to animate, as sentences."""
    return frames_of(trained).empty_message(trained)


def clamp(trained: Trained, step: int) -> int:
    """A step the player can show: from the family's first step to the last."""
    return max(frames_of(trained).FIRST_STEP, min(int(step), trained.steps))


def trained_key(trained: Trained) -> str:
    """Tells one trained bundle from another for the player (a new one resets it)."""
    return f"{id(trained):x}-{trained.steps}-{hash(trained.request.key()) & 0xFFFFFFFF:x}"


def show(trained: Trained, *, presenter: bool = False) -> None:
    """Draw the player and the curve; a player event reruns only this part."""
    if trained.steps == 0:
        st.info(no_merge_message(trained))
        return
    st.fragment(_animate)(trained, presenter)


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _on_view() -> None:
    """A view event from the browser: keep its step, playing and speed; note a window it needs."""
    ss = st.session_state
    trained = ss.get(state.TRAINED)
    view = (ss.get(state.ANIM_PLAYER) or {}).get("view")
    if trained is None or not isinstance(view, dict):
        return
    key = trained_key(trained)
    step = _whole(view.get("step"))
    if step is not None:
        ss[state.STEP] = clamp(trained, step)
    ss[state.PLAYING] = view.get("playing") is True
    if view.get("speed") in state.SPEEDS:
        ss[state.SPEED] = float(view["speed"])
    need = _whole(view.get("need"))
    if need is not None:
        ss[state.ANIM_CENTRE] = (key, clamp(trained, need), view.get("jump") is True)
        ss[state.ANIM_NEEDED] = True
    ss[state.ANIM_SEEN] = (key, ss[state.STEP], ss[state.PLAYING])


def _fragment_rerun() -> bool:
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def _window(trained: Trained, key: str, step: int, *, presenter: bool) -> dict | None:
    """The frames around the step the player asked for (or the current step), kept until it moves.

    A rerun of the player alone (a pause, a step, a scrub) sends no frames unless the player asked
    for some: it keeps every window it was sent. A whole-page run always sends them (the player
    may be new on the page).
    """
    ss = st.session_state
    if _fragment_rerun() and not ss.pop(state.ANIM_NEEDED, False):
        return None
    frames = frames_of(trained)
    passage = frames.measures(trained)["passage"]
    asked = ss.get(state.ANIM_CENTRE)
    centre, jump = (asked[1], asked[2]) if asked and asked[0] == key else (step, False)
    first, last = player.window_bounds(centre, trained.steps, passage=passage, jump=jump)
    if not first <= step <= last:
        first, last = player.window_bounds(step, trained.steps, passage=passage)
    bars = PRESENTER_BARS if presenter else None
    kept = ss.get(state.ANIM_WINDOW)
    if kept and kept[:4] == (key, first, last, bars):
        return kept[4]
    window = frames.window(trained, first, last, words=WORDS_SHOWN, bars=bars)
    ss[state.ANIM_WINDOW] = (key, first, last, bars, window)
    return window


def player_data(trained: Trained, *, presenter: bool) -> dict:
    """What the player is sent: the step to show (with `seq`), the family's texts, the measures'
    constants, a window."""
    ss = st.session_state
    key = trained_key(trained)
    frames = frames_of(trained)
    steps = trained.steps
    step = clamp(trained, ss[state.STEP])
    ss[state.STEP] = step
    playing = bool(ss[state.PLAYING])
    if ss.get(state.ANIM_SEEN) != (key, step, playing):
        ss[state.ANIM_SEQ] = ss.get(state.ANIM_SEQ, 0) + 1  # moved by something else than the player: tell it
        ss[state.ANIM_SEEN] = (key, step, playing)
    measures = frames.measures(trained)  # passage, length, words, characters, unit
    return {
        "id": f"{key}-{'presenter' if presenter else 'page'}",  # the other mode's windows hold other bars
        "seq": ss[state.ANIM_SEQ],
        "step": step,
        "first": frames.FIRST_STEP,
        "playing": playing,
        "speed": ss[state.SPEED],
        "speeds": list(state.SPEEDS),
        "steps": steps,
        "presenter": presenter,
        **measures,
        "labels": frames.labels(trained),
        "prefetch": player.prefetch(passage=measures["passage"]),
        "window": _window(trained, key, step, presenter=presenter),
    }


def _animate(trained: Trained, presenter: bool) -> None:
    ss = st.session_state
    try:
        data = player_data(trained, presenter=presenter)
    except BPEError as exc:
        st.error(str(exc))
        return
    except Exception:  # noqa: BLE001 - no traceback ever reaches the browser
        log.exception("frames around step %s failed", ss[state.STEP])
        st.error("Could not prepare the animation. Try another step or other settings.")
        return
    # In presenter mode the curve stands beside the player, else under it.
    player_place, curve_place = (st.columns(PRESENTER_COLUMNS, gap="small") if presenter
                                 else (nullcontext(), nullcontext()))
    with player_place:
        player.mount(data, key=state.ANIM_PLAYER, on_view=_on_view)
    step = data["step"]
    fig = frames_of(trained).curve_figure(trained, step, playing=data["playing"], presenter=presenter)
    with curve_place:
        st.plotly_chart(fig, key=state.CURVE_CHART, config={"displayModeBar": False}, width="stretch")
    link.write_step(st.query_params, step)
