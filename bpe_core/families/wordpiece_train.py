"""WordPiece's fast trainer: the pair with the highest score count(ab) / (count(a) · count(b)).

Each word starts as its characters, every one but the first carrying the continuation prefix
("hug" -> h ##u ##g). A step merges the pair with the highest score over the weighted word
counts: ties go to the higher pair count, then to the pair whose (left, right) strings come first
in code-point order. Merging "a" + "##b" gives "ab" and "##a" + "##b" gives "##ab". Training
stops when the vocabulary reaches its target or no pair is left.

Why the pairs are grouped: a merge of (a, b) changes only the pair counts of the words that hold
the pair, but it lowers count(a) and count(b), which RAISES the score of every other pair holding a
or b, anywhere in the corpus. A heap whose stale entries may underestimate cannot be popped lazily,
and pushing every pair of a and b again after each merge made training quadratic in the pairs of a
frequent symbol: late in training "##s" takes part in merge after merge, each lowering its count a
little. So each pair lives in the group of one of its symbols, its owner (the one in more pairs
when the pair appears: a hub like "##s"), ordered there by count(xy) / count(other). The owner's count divides a
whole group alike, so a change of it leaves the group's order as it is; only the pairs keyed on a
changed count (those whose other symbol is a, b or the new token) are pushed again. A top heap
holds an entry for each group's best pair. An entry is valid while the counts it was made from are
current.

Scores are compared exactly: the heap orders by the float score, which is monotone in the exact
fraction (int / int is correctly rounded), so only entries with the same float can be out of
order. Those are popped together and ordered by the exact fraction, unless the best one's pair
count is too small for any other fraction to share its float (`EXACT_FLOATS`): late in training
thousands of rare pairs score exactly 1, and popping them all at every step made training
quadratic. The groups order their own fractions the same way.
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

Pair = tuple[int, int]
Entry = tuple[Any, ...]

# Two different fractions p/q and p'/q' differ by at least 1/(q q'), a relative 1/(p q') of p/q; when
# p q' is below this, far more than the spacing of floats near p/q, so their floats differ too.
EXACT_FLOATS = 2**48
# Stale entries allowed beyond three per live pair before every group is built again.
STALE_SLACK = 300_000


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
    ranking = _Ranking(pair_count, sym_count, names)

    trace: list[WordPieceStep] = []
    start = len(vocab)
    while len(vocab) < vocab_size:
        if progress is not None:
            progress(len(vocab) - start, vocab_size - start)
        best = ranking.pop()
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
            ranking.add_symbol()
        delta: dict[Pair, int] = {}
        merged = 0
        for i in sorted(where[(a, b)]):  # a superset: a word keeps its entry for a pair it lost
            old = seqs[i]
            f = freqs[i]
            new, made = _merge_counting(old, a, b, t, f, delta)
            for pair in made:
                where.setdefault(pair, set()).add(i)
            merged += (len(old) - len(new)) * f
            seqs[i] = new
        sym_count[a] -= merged
        sym_count[b] -= merged
        sym_count[t] += merged
        changed, gone = [], []
        for pair, d in delta.items():
            if not d:
                continue  # the pair lost and regained as many: its entries are still right
            c = pair_count[pair] = pair_count.get(pair, 0) + d
            if c > 0:
                changed.append(pair)
            else:
                del pair_count[pair]
                where.pop(pair, None)
                gone.append(pair)
        ranking.update(changed, gone, (a, b, t))
    if progress is not None:
        progress(len(vocab) - start, vocab_size - start)
    return vocab, trace


class _Ranking:
    """The best pair by score count(xy) / (count(x) count(y)), then pair count, then strings.

    Each pair belongs to the group of one of its symbols, its owner (the one in more pairs when
    the pair appears). Inside a group the pairs are ordered by count(xy) / count(other): the
    owner's count divides them all alike, so a change of the owner's count leaves the group's
    order as it is. The top heap holds, for each group, an entry for its best pair; an entry is
    valid while the counts it was made from are current. After a merge only the groups of the
    changed pairs, and of the pairs whose other symbol changed count, are looked at again.
    """

    def __init__(self, pair_count: dict[Pair, int], sym_count: list[int], names: list[str]) -> None:
        self.pair_count, self.sym_count, self.names = pair_count, sym_count, names
        self.most = max(sym_count, default=1)
        self.build()

    # A group's entry: (-count(xy) / count(o) as a float, -count(xy), x's string, y's string, x, y, o,
    # count(o)); the top heap's: (-score as a float, -count(xy), x's string, y's string, x, y,
    # count(x), count(y)). Both sort best first, ties by pair count and then by the strings.

    def build(self) -> None:
        """Every group and the top heap from the counts as they are (owners chosen anew)."""
        sc, pc = self.sym_count, self.pair_count
        self.owner: dict[Pair, int] = {}
        self.dependents: list[set[Pair]] = [set() for _ in sc]  # pairs keyed on this symbol's count
        self.groups: list[list[Entry]] = [[] for _ in sc]
        degree = self.degree = [0] * len(sc)
        for x, y in pc:
            degree[x] += 1
            degree[y] += x != y
        for pair in pc:
            x, y = pair
            g, o = (x, y) if degree[x] >= degree[y] else (y, x)
            self.owner[pair] = g
            self.dependents[o].add(pair)
            self.groups[g].append(self._inner(pair, o))
        self.size = len(pc)
        self.heap: list[Entry] = []
        self.offered: list[Entry | None] = [None] * len(sc)
        for g, group in enumerate(self.groups):
            if group:
                heapq.heapify(group)
                self._offer(g, True)  # pushes onto the top heap: it stays a heap

    def add_symbol(self) -> None:
        self.degree.append(0)
        self.offered.append(None)
        self.dependents.append(set())
        self.groups.append([])

    def _inner(self, pair: Pair, o: int) -> Entry:
        p, co = self.pair_count[pair], self.sym_count[o]
        return (-p / co, -p, self.names[pair[0]], self.names[pair[1]], pair[0], pair[1], o, co)

    def _valid_inner(self, e: Entry, g: int) -> bool:
        pair = (e[4], e[5])
        return self.owner.get(pair) == g and self.pair_count.get(pair) == -e[1] and self.sym_count[e[6]] == e[7]

    def _valid(self, e: Entry) -> bool:
        pair = (e[4], e[5])
        return (self.pair_count.get(pair) == -e[1] and self.sym_count[e[4]] == e[6]
                and self.sym_count[e[5]] == e[7])

    def _offer(self, g: int, recount: bool) -> None:
        """Push the top heap's entry for group g's best pair, unless the one pushed last still holds
        (`recount`: the owner's count changed, so that entry no longer does)."""
        group, sc, pc, owner = self.groups[g], self.sym_count, self.pair_count, self.owner
        while group:
            e = group[0]
            pair = (e[4], e[5])
            if owner.get(pair) != g or pc.get(pair) != -e[1] or sc[e[6]] != e[7]:  # _valid_inner, inlined
                heapq.heappop(group)
                continue
            if -e[1] * self.most >= EXACT_FLOATS and e[7] * self.most >= EXACT_FLOATS:
                e = self._exact_top(g)  # another entry may share its float: order them exactly
            if e is self.offered[g] and not recount:
                return  # its entry in the top heap is still current
            self.offered[g] = e
            x, y = e[4], e[5]
            p, cx, cy = -e[1], sc[x], sc[y]
            heapq.heappush(self.heap, (-p / (cx * cy), -p, e[2], e[3], x, y, cx, cy))
            return

    def _exact_top(self, g: int) -> Entry:
        """Group g's best entry by exact fraction among those sharing the top float (left in the group)."""
        group = self.groups[g]
        best = _pop_best(
            group, lambda e: self._valid_inner(e, g), lambda e: False, lambda e: Fraction(-e[1], e[7]),
        )
        assert best is not None
        heapq.heappush(group, best)
        return best

    def pop(self) -> Entry | None:
        """The best pair's top-heap entry, taken off the heap; None when no pair is left."""
        most = self.most
        return _pop_best(
            self.heap, self._valid,
            lambda e: -e[1] * most * most < EXACT_FLOATS or e[6] * e[7] * most < EXACT_FLOATS,
            lambda e: Fraction(-e[1], e[6] * e[7]),
        )

    def update(self, changed: list[Pair], gone: list[Pair], counted: Sequence[int]) -> None:
        """Pairs whose count changed (still present) or went to zero, and symbols whose count changed."""
        sc, owner, dependents, groups = self.sym_count, self.owner, self.dependents, self.groups
        self.most = max(self.most, *(sc[s] for s in counted))
        dirty = set(counted)
        degree = self.degree
        for pair in gone:
            degree[pair[0]] -= 1
            degree[pair[1]] -= pair[0] != pair[1]
            g = owner.pop(pair)
            dependents[pair[0] + pair[1] - g].discard(pair)
            dirty.add(g)
        touched = set(changed)
        for pair in changed:
            if pair not in owner:
                x, y = pair
                degree[x] += 1
                degree[y] += x != y
                g, o = (x, y) if degree[x] >= degree[y] else (y, x)
                owner[pair] = g
                dependents[o].add(pair)
        for s in counted:
            touched.update(dependents[s])
        push, names, pc = heapq.heappush, self.names, self.pair_count
        for pair in touched:  # _inner, inlined: this loop runs about a million times on 5 MB
            x, y = pair
            g = owner[pair]
            o = x + y - g
            p, co = pc[pair], sc[o]
            push(groups[g], (-p / co, -p, names[x], names[y], x, y, o, co))
            dirty.add(g)
        self.size += len(touched) + len(dirty)
        if self.size > 3 * len(pc) + STALE_SLACK:  # drop stale entries now and then
            self.build()
            return
        for g in dirty:
            self._offer(g, g in counted)


def _pop_best(heap: list[Entry], valid: Callable[[Entry], bool], exact: Callable[[Entry], bool],
              fraction: Callable[[Entry], Fraction]) -> Entry | None:
    """Pop the best valid entry; entries with the same float are ordered by their exact fraction."""
    while heap:
        top = heapq.heappop(heap)
        if not valid(top):
            continue
        if exact(top):
            return top
        group = {(top[4], top[5]): top}
        while heap and heap[0][0] == top[0]:
            e = heapq.heappop(heap)
            if valid(e):
                group.setdefault((e[4], e[5]), e)
        ranked = sorted(group.values(), key=lambda e: (-fraction(e), e[1], e[2], e[3]))
        for e in ranked[1:]:
            heapq.heappush(heap, e)
        return ranked[0]
    return None


def _merge_counting(seq: list[int], a: int, b: int, t: int, f: int,
                    delta: dict[Pair, int]) -> tuple[list[int], list[Pair]]:
    """`seq` with each (a, b), left to right, replaced by t; the pair counts' changes (each pair
    weighs f) added to `delta`; the pairs t makes with its neighbours.

    Only the merged pair and its neighbours change. A neighbour on the left is read from the new
    sequence, so that of "a b a b" the second merge turns (t, a) into (t, t): the changes add up
    to what recounting every pair would give.
    """
    get = delta.get
    out: list[int] = []
    made: list[Pair] = []
    i, n = 0, len(seq)
    while i < n:
        if seq[i] == a and i + 1 < n and seq[i + 1] == b:
            delta[(a, b)] = get((a, b), 0) - f
            if out:
                prev = out[-1]
                pair = (prev, a)
                delta[pair] = get(pair, 0) - f
                pair = (prev, t)
                delta[pair] = get(pair, 0) + f
                made.append(pair)
            if i + 2 < n:
                after = seq[i + 2]
                pair = (b, after)
                delta[pair] = get(pair, 0) - f
                pair = (t, after)
                delta[pair] = get(pair, 0) + f
                made.append(pair)
            out.append(t)
            i += 2
        else:
            out.append(seq[i])
            i += 1
    return out, made
