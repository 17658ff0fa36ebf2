"""WordPiece on the Watch page: the player's windows of merge steps, its texts, the curve, the trace.

Step t (t >= 1) is the t-th merge: the card shows the pair merged and the counts behind its score
count(ab) / (count(a) · count(b)); the bars, the highest-scoring pairs it was chosen from (kept for
the first `SCORED_STEPS` steps only: each needs a scan of every pair in the corpus); the word rows,
the most frequent words as training segments them after the merge (the story's histories).
"""
from __future__ import annotations

from typing import Any

from explorer.data.training import LONG_WORD, Trained
from explorer.display import charts
from explorer.display.frames import (
    TokenTable,
    clamp_step,
    curve_words,
    history_window,
    merge_labels,
    nothing_learned,
)
from explorer.display.render import cap_token
from explorer.families.wordpiece.training import SCORED_STEPS, Candidate

TITLE = ("Watch WordPiece learn", "Each step merges the pair with the highest score count(ab) / "
         "(count(a) · count(b)): pairs frequent together but rare apart.")
UNITS = "steps"
FIRST_STEP = 0
BARS = 10  # scored pairs a frame shows


def empty_message(trained: Trained) -> str:
    return nothing_learned("WordPiece", trained.stop_reason)


def measures(trained: Trained) -> dict[str, Any]:
    curve = trained.curve
    return {"passage": False, "length": 0, "words": curve_words(curve), "characters": curve.characters,
            "unit": "character"}


def labels(trained: Trained) -> dict[str, str]:
    formula = "count(ab) / (count(a) · count(b))"
    return {
        **merge_labels(trained.steps),
        "start": "Every word is its characters, all but the first with the continuation prefix ##.",
        "first_merge": " The first merge will be {pair}: score {value}.",
        "bars": f"Highest scores at this step: {formula}",
        "start_bars": f"Highest scores before the first merge: {formula}",
        "no_bars": f"Scores are kept for the first {SCORED_STEPS:,} steps (each needs a scan of every pair in the "
                   "corpus); this step's score is in the card.",
    }


def births(trained: Trained) -> dict[str, int]:
    """token -> the rank (step - 1) of the first merge that made it."""
    out: dict[str, int] = {}
    for step in trained.model.trace:
        out.setdefault(step.token, step.step - 1)
    return out


def score_text(c: Candidate) -> str:
    """A pair's score with the counts behind it.

    >>> score_text(Candidate("a", "##b", 40, 120, 95))
    '0.00351 (40 / 120·95)'
    """
    return f"{c.score:.3g} ({c.pair_count:,} / {c.left_count:,}·{c.right_count:,})"


def window(trained: Trained, first: int, last: int, *, words: int = 14, bars: int | None = None) -> dict:
    """The frames of steps `first`..`last` (clamped) as the player's JSON-ready data; at most `bars`
    scored pairs a frame (None: `BARS`)."""
    steps = trained.steps
    first, last = clamp_step(first, steps), clamp_step(last, steps)
    last = max(first, last)
    tokens = TokenTable(births(trained), byte_level=False)
    trace = trained.model.trace
    candidates = trained.story.candidates
    totals = trained.curve.total_tokens
    frames = []
    for step in range(first, last + 1):
        frame: dict = {"t": totals[step]}
        if step >= 1:
            s = trace[step - 1]
            frame["m"] = tokens.ids((s.left, s.right, s.token))
            frame["f"] = [f"score = {s.pair_count:,} / ({s.left_count:,} · {s.right_count:,}) = {s.score:.3g}"]
            if not s.added:
                frame["f"].append("already in the vocabulary (another pair made it): no new entry")
        index = max(step - 1, 0)  # at step 0, the pairs the first merge is chosen from
        if index < len(candidates):
            frame["b"] = [[tokens.ids((c.left, c.right)), float(f"{c.score:.4g}"), score_text(c)]
                          for c in candidates[index][:min(BARS, bars or BARS)]]
        frames.append(frame)
    base = max(0, first - 1)  # one step before, so that "changed at `first`" is known
    rows = []
    for (word, count), history in zip(trained.top_words[:words], trained.story.histories):
        if history:
            rows.append({"w": cap_token(word[:LONG_WORD]), "n": count, "cut": len(word) > LONG_WORD,
                         "h": [[t, tokens.ids(p)] for t, p in history_window(history, base, last)]})
    return {"first": first, "last": last, "tokens": tokens.table, "frames": frames, "words": rows}


def curve_figure(trained: Trained, step: int, *, playing: bool, presenter: bool = False) -> Any:
    """The compression curve under the player (WordPiece's corpus tokens after each step)."""
    return charts.compression_under_player(trained.curve, step=step, collapse=trained.collapse_step,
                                           playing=playing, presenter=presenter)


def trace_rows(trained: Trained) -> list[dict]:
    """Every step of the trace as table rows; tokens capped for display."""
    return [{"step": s.step, "left": cap_token(s.left), "right": cap_token(s.right), "new token": cap_token(s.token),
             "count(ab)": s.pair_count, "count(a)": s.left_count, "count(b)": s.right_count, "score": s.score,
             "new entry": s.added} for s in trained.model.trace]
