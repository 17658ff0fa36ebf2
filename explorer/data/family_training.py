"""Training WordPiece, Unigram and SuperBPE for the explorer, with what the Watch page animates.

Pure: no Streamlit here, and no import of `training` (which calls `train_family`). Each family
trains with its own engine in `bpe_core.families`; around it this module gathers, in the same
worker process, the record the animation plays:

* WordPiece (`WordPieceStory`): the engine's trace has each step's winning pair and the counts
  behind its score; the runners-up are not kept, so the training is replayed here merge by merge
  (the trace says which), keeping the pair and symbol counts, and the highest-scoring pairs are
  read off before each of the first `SCORED_STEPS` steps. The replay also gives the corpus's tokens
  after every step (the curve) and the most frequent words' pieces as training segments them.
* Unigram (`UnigramStory`): the engine reports each round's pieces and scores (`on_round`); the
  most frequent words are segmented by Viterbi with them, round by round.
* SuperBPE (`SuperBPEStory`): the engine's trace (with the runners-up of every merge) and its
  phase-two pieces of two words or more, where superword tokens are made.
"""
from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bpe_core import BPEError, Settings
from bpe_core.analysis import Curve
from bpe_core.families import (
    UnigramModel,
    UnigramRound,
    train_superbpe_from_counts,
    train_unigram_from_counts,
    train_wordpiece_from_counts,
)
from bpe_core.families.superbpe import count_phase_one, count_phase_two, words_in
from bpe_core.families.unigram import word_counts as unigram_word_counts
from bpe_core.families.wordpiece_text import count_words as wordpiece_count_words
from bpe_core.families.wordpiece_text import resplit_counts
from bpe_core.families.wordpiece_train import merged_token, word_symbols
from bpe_core.pretokenize import symbols_to_bytes

Progress = Callable[[int, int], None]

TOP_WORDS = 40  # words kept for the word panel (as `training.TOP_WORDS`)
SCORED_STEPS = 400  # WordPiece steps whose runners-up are kept (a scan of every pair per step)
CANDIDATES = 10  # pairs kept per scored step
CURVE_WORDS = 1_000  # Unigram: the most frequent words whose tokens make the curve
LONG_WORD = 300  # characters of a word shown (as `training.LONG_WORD`)
WORDPIECE_PREFIX = "##"
SUPERBPE_PRETOKENIZER = "superbpe"  # phase one: the paper's split


@dataclass
class FamilyParts:
    """What `training.Trained` is made of, for one family."""

    tokenizer: Any
    top_words: list[tuple[str, int]]
    curve: Curve
    collapse_step: int | None
    alphabet: int
    model: Any
    story: Any


@dataclass(frozen=True)
class Candidate:
    """A WordPiece pair at one step, with the counts behind its score."""

    left: str
    right: str
    pair_count: int
    left_count: int
    right_count: int

    @property
    def score(self) -> float:
        return self.pair_count / (self.left_count * self.right_count)


@dataclass
class WordPieceStory:
    """candidates[t]: the best pairs step t + 1 was chosen from (t < scored steps), best first.
    histories[i]: the i-th top word's pieces as [(step, pieces)], one entry per change, from step 0."""

    candidates: list[list[Candidate]]
    histories: list[list[tuple[int, tuple[str, ...]]]]
    pairs: list[int]  # distinct pairs in the corpus before each scored step
    stop_reason: str = ""


@dataclass
class UnigramStory:
    """segmentations[r - 1][i]: the i-th top word's pieces after round r; the seed's size."""

    segmentations: list[list[list[str]]]
    seed_size: int
    stop_reason: str = ""


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


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def _count_per_text(texts: Sequence[str], count: Callable[[list[str]], Counter], progress: Progress | None) -> Counter:
    """Counts of all texts, one text at a time, reporting (bytes counted, bytes in all)."""
    total = sum(map(_utf8_len, texts))
    done = 0
    if progress is not None:
        progress(0, total)
    counts: Counter = Counter()
    for text in texts:
        counts.update(count([text]))  # Counter.update keeps first appearance order
        done += _utf8_len(text)
        if progress is not None:
            progress(done, total)
    return counts


