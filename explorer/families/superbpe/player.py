"""SuperBPE on the Watch page: the player's windows of merges in two phases, its texts, the curve, the trace.

Step t is the corpus after t merges. The card shows the merge, its phase, whether it made a
superword (a token across a space) and the transition (phase two's first merge); the bars, the pair
counts it was chosen from; the word rows, the most frequent phase-two pieces of several words
segmented after t merges: inside phase one's pre-tokens up to the transition, across them after
it. Superword tokens are marked (the player rings them).
"""
from __future__ import annotations

from typing import Any

from bpe_core.families.superbpe import is_superword, phase_one_pieces
from bpe_core.pretokenize import symbols_to_bytes
from explorer.data.training import Trained
from explorer.display.charts import CHOSEN, chart_font, curve_layout, figure, thin_steps
from explorer.display.frames import (
    TokenTable,
    clamp_step,
    curve_words,
    history_window,
    merge_labels,
    nothing_learned,
    word_history,
)
from explorer.display.render import cap_token, token_text
from explorer.families.superbpe.training import PRETOKENIZER as SUPERBPE_PRETOKENIZER

TITLE = ("Watch SuperBPE learn", "Byte-level BPE inside pre-tokens up to the transition, then merges across "
         "spaces: superword tokens.")
UNITS = "merges"
FIRST_STEP = 0
CHUNK_BYTES = 48  # UTF-8 bytes of a phase-two piece segmented and drawn: a chip a byte at step 0, so a
# row stays a row or two in any script (a piece can be a paragraph)


def shown_chunk(text: str) -> str:
    """The start of a phase-two piece that is drawn: whole characters, at most `CHUNK_BYTES` bytes.

    >>> shown_chunk("of the " * 10)[-8:], len(shown_chunk("नमस्ते " * 10).encode())  # 3 bytes a letter
    ('e of the', 47)
    """
    out, size = [], 0
    for ch in text:
        size += len(ch.encode("utf-8", "surrogatepass"))
        if size > CHUNK_BYTES:
            break
        out.append(ch)
    return "".join(out)
SUPERWORD = "superword: crosses a space"
TRANSITION = "#f2b705"


def empty_message(trained: Trained) -> str:
    return nothing_learned("SuperBPE", trained.stop_reason)


def measures(trained: Trained) -> dict[str, Any]:
    curve = trained.curve
    return {"passage": False, "length": 0, "words": curve_words(curve), "characters": curve.characters,
            "unit": "byte"}


def labels(trained: Trained) -> dict[str, str]:
    steps, cut = trained.steps, trained.story.transition
    phases = f"phase one: 1 to {cut:,}; phase two: from {cut + 1:,}" if cut < steps else "all in phase one"
    return {
        **merge_labels(steps),
        "scrub": f"Merge step (0 to {steps:,}; {phases}): drag, or use the arrow keys, Home and End",
        "start": f"Every byte is a token. Phase one merges inside pre-tokens (merges 1 to {cut:,}), "
                 "phase two across spaces.",
        "rows": "The most frequent phase-two pieces of several words after {step} merge{s} (● marks a piece this "
                "merge changed; ringed in gold: superword tokens)",
    }


def chunk_text(chunk: str) -> str:
    """A phase-two piece's text (byte symbols read as UTF-8)."""
    return symbols_to_bytes(chunk).decode("utf-8", errors="replace")


def _at(history: list, step: int) -> list[str]:
    pieces: list[str] = []
    for at, shown in history:
        if at > step:
            break
        pieces = shown
    return pieces


def chunk_history(trained: Trained, text: str, first: int, last: int) -> list[tuple[int, list[str]]]:
    """A phase-two piece's tokens from step `first` to `last`, one entry a change: up to the
    transition each phase-one pre-token on its own, after it the piece as a whole."""
    cut = trained.story.transition
    out: list[tuple[int, list[str]]] = []
    if first <= cut:
        parts = [word_history(trained, part, first, min(last, cut)) for part in phase_one_pieces(
            text, SUPERBPE_PRETOKENIZER)]
        for t in sorted({t for history in parts for t, _ in history}):
            out.append((t, [p for history in parts for p in _at(history, t)]))
    if last > cut:
        out.extend((t, list(p)) for t, p in word_history(trained, text, max(first, cut + 1), last))
    return history_window(out, first, last)


