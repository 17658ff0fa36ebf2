"""The browser-side player of the training animation: a Streamlit v2 component (inline HTML/CSS/JS).

The server sends the frames of a window of steps (built by the family's
`explorer/families/<name>/player.py`, in the format of `display.frames`) as JSON data; the
browser plays, steps and scrubs them on its own, so every merge is drawn at any speed, and sends a
"view" event when the user pauses, steps, scrubs or changes speed, and when it needs the next
window (`need`: the step to centre it on). The script (frame.js draws a step, player.js plays) is
trusted code; corpus strings reach the page only as text (`textContent`), never as HTML.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st

from explorer.display.render import CSS as CHIP_CSS

HERE = Path(__file__).resolve().parent
NAME = "bpe_explorer.player"

# Steps a window holds: behind and ahead of the step it is centred on. Ahead is what playing at
# 15 steps/s eats before the next window must be here; the player asks when `prefetch` are left.
# A training with at most ALL_AT_ONCE merges is sent whole (about 0.3 MB of JSON a 1,000 steps), once
# per page: then no scrub waits for the server at all.
ALL_AT_ONCE = 6000
BEHIND, AHEAD, PREFETCH = 150, 450, 250
# A passage of text costs an encoding per step, so those windows are smaller.
PASSAGE_BEHIND, PASSAGE_AHEAD, PASSAGE_PREFETCH = 20, 100, 60
# A jump (a scrub far from the frames held) gets a small window: it comes back fastest.
JUMP_BEHIND, JUMP_AHEAD = 10, 40
PASSAGE_JUMP_BEHIND, PASSAGE_JUMP_AHEAD = 5, 25


def _read(name: str) -> str:
    return (HERE / name).read_text(encoding="utf-8")


def _chip_css() -> str:
    """The app's chip styles (render.CSS) without the <style> tags: the component's shadow root needs its own."""
    return re.sub(r"</?style>", "", CHIP_CSS)


_player = st.components.v2.component(
    NAME, html=_read("player.html"), css=_chip_css() + _read("player.css"), js=_read("frame.js") + _read("player.js")
)


def window_bounds(centre: int, steps: int, *, passage: bool, jump: bool = False) -> tuple[int, int]:
    """The first and last step of the window sent for a player centred on `centre`.

    >>> window_bounds(3, 5000, passage=False)  # sent whole
    (0, 5000)
    >>> window_bounds(10_000, 20_000, passage=False)
    (9850, 10450)
    >>> window_bounds(19_990, 20_000, passage=False)  # near the end it reaches further back
    (19400, 20000)
    >>> window_bounds(10_000, 20_000, passage=False, jump=True)
    (9990, 10040)
    """
    if not passage and steps <= ALL_AT_ONCE:
        return 0, steps
    if jump:
        behind, ahead = (PASSAGE_JUMP_BEHIND, PASSAGE_JUMP_AHEAD) if passage else (JUMP_BEHIND, JUMP_AHEAD)
    else:
        behind, ahead = (PASSAGE_BEHIND, PASSAGE_AHEAD) if passage else (BEHIND, AHEAD)
    first = max(0, min(centre - behind, steps - behind - ahead))
    return first, min(steps, first + behind + ahead)


def prefetch(*, passage: bool) -> int:
    return PASSAGE_PREFETCH if passage else PREFETCH


def mount(data: dict[str, Any], *, key: str, on_view: Callable[[], None]) -> Any:
    """Draw the player; `on_view` runs (before the rerun) when the browser sends a view event."""
    return _player(key=key, data=data, on_view_change=on_view, height="content")
