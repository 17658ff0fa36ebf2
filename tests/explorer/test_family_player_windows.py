"""Every family's window of frames for the browser-side player (explorer/families/<name>/player.py).

The families are found as folders, so a new family's player is tested here by default: it needs
only a small training in TRAININGS. Each window is plain JSON in the one format player.js draws
(explorer/display/frames.py): tokens referenced by their index in the window's table, the first
bar the step's own choice, the family's first step and texts.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import plotly.graph_objects as go
import pytest
from player_helpers import frame_at, pieces_at

from bpe_core import Settings
from explorer import families
from explorer.data.training import TrainRequest, family_request, train_corpus
from explorer.families import part
from explorer.families.wordpiece.training import SCORED_STEPS
from sample_corpora import load_corpus

FAMILIES = sorted(p.parent.name for p in Path(families.__file__).parent.glob("*/player.py"))
HINDI = load_corpus("hindi")
TRAININGS = {  # family: (texts, request), small enough to train in a blink
    "bpe": ([load_corpus("seed000")], TrainRequest(Settings(), "merges", 10)),
    "wordpiece": ([HINDI], family_request("wordpiece", 150, limit=10_000)),
    "unigram": ([HINDI], family_request("unigram", 60, limit=10_000)),
    "superbpe": ([HINDI], family_request("superbpe", 420, limit=10_000, transition=380)),
}
LABELS = ("scrub", "back", "forward", "title", "rows", "changed", "bars", "no_bars", "tokens")


def test_every_family_has_a_player_and_a_training_here():
    assert sorted(TRAININGS) == FAMILIES


@pytest.fixture(scope="module", params=FAMILIES)
def family(request):
    texts, asked = TRAININGS[request.param]
    trained = train_corpus(texts, asked)
    assert trained.family == request.param and trained.steps >= 5
    return part(trained.family, "player"), trained


def _ids(window: dict) -> list[int]:
    """Every token index a window uses."""
    out = []
    for frame in window["frames"]:
        out += frame.get("m", None) and frame["m"][:3] or []
        out += frame.get("c", [])
        out += [i for a, b, _ in frame.get("p", []) for i in (a, b)]
        out += [i for label, _, _ in frame.get("b", []) if isinstance(label, list) for i in label]
        out += frame["x"][2] if "x" in frame else []
    return out + [i for word in window["words"] for _, pieces in word["h"] for i in pieces]


def test_a_window_is_plain_json_with_tokens_by_index(family):
    player, trained = family
    window = player.window(trained, 0, trained.steps, words=14)
    assert (window["first"], window["last"]) == (player.FIRST_STEP, trained.steps)
    assert len(window["frames"]) == trained.steps - player.FIRST_STEP + 1
    assert json.loads(json.dumps(window)) == window
    table = window["tokens"]
    ids = _ids(window)
    assert ids and all(isinstance(i, int) and 0 <= i < len(table) for i in ids)
    assert set(ids) == set(range(len(table)))  # the table holds what the frames draw, nothing else
    assert len({json.dumps(t[0]) for t in table}) == len(table)  # each token once
    assert all(isinstance(f["t"], int) for f in window["frames"])
    assert all(word["h"][0][0] <= player.FIRST_STEP for word in window["words"])


def test_the_first_bar_is_the_steps_own_choice(family):
    player, trained = family
    window = player.window(trained, 0, trained.steps)
    for step in range(max(1, player.FIRST_STEP), trained.steps + 1):
        frame = frame_at(window, step)
        bars = frame.get("b") or [[[a, b], n, ""] for a, b, n in frame.get("p", [])]
        if not bars:  # a round that removed nothing (Unigram's round 6 here) chose nothing either
            assert "m" not in frame and not frame["c"], step
            continue
        chosen = bars[0][0]
        if "m" in frame:  # a merge: the pair it merged
            assert chosen == frame["m"][:2], step
        else:  # a round that removed pieces: the first it removed, the first chip of its card
            assert chosen == frame["c"][:1] and frame["h"], step


def test_the_labels_name_the_familys_steps(family):
    player, trained = family
    labels = player.labels(trained)
    assert set(LABELS) <= set(labels) and all(isinstance(v, str) and v for v in labels.values())
    assert f"({player.FIRST_STEP} to {trained.steps:,}" in labels["scrub"]
    assert labels["back"].startswith("One ") and labels["back"].endswith(" back")
    title, intro = player.TITLE
    assert title.startswith("Watch ") and intro
    measures = player.measures(trained)
    assert set(measures) == {"passage", "length", "words", "characters", "unit"}
    assert measures["words"] > 0 and measures["characters"] > 0


def test_a_part_of_the_window_draws_what_the_whole_draws(family):
    player, trained = family
    whole = player.window(trained, 0, trained.steps)
    part_ = player.window(trained, 3, 5)
    assert (part_["first"], part_["last"], len(part_["frames"])) == (3, 5, 3)
    for step in (3, 4, 5):
        for a, b in zip(whole["words"], part_["words"]):
            assert pieces_at(part_, b, step) == pieces_at(whole, a, step), step
        mine, theirs = frame_at(part_, step), frame_at(whole, step)
        assert mine.get("f") == theirs.get("f") and mine["t"] == theirs["t"]
    assert player.window(trained, -5, 10**6)["first"] == player.FIRST_STEP  # clamped


def test_the_chart_under_the_player_and_the_trace_table(family):
    player, trained = family
    for playing in (False, True):
        fig = player.curve_figure(trained, max(player.FIRST_STEP, 2), playing=playing)
        go.Figure(fig.to_dict())  # valid Plotly
    rows = player.trace_rows(trained)
    assert len(rows) == trained.steps and len({tuple(r) for r in rows}) == 1 and player.UNITS in (
        "merges", "steps", "rounds")
    assert isinstance(player.empty_message(trained), str)


# ---- each family's own bounds on what a window sends ---------------------------------------------

def test_unigram_lists_at_most_thirty_removed_pieces_a_round():
    unigram = part("unigram", "player")
    trained = train_corpus(*TRAININGS["unigram"])
    window = unigram.window(trained, 1, trained.steps)
    biggest = max(len(r.removed) for r in trained.model.trace)
    assert biggest > unigram.REMOVED_SHOWN
    assert max(len(f["b"]) for f in window["frames"]) == unigram.REMOVED_SHOWN
    assert max(len(f["c"]) for f in window["frames"]) == unigram.CARD_CHIPS
    record = next(r for r in trained.model.trace if len(r.removed) == biggest)
    frame = frame_at(window, record.round)
    assert frame["bt"].endswith(f"({unigram.REMOVED_SHOWN} of {biggest:,})")
    assert [v for _, v, _ in frame["b"]] == sorted(v for _, v, _ in frame["b"])  # least loss first


def test_wordpiece_sends_scores_only_for_the_steps_that_kept_them():
    wordpiece = part("wordpiece", "player")
    trained = train_corpus(*TRAININGS["wordpiece"])
    kept = dataclasses.replace(trained.story, candidates=trained.story.candidates[:5])
    cut = dataclasses.replace(trained, story=kept)
    window = wordpiece.window(cut, 0, cut.steps)
    assert all("b" in frame_at(window, s) for s in range(6)) and not any("b" in f for f in window["frames"][6:])
    assert all(f["f"][0].startswith("score = ") for f in window["frames"][1:])  # the score stays in the card
    assert f"first {SCORED_STEPS:,} steps" in wordpiece.labels(cut)["no_bars"]
