"""Why WordPiece leaves a frequent word in pieces ("the" as t ##h ##e), in plain sentences. Pure.

Its score count(ab) / (count(a) · count(b)) is highest for pairs of rare pieces: a pair of common
pieces, however frequent together, scores low and may never be merged, while `tokenizers`'
WordPieceTrainer ranks pairs by count (it trains BPE and keeps its tokens). With the corpus's own
numbers where the training is at hand (`training.PairCounts`), from the model's trace otherwise.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from explorer.display.render import md_escape, token_text
from explorer.families.wordpiece import explain
from explorer.families.wordpiece.training import Candidate, PairCounts

FORMULA = "count(ab) / (count(a) · count(b))"
SCORE = f"WordPiece's score {FORMULA} favours pairs of rare pieces"
RULE = f"WordPiece merges the pair with the highest {FORMULA}, which favours pairs of rare pieces"
HF = "Hugging Face's WordPieceTrainer ranks pairs by count instead, as BPE does"
FAMILIES_NOTE = (f"{SCORE}, so a common word may stay in pieces (\"the\" as t ##h ##e) where BPE has it whole; "
                 f"{HF}.")


def one_in(score: float) -> str:
    """A score as "1/N", N to three significant figures (scores are at most 1).

    >>> one_in(1 / 945), one_in(1 / 870_413), one_in(0.5)
    ('1/945', '1/870,000', '1/2')
    """
    n = 1 / score
    return f"1/{float(f'{n:.3g}'):,.0f}"


def _pair(a: str, b: str) -> str:
    return f"{token_text(a)} + {token_text(b)}"


def _scored(c: Any) -> str:
    """A pair's score with the counts behind it (a `Candidate` or a trace's step)."""
    return f"{c.pair_count:,} / ({c.left_count:,} · {c.right_count:,}) = {one_in(c.score)}"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count:,} times"


def _ordinal(n: int) -> str:
    """An ordinal before "most frequent", none for the first.

    >>> [_ordinal(n) for n in (1, 2, 3, 11, 22)]
    ['', '2nd ', '3rd ', '11th ', '22nd ']
    """
    if n == 1:
        return ""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix} "


def word_note(model: Any, story: Any, word: str) -> str:
    """Why a word stays in several pieces, in Markdown ("" for a word of one piece or an unknown one).

    `story`: the training's `WordPieceStory` when it is at hand (the corpus's counts), else None.
    """
    match = explain.longest_match(model, word)
    if match.unknown_reason or len(match.tokens) < 2:
        return ""
    pairs = list(zip(match.tokens, match.tokens[1:]))  # no step made one: a longer piece would have matched
    if not model.trace:  # a vocabulary without its training: the rule alone
        return md_escape(f"No step merged {_pair(*pairs[0])}: {SCORE}, so a frequent pair of common pieces may "
                         f"never be merged. {HF}.")
    merged = model.trace[-1]
    pair, seen = _pair(merged.left, merged.right), _times(merged.pair_count)
    last: PairCounts | None = None if story is None else story.last
    kept: list[Candidate] = [] if last is None else [c for c in map(last.candidate, pairs) if c is not None]
    if not kept:
        return md_escape(f"No step merged {_pair(*pairs[0])}: {SCORE}; its last step ({merged.step:,}) merged {pair}, "
                         f"seen {seen}, at {_scored(merged)}. {HF}.")
    best = max(kept, key=lambda c: c.pair_count)  # the pair a count would merge first
    shown = _pair(best.left, best.right)
    rank = None if story.first is None else story.first.rank((best.left, best.right))
    where = "" if rank is None else f": {shown} is this corpus's {_ordinal(rank)}most frequent pair before step 1"
    return md_escape(f"No step merged {shown}, though it is seen {_times(best.pair_count)}: {SCORE}, and at the last "
                     f"step ({merged.step:,}) it scored {_scored(best)}, against {_scored(merged)} for {pair} (seen "
                     f"{seen}), the pair merged. {HF}{where}.")


def watch_note(trained: Any) -> str:
    """Why WordPiece's compression curve may stay flat on this corpus, in Markdown ("" before any step)."""
    trace: Sequence[Any] = trained.model.trace
    first: PairCounts | None = trained.story.first
    if not trace or first is None:
        return ""
    counts = sorted(step.pair_count for step in trace)
    median = counts[(len(counts) - 1) // 2]  # at least half of the steps merged a pair this rare or rarer
    totals = trained.curve.total_tokens
    fell = 100 * (totals[0] - totals[-1]) / totals[0] if totals[0] else 0.0
    text = (f"{RULE}: at least half of these {len(trace):,} steps merged a pair seen at most {_times(median)}, and "
            f"the corpus's tokens fell by {fell:.2g}% ({totals[0]:,} to {totals[-1]:,}).")
    ranked = list(first.pairs.items())
    top = first.candidate(ranked[0][0]) if ranked else None
    chosen = trace[0]
    if top is not None and (top.left, top.right) != (chosen.left, chosen.right):
        alone = len(ranked) == 1 or ranked[1][1] < ranked[0][1]  # no other pair as frequent
        text += (f" Before the first step {_pair(top.left, top.right)}, the most frequent pair, seen "
                 f"{_times(top.pair_count)}, scored {_scored(top)}, against {one_in(chosen.score)} for "
                 f"{_pair(chosen.left, chosen.right)}, the pair merged; {HF}"
                 + (", so it would merge that pair first." if alone else "."))
    return md_escape(text)
