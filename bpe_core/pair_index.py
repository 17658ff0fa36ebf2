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
- The initial index is built by C-level passes and sorts (a block of positions at a time), not
  by a dictionary update for every symbol.
"""
from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, MutableSequence, Sequence
from itertools import accumulate, chain, islice, repeat
from operator import add, mul
from typing import cast

from .pretokenize import byte_to_char
from .settings import Settings

# A pair of symbol ids packed into one int: left << SHIFT | right.
SHIFT = 32
MASK = (1 << SHIFT) - 1
SORT_BLOCK = 1 << 18  # positions sorted at once while the index is built
LEAN_POSITIONS = 1_000_000  # above this many positions the index keeps arrays, not lists


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
    """The linked list of all positions, each pair's count and positions, each symbol's uses.

    Two layouts, one behaviour: up to `LEAN_POSITIONS` positions the links and the pairs'
    positions are lists (fastest to read); above it they are arrays of machine integers, a
    quarter of the memory (a list holds an 8-byte pointer to a 32-byte int object for every
    position), for 10 to 25% more time. `lean` forces either.
    """

    def __init__(self, sym: MutableSequence[int], lengths: list[int], weights: list[int], base_size: int, *,
                 lean: bool | None = None) -> None:
        size = len(sym)
        self.lean = lean = size > LEAN_POSITIONS if lean is None else lean
        self.typecode = typecode = _typecode(size + 1)  # for positions (and -1)
        uniform = len(set(weights)) == 1  # one count for every word (text mode: one word)
        nxt: MutableSequence[int]
        prv: MutableSequence[int]
        if lean:
            numbers: Sequence[int] = range(size)
            sym = array("i", sym)
            nxt = array(typecode, range(1, size + 1))
            prv = array(typecode, range(-1, size - 1))
            code = _typecode(max(weights, default=0))
            weighted = chain.from_iterable(map(repeat, weights, lengths))
            if code and uniform:
                wt: Sequence[int] = array(code, weights[:1]) * size
            else:
                wt = array(code, weighted) if code else list(weighted)
        else:
            sym = sym if isinstance(sym, list) else list(sym)
            positions = list(range(-1, size + 1))  # the links and the index share these int objects
            nxt = positions[2:]
            prv = positions[:-2]
            numbers = positions[1:-1]
            wt = list(chain.from_iterable(map(repeat, weights, lengths)))
        for end in accumulate(lengths):
            nxt[end - 1] = -1
            if end < size:
                prv[end] = -1
        self.sym = sym  # symbol id at each position; -1 once merged into its left neighbour
        self.nxt = nxt
        self.prv = prv
        self.wt = wt  # the count of the word each position is in
        self.counts, self.where = _index_pairs(sym, lengths, weights, base_size, numbers, self._bucket,
                                               uniform=uniform)
        self.total = sum(map(mul, weights, lengths))  # tokens in the corpus
        self.multi = sum(1 for m in lengths if m > 1)  # distinct words longer than one token
        # Each symbol's uses: every position starts a pair or ends a word.
        self.usage: defaultdict[int, int] = defaultdict(int)
        for key, n in self.counts.items():
            self.usage[key >> SHIFT] += n
        for end, n in zip(accumulate(lengths), weights):
            self.usage[sym[end - 1]] += n
        self.visited = 0  # positions looked at by all merges: what makes training incremental
        self._first: dict[int, int] = {}  # pairs' earliest positions, where known and current

    def _bucket(self, positions: list[int]) -> MutableSequence[int]:
        """A pair's positions as the layout keeps them (`positions` is the caller's to give away)."""
        return array(self.typecode, positions) if self.lean else positions

    def earliest(self, key: int) -> int:
        """The pair's first position in the corpus (the `first` tie-break). Cached until the
        pair changes; looking it up also drops the stale positions from the pair's index."""
        p = self._first.get(key)
        if p is None:
            sym, nxt = self.sym, self.nxt
            a, b = key >> SHIFT, key & MASK
            live = sorted(p for p in self.where[key] if sym[p] == a and nxt[p] != -1 and sym[nxt[p]] == b)
            self.where[key] = self._bucket(live)
            p = self._first[key] = live[0]
        return p

    def merge(self, key: int, new: int) -> list[int]:
        """Replace every occurrence of the pair by the symbol `new`, left to right, and update
        the counts. Returns the pairs that gained (ab + y, x + ab), some of them more than once;
        the pairs that lost (x + a, b + y) only lost."""
        a, b = key >> SHIFT, key & MASK
        sym, nxt, prv, counts, where = self.sym, self.nxt, self.prv, self.counts, self.where
        held = where.pop(key)
        positions: list[int] = held.tolist() if isinstance(held, array) else cast(list, held)
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
        keep = self._bucket
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
                where[pair] = keep(at)
            else:
                bucket.extend(at)
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
    sym: Sequence[int], lengths: list[int], weights: list[int], base_size: int, numbers: Sequence[int],
    bucket: Callable[[list[int]], MutableSequence[int]], *, uniform: bool,
) -> tuple[defaultdict[int, int], dict[int, MutableSequence[int]]]:
    """Each pair's weighted count and its positions, ascending (kept by `bucket`), before any merge.
    `numbers[p]` is p (the int objects the positions are to share); `uniform`: every word has one count.

    Here pairs are numbered left * base_size + right (small ints sort fastest). The counts come
    from C-level Counters (one per block when every word has the same count, else one per
    distinct count), the positions from a sort by pair of
    `SORT_BLOCK` positions at a time (one sort of a whole long text would hold two int objects
    for every position at once).
    """
    size = len(sym)
    pairs = map(add, map(mul, sym, repeat(base_size)), islice(sym, 1, None))
    keys: MutableSequence[int] = array(_typecode(base_size**2), pairs) if isinstance(sym, array) else list(pairs)
    keys.append(-1)
    for end in accumulate(lengths):
        keys[end - 1] = -1  # no pair starts at a word's last symbol
    counts: defaultdict[int, int] = defaultdict(int)
    if not uniform:
        by_weight: defaultdict[int, list[int]] = defaultdict(list)
        for end, m, n in zip(accumulate(lengths), lengths, weights):
            if m > 1:
                by_weight[n] += keys[end - m:end - 1]
        for n, occurring in by_weight.items():
            for key, c in Counter(occurring).items():
                counts[key] += c * n
        del by_weight
    found: dict[int, MutableSequence[int]] = {}
    key_at = keys.__getitem__
    for low in range(0, size, SORT_BLOCK):
        high = min(size, low + SORT_BLOCK)
        order = sorted(numbers[low:high], key=key_at)
        start = 0
        for key, n in sorted(Counter(keys[low:high]).items()):
            if uniform:
                counts[key] += n * weights[0]
            held = found.get(key)
            if held is None:
                found[key] = bucket(order[start:start + n])
            else:
                held.extend(order[start:start + n])
            start += n
    del keys
    found.pop(-1, None)  # the word ends
    pair_counts: defaultdict[int, int] = defaultdict(int)
    where: dict[int, MutableSequence[int]] = {}
    for key in sorted(found):
        left, right = divmod(key, base_size)
        packed = left << SHIFT | right
        pair_counts[packed] = counts[key]
        where[packed] = found[key]
    return pair_counts, where


def _typecode(largest: int) -> str:
    """The array type that holds -1 to `largest` ('' when none does: a plain list then)."""
    if largest < 2**31:
        return "i"
    return "q" if largest < 2**63 else ""