def train_family(
    texts: list[str], family: str, settings: Settings, *, vocab_size: int, transition: int | None = None,
    progress: Progress | None = None, count_progress: Progress | None = None,
) -> FamilyParts:
    """Train one family on the texts; BPEError with a one-line message for the user."""
    if not any(text.strip() for text in texts):
        raise BPEError("the corpus is empty (or only whitespace): there is nothing to train on")
    if family == "wordpiece":
        return _wordpiece(texts, settings, vocab_size, progress, count_progress)
    if family == "unigram":
        return _unigram(texts, vocab_size, progress, count_progress)
    if family == "superbpe":
        return _superbpe(texts, settings, vocab_size, transition, progress, count_progress)
    raise BPEError(f"unknown tokenizer family {family!r}")


# ---- WordPiece ------------------------------------------------------------------------------------

def _wordpiece(texts: list[str], settings: Settings, vocab_size: int, progress: Progress | None,
               count_progress: Progress | None) -> FamilyParts:
    lowercase = settings.lowercase
    raw = _count_per_text(texts, lambda t: wordpiece_count_words(t, lowercase=lowercase), count_progress)
    counts = resplit_counts(raw.items(), lowercase=lowercase)
    if not counts:
        raise BPEError("the corpus has no words to train on")
    model = train_wordpiece_from_counts(counts, vocab_size=vocab_size, lowercase=lowercase, progress=progress)
    top = counts.most_common(TOP_WORDS)
    story, curve, collapse = replay_wordpiece(counts, model.trace, [w for w, _ in top])
    alphabet = len(model.tokens) - sum(step.added for step in model.trace)
    if len(model.tokens) < vocab_size:
        story.stop_reason = f"no pair is left to merge (the vocabulary holds {len(model.tokens):,} tokens)"
    return FamilyParts(None, top, curve, collapse, alphabet, model, story)


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
    seqs = [word_symbols(w, WORDPIECE_PREFIX) for w in words]
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
    for step_no, step in enumerate(trace, 1):
        if step_no <= scored:
            candidates.append(_top_candidates(pair_count, sym))
            pairs_seen.append(len(pair_count))
        a, b = step.left, step.right
        token = merged_token(a, b, WORDPIECE_PREFIX)
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
    return WordPieceStory(candidates, histories, pairs_seen), curve, collapse


# ---- Unigram --------------------------------------------------------------------------------------

def _unigram(texts: list[str], vocab_size: int, progress: Progress | None,
             count_progress: Progress | None) -> FamilyParts:
    counts = _count_per_text(texts, lambda t: unigram_word_counts(t), count_progress)
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
                found = cache[word] = model.encode(word.replace("\u2581", " "))
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
    return FamilyParts(None, text_top, curve, None, alphabet, model, UnigramStory(segmentations, seed[0], stop))


# ---- SuperBPE -------------------------------------------------------------------------------------

def _superbpe(texts: list[str], settings: Settings, vocab_size: int, transition: int | None,
              progress: Progress | None, count_progress: Progress | None) -> FamilyParts:
    def both(text: list[str]) -> Counter:
        one = count_phase_one(text, SUPERBPE_PRETOKENIZER)
        return Counter({("1", w): n for w, n in one.items()}) + Counter(
            {("2", w): n for w, n in count_phase_two(text).items()})

    counted = _count_per_text(texts, both, count_progress)
    one = Counter({w: n for (phase, w), n in counted.items() if phase == "1"})
    two = Counter({w: n for (phase, w), n in counted.items() if phase == "2"})
    model = train_superbpe_from_counts(
        one, two, vocab_size=vocab_size, transition=transition, pretokenizer=SUPERBPE_PRETOKENIZER,
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
    return FamilyParts(model.tokenizer, top, curve, None, 256, model, story)
