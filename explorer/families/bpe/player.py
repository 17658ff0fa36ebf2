"""BPE on the Watch page: the player's windows of merges, its texts, the compression curve, the trace.

Step t is the corpus after t merges (step 0: single symbols). A frame holds the merge made at step
t, the pair counts it was chosen from (red: the chosen one) and, in text mode without a
pre-tokenizer, a passage of the text around the merge instead of the most frequent words.
"""
from __future__ import annotations

from typing import Any

from explorer.data.training import LONG_WORD, Trained
from explorer.display import charts, tables
from explorer.display.frames import TokenTable, clamp_step, merge_labels, passage_at, passage_mode, word_history
from explorer.display.render import cap_token

TITLE = ("Watch BPE learn", "Each step glues the most frequent neighbouring pair into one new token.")
UNITS = "merges"  # what the trace table's rows are
FIRST_STEP = 0


def empty_message(trained: Trained) -> str:
    """Why there is nothing to animate, as sentences."""
    reason = trained.stop_reason
    if not reason or reason.startswith("reached"):
        why = "The settings ask for 0 merges: set Merges to 1 or more in the sidebar and press Train."
    else:
        why = f"Training stopped before the first merge because {reason}."
    return f"No merge was learned with these settings, so there is nothing to animate. {why}"


def measures(trained: Trained) -> dict[str, Any]:
    """What the player's measures divide by, and whether it shows a passage instead of words."""
    curve = trained.curve
    passage = passage_mode(trained)
    result = trained.tokenizer.training
    return {
        "passage": passage,
        "length": sum(len(text) for text, _ in trained.top_words) if passage else 0,
        "words": (result.word_count if result else 0) if curve.has_words else 0,
        "characters": curve.characters,
        "unit": "byte" if trained.byte_level else "character",
    }


def labels(trained: Trained) -> dict[str, str]:
    """The player's texts for this training."""
    passage = passage_mode(trained)
    return {
        **merge_labels(trained.steps),
        "start": "The text is split into single symbols." if passage else "Every word is split into single symbols.",
        "passage": "Where this merge applies: characters {start} to {end} of {length}, after {step} merge{s} "
                   "(outlined: the new token)",
    }


def window(trained: Trained, first: int, last: int, *, words: int = 14, bars: int | None = None) -> dict:
    """The frames of steps `first`..`last` (clamped) as JSON-ready data for the player; at most `bars`
    pair counts a frame (None: all the trace keeps)."""
    tok = trained.tokenizer
    steps = trained.steps
    first, last = clamp_step(first, steps), clamp_step(last, steps)
    last = max(first, last)
    tokens = TokenTable(tok.birth, byte_level=trained.byte_level)
    known = tokens.index

    def tid(token: str) -> int:  # the table's index of a token; most are known already
        found = known.get(token)
        return tokens(token) if found is None else found

    trace = tok.trace
    totals = trained.curve.total_tokens
    frames = []
    passage = passage_mode(trained)
    for step in range(first, last + 1):
        merge = None
        if step >= 1:
            m = trace[step - 1]
            merge = [tid(m.left), tid(m.right), tid(m.token), m.count, m.vocab_size]
        pairs = tok.top_pairs_at(step - 1 if step >= 1 else 0)[:bars]
        frame: dict = {"m": merge, "p": [[tid(a), tid(b), n] for a, b, n in pairs], "t": totals[step]}
        if passage:
            found = passage_at(trained, step)
            if found is not None:
                start, end, pieces = found
                frame["x"] = [start, end, tokens.ids(pieces)]
        frames.append(frame)
    rows = []
    if not passage:
        base = max(0, first - 1)  # one step before, so that "changed at `first`" is known
        for word, count in trained.top_words[:words]:
            shown = word[:LONG_WORD]
            history = word_history(trained, shown, base, last)
            rows.append({"w": cap_token(shown), "n": count, "cut": len(word) > LONG_WORD,
                         "h": [[t, tokens.ids(pieces)] for t, pieces in history]})
    return {"first": first, "last": last, "tokens": tokens.table, "frames": frames, "words": rows}


def curve_figure(trained: Trained, step: int, *, playing: bool, presenter: bool = False) -> Any:
    """The compression curve under the player."""
    return charts.compression_under_player(trained.curve, step=step, collapse=trained.collapse_step,
                                           playing=playing, presenter=presenter)


def trace_rows(trained: Trained) -> list[dict]:
    """Every merge as a table row; tokens capped for display (a text-mode token can be a whole corpus)."""
    table = tables.merges_table(trained.tokenizer.trace, byte_level=trained.byte_level)
    for column in ("left", "right", "new token"):
        table[column] = table[column].map(cap_token)
    return table.to_dict("records")
