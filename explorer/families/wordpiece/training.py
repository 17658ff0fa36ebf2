"""WordPiece trained for the pages, with what the Watch page plays (`WordPieceStory`).

The engine's trace has each step's winning pair and the counts behind its score; the runners-up
are not kept, so the training is replayed here merge by merge (the trace says which), keeping the
pair and symbol counts, and the highest-scoring pairs are read off before each of the first
`SCORED_STEPS` steps. The replay also gives the corpus's tokens after every step (the curve) and
the most frequent words' pieces as training segments them. The most frequent pairs before the first
and the last step are kept with their counts (`PairCounts`): the pages tell with them why a frequent
pair (t + ##h) may never be merged.
"""
from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bpe_core import BPEError
from bpe_core.analysis import Curve
from bpe_core.families import train_wordpiece_from_counts
from bpe_core.families.wordpiece_text import count_words as wordpiece_count_words
from bpe_core.families.wordpiece_text import resplit_counts
from bpe_core.families.wordpiece_train import merged_token, word_symbols
from explorer.data.training import TOP_WORDS, Progress, Trained, TrainRequest, count_per_text

SCORED_STEPS = 400  # steps whose runners-up are kept (a scan of every pair per step)
CANDIDATES = 10  # pairs kept per scored step
KEPT_PAIRS = 2_000  # the most frequent pairs kept before the first and the last step
PREFIX = "##"


@dataclass(frozen=True)
class Candidate:
    """A pair at one step, with the counts behind its score."""

    left: str
    right: str
    pair_count: int
    left_count: int
    right_count: int

    @property
    def score(self) -> float:
        return self.pair_count / (self.left_count * self.right_count)


@dataclass(frozen=True)
class PairCounts:
    """The `KEPT_PAIRS` most frequent pairs before one step (`step`, from 1), with their counts and
    their symbols' counts: enough for their scores and their rank by count (highest first, then the
    pair's strings)."""

    step: int
    pairs: dict[tuple[str, str], int]  # in rank order
    symbols: dict[str, int]
    distinct: int  # pairs in the corpus then, kept or not

    def candidate(self, pair: tuple[str, str]) -> Candidate | None:
        """The pair with the counts behind its score, if it was kept."""
        count = self.pairs.get(pair)
        return None if count is None else Candidate(*pair, count, self.symbols[pair[0]], self.symbols[pair[1]])

    def rank(self, pair: tuple[str, str]) -> int | None:
        """Its place by count, from 1 (None: not kept)."""
        return next((i for i, kept in enumerate(self.pairs, 1) if kept == pair), None)


def _pair_counts(step: int, pair_count: Mapping[tuple[str, str], int], sym: Mapping[str, int]) -> PairCounts:
    top = heapq.nsmallest(KEPT_PAIRS, pair_count.items(), key=lambda item: (-item[1], item[0]))
    return PairCounts(step, dict(top), {s: sym[s] for pair, _ in top for s in pair}, len(pair_count))


@dataclass
class WordPieceStory:
    """candidates[t]: the best pairs step t + 1 was chosen from (t < scored steps), best first.
    histories[i]: the i-th top word's pieces as [(step, pieces)], one entry per change, from step 0."""

    candidates: list[list[Candidate]]
    histories: list[list[tuple[int, tuple[str, ...]]]]
    pairs: list[int]  # distinct pairs in the corpus before each scored step
    stop_reason: str = ""
    first: PairCounts | None = None  # the most frequent pairs before the first step (None: no step)
    last: PairCounts | None = None  # ...and before the last one


def train(texts: list[str], request: TrainRequest, *, progress: Progress | None = None,
          count_progress: Progress | None = None) -> Trained:
    """The request trained on the texts (`training.train_corpus`), with its story."""
    lowercase = request.settings.lowercase
    raw = count_per_text(texts, lambda t: wordpiece_count_words(t, lowercase=lowercase), count_progress)
    counts = resplit_counts(raw.items(), lowercase=lowercase)
    if not counts:
        raise BPEError("the corpus has no words to train on")
    vocab_size = request.amount
    model = train_wordpiece_from_counts(counts, vocab_size=vocab_size, lowercase=lowercase, progress=progress)
    top = counts.most_common(TOP_WORDS)
    story, curve, collapse = replay_wordpiece(counts, model.trace, [w for w, _ in top])
    alphabet = len(model.tokens) - sum(step.added for step in model.trace)
    if len(model.tokens) < vocab_size:
        story.stop_reason = f"no pair is left to merge (the vocabulary holds {len(model.tokens):,} tokens)"
    return Trained(tokenizer=None, request=request, top_words=top, curve=curve, collapse_step=collapse,
                   alphabet=alphabet, model=model, story=story)


