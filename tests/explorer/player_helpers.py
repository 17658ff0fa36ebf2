"""Reading and driving the animation's browser-side player under AppTest.

AppTest runs no JavaScript, so these helpers read what the server sent the player (its JSON data)
and decode a frame the way player.js draws it, and send the player's "view" event the way the
browser does (a trigger value on the component), then run the app.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from streamlit.proto.WidgetStates_pb2 import WidgetState

from explorer.ui.state import ANIM_PLAYER as PLAYER


def player_element(at):
    return next(e for e in at.get("bidi_component") if e.key == PLAYER)


def player_data(at) -> dict:
    """The data the player was sent in the last run."""
    return json.loads(player_element(at).proto.json)


def token_text(tok: list) -> str:
    """A token of the window's table as the player writes it (readable, capped)."""
    shown = tok[0]
    return shown if isinstance(shown, str) else "".join(text for _, text in shown)


@dataclass
class Shown:
    """What the player draws at one step, as text."""

    step: int
    steps: int
    merge: tuple[str, str, str, int, int] | None  # left, right, new token, count, vocabulary size
    pairs: list[tuple[str, str, int]]
    rows: list[tuple[str, int, list[str], bool]]  # word, count, pieces, changed by this merge
    passage: tuple[int, int, list[str]] | None
    total: int

    @property
    def title(self) -> str:
        return f"Step {self.step} of {self.steps}"


def shown(at, step: int | None = None) -> Shown:
    """The frame the player shows first (the step it was sent), or any step of its window."""
    data = player_data(at)
    step = data["step"] if step is None else step
    window = data["window"]
    assert window["first"] <= step <= window["last"], (step, window["first"], window["last"])
    tokens = window["tokens"]
    frame = window["frames"][step - window["first"]]

    def text(i: int) -> str:
        return token_text(tokens[i])

    merge = None
    if frame["m"]:
        left, right, token, count, vocab = frame["m"]
        merge = (text(left), text(right), text(token), count, vocab)
    rows = []
    for word in window["words"]:
        start, pieces = [entry for entry in word["h"] if entry[0] <= step][-1]
        rows.append((word["w"], word["n"], [text(i) for i in pieces], step >= 1 and start == step))
    passage = None
    if frame.get("x"):
        start, end, pieces = frame["x"]
        passage = (start, end, [text(i) for i in pieces])
    return Shown(step, data["steps"], merge, [(text(a), text(b), n) for a, b, n in frame["p"]], rows, passage,
                 frame["t"])


def send_view(at, *, step: int, playing: bool = False, speed: float = 1.0, need: int | None = None,
              jump: bool = False):
    """Send the player's view event, as the browser does on a pause, step, scrub or speed change."""
    element = player_element(at)
    states = at._tree.get_widget_states()
    trigger = WidgetState()
    trigger.id = f"$$STREAMLIT_INTERNAL_KEY_{element.proto.id}__events"
    value = {"step": step, "playing": playing, "speed": speed, "need": need, "jump": jump}
    trigger.json_trigger_value = json.dumps([{"event": "view", "value": value}])
    states.widgets.append(trigger)
    return at._run(states)


def token_texts(window: dict, ids) -> list[str]:
    """Tokens of a window's table (by index) as the player writes them."""
    return [token_text(window["tokens"][i]) for i in ids]


def pieces_at(window: dict, word: dict, step: int) -> list[str]:
    """A word row's pieces at `step`, from its history, as text."""
    return token_texts(window, [pieces for at, pieces in word["h"] if at <= step][-1])


def frame_at(window: dict, step: int) -> dict:
    return window["frames"][step - window["first"]]
