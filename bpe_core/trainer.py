"""The incremental BPE trainer: it picks the pair to merge from a heap, merges it in the pair
index (`pair_index.py`) and records each step for the explorer.

A pair whose count falls keeps its heap entry, which then overstates the count: the entry is
corrected when it reaches the top. Only pairs whose count grows get a new entry, so a merge
pushes one entry for each pair it makes and none for the pairs it breaks.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush

from .collector import collector_paused
from .pair_index import MASK, SHIFT, PairIndex, symbol_ids
from .settings import BPEError, Settings

Progress = Callable[[int, int], None]

MAX_MERGES = 1_000_000
# The longest token training makes, in characters (byte symbols in bytes mode, the marker
# included). Without pre-tokenization a repeated passage becomes a chain of tokens, each one
# character longer than the last: their text grows with the square of the passage's length
# (200 KB of prose made 480 million characters of tokens in 20,000 merges). A pair whose token
# would be longer is never merged, as Hugging Face's `max_token_length` does.
MAX_TOKEN_LENGTH = 1_000
DEFAULT_MERGES = 1000  # when neither a number of merges nor a vocabulary size is given


@dataclass(frozen=True)
class Merge:
    """One step of training: `left` + `right` -> `token`, made when the pair occurred `count` times."""

    rank: int
    left: str
    right: str
    token: str
    count: int
    vocab_size: int  # base symbols + merges so far (the <unk> id is not counted)
    total_tokens: int  # tokens in the whole corpus after this merge
    multi_token_words: int  # distinct corpus words still longer than one token


@dataclass
class TrainResult:
    """Everything training produced: base symbols, the merges with their trace, and the top pairs."""

    base: list[str]
    trace: list[Merge]
    top_pairs: list[list[tuple[str, str, int]]]  # for each step, the highest pairs before merging
    initial_tokens: int
    initial_multi_token_words: int
    word_count: int  # words in the corpus, with repeats
    distinct_words: int
    stop_reason: str
    requested_merges: int = 0
    stats: dict[str, float] = field(default_factory=dict)
    final_usage: dict[str, int] = field(default_factory=dict)  # token -> occurrences after training


class Descending:
    """Sort keys that order strings backwards: a < b exactly when key(a) > key(b).

    Every token is made of the corpus's alphabet, so each character is written as its rank
    from the top of the alphabet (the greatest character becomes chr(1)), and the key ends with
    chr(n + 1), greater than any of them, so that a prefix ("ab") comes after the longer string
    ("abc"). A key is a str: it compares in C and takes about the memory of the token itself
    (with fewer than 255 characters in the alphabet, one byte a character). Tuples of negated
    code points did the same at about 36 bytes a character, which made a text-mode corpus, whose
    tokens grow to whole repeated paragraphs, take gigabytes.

    >>> key = Descending(["a", "b", "c"])
    >>> sorted(["ab", "abc", "b", "a"], key=key)
    ['b', 'abc', 'ab', 'a']
    """

    def __init__(self, symbols: list[str]) -> None:
        chars = sorted(set("".join(symbols)))
        self.table = {ord(c): len(chars) - k for k, c in enumerate(chars)}
        self.end = chr(len(chars) + 1)

    def __call__(self, token: str) -> str:
        return token.translate(self.table) + self.end


def check_target(
    *,
    merges: object = None,
    vocab_size: object = None,
    merges_name: str = "the number of merges",
    vocab_name: str = "the vocabulary size",
) -> None:
    """Refuse a target no corpus could meet, before any word is counted (one-line BPEError).

    A number of merges is a whole number from 0 to MAX_MERGES; a vocabulary size a whole number
    of 1 or more (its upper bound depends on the corpus's alphabet: `merges_for_target`). The
    names say what the caller calls them (the command line: `--merges`, `--vocab-size`).

    >>> check_target(merges=-3, merges_name="--merges")
    Traceback (most recent call last):
    ...
    bpe_core.settings.BPEError: --merges must be a whole number, 0 or more, not -3
    """
    if merges is not None and vocab_size is not None:
        raise BPEError("give either a number of merges or a vocabulary size, not both")
    if vocab_size is not None:
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
            raise BPEError(f"{vocab_name} must be a whole number of 1 or more, not {vocab_size!r}")
    elif merges is not None:
        if isinstance(merges, bool) or not isinstance(merges, int) or merges < 0:
            raise BPEError(f"{merges_name} must be a whole number, 0 or more, not {merges!r}")
        _check_most(merges)


def _check_most(wanted: int) -> None:
    if wanted > MAX_MERGES:
        raise BPEError(f"at most {MAX_MERGES:,} merges can be trained; {wanted:,} were asked for")


def merges_for_target(*, base_size: int, merges: int | None, vocab_size: int | None) -> int:
    """How many merges a target asks for: a merge count, or a vocabulary size less the base
    alphabet; with neither, DEFAULT_MERGES. A vocabulary smaller than the alphabet is refused.

    >>> merges_for_target(base_size=11, merges=None, vocab_size=20)
    9
    >>> merges_for_target(base_size=11, merges=None, vocab_size=5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_core.settings.BPEError: a vocabulary of 5 is smaller than this corpus's alphabet (11 base ... at least 12.
    """
    check_target(merges=merges, vocab_size=vocab_size)
    if vocab_size is None:
        return DEFAULT_MERGES if merges is None else merges
    if vocab_size < base_size:
        raise BPEError(
            f"a vocabulary of {vocab_size:,} is smaller than this corpus's alphabet "
            f"({base_size:,} base symbols), so no merge could be learned; ask for at least {base_size + 1:,}."
        )
    _check_most(vocab_size - base_size)
    return vocab_size - base_size


def train_counts(
    word_counts: Mapping[str, int],
    settings: Settings,
    *,
    merges: int | None = None,
    vocab_size: int | None = None,
    top_k: int = 10,
    progress: Progress | None = None,
    max_token_length: int | None = MAX_TOKEN_LENGTH,
) -> TrainResult:
    """Learn merges from word counts (ordered by first appearance) with the incremental index.

    Pairs whose token would be longer than `max_token_length` characters are never merged
    (None: no limit).
    """
    if max_token_length is not None and (
        isinstance(max_token_length, bool) or not isinstance(max_token_length, int) or max_token_length < 1
    ):
        raise BPEError(
            f"the longest token must be a whole number of 1 or more characters, or None; not {max_token_length!r}"
        )
    # Millions of small, long-lived objects and no cycles: the cyclic collector only costs time.
    with collector_paused():
        return _train(
            word_counts,
            settings,
            merges=merges,
            vocab_size=vocab_size,
            top_k=top_k,
            progress=progress,
            max_token_length=max_token_length,
        )


class _PairQueue:
    """The pairs by priority: the heap's smallest entry is the pair to merge.

    Entries are (-count, rank of left, rank of right, pair), where a symbol's rank orders
    symbols as the tie-break wants them: `count-pair` the greatest strings first (subword-nmt),
    `hf` the smallest ids first (Hugging Face). `first` entries are (-count, earliest position,
    pair): the pair seen first in the corpus as it is now (seed 003's argmax).

    A pair whose token would be longer than `max_length` never gets an entry.
    """

    def __init__(self, index: PairIndex, tokens: list[str], tie_break: str, max_length: int | None) -> None:
        self.index = index
        self.max_length = max_length
        self.length = list(map(len, tokens))
        self.first = tie_break == "first"
        self.by_string = tie_break == "count-pair"
        # A symbol's rank: `count-pair`, its Descending key (every later token is made of these
        # symbols' characters); otherwise its id.
        self.descending = Descending(tokens) if self.by_string else None
        self.rank: list = list(map(self.descending, tokens)) if self.descending else list(range(len(tokens)))
        self.heap = [self.entry(key) for key in self.fitting(list(index.counts))]
        heapify(self.heap)

    def fitting(self, keys: list[int]) -> list[int]:
        """The pairs whose merged token is short enough."""
        if self.max_length is None:
            return keys
        length, most = self.length, self.max_length
        return [key for key in keys if length[key >> SHIFT] + length[key & MASK] <= most]

    def add_symbol(self, token: str, symbol: int) -> None:
        self.length.append(len(token))
        self.rank.append(self.descending(token) if self.descending else symbol)

    def entry(self, key: int) -> tuple:
        if self.first:
            return (-self.index.counts[key], self.index.earliest(key), key)
        return (-self.index.counts[key], self.rank[key >> SHIFT], self.rank[key & MASK], key)

    def push_all(self, keys: list[int]) -> None:
        """New entries for pairs whose count grew (pairs since emptied are skipped)."""
        heap, counts = self.heap, self.index.counts
        keys = self.fitting(keys)
        if self.first:
            for key in keys:
                if key in counts:
                    heappush(heap, self.entry(key))
            return
        rank = self.rank
        for key in keys:  # self.entry, written out: it runs for every pair a merge makes
            if key in counts:
                heappush(heap, (-counts[key], rank[key >> SHIFT], rank[key & MASK], key))

    def _settle(self, entry: tuple) -> bool:
        """Whether a popped entry is its pair's current one; one that overstates it is renewed."""
        key = entry[-1]
        count = self.index.counts.get(key)
        if count is None:
            return False
        if not self.first:  # ranks never change: only the count can be out of date
            if entry[0] == -count:
                return True
            if -entry[0] > count:
                heappush(self.heap, (-count, entry[1], entry[2], key))
            return False
        fresh = self.entry(key)
        if fresh == entry:
            return True
        if entry < fresh:
            heappush(self.heap, fresh)
        # else the pair has grown since, and its newer entry is in the heap
        return False

    def pop(self) -> tuple | None:
        """The current entry of the pair to merge, taken off the heap (None: no pair is left)."""
        while self.heap:
            entry = heappop(self.heap)
            if self._settle(entry):
                return entry
        return None

    def peek(self, n: int, *, besides: int) -> list[tuple]:
        """The current entries of the next n pairs other than `besides`, left in the heap."""
        found: list[tuple] = []
        noted = {besides}
        while self.heap and len(found) < n:
            entry = heappop(self.heap)
            if self._settle(entry) and entry[-1] not in noted:
                noted.add(entry[-1])
                found.append(entry)
        for entry in found:
            heappush(self.heap, entry)
        return found


def _train(
    word_counts: Mapping[str, int],
    settings: Settings,
    *,
    merges: int | None,
    vocab_size: int | None,
    top_k: int,
    progress: Progress | None,
    max_token_length: int | None,
) -> TrainResult:
    base, sym, lengths, weights = symbol_ids(word_counts, settings)
    wanted = merges_for_target(base_size=len(base), merges=merges, vocab_size=vocab_size)
    tokens: list[str] = list(base)
    ids = {s: i for i, s in enumerate(base)}
    index = PairIndex(sym, lengths, weights, len(base))
    del sym  # the index keeps its own copy (a long text's as an array)
    queue = _PairQueue(index, tokens, settings.tie_break, max_token_length)

    initial_tokens, initial_multi = index.total, index.multi
    trace: list[Merge] = []
    top_pairs: list[list[tuple[str, str, int]]] = []
    stop_reason = "reached the requested number of merges"
    if vocab_size is not None and wanted == 0:
        stop_reason = (
            f"a vocabulary of {vocab_size:,} is not larger than the base alphabet "
            f"({len(base):,} symbols), so no merge was asked for"
        )

    while len(trace) < wanted:
        best = queue.pop()
        if best is None:
            stop_reason = "no pair is left to merge: every word is a single token"
            if index.counts:
                stop_reason = (
                    f"every pair left would make a token longer than {max_token_length:,} characters, "
                    "the longest allowed"
                )
            break
        count = -best[0]
        if count < settings.min_frequency:
            stop_reason = f"no pair occurs at least {settings.min_frequency:,} times"
            break
        key = best[-1]
        # The runners-up, for the bar chart of this step.
        shown = [best, *queue.peek(top_k - 1, besides=key)]
        top_pairs.append([(tokens[e[-1] >> SHIFT], tokens[e[-1] & MASK], -e[0]) for e in shown])

        a, b = key >> SHIFT, key & MASK
        # Two different merges can spell the same token ("a" + "bc", "ab" + "c"): one symbol.
        merged = tokens[a] + tokens[b]
        new = ids.get(merged, len(tokens))
        if new == len(tokens):
            tokens.append(merged)
            ids[merged] = new
            queue.add_symbol(merged, new)
        queue.push_all(index.merge(key, new))

        trace.append(
            Merge(
                rank=len(trace),
                left=tokens[a],
                right=tokens[b],
                token=merged,
                count=count,
                vocab_size=len(tokens),
                total_tokens=index.total,
                multi_token_words=index.multi,
            )
        )
        if progress is not None and (len(trace) % 100 == 0 or len(trace) == wanted):
            progress(len(trace), wanted)

    return TrainResult(
        base=base,
        trace=trace,
        top_pairs=top_pairs,
        initial_tokens=initial_tokens,
        initial_multi_token_words=initial_multi,
        word_count=sum(weights),
        distinct_words=len(weights),
        stop_reason=stop_reason,
        requested_merges=wanted,
        stats={"positions": len(index.sym), "positions_visited": index.visited},
        final_usage={tokens[s]: n for s, n in sorted(index.usage.items()) if n},
    )
