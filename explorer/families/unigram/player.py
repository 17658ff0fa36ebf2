"""Unigram on the Watch page: the player's windows of pruning rounds, its texts, the rounds chart, the trace.

Round r (1 to the rounds made; rounds count from 1, there is no round 0): the card shows the
vocabulary before and after, some of the pieces the round removed, and the corpus log-likelihood;
the bars, the removed pieces least loss first (in the final cut, lowest score first), at most
`REMOVED_SHOWN`; the word rows, the most frequent words as Viterbi segments them with the round's
pieces. Under the player: vocabulary size and log-likelihood round by round.
"""
from __future__ import annotations

from typing import Any

from explorer.data.training import LONG_WORD, Trained
from explorer.display.charts import CHOSEN, curve_layout, figure
from explorer.display.frames import TokenTable, curve_words, history_window, nothing_learned
from explorer.display.render import cap_token
from explorer.families.unigram.training import CURVE_WORDS

TITLE = ("Watch Unigram prune", "It starts from many candidate pieces; each round re-estimates their "
         "probabilities (EM) and removes the pieces whose loss costs the corpus the least likelihood.")
UNITS = "rounds"
FIRST_STEP = 1
REMOVED_SHOWN = 30  # removed pieces a round's bars list (a round can remove thousands)
CARD_CHIPS = 12  # of them drawn as chips in the card


def empty_message(trained: Trained) -> str:
    return nothing_learned("Unigram", trained.stop_reason)


def clamp(trained: Trained, step: int) -> int:
    return max(FIRST_STEP, min(int(step), trained.steps))


def measures(trained: Trained) -> dict[str, Any]:
    curve = trained.curve
    return {"passage": False, "length": 0, "words": curve_words(curve), "characters": curve.characters,
            "unit": "character"}


def labels(trained: Trained) -> dict[str, str]:
    rounds = trained.steps
    return {
        "scrub": f"Round (1 to {rounds:,}): drag, or use the arrow keys, Home and End",
        "back": "One round back",
        "forward": "One round forward",
        "title": f"Round {{step}} of {rounds:,}",
        "start_title": f"Round {{step}} of {rounds:,}",
        "rows": "The most frequent words as Viterbi splits them with round {step}'s pieces "
                "(● marks a word this round changed)",
        "changed": "changed by this round",
        "chips": "Removed:",
        "bars": "Removed this round, least loss first",
        "no_bars": "No piece was removed in this round.",
        "tokens": f"Tokens (top {CURVE_WORDS:,} words)",
        "base": "a piece of the vocabulary",
    }


def _facts(record: Any, chips: int) -> list[str]:
    removed = len(record.removed)
    shown = f" ({chips} shown)" if chips and removed > chips else ""
    if record.final:
        facts = [f"the final cut: the {removed:,} lowest scores go{shown}"]
    elif removed:
        facts = [f"{removed:,} pieces removed, least loss first{shown}"]
    else:
        facts = ["no piece removed this round"]
    facts.append(f"corpus log-likelihood {record.log_likelihood:,.1f}")
    if record.dropped:
        facts.append(f"{len(record.dropped):,} pieces dropped by EM (expected count below 0.5)")
    return facts


def _bars_title(record: Any, limit: int) -> str:
    total = len(record.removed)
    shown = f" ({min(total, limit):,} of {total:,})" if total > limit else ""
    if record.final:
        return f"The final cut, lowest score first: the piece's log probability{shown}"
    return f"Removed in round {record.round:,}, least loss first{shown}"


def window(trained: Trained, first: int, last: int, *, words: int = 14, bars: int | None = None) -> dict:
    """The frames of rounds `first`..`last` (clamped to 1..rounds) as the player's JSON-ready data; at
    most `bars` removed pieces a round's bars list (None: `REMOVED_SHOWN`). With `bars` given (a screen
    with room for little) the card lists none of them as chips: the bars show the same pieces first."""
    limit = min(REMOVED_SHOWN, bars or REMOVED_SHOWN)
    chips = CARD_CHIPS if bars is None else 0
    rounds = trained.steps
    first, last = clamp(trained, first), clamp(trained, last)
    last = max(first, last)
    tokens = TokenTable({}, byte_level=False)
    trace = trained.model.trace
    totals = trained.curve.total_tokens  # totals[r - 1]: after round r
    frames = []
    for step in range(first, last + 1):
        record = trace[step - 1]
        removed = record.removed[:limit]
        frames.append({
            "t": totals[step - 1],
            "h": f"Round {step:,} of {rounds:,}: {record.vocab_size_before:,} → {record.vocab_size:,} pieces",
            "c": tokens.ids(piece for piece, _ in record.removed[:chips]),
            "f": _facts(record, chips),
            "b": [[tokens.ids([piece]), value, f"{value:.3g}"] for piece, value in removed],
            "bt": _bars_title(record, limit),
        })
    segmentations = trained.story.segmentations  # [r - 1][i]: the i-th top word after round r
    base = max(FIRST_STEP, first - 1)
    rows = []
    for i, (word, count) in enumerate(trained.top_words[:words]):
        history = [(r, segs[i]) for r, segs in enumerate(segmentations, 1) if i < len(segs)]
        if history:
            rows.append({"w": cap_token(word[:LONG_WORD]), "n": count, "cut": len(word) > LONG_WORD,
                         "h": [[t, tokens.ids(p)] for t, p in history_window(history, base, last)]})
    return {"first": first, "last": last, "tokens": tokens.table, "frames": frames, "words": rows}


def _vline(x: float) -> dict:
    return {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "paper",
            "line": {"color": CHOSEN, "width": 2}}


def curve_figure(trained: Trained, step: int, *, playing: bool, presenter: bool = False) -> Any:
    """Vocabulary size and corpus log-likelihood, round by round; the round shown marked when paused."""
    trace = trained.model.trace
    xs = [0, *(r.round for r in trace)]
    sizes = [trace[0].vocab_size_before, *(r.vocab_size for r in trace)] if trace else []
    data = [
        {"type": "scatter", "x": xs, "y": sizes, "name": "vocabulary size (left axis)", "mode": "lines+markers",
         "line": {"color": "#1f77b4", "width": 3}},
        {"type": "scatter", "x": xs[1:], "y": [round(r.log_likelihood, 2) for r in trace],
         "name": "corpus log-likelihood (right axis)", "mode": "lines+markers", "yaxis": "y2",
         "line": {"color": "#ff7f0e", "width": 2, "dash": "dot"}},
    ]
    layout = {
        **curve_layout("Pruning rounds: the vocabulary shrinks, the likelihood falls a little", presenter=presenter,
                       height=380),
        # A tick a round, or in a narrow column (presenter mode) about six in all.
        "xaxis": {"title": {"text": "round (0: the seed vocabulary)"},
                  "dtick": max(1, -(-len(trace) // 6)) if presenter else 1},
        "yaxis": {"title": {"text": "pieces"}, "rangemode": "tozero"},
        "yaxis2": {"title": {"text": "log-likelihood"}, "overlaying": "y", "side": "right", "showgrid": False},
        "legend": {"orientation": "h", "y": -0.25},
        "shapes": [] if playing else [_vline(step)],
    }
    return figure(data, layout)


def trace_rows(trained: Trained) -> list[dict]:
    """Every round of the trace as table rows."""
    return [{"round": r.round, "pieces before": r.vocab_size_before, "pieces after": r.vocab_size,
             "log-likelihood": round(r.log_likelihood, 2), "removed": len(r.removed), "dropped by EM": len(r.dropped),
             "final cut": r.final} for r in trained.model.trace]
