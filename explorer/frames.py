"""One frame of the training animation: what happened at step t. Pure: no Streamlit here.

Step t means "after t merges": step 0 is the corpus as single symbols, step t >= 1 shows merge
rank t - 1 (the t-th merge learned), the pair counts it was chosen from, and the words after it.
"""
from __future__ import annotations

from dataclasses import dataclass

from bpe_core import Merge

from .render import Chip, WordRow
from .training import LONG_WORD, Trained


@dataclass(frozen=True)
class Frame:
    step: int
    steps: int
    merge: Merge | None  # the merge made at this step (None at step 0)
    pairs: list[tuple[str, str, int]]  # highest pair counts at this step, best (chosen) first
    rows: list[WordRow]
    total_tokens: int
    tokens_per_word: float


def clamp_step(step: int, steps: int) -> int:
    return max(0, min(int(step), steps))


def word_rows(trained: Trained, step: int, *, limit: int = 16) -> list[WordRow]:
    """The most frequent words segmented after `step` merges, with the ones this merge changed."""
    tok = trained.tokenizer
    birth = tok.birth
    new_token = tok.trace[step - 1].token if step >= 1 else None
    rows = []
    for word, count in trained.top_words[:limit]:
        shown = word[:LONG_WORD]
        pieces = tok.encode_word(shown, limit=step)
        changed = step >= 1 and pieces != tok.encode_word(shown, limit=step - 1)
        chips = tuple(
            Chip(p, birth=birth.get(p), new=changed and p == new_token) for p in pieces
        )
        rows.append(WordRow(word=shown, count=count, chips=chips, changed=changed, truncated=len(word) > LONG_WORD))
    return rows


def build_frame(trained: Trained, step: int, *, words: int = 16) -> Frame:
    """Everything shown at one step, except the figures (see `charts`)."""
    steps = trained.steps
    step = clamp_step(step, steps)
    tok = trained.tokenizer
    merge = tok.trace[step - 1] if step >= 1 else None
    # At step t the chart shows the counts the t-th merge was chosen from; at step 0, the
    # counts the first merge will be chosen from.
    pairs = tok.top_pairs_at(step - 1 if step >= 1 else 0)
    return Frame(
        step=step,
        steps=steps,
        merge=merge,
        pairs=list(pairs),
        rows=word_rows(trained, step, limit=words),
        total_tokens=trained.curve.total_tokens[step],
        tokens_per_word=trained.curve.tokens_per_word[step],
    )
