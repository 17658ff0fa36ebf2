"""The trainer's working state: the corpus as one linked list of symbols, with every pair's count
and the positions where it occurs.

Every symbol of every distinct word has a position in one doubly linked list (word ends break
the links). Merging a pair visits only the positions in its index and moves the counts of the
pairs around them, so a merge costs what it changes, not the size of the corpus. A text
trained without pre-tokenization is one long word and gets the same treatment.

What keeps the Python loop short (training spends its time there):
- The index may hold stale positions; each is checked when it is visited.
- A merge first rewires the list, grouping the neighbours of its occurrences by symbol; then
  each group moves its weight from the pair it broke to the pair it made, in one step.
- The initial index is built by C-level passes and one sort, not by a dictionary update for
  every symbol.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from itertools import accumulate, chain, repeat
from operator import add, mul

from .pretokenize import byte_to_char
from .settings import Settings

# A pair of symbol ids packed into one int: left << SHIFT | right.
SHIFT = 32
MASK = (1 << SHIFT) - 1


def symbol_ids(
    word_counts: Mapping[str, int], settings: Settings
) -> tuple[list[str], list[int], list[int], list[int]]:
    """The base alphabet (sorted), then the corpus as symbol ids: every distinct word's symbols
    laid end to end in order of first appearance, each word's length and each word's count.

    A word's symbols are its characters (bytes mode: byte symbols) and the end-of-word marker,
    a symbol of its own or glued to the last character (what `word_symbols` gives, done for
    the whole corpus at once).
    """
    kept = [(w, n) for w, n in word_counts.items() if w and n > 0]
    words = [w for w, _ in kept]
    weights = [n for _, n in kept]
    del kept
    marker = settings.marker
    glued = bool(marker) and settings.eow != "separate"
    text = "".join(words)
    chars = set(text)
    lengths = list(map(len, words))
    stand_in = ""
    finals = [w[-1] for w in words] if glued else []
    if not marker:
        seen = set(chars)
    elif glued:
        seen = set("".join([w[:-1] for w in words]))  # the characters that occur inside words
        seen.update(c + marker for c in set(finals))
    else:
        # The marker follows each word as a symbol of its own: written as an unused character.
        stand_in = next(chr(c) for c in range(0xE000, 0x110000) if chr(c) not in chars)
        text = stand_in.join(words) + stand_in if words else ""
        lengths = [m + 1 for m in lengths]
        seen = set(chars)
        seen.add(marker)
    if settings.mode == "bytes":
        seen.update(byte_to_char())  # every byte is in the alphabet: nothing is ever unknown
    base = sorted(seen)
    ids = {s: i for i, s in enumerate(base)}
    char_id = {c: ids.get(c, -1) for c in chars}  # -1: a character seen only glued to the marker
    if stand_in:
        char_id[stand_in] = ids[marker]
    sym = list(map(char_id.__getitem__, text))
    if glued:
        final_id = {c: ids[c + marker] for c in set(finals)}
        for end, c in zip(accumulate(lengths), finals):
            sym[end - 1] = final_id[c]
    return base, sym, lengths, weights


class PairIndex:
    """The linked list of all positions, each pair's count and positions, each symbol's uses."""

    def __init__(self, sym: list[int], lengths: list[int], weights: list[int], base_size: int) -> None:
        size = len(sym)
        positions = list(range(size))
        # The links share the positions' int objects (a third less memory than new ranges).
        nxt = positions[1:]
        prv = positions[:-1]
        if size:
            nxt.append(-1)
            prv.insert(0, -1)
        for end in accumulate(lengths):
            nxt[end - 1] = -1
            if end < size:
                prv[end] = -1
        self.sym = sym  # symbol id at each position; -1 once merged into its left neighbour
        self.nxt = nxt
        self.prv = prv
        self.wt = list(chain.from_iterable(map(repeat, weights, lengths)))  # the word's count
        self.counts, self.where = _index_pairs(positions, sym, lengths, weights, base_size)
        self.total = sum(self.wt)  # tokens in the corpus
        self.multi = sum(1 for m in lengths if m > 1)  # distinct words longer than one token
        # Each symbol's uses: every position starts a pair or ends a word.
        self.usage: defaultdict[int, int] = defaultdict(int)
        for key, n in self.counts.items():
            self.usage[key >> SHIFT] += n
        for end, n in zip(accumulate(lengths), weights):
            self.usage[sym[end - 1]] += n
        self.visited = 0  # positions looked at by all merges: what makes training incremental
        self._first: dict[int, int] = {}  # pairs' earliest positions, where known and current

    def earliest(self, key: int) -> int:
        """The pair's first position in the corpus (the `first` tie-break). Cached until the
        pair changes; looking it up also drops the stale positions from the pair's index."""
        p = self._first.get(key)
        if p is None:
            sym, nxt = self.sym, self.nxt
            a, b = key >> SHIFT, key & MASK
            live = [p for p in self.where[key] if sym[p] == a and nxt[p] != -1 and sym[nxt[p]] == b]
            live.sort()
            self.where[key] = live
            p = self._first[key] = live[0]
        return p

    def merge(self, key: int, new: int) -> list[int]:
        """Replace every occurrence of the pair by the symbol `new`, left to right, and update
        the counts. Returns the pairs that gained (ab + y, x + ab), some of them more than once;
        the pairs that lost (x + a, b + y) only lost."""
        a, b = key >> SHIFT, key & MASK
        sym, nxt, prv, counts, where = self.sym, self.nxt, self.prv, self.counts, self.where
        positions = where.pop(key)
        positions.sort()  # ascending runs, one from each merge that added to them: a quick sort
        self.visited += len(positions)
        del counts[key]
        self._first.pop(key, None)

        # Rewire the list at each occurrence. For "x a b y", merging a + b turns x + a into
        # x + ab at x's position, and b + y into ab + y at a's: `lefts[x]` collects the
        # positions of such x's, `rights[y]` the positions of the a's followed by a y, and
        # `left_weight[x]`, `right_weight[y]` the counts of their words.
        lefts: defaultdict[int, list[int]] = defaultdict(list)
        rights: defaultdict[int, list[int]] = defaultdict(list)
        left_weight: defaultdict[int, int] = defaultdict(int)
        right_weight: defaultdict[int, int] = defaultdict(int)
        wt = self.wt
        made = 0
        multi = self.multi
        for p in positions:
            q = nxt[p]
            # Stale, or used up by an earlier occurrence in this pass ("a a a", merging a + a).
            if sym[p] != a or q == -1 or sym[q] != b:
                continue
            before = prv[p]
            after = nxt[q]
            n = wt[p]
            made += n
            if before != -1:
                s = sym[before]
                lefts[s].append(before)
                left_weight[s] += n
            if after != -1:
                s = sym[after]
                rights[s].append(p)
                right_weight[s] += n
                prv[after] = p
            elif before == -1:
                multi -= 1  # the word is now a single token
            sym[p] = new
            sym[q] = -1
            nxt[p] = after
        self.multi = multi
        self.total -= made
        self.usage[new] += made
        self.usage[a] -= made
        self.usage[b] -= made

        # Each group moves its weight from the pair it broke to the pair it made. A pair can
        # lose in one group what it gained in another ("a b a b": ab + a appears, then becomes
        # ab + ab), so pairs left at zero are removed after all groups.
        changes = [(s << SHIFT | a, s << SHIFT | new, at, left_weight[s]) for s, at in lefts.items()]
        changes += [(b << SHIFT | s, new << SHIFT | s, at, right_weight[s]) for s, at in rights.items()]
        emptied: list[int] = []
        for old, pair, at, moved in changes:
            if old != key:  # the pair being merged is gone whole
                left_over = counts[old] - moved
                counts[old] = left_over
                if left_over <= 0:
                    emptied.append(old)
            counts[pair] += moved
            bucket = where.get(pair)
            if bucket is None:
                where[pair] = at
            else:
                bucket += at
        for old in emptied:
            if counts[old] <= 0:
                del counts[old]
                where.pop(old, None)
        if self._first:
            for old, pair, _, _ in changes:
                self._first.pop(old, None)
                self._first.pop(pair, None)
        return [pair for _, pair, _, _ in changes]


