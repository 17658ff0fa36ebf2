"""The slow, obviously-correct Unigram trainer that the tests hold the fast one (`unigram_train`) to.

Same algorithm, none of the machinery: every segmentation of every word is listed outright, the
expected counts are sums over that list, and Viterbi is the best entry of the list. The small
formulas (the M-step, the removal loss, the ranking) are `unigram_train`'s own, so that a
disagreement points at the lattice code. For tiny words only: the list grows as 2 ** length.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from .unigram_train import UnigramRound, check_targets, final_cut, m_step, prune, removal_loss

Segmentation = tuple[str, ...]


def segmentations(word: str, pieces: set[str] | dict[str, float]) -> list[Segmentation]:
    """Every way to cut ``word`` into pieces, listed outright.

    >>> segmentations("abc", {"a", "b", "c", "ab"})
    [('a', 'b', 'c'), ('ab', 'c')]
    """
    if not word:
        return [()]
    out: list[Segmentation] = []
    for end in range(1, len(word) + 1):
        if word[:end] in pieces:
            out += [(word[:end],) + rest for rest in segmentations(word[end:], pieces)]
    return out


def score(seg: Segmentation, scores: dict[str, float]) -> float:
    """A segmentation's log-probability, summed left to right (as Viterbi sums)."""
    total = 0.0
    for piece in seg:
        total += scores[piece]
    return total


def best(segs: Sequence[Segmentation], scores: dict[str, float]) -> Segmentation:
    """The highest-scoring segmentation; ties: the longer last piece, then the one before, ..."""
    def key(seg: Segmentation) -> tuple[float, tuple[int, ...]]:
        return score(seg, scores), tuple(len(p) for p in reversed(seg))
    return max(segs, key=key)


def reference_seeds(words: Sequence[str], counts: Sequence[int], max_len: int, seed_size: int) -> dict[str, float]:
    """Characters with their counts, substrings seen twice among the distinct words and followed
    by more than one thing, with occurrences x length; the log of each one's share."""
    chars: dict[str, int] = {}
    for word, count in zip(words, counts):
        for ch in word:
            chars[ch] = chars.get(ch, 0) + count
    subs: dict[str, int] = {}
    follows: dict[str, set[str]] = {}  # what comes after each occurrence ("" for the word's end)
    for word in words:  # each distinct word once
        for i in range(len(word)):
            for j in range(i + 2, min(len(word), i + max_len) + 1):
                subs[word[i:j]] = subs.get(word[i:j], 0) + 1
                follows.setdefault(word[i:j], set()).add(word[j:j + 1])
    ranked = sorted(((s, c * len(s)) for s, c in subs.items() if c >= 2 and len(follows[s]) >= 2),
                    key=lambda x: (-x[1], x[0]))[:seed_size]
    values = list(chars.items()) + ranked
    log_total = math.log(math.fsum(v for _, v in values))
    return {s: math.log(v) - log_total for s, v in values}


def reference_train(words: Sequence[str], counts: Sequence[int], *, vocab_size: int, max_piece_length: int = 16,
                    seed_size: int = 1_000_000, shrinking_factor: float = 0.75,
                    sub_iterations: int = 2) -> tuple[list[tuple[str, float]], list[UnigramRound]]:
    """What `unigram_train.train_pieces` returns, computed by listing every segmentation."""
    scores = reference_seeds(words, counts, max_piece_length, seed_size)
    is_char = {p: len(p) == 1 for p in scores}
    check_targets(vocab_size, sum(is_char.values()))
    desired = vocab_size * 11 // 10
    trace: list[UnigramRound] = []
    while True:
        before = len(scores) + 1
        dropped: list[tuple[str, float]] = []
        log_likelihood = 0.0
        for _ in range(sub_iterations):
            expected = {p: 0.0 for p in scores}
            terms = []
            for word, count in zip(words, counts):
                segs = segmentations(word, scores)
                probs = [math.exp(score(seg, scores)) for seg in segs]
                z = math.fsum(probs)
                terms.append(count * math.log(z))
                for seg, prob in zip(segs, probs):
                    for piece in seg:
                        expected[piece] += count * prob / z
            log_likelihood = math.fsum(terms)
            scores, gone = m_step(expected, is_char)
            dropped += gone
        if len(scores) + 1 <= desired:
            trace.append(UnigramRound(len(trace) + 1, before, log_likelihood, tuple(dropped), (), len(scores) + 1))
            break
        freq = {p: 0 for p in scores}
        for word, count in zip(words, counts):
            for piece in best(segmentations(word, scores), scores):
                freq[piece] += count
        total_freq = sum(freq.values())
        unused = [p for p in scores if not is_char[p] and freq[p] == 0]
        losses = []
        for piece in scores:
            if is_char[piece] or freq[piece] == 0:
                continue
            alt = best([s for s in segmentations(piece, scores) if s != (piece,)], scores)
            losses.append((piece, removal_loss(freq[piece], [freq[a] for a in alt], total_freq, sum(counts))))
        target = max(desired, int((len(scores) + 1) * shrinking_factor))
        n_kept_always = sum(is_char.get(p, False) for p in scores)
        removed = prune(losses, unused, target - 1 - n_kept_always)
        for piece, _ in removed:
            del scores[piece]
        trace.append(UnigramRound(len(trace) + 1, before, log_likelihood, tuple(dropped), tuple(removed),
                                  len(scores) + 1))
    if len(scores) + 1 > vocab_size:
        cut = final_cut(scores, is_char, vocab_size - 1)
        before = len(scores) + 1
        for piece, _ in cut:
            del scores[piece]
        trace.append(UnigramRound(len(trace) + 1, before, trace[-1].log_likelihood, (), tuple(cut),
                                  len(scores) + 1, final=True))
    return sorted(scores.items(), key=lambda item: (-item[1], item[0])), trace
