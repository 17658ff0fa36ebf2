"""Unigram trained for the pages, with what the Watch page plays (`UnigramStory`): the engine reports
each round's pieces and scores (`on_round`), and the most frequent words are segmented by Viterbi
with them, round by round.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from bpe_core import BPEError
from bpe_core.analysis import Curve
from bpe_core.families import UnigramModel, UnigramRound, train_unigram_from_counts
from bpe_core.families.unigram import word_counts as unigram_word_counts
from explorer.data.training import LONG_WORD, TOP_WORDS, Progress, Trained, TrainRequest, count_per_text

CURVE_WORDS = 1_000  # the most frequent words whose tokens make the curve


@dataclass
class UnigramStory:
    """segmentations[r - 1][i]: the i-th top word's pieces after round r; the seed's size."""

    segmentations: list[list[list[str]]]
    seed_size: int
    stop_reason: str = ""


def train(texts: list[str], request: TrainRequest, *, progress: Progress | None = None,
          count_progress: Progress | None = None) -> Trained:
    """The request trained on the texts (`training.train_corpus`), with its story."""
    vocab_size = request.amount
    counts = count_per_text(texts, lambda t: unigram_word_counts(t), count_progress)
    counts = Counter({w: n for w, n in counts.items() if w})
    if not counts:
        raise BPEError("the corpus has no words to train on")
    top = counts.most_common(max(TOP_WORDS, CURVE_WORDS))
    shown = [w for w, _ in top[:TOP_WORDS]]
    segmentations: list[list[list[str]]] = []
    totals: list[int] = []
    seed = [0, 0]  # seed size, pieces to prune

    def on_round(record: UnigramRound, scores: Mapping[str, float]) -> None:
        if record.round == 1:
            seed[0] = record.vocab_size_before
            seed[1] = max(1, record.vocab_size_before - vocab_size)
        model = UnigramModel([("<unk>", 0.0), *((p, s) for p, s in scores.items() if p != "<unk>")])
        cache: dict[str, list[str]] = {}

        def pieces(word: str) -> list[str]:
            found = cache.get(word)
            if found is None:
                found = cache[word] = model.encode_tokens(word.replace("\u2581", " "))
            return found

        segmentations.append([pieces(w[:LONG_WORD]) for w in shown])
        totals.append(sum(n * len(pieces(w[:LONG_WORD])) for w, n in top))
        if progress is not None:
            progress(min(seed[1], seed[0] - record.vocab_size), seed[1])

    model = train_unigram_from_counts(counts, vocab_size=vocab_size, on_round=on_round)
    words = sum(n for _, n in top) or 1
    curve = Curve(totals, [t / words for t in totals], [0] * len(totals),
                  characters=sum(n * len(w) for w, n in top), has_words=True)
    text_top = [(w.replace("\u2581", " ").lstrip(" ") or w, n) for w, n in top[:TOP_WORDS]]
    alphabet = sum(1 for p in model.pieces[1:] if len(p) == 1)
    reached = model.trace[-1].vocab_size if model.trace else len(model.pieces)
    stop = "" if reached >= vocab_size else f"the corpus offered only {reached:,} pieces (the unknown token included)"
    return Trained(tokenizer=None, request=request, top_words=text_top, curve=curve, collapse_step=None,
                   alphabet=alphabet, model=model, story=UnigramStory(segmentations, seed[0], stop))