def _index_pairs(
    positions: list[int], sym: list[int], lengths: list[int], weights: list[int], base_size: int
) -> tuple[defaultdict[int, int], dict[int, list[int]]]:
    """Each pair's weighted count and its positions, ascending, before any merge.

    Here pairs are numbered left * base_size + right (small ints sort fastest). The counts come
    from one C-level Counter per distinct word count, the positions from one sort by pair.
    """
    keys = list(map(add, map(mul, sym, repeat(base_size)), sym[1:]))
    keys.append(-1)
    for end in accumulate(lengths):
        keys[end - 1] = -1  # no pair starts at a word's last symbol
    by_weight: defaultdict[int, list[int]] = defaultdict(list)
    for end, m, n in zip(accumulate(lengths), lengths, weights):
        if m > 1:
            by_weight[n] += keys[end - m:end - 1]
    counts: defaultdict[int, int] = defaultdict(int)
    sizes: defaultdict[int, int] = defaultdict(int)
    for n, occurring in by_weight.items():
        for key, c in Counter(occurring).items():
            counts[key] += c * n
            sizes[key] += c
    del by_weight
    order = sorted(positions, key=keys.__getitem__)
    del keys
    start = len(order) - sum(sizes.values())  # the word ends (-1) sort first
    pair_counts: defaultdict[int, int] = defaultdict(int)
    where: dict[int, list[int]] = {}
    for key in sorted(sizes):
        left, right = divmod(key, base_size)
        packed = left << SHIFT | right
        pair_counts[packed] = counts[key]
        where[packed] = order[start:start + sizes[key]]
        start += sizes[key]
    return pair_counts, where
