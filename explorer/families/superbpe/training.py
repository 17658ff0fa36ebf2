"""SuperBPE trained for the pages, with what the Watch page plays (`SuperBPEStory`): the engine's
trace (with the runners-up of every merge) and its phase-two pieces of two words or more, where
superword tokens are made.
"""
from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass, field

from bpe_core.analysis import Curve
from bpe_core.families import train_superbpe_from_counts
from bpe_core.families.superbpe import count_phase_one, count_phase_two, words_in
from bpe_core.pretokenize import symbols_to_bytes
from explorer.data.training import TOP_WORDS, Progress, Trained, TrainRequest, count_per_text

PRETOKENIZER = "superbpe"  # phase one: the paper's split


@dataclass
class SuperBPEStory:
    """The two phases: `transition` merges in phase one; `top_pairs[r]`: the pairs merge rank r was
    chosen from; `chunks`: the most frequent phase-two pieces of two words or more (byte symbols)
    with their counts (all pieces when none has two words)."""

    transition: int
    top_pairs: list[list[tuple[str, str, int]]]
    chunks: list[tuple[str, int]]
    phase_one_stop: str = ""
    stop_reason: str = ""
    extra: dict = field(default_factory=dict)


def train(texts: list[str], request: TrainRequest, *, progress: Progress | None = None,
          count_progress: Progress | None = None) -> Trained:
    """The request trained on the texts (`training.train_corpus`), with its story."""
    def both(text: list[str]) -> Counter:
        one = count_phase_one(text, PRETOKENIZER)
        return Counter({("1", w): n for w, n in one.items()}) + Counter(
            {("2", w): n for w, n in count_phase_two(text).items()})

    settings = request.settings
    counted = count_per_text(texts, both, count_progress)
    one = Counter({w: n for (phase, w), n in counted.items() if phase == "1"})
    two = Counter({w: n for (phase, w), n in counted.items() if phase == "2"})
    model = train_superbpe_from_counts(
        one, two, vocab_size=request.amount, transition=request.transition, pretokenizer=PRETOKENIZER,
        tie_break=settings.tie_break, min_frequency=settings.min_frequency, progress=progress)
    training = model.training
    # The word panel shows where superwords can form: pieces of two words or more, most frequent
    # first (ties: first seen); the most frequent pieces of all are mostly punctuation and digits.
    order = {w: i for i, w in enumerate(two)}
    several = (item for item in two.items() if words_in(item[0]) >= 2)
    chunks = heapq.nsmallest(TOP_WORDS, several, key=lambda item: (-item[1], order[item[0]]))
    if not chunks:
        chunks = two.most_common(TOP_WORDS)
    top = [(symbols_to_bytes(w).decode("utf-8", errors="replace"), n) for w, n in chunks]
    totals = [training.phase_one_initial_tokens, *(s.total_tokens for s in training.trace)]
    words = sum(two.values()) or 1
    curve = Curve(totals, [t / words for t in totals], [0] * len(totals),
                  characters=sum(len(w) * n for w, n in two.items()), has_words=True)
    story = SuperBPEStory(training.transition, training.top_pairs, chunks, training.phase_one_stop,
                          training.stop_reason)
    return Trained(tokenizer=model.tokenizer, request=request, top_words=top, curve=curve, collapse_step=None,
                   alphabet=256, model=model, story=story)