def _top_candidates(pair_count: Mapping[tuple[str, str], int], sym: Mapping[str, int]) -> list[Candidate]:
    """The best pairs by score, as the engine ranks them: score, then pair count, then the strings."""
    best = heapq.nsmallest(
        CANDIDATES, pair_count.items(),
        key=lambda item: (-item[1] / (sym[item[0][0]] * sym[item[0][1]]), -item[1], item[0]),
    )
    return [Candidate(a, b, n, sym[a], sym[b]) for (a, b), n in best]


def replay_wordpiece(
    counts: Mapping[str, int], trace: Sequence[Any], top_words: Sequence[str], *, scored: int = SCORED_STEPS,
) -> tuple[WordPieceStory, Curve, int | None]:
    """Replay WordPiece's merges on the word counts: the runners-up of the first `scored` steps,
    the corpus's tokens after each step and the top words' pieces (see the module)."""
    words = [w for w in counts if w]
    freqs = [counts[w] for w in words]
    seqs = [word_symbols(w, PREFIX) for w in words]
    sym: Counter[str] = Counter()
    pair_count: Counter[tuple[str, str]] = Counter()
    where: dict[tuple[str, str], set[int]] = {}
    for i, seq in enumerate(seqs):
        f = freqs[i]
        for s in seq:
            sym[s] += f
        for pair in zip(seq, seq[1:]):
            pair_count[pair] += f
            where.setdefault(pair, set()).add(i)
    index = {w: i for i, w in enumerate(words)}
    watched = {index[w]: k for k, w in enumerate(top_words) if w in index}
    histories: list[list[tuple[int, tuple[str, ...]]]] = [[] for _ in top_words]
    for i, k in watched.items():
        histories[k].append((0, tuple(seqs[i])))
    total = sum(f * len(s) for f, s in zip(freqs, seqs))
    multi = sum(1 for s in seqs if len(s) > 1)  # distinct words still in several tokens
    n_words = sum(freqs) or 1
    totals, multis = [total], [multi]
    candidates: list[list[Candidate]] = []
    pairs_seen: list[int] = []
    first = last = None
    for step_no, step in enumerate(trace, 1):
        if step_no == 1:
            first = _pair_counts(step_no, pair_count, sym)
        if step_no == len(trace):
            last = first if step_no == 1 else _pair_counts(step_no, pair_count, sym)
        if step_no <= scored:
            candidates.append(_top_candidates(pair_count, sym))
            pairs_seen.append(len(pair_count))
        a, b = step.left, step.right
        token = merged_token(a, b, PREFIX)
        for i in sorted(where.pop((a, b), ())):
            old = seqs[i]
            new: list[str] = []
            j = 0
            while j < len(old):
                if j + 1 < len(old) and old[j] == a and old[j + 1] == b:
                    new.append(token)
                    j += 2
                else:
                    new.append(old[j])
                    j += 1
            if len(new) == len(old):
                continue
            f = freqs[i]
            for pair in zip(old, old[1:]):
                pair_count[pair] -= f
                if pair_count[pair] <= 0:
                    del pair_count[pair]
                    where.pop(pair, None)
            for s in old:
                sym[s] -= f
            for s in new:
                sym[s] += f
            for pair in zip(new, new[1:]):
                pair_count[pair] += f
                where.setdefault(pair, set()).add(i)
            total -= f * (len(old) - len(new))
            if len(old) > 1 and len(new) == 1:
                multi -= 1
            seqs[i] = new
            k = watched.get(i)
            if k is not None:
                histories[k].append((step_no, tuple(new)))
        pair_count.pop((a, b), None)
        for s in (a, b):
            if sym.get(s) == 0:
                del sym[s]
        totals.append(total)
        multis.append(multi)
    collapse = next((t for t, m in enumerate(multis) if m == 0 and t > 0), None)
    curve = Curve(totals, [t / n_words for t in totals], multis,
                  characters=sum(f * len(w) for w, f in zip(words, freqs)), has_words=True)
    return WordPieceStory(candidates, histories, pairs_seen, first=first, last=last), curve, collapse
