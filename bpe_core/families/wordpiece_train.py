"""WordPiece's fast trainer: the pair with the highest score count(ab) / (count(a) · count(b)).

Each word starts as its characters, every one but the first carrying the continuation prefix
("hug" -> h ##u ##g). A step merges the pair with the highest score over the weighted word
counts: ties go to the higher pair count, then to the pair whose (left, right) strings come first
in code-point order. Merging "a" + "##b" gives "ab" and "##a" + "##b" gives "##ab". Training
stops when the vocabulary reaches its target or no pair is left.

Why this is incremental but not lazy: a merge of (a, b) changes only the pair counts of the words
that hold the pair, but it lowers count(a) and count(b), which RAISES the score of every other
pair holding a or b, anywhere in the corpus. A heap whose stale entries may underestimate cannot
be popped lazily, so after each merge every live pair holding a, b or the new token is pushed
again with its new score (each symbol keeps the set of live pairs it is part of). An entry is
valid while the pair's count and both symbol counts still equal the ones it was pushed with.

Scores are compared exactly: the heap orders by the float score, which is monotone in the exact
fraction (int / int is correctly rounded), so only entries with the same float can be out of
order. Those are popped together and ordered by the exact fraction, unless the best one's pair
count is too small for any other fraction to share its float (`EXACT_FLOATS`): late in training
thousands of rare pairs score exactly 1, and popping them all at every step made training
quadratic.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Pair = tuple[int, int]

# Two different fractions p/q and p'/q' differ by at least 1/(q q'), a relative 1/(p q') of p/q; when
# p q' is below this, far more than the spacing of floats near p/q, so their floats differ too.
EXACT_FLOATS = 2**48


@dataclass(frozen=True)
class WordPieceStep:
    """One merge: the pair, the token it makes and the counts behind its score (step 1 = first)."""

    step: int
    left: str
    right: str
    token: str
    pair_count: int
    left_count: int
    right_count: int
    added: bool  # False when the token was already in the vocabulary (another pair made it)

    @property
    def score(self) -> float:
        return self.pair_count / (self.left_count * self.right_count)

    @property
    def exact_score(self) -> Fraction:
        return Fraction(self.pair_count, self.left_count * self.right_count)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step, "left": self.left, "right": self.right, "token": self.token,
            "pair_count": self.pair_count, "left_count": self.left_count,
            "right_count": self.right_count, "added": self.added,
        }


def word_symbols(word: str, prefix: str) -> list[str]:
    """A word's first symbols: its characters, all but the first with the prefix.

    >>> word_symbols("hug", "##")
    ['h', '##u', '##g']
    """
    return [word[0], *(prefix + char for char in word[1:])] if word else []


def merged_token(left: str, right: str, prefix: str) -> str:
    """The token a merge makes: the right symbol loses its prefix.

    >>> merged_token("h", "##u", "##"), merged_token("##u", "##g", "##")
    ('hu', '##ug')
    """
    return left + right[len(prefix):]


def initial_vocab(words: Sequence[str], specials: Sequence[str], prefix: str) -> list[str]:
    """The special tokens, then every symbol of the words in code-point order."""
    alphabet = sorted({symbol for word in words for symbol in word_symbols(word, prefix)})
    seen = set(specials)
    return [*specials, *(s for s in alphabet if s not in seen)]


def train_merges(
    word_counts: Mapping[str, int], *, vocab_size: int, specials: Sequence[str], prefix: str,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[str], list[WordPieceStep]]:
    """The vocabulary (id order) and the trace of every merge, from BERT word counts;
    `progress(tokens added, tokens to add)` after each step."""
    words = [w for w in word_counts if w]
    vocab = initial_vocab(words, specials, prefix)
    in_vocab = set(vocab)
    names: list[str] = sorted({s for w in words for s in word_symbols(w, prefix)})
    ids = {name: i for i, name in enumerate(names)}
    seqs = [[ids[s] for s in word_symbols(w, prefix)] for w in words]
    freqs = [word_counts[w] for w in words]
    sym_count = [0] * len(names)
    pair_count: dict[Pair, int] = {}
    where: dict[Pair, set[int]] = {}
    for i, seq in enumerate(seqs):
        f = freqs[i]
        for s in seq:
            sym_count[s] += f
        for pair in zip(seq, seq[1:]):
            pair_count[pair] = pair_count.get(pair, 0) + f
            where.setdefault(pair, set()).add(i)
    partners: list[set[Pair]] = [set() for _ in names]
    for a, b in pair_count:
        partners[a].add((a, b))
        partners[b].add((a, b))

    def valid(e: tuple[Any, ...]) -> bool:
        pair = (e[4], e[5])
        return pair_count.get(pair) == -e[1] and sym_count[e[4]] == e[6] and sym_count[e[5]] == e[7]

    heap = [_entry(pair, pair_count, sym_count, names) for pair in pair_count]
    heapq.heapify(heap)

    # `most` bounds every count, a pair's and a symbol's (only a token made again can grow past it).
    most = max(sym_count, default=1)

    def pop_best() -> tuple[Any, ...] | None:
        while heap:
            top = heapq.heappop(heap)
            if not valid(top):
                continue
            p, q = -top[1], top[6] * top[7]
            if p * most * most < EXACT_FLOATS or q * most < EXACT_FLOATS:
                # No other fraction p2/q2 can share its float (p q2 or p2 q is below the bound):
                # the heap's order is exact.
                return top
            group = {(top[4], top[5]): top}
            while heap and heap[0][0] == top[0]:  # same float score: order exactly
                e = heapq.heappop(heap)
                if valid(e):
                    group.setdefault((e[4], e[5]), e)
            if all(-e[1] * q == p * e[6] * e[7] for e in group.values()):
                ranked = sorted(group.values())  # all the same fraction: the heap's order
            else:
                ranked = sorted(group.values(), key=lambda e: (-Fraction(-e[1], e[6] * e[7]), e[1], e[2], e[3]))
            for e in ranked[1:]:
                heapq.heappush(heap, e)
            return ranked[0]
        return None

    trace: list[WordPieceStep] = []
    start = len(vocab)
    while len(vocab) < vocab_size:
        if progress is not None:
            progress(len(vocab) - start, vocab_size - start)
        best = pop_best()
        if best is None:
            break
        a, b = best[4], best[5]
        token = merged_token(names[a], names[b], prefix)
        added = token not in in_vocab
        if added:
            vocab.append(token)
            in_vocab.add(token)
        trace.append(WordPieceStep(len(trace) + 1, names[a], names[b], token, -best[1], best[6], best[7], added))
        t = ids.get(token)
        if t is None:
            t = ids[token] = len(names)
            names.append(token)
            sym_count.append(0)
            partners.append(set())
        delta: dict[Pair, int] = {}
        for i in sorted(where[(a, b)]):
            old = seqs[i]
            new = _merge_seq(old, a, b, t)
            f = freqs[i]
            old_pairs = set(zip(old, old[1:]))
            new_pairs = set(zip(new, new[1:]))
            for pair in zip(old, old[1:]):
                delta[pair] = delta.get(pair, 0) - f
            for pair in zip(new, new[1:]):
                delta[pair] = delta.get(pair, 0) + f
            for pair in old_pairs - new_pairs:
                where[pair].discard(i)
            for pair in new_pairs - old_pairs:
                where.setdefault(pair, set()).add(i)
            k = (len(old) - len(new)) * f
            sym_count[a] -= k
            sym_count[b] -= k
            sym_count[t] += k
            seqs[i] = new
        most = max(most, sym_count[t])
        changed = []
        for pair, d in delta.items():
            if not d:
                continue  # the pair lost and regained as many: its entry is still right
            c = pair_count[pair] = pair_count.get(pair, 0) + d
            if c > 0:
                partners[pair[0]].add(pair)
                partners[pair[1]].add(pair)
                changed.append(pair)
            else:
                del pair_count[pair]
                where.pop(pair, None)
                partners[pair[0]].discard(pair)
                partners[pair[1]].discard(pair)
        if len(heap) > 3 * len(pair_count) + 100_000:  # drop stale entries now and then
            heap = [_entry(pair, pair_count, sym_count, names) for pair in pair_count]
            heapq.heapify(heap)
        else:
            push = heapq.heappush
            for pair in partners[a].union(partners[b], partners[t], changed):
                x, y = pair  # _entry, inlined: this loop runs hundreds of thousands of times
                p, cx, cy = pair_count[pair], sym_count[x], sym_count[y]
                push(heap, (-p / (cx * cy), -p, names[x], names[y], x, y, cx, cy))
    if progress is not None:
        progress(len(vocab) - start, vocab_size - start)
    return vocab, trace


def _entry(pair: Pair, pair_count: dict[Pair, int], sym_count: list[int], names: list[str]) -> tuple[Any, ...]:
    """A heap entry: best first by float score, then pair count, then the pair's strings; it
    carries the counts it was made from, to tell whether it is still current."""
    a, b = pair
    p, ca, cb = pair_count[pair], sym_count[a], sym_count[b]
    return (-p / (ca * cb), -p, names[a], names[b], a, b, ca, cb)


def _merge_seq(seq: list[int], a: int, b: int, t: int) -> list[int]:
    """`seq` with each (a, b), left to right, replaced by t."""
    out: list[int] = []
    i, n = 0, len(seq)
    while i < n:
        if i < n - 1 and seq[i] == a and seq[i + 1] == b:
            out.append(t)
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return out