def _facts(step: Any, cut: int) -> list[str]:
    facts = ["phase one: inside pre-tokens" if step.phase == 1 else "phase two: merges across spaces"]
    if step.superword:
        facts.append("superword")
    if step.rank == cut:
        facts.append("the transition: phase two starts here")
    return facts


def window(trained: Trained, first: int, last: int, *, words: int = 14, bars: int | None = None) -> dict:
    """The frames of steps `first`..`last` (clamped) as the player's JSON-ready data; at most `bars`
    pair counts a frame (None: all the trace keeps)."""
    steps = trained.steps
    first, last = clamp_step(first, steps), clamp_step(last, steps)
    last = max(first, last)
    story = trained.story
    tokens = TokenTable(trained.tokenizer.birth, byte_level=True,
                        mark=lambda token: SUPERWORD if is_superword(token) else None)
    trace = trained.model.trace
    totals = trained.curve.total_tokens
    frames = []
    for step in range(first, last + 1):
        frame: dict = {"t": totals[step]}
        if step >= 1:
            s = trace[step - 1]
            frame["m"] = [*tokens.ids((s.left, s.right, s.token)), s.count, s.vocab_size]
            frame["f"] = _facts(s, story.transition)
        index = max(step - 1, 0)  # at step 0, the pairs the first merge is chosen from
        pairs = story.top_pairs[index][:bars] if index < len(story.top_pairs) else []
        frame["p"] = [[*tokens.ids((a, b)), n] for a, b, n in pairs]
        frames.append(frame)
    base = max(0, first - 1)  # one step before, so that "changed at `first`" is known
    rows = []
    for (chunk, count) in story.chunks[:words]:
        text = chunk_text(chunk)
        shown = shown_chunk(text)
        history = chunk_history(trained, shown, base, last)
        rows.append({"w": cap_token(shown), "n": count, "cut": len(shown) < len(text),
                     "h": [[t, tokens.ids(p)] for t, p in history]})
    return {"first": first, "last": last, "tokens": tokens.table, "frames": frames, "words": rows}


def _vline(x: float, colour: str, dash: str = "solid") -> dict:
    return {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "paper",
            "line": {"color": colour, "width": 2, "dash": dash}}


def curve_figure(trained: Trained, step: int, *, playing: bool, presenter: bool = False) -> Any:
    """Corpus tokens after each merge, the transition dashed; the step marked when paused."""
    curve = trained.curve
    cut = trained.story.transition
    xs = thin_steps(curve.steps, keep=[step, cut])
    data = [{"type": "scatter", "x": xs, "y": [curve.total_tokens[i] for i in xs], "name": "tokens in the corpus",
             "mode": "lines", "line": {"color": "#1f77b4", "width": 3}}]
    phase_two = cut < curve.steps
    shapes = [_vline(cut, TRANSITION, "dash")] if phase_two else []
    if not playing:
        data.append({"type": "scatter", "x": [step], "y": [curve.total_tokens[step]], "mode": "markers",
                     "name": f"step {step}", "marker": {"color": CHOSEN, "size": 12}, "showlegend": False,
                     "hoverinfo": "text", "hovertext": [f"step {step:,}: {curve.total_tokens[step]:,} tokens"]})
        shapes.insert(0, _vline(step, CHOSEN))
    annotation = {"x": cut, "y": 1, "xref": "x", "yref": "paper", "showarrow": False,
                  "text": f"transition after merge {cut:,}: phase two", "xanchor": "right", "yanchor": "top",
                  "font": {"color": "#9a7400", **chart_font(presenter)}, "bgcolor": "rgba(255,255,255,0.85)"}
    layout = {
        **curve_layout("Compression: tokens in the corpus after each merge", presenter=presenter, height=360),
        "xaxis": {"title": {"text": "merges (step)"}, "range": [0, max(1, curve.steps)]},
        "yaxis": {"title": {"text": "tokens"}, "rangemode": "tozero"},
        "showlegend": False, "shapes": shapes, "annotations": [annotation] if phase_two else [],
    }
    return figure(data, layout)


def trace_rows(trained: Trained) -> list[dict]:
    """Every merge of the trace as table rows; tokens readable and capped for display."""
    def shown(token: str) -> str:
        return cap_token(token_text(token, byte_level=True))

    return [{"step": s.rank + 1, "left": shown(s.left), "right": shown(s.right), "new token": shown(s.token),
             "count": s.count, "phase": s.phase, "superword": s.superword} for s in trained.model.trace]
