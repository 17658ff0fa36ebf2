"""The fast Unigram trainer: seed pieces, EM over each word's lattice, pruning by likelihood loss.

SentencePiece's algorithm (as `tokenizers`' UnigramTrainer also follows it), on word counts:

1. **Seed.** Every character of the corpus, and every substring of 2 to ``max_piece_length``
   characters that occurs at least twice in the list of distinct words (each distinct word once,
   whatever its count) and branches: not always followed by the same character (a word's end
   counts as one). These are the internal nodes of the suffix tree of the distinct words, which
   SentencePiece's and `tokenizers`' suffix arrays enumerate. The substrings are ranked by
   occurrences x length (ties: the substring), the ``seed_size`` best kept. The starting
   log-probability is log(value / sum of values), the value being a character's count in the
   corpus and a substring's occurrences x length.
2. **EM**, ``sub_iterations`` times per round. E-step: expected piece counts by forward-backward
   over each distinct word's lattice, times the word's count (all the words' lattices at once,
   merged over their shared prefixes: `unigram_trie`). M-step, SentencePiece's
   "Bayesianified" one: a piece expected fewer than 0.5 times is dropped (a character is kept,
   its count raised to 0.5), the rest scored digamma(count) - digamma(sum of counts).
3. **Prune** (unless the vocabulary is within 1.1 x the target): Viterbi-segment every word;
   a piece no Viterbi path uses goes (loss 0). For the others, the alternative is the piece's own
   text segmented without it, and the loss of removing piece i with f_i Viterbi uses (F their
   sum, N the number of words) is ``f_i / N * (log(f_i / F) - sum over alternatives a of
   log((f_a + f_i) / (F + f_i * (len(alt) - 1))))``, SentencePiece's estimate. The pieces with
   the highest loss stay (ties: the piece first in text order), so that max(1.1 x target,
   0.75 x size) pieces remain; characters always stay.
4. At the end the vocabulary is cut to the target size by score (characters kept), and sorted
   by score, best first (ties: the piece).

The trace's log-likelihood of a round is that of its last E-step: the sum over words of count x
log (sum over the word's segmentations of exp(sum of their pieces' scores)).

Determinism: every sum is ``math.fsum`` or runs in a fixed order (the words' first appearance, or
the prefix tree's order of the sorted words), and every decision compares values quantized to 12
significant digits (`unigram_lattice.quantize`), ties by the piece's text. The forward-backward
runs in plain probabilities (fast) with every piece weighted by exp(lambda x its length), which
scales every path of a word alike; a word whose total overflows that range is redone in log
space, as is every word below a prefix whose total overflowed.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..settings import BPEError
from .unigram_lattice import Edge, build_edges, digamma, quantize, viterbi
from .unigram_trie import PrefixLattice

EXPECTED_THRESHOLD = 0.5


@dataclass(frozen=True)
class UnigramRound:
    """One round: EM, then pruning (``final``: the last cut to the target size, by score)."""

    round: int  # from 1
    vocab_size_before: int  # pieces + the unknown token
    log_likelihood: float  # of the corpus after the round's EM (natural log, sum over words)
    dropped: tuple[tuple[str, float], ...]  # (piece, expected count) dropped by the M-step
    removed: tuple[tuple[str, float], ...]  # (piece, loss; for the final cut its score), lowest first
    vocab_size: int
    final: bool = False

    def to_dict(self) -> dict[str, Any]:
        # Not `asdict`, which deep-copies every pair first: a large corpus's first round drops
        # hundreds of thousands of seed pieces (1.5 s on 5 MB, where this takes 0.1 s).
        return {"round": self.round, "vocab_size_before": self.vocab_size_before,
                "log_likelihood": self.log_likelihood, "dropped": list(map(list, self.dropped)),
                "removed": list(map(list, self.removed)), "vocab_size": self.vocab_size, "final": self.final}

    @classmethod
    def from_dict(cls, data: Any) -> UnigramRound:
        try:
            return cls(int(data["round"]), int(data["vocab_size_before"]), float(data["log_likelihood"]),
                       tuple([(str(p), float(v)) for p, v in data["dropped"]]),
                       tuple([(str(p), float(v)) for p, v in data["removed"]]),
                       int(data["vocab_size"]), bool(data.get("final", False)))
        except (KeyError, TypeError, ValueError) as exc:
            raise BPEError(f"malformed Unigram trace round: {str(exc)[:80]}") from None


def seed_scores(words: Sequence[str], counts: Sequence[int], max_len: int,
                seed_size: int) -> tuple[dict[str, float], bool]:
    """Step 1: the seed pieces with their starting log-probabilities, characters first, and
    whether the set is closed under suffixes (it is unless the seed size cut it)."""
    chars: dict[str, int] = {}
    for word, count in zip(words, counts):
        for ch in word:
            chars[ch] = chars.get(ch, 0) + count
    end = end_marker(chars)
    ranked = branching_substrings(words, end, max_len)
    closed = len(ranked) <= seed_size
    if not closed:
        ranked.sort(key=lambda item: (-item[1], item[0]))
        del ranked[seed_size:]
    values = list(chars.items()) + ranked
    log_total = math.log(math.fsum(v for _, v in values))
    return {s: math.log(v) - log_total for s, v in values}, closed


def branching_substrings(words: Sequence[str], end: str, max_len: int) -> list[tuple[str, int]]:
    """Substrings of 2 to ``max_len`` characters seen at least twice and followed by more than one
    thing (a character, or the word's end ``end``), with occurrences x length.

    Each is an interval of the sorted suffixes (cut to max_len + 1 characters) on which they share
    a prefix longer than with their neighbours outside it: the LCP-interval walk of a suffix array.

    >>> sorted(branching_substrings(["▁ab", "▁abc", "▁b"], "$", 4))
    [('ab', 4), ('▁ab', 6)]
    """
    suffixes = sorted(word[i:i + max_len + 1] for word in (w + end for w in words) for i in range(len(word) - 1))
    out: list[tuple[str, int]] = []
    stack = [(0, 0)]  # (shared prefix length, first suffix of the interval)
    previous = ""
    for i in range(len(suffixes) + 1):
        if i < len(suffixes):
            current = suffixes[i]
            lcp, top = 0, min(len(previous), len(current))
            while lcp < top and previous[lcp] == current[lcp]:
                lcp += 1
            previous = current
        else:
            lcp = 0
        left = i - 1
        while lcp < stack[-1][0]:
            depth, left = stack.pop()
            if 2 <= depth <= max_len:
                text = suffixes[left][:depth]
                if text[-1] != end:
                    out.append((text, (i - left) * depth))
        if lcp > stack[-1][0]:
            stack.append((lcp, left))
    return out


def end_marker(chars: Collection[str]) -> str:
    """A character no word holds (from U+E000, the private use area), to mark the words' ends."""
    code = 0xE000
    while chr(code) in chars:
        code += 1
    return chr(code)


def m_step(expected: dict[str, float], is_char: dict[str, bool]) -> tuple[dict[str, float], list[tuple[str, float]]]:
    """Step 2's M-step on quantized expected counts: the new scores and the pieces dropped."""
    kept: dict[str, float] = {}
    dropped = []
    for piece, value in expected.items():
        if value < 0.499 and not is_char[piece]:  # clearly below: no need to quantize
            dropped.append((piece, value))
            continue
        value = quantize(value)
        if value < EXPECTED_THRESHOLD:
            if not is_char[piece]:
                dropped.append((piece, value))
                continue
            value = EXPECTED_THRESHOLD
        kept[piece] = value
    dropped.sort(key=lambda item: (item[1], item[0]))
    log_sum = digamma(math.fsum(kept.values()))
    return {p: quantize(digamma(v) - log_sum) for p, v in kept.items()}, dropped


def removal_loss(freq: int, alt_freqs: Sequence[int], total_freq: int, total_words: int) -> float:
    """Step 3's loss (SentencePiece's estimate) of removing a piece with ``freq`` Viterbi uses."""
    log_alt_sum = math.log(total_freq + freq * (len(alt_freqs) - 1))
    log_alt = math.fsum(math.log(f + freq) - log_alt_sum for f in alt_freqs)
    return quantize(freq / total_words * (math.log(freq) - math.log(total_freq) - log_alt))


def prune(losses: Sequence[tuple[str, float]], unused: Sequence[str], keep: int) -> list[tuple[str, float]]:
    """Step 3's choice: the unused pieces (loss 0) and the lowest-loss candidates beyond ``keep``,
    lowest loss first (ties: the piece)."""
    ranked = sorted(losses, key=lambda item: (-item[1], item[0]))
    # ties: the piece earlier in string order stays. Lowest first, the unused pieces' 0 among the
    # losses: SentencePiece's estimate can be below 0 (removing the piece looks like a gain).
    return sorted([(p, 0.0) for p in unused] + ranked[max(keep, 0):], key=lambda item: (item[1], item[0]))


def final_cut(scores: dict[str, float], is_char: dict[str, bool], size: int) -> list[tuple[str, float]]:
    """Step 4: the pieces beyond the target size by score (characters kept), lowest first."""
    others = sorted((item for item in scores.items() if not is_char[item[0]]), key=lambda item: (-item[1], item[0]))
    room = max(size - sum(is_char[p] for p in scores), 0)
    return sorted(others[room:], key=lambda item: (item[1], item[0]))


def check_targets(vocab_size: int, n_chars: int) -> None:
    if vocab_size < n_chars + 1:
        raise BPEError(f"a vocabulary size of {vocab_size} cannot hold the corpus's {n_chars} characters "
                       "and the unknown token; ask for at least " + str(n_chars + 1))


def train_pieces(words: Sequence[str], counts: Sequence[int], *, vocab_size: int, max_piece_length: int = 16,
                 seed_size: int = 1_000_000, shrinking_factor: float = 0.75,
                 sub_iterations: int = 2,
                 on_round: Callable[[UnigramRound, Mapping[str, float]], None] | None = None,
                 ) -> tuple[list[tuple[str, float]], list[UnigramRound]]:
    """The trained pieces (best score first, no unknown token) and the trace of every round;
    `on_round(round, scores of the pieces kept)` after each round (the scores: do not keep them)."""
    scores, closed = seed_scores(words, counts, max_piece_length, seed_size)
    is_char = {p: len(p) == 1 for p in scores}
    check_targets(vocab_size, sum(is_char.values()))
    names = list(scores)  # piece id -> text, fixed for the whole run
    ids = {p: i for i, p in enumerate(names)}
    lengths = [len(p) for p in names]
    lattice = PrefixLattice(words, ids, max_piece_length, closed=closed)
    # A dead piece weighs 0, so its edges change nothing; dropping them only saves time, worth it
    # once they are a quarter of all edges.
    edge_counts = [0] * len(names)
    for pid, n in Counter(e[2] for e in lattice.edges).items():
        edge_counts[pid] = n
    edges_total, edges_dead = sum(edge_counts), 0
    total_words = sum(counts)
    total_chars = sum(c * len(w) for w, c in zip(words, counts))
    desired = vocab_size * 11 // 10
    trace: list[UnigramRound] = []
    lam = 0.0
    own_lattices: dict[str, list[Edge]] = {}  # each piece's text without the piece: its alternatives
    while True:
        before = len(scores) + 1
        dropped: list[tuple[str, float]] = []
        log_likelihood = 0.0
        for _ in range(sub_iterations):
            if edges_dead * 4 > edges_total:
                lattice.keep([p in scores for p in names])
                edges_total, edges_dead = edges_total - edges_dead, 0
            expected, log_likelihood = _e_step(lattice, counts, names, ids, lengths, scores, lam)
            lam = -log_likelihood / total_chars
            scores, gone = m_step(expected, is_char)
            dropped += gone
            edges_dead += sum(edge_counts[ids[p]] for p, _ in gone)
        if len(scores) + 1 <= desired:
            trace.append(UnigramRound(len(trace) + 1, before, log_likelihood, tuple(dropped), (), len(scores) + 1))
            if on_round is not None:
                on_round(trace[-1], scores)
            break
        removed = _prune_round(counts, lattice, names, ids, scores, is_char, total_words,
                               shrinking_factor, desired, max_piece_length, own_lattices)
        for piece, _ in removed:
            del scores[piece]
            edges_dead += edge_counts[ids[piece]]
        if edges_dead * 4 > edges_total:
            lattice.keep([p in scores for p in names])
            edges_total, edges_dead = edges_total - edges_dead, 0
        trace.append(UnigramRound(len(trace) + 1, before, log_likelihood, tuple(dropped), tuple(removed),
                                  len(scores) + 1))
        if on_round is not None:
            on_round(trace[-1], scores)
    if len(scores) + 1 > vocab_size:
        cut = final_cut(scores, is_char, vocab_size - 1)
        before = len(scores) + 1
        for piece, _ in cut:
            del scores[piece]
        trace.append(UnigramRound(len(trace) + 1, before, trace[-1].log_likelihood, (), tuple(cut),
                                  len(scores) + 1, final=True))
        if on_round is not None:
            on_round(trace[-1], scores)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0])), trace


def _e_step(lattice: PrefixLattice, counts: Sequence[int], names: Sequence[str], ids: dict[str, int],
            lengths: Sequence[int], scores: dict[str, float], lam: float) -> tuple[dict[str, float], float]:
    """Expected counts of the live pieces (in piece-id order) and the corpus log-likelihood."""
    live_ids = {p: ids[p] for p in scores}
    by_id = [-math.inf] * len(names)
    weight = [0.0] * len(names)
    for pid, s in zip(live_ids.values(), scores.values()):
        by_id[pid] = s
        weight[pid] = math.exp(s + lam * lengths[pid])
    expected, terms = lattice.expected_counts(counts, weight, by_id, live_ids, lam)
    return {p: expected[pid] for p, pid in live_ids.items()}, math.fsum(terms)


def _prune_round(counts: Sequence[int], lattice: PrefixLattice,
                 names: Sequence[str], ids: dict[str, int], scores: dict[str, float], is_char: dict[str, bool],
                 total_words: int, shrinking_factor: float, desired: int, max_len: int,
                 own: dict[str, list[Edge]]) -> list[tuple[str, float]]:
    """Step 3: the pieces this round removes, with their losses, lowest first."""
    by_id = [-math.inf] * len(names)
    for piece, value in scores.items():
        by_id[ids[piece]] = value
    alive = {ids[p] for p in scores}
    freq = lattice.viterbi_uses(counts, by_id)
    live = {p: ids[p] for p in scores}
    total_freq = sum(freq)
    unused, losses = [], []
    for piece, pid in live.items():
        if is_char[piece]:
            continue
        if freq[pid] == 0:
            unused.append(piece)
            continue
        cached = own.get(piece)
        if cached is None:
            own_edges = build_edges(piece, live, max_len, skip_whole=True)
        else:  # the lattice of an earlier round, less the pieces removed since
            own_edges = [e for e in cached if e[2] in alive]
        own[piece] = own_edges
        alt, _ = viterbi(len(piece), own_edges, by_id)
        losses.append((piece, removal_loss(freq[pid], [freq[p] for _, _, p in alt], total_freq, total_words)))
    n_chars = len(live) - len(unused) - len(losses)
    target = max(desired, int((len(live) + 1) * shrinking_factor))
    return prune(losses, unused, target - 1 - n_chars)
