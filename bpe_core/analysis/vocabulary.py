"""Token counts as merges grow, the vocabulary table, a token's life story, BPE-dropout.

*Usage* is how often a token appears when each distinct corpus word is encoded with all merges,
weighted by the word's count: the token's life after training. An animation *step* t is the
state after t merges, so a token made by the merge of rank r first appears at step r + 1.
"""
from __future__ import annotations

import operator
import unicodedata
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import compress, count, repeat
from typing import NamedTuple

from ..collector import collector_paused
from ..encoder import encode_ranked, merge_steps
from ..hierarchy import MergeNode, merge_tree
from ..model import Tokenizer
from ..pretokenize import char_to_byte
from ..settings import BPEError
from .segments import (
    DOTTED_CIRCLE,
    SHOWN_WHITESPACE,
    _symbol_bytes,
    _utf8_parts,
    display_token,
    visible_whitespace,
)

# Words with more symbols than this are encoded once per curve point (the engine's heap encoder);
# shorter ones are stepped through once, which is quadratic in their length but runs only once.
_STEP_ONCE_MAX = 64
_MAX_DROPOUT_SAMPLES = 100_000

# ---- token counts as merges grow -------------------------------------------------------------


def token_count_curve(tokenizer: Tokenizer, text: str, *, points: int = 50) -> list[tuple[int, int]]:
    """(merges used, tokens in `text`) for up to `points` merge counts from 0 to all merges.

    Each value equals `len(tokenizer.encode(text, limit=k))`, but the last, `len(tokenizer.encode(text))`
    (they differ only for a rank file with tokens no merge builds, `Tokenizer.unreachable`: its full
    encoding takes a piece that is itself a token whole). Encoding with the first k merges applies
    a prefix of the full encoding's merge steps (it stops at the first step of rank >= k), so each
    distinct word is stepped through once and every k is read off that one run.
    """
    if isinstance(points, bool) or not isinstance(points, int) or points < 2:
        raise BPEError("a token-count curve needs at least 2 points")
    total = len(tokenizer.merges)
    ks = sorted({round(i * total / (points - 1)) for i in range(points)})
    counts = [0] * len(ks)
    table = tokenizer.step_table
    last = len(ks) - 1  # k = all merges: the tokenizer's own full encoding
    for word, n in Counter(tokenizer.words_of(text)).items():
        counts[last] += n * len(tokenizer.encode_word(word))
        symbols = tokenizer.initial_symbols(word)
        if len(symbols) > _STEP_ONCE_MAX:
            for j, limit in enumerate(ks[:last]):  # merge rank < k: the first k merges
                counts[j] += n * len(encode_ranked(symbols, table, limit=limit))
            continue
        # reach[i]: the highest rank among the first i + 1 steps; non-decreasing.
        reach: list[int] = []
        for step in merge_steps(symbols, table):
            reach.append(max(step.rank, reach[-1]) if reach else step.rank)
        for j, limit in enumerate(ks[:last]):
            counts[j] += n * (len(symbols) - bisect_left(reach, limit))
    return list(zip(ks, counts))


# ---- the vocabulary --------------------------------------------------------------------------


class VocabRow(NamedTuple):
    """One vocabulary entry: how it was made, what it is made into, and how much it is used.

    A named tuple, not a dataclass: a 200,000-token vocabulary is 200,000 of them, made at once.
    """

    id: int
    token: str
    display: str  # `display_token`'s text
    rank: int | None  # the merge that first made it; None for base symbols, <unk> and `unreachable`
    count: int | None  # type: ignore[assignment]  # pair count when merged (shadows tuple.count); None without a trace
    chars: int  # characters it stands for (no end-of-word marker; bytes mode: valid UTF-8 only)
    n_bytes: int  # UTF-8 bytes it stands for (no end-of-word marker)
    uses: int | None  # occurrences in the corpus after training; None without word counts
    parents: tuple[str, str] | None  # (left, right) of the merge that made it
    children: tuple[str, ...]  # tokens whose merge takes it as left or right part, by rank
    unreachable: bool = False  # a rank file's token no merge builds (`Tokenizer.unreachable`)

    @property
    def kept(self) -> float | None:
        """Share of its occurrences at birth still used after training (uses / count)."""
        if self.uses is None or not self.count:
            return None
        return self.uses / self.count


def token_usage(tokenizer: Tokenizer, word_counts: Mapping[str, int]) -> dict[str, int]:
    """How often each vocabulary token occurs when every corpus word is encoded with all merges.

    `word_counts` are as `count_words(texts, tokenizer.settings)` returns them (bytes mode: words
    written in byte symbols). Every vocabulary token has an entry; unseen characters count as
    the unknown token.
    """
    usage = dict.fromkeys(tokenizer.vocab, 0)
    bytes_mode = tokenizer.settings.mode == "bytes"
    for word, n in word_counts.items():
        if not word or n <= 0:
            continue
        if bytes_mode:
            data = _symbol_bytes(word)
            if data is None:
                raise BPEError(
                    f"word {word[:30]!r} is not written in byte symbols: "
                    "give bytes-mode word counts as count_words returns them"
                )
            try:
                # Through the tokenizer's own (cached) encoder, which knows tiktoken's rules.
                tokens = tokenizer.encode_word(data.decode("utf-8"))
            except UnicodeDecodeError:
                tokens = encode_ranked(list(word), tokenizer.table)
        else:
            tokens = tokenizer.encode_word(word)
        for token in tokens:
            key = token if token in usage or tokenizer.unk_token is None else tokenizer.unk_token
            usage[key] = usage.get(key, 0) + n
    return usage


def _usage(tokenizer: Tokenizer, word_counts: Mapping[str, int] | None) -> dict[str, int] | None:
    if word_counts is not None:
        return token_usage(tokenizer, word_counts)
    if tokenizer.training is not None and tokenizer.training.final_usage:
        return tokenizer.training.final_usage
    return None


def vocabulary_table(tokenizer: Tokenizer, word_counts: Mapping[str, int] | None = None) -> list[VocabRow]:
    """One row per vocabulary token, in id order.

    `uses` comes from `word_counts` when given, else from the training run's own final counts,
    else it is None (an imported tokenizer with no corpus). Built a column at a time, mostly by
    `map` over C functions: o200k's 200,000 rows take a fraction of a second.
    """
    usage = _usage(tokenizer, word_counts)
    with collector_paused():  # 200,000 rows of lasting tuples: see `collector_paused`
        return _table(tokenizer, usage)


def _table(tokenizer: Tokenizer, usage: Mapping[str, int] | None) -> list[VocabRow]:
    vocab, birth, merges, trace = tokenizer.vocab, tokenizer.birth, tokenizer.merges, tokenizer.trace
    ids = list(vocab.values())
    if any(map(operator.gt, ids, ids[1:])):  # rank files and trained tokenizers are in id order already
        ids.sort()
    token_of = tokenizer.id_to_token
    tokens = list(map(token_of.__getitem__, ids))
    n = len(tokens)
    ranks = list(map(birth.get, tokens))
    display, chars, n_bytes = _shown_columns(tokenizer, tokens)
    traced = len(trace)
    counts = [trace[r].count if r is not None and r < traced else None for r in ranks] if traced else [None] * n
    uses = list(map(usage.get, tokens, repeat(0))) if usage is not None else [None] * n
    parents = [merges[r] if r is not None else None for r in ranks]
    unreachable = tokenizer.unreachable
    flags = list(map(unreachable.__contains__, tokens)) if unreachable else [False] * n
    columns = zip(ids, tokens, display, ranks, counts, chars, n_bytes, uses, parents,
                  _children_column(tokenizer, tokens), flags)
    return list(map(tuple.__new__, repeat(VocabRow), columns))  # VocabRow._make, without a call per row


def _children_column(tokenizer: Tokenizer, tokens: list[str]) -> list[tuple[str, ...]]:
    """For each token, the distinct tokens built on it, by rank (`Tokenizer.children` without ranks,
    made here with no tuple per merge: a third of the time for 200,000 merges)."""
    merges, birth = tokenizer.merges, tokenizer.birth
    unique = len(birth) == len(merges)  # no token made twice: `birth` lists the made tokens in rank order
    made = list(birth) if unique else [a + b for a, b in merges]
    built_on: defaultdict[str, list[str]] = defaultdict(list)
    for token, (left, right) in zip(made, merges):
        built_on[left].append(token)
        if right != left:
            built_on[right].append(token)
    lists = map(built_on.get, tokens, repeat(()))
    return list(map(tuple, lists)) if unique else [tuple(dict.fromkeys(m)) for m in lists]


def _shown_columns(tokenizer: Tokenizer, tokens: list[str]) -> tuple[list[str], list[int], list[int]]:
    """`_shown_with_size` of every token, as three columns (display, characters, bytes)."""
    if tokenizer.settings.mode != "bytes":
        sized = [_shown_with_size(tokenizer, t) for t in tokens]
        return [s[0] for s in sized], [s[1] for s in sized], [s[2] for s in sized]
    # Bytes mode: every token decoded at once, column by column; only the few tokens that are no
    # valid UTF-8 (parts of characters), hold U+FFFD or are no byte symbols go one at a time.
    latin1 = list(map(str.translate, tokens, repeat(_symbol_to_latin1())))
    data = list(map(str.encode, latin1, repeat("latin-1"), repeat("replace")))
    texts = list(map(bytes.decode, data, repeat("utf-8"), repeat("replace")))
    display = list(map(str.replace, texts, repeat(" "), repeat(SHOWN_WHITESPACE[" "])))
    chars = list(map(len, texts))
    n_bytes = list(map(len, data))
    # Slow: U+FFFD (bytes that are no UTF-8, or a real U+FFFD) or a letter that is no byte symbol.
    slow = set(compress(count(), map(operator.or_, map(operator.contains, texts, repeat("\ufffd")),
                                     map(operator.contains, latin1, repeat("\uffff")))))
    odd = list(compress(count(), map(operator.not_, map(str.isprintable, texts))))
    unk = tokenizer.unk_token
    if unk is not None and unk in tokenizer.vocab:
        slow.add(tokens.index(unk))  # its letters may be byte symbols, but it stands for no bytes
    for i in odd:  # valid UTF-8 with whitespace or invisible characters: each shown as `char_segment` does
        display[i] = visible_whitespace(texts[i])
    for i in slow:
        display[i], chars[i], n_bytes[i] = _shown_with_size(tokenizer, tokens[i])
    for i in compress(count(), map(operator.not_, map(str.isascii, texts))):
        t = texts[i]  # a leading combining mark gets a dotted circle (`token_segments`)
        if not t[0].isascii() and unicodedata.category(t[0])[0] == "M" and i not in slow:
            display[i] = DOTTED_CIRCLE + display[i]
    return display, chars, n_bytes


def nearly_unused(rows: Sequence[VocabRow], *, threshold: float = 0.25) -> list[VocabRow]:
    """Merged tokens that later merges consumed: final uses at most `threshold` x their count when merged.

    Example (seed 000, 10 merges): "ne" was made 9 times, but "newe" took 7 of those (and
    "newest</w>" later took most of "newe"), leaving 2 uses in "new" (2/9 <= 0.25). Rows
    without a merge count (no trace) qualify only when never used; rows without uses (no word
    counts) never qualify. Use the training corpus's word counts, or the ratio mixes two corpora.
    """
    if isinstance(threshold, bool) or not 0 <= threshold <= 1:
        raise BPEError("the nearly-unused threshold is a share between 0 and 1")
    out = []
    for row in rows:
        if row.rank is None or row.uses is None:
            continue
        if (row.uses <= threshold * row.count) if row.count else row.uses == 0:
            out.append(row)
    return out


# ---- one token's life ------------------------------------------------------------------------


@dataclass(frozen=True)
class LifeStory:
    """A token's birth, parents, the tokens built on it, its final usage and its merge tree."""

    token: str
    id: int
    rank: int | None  # the merge that first made it; None for base symbols and <unk>
    count: int | None  # how often its pair occurred at that merge; None without a trace
    parents: tuple[str, str] | None
    children: tuple[tuple[str, int], ...]  # (made token, rank) of each merge taking it as a part
    uses: int | None  # occurrences in the corpus after training; None without word counts
    tree: MergeNode
    step: int  # animation step where it first exists: rank + 1 (state after that merge), 0 for base


def life_story(tokenizer: Tokenizer, token: str, word_counts: Mapping[str, int] | None = None) -> LifeStory:
    """Everything about one token; `step` = rank + 1, as animation step t shows the state after t merges."""
    if token not in tokenizer.vocab:
        raise BPEError(f"{token!r} is not in this tokenizer's vocabulary")
    rank = tokenizer.birth.get(token)
    usage = _usage(tokenizer, word_counts)
    uses = usage.get(token, 0) if usage is not None else None
    return LifeStory(
        token=token,
        id=tokenizer.vocab[token],
        rank=rank,
        count=_count_at(tokenizer, rank),
        parents=tokenizer.merges[rank] if rank is not None else None,
        children=tuple(tokenizer.children_of(token)),
        uses=uses,
        tree=merge_tree(tokenizer, token),
        step=rank + 1 if rank is not None else 0,
    )


# ---- BPE-dropout -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DropoutOutcome:
    """One segmentation BPE-dropout produced, how often, and whether it is the deterministic one."""

    tokens: tuple[str, ...]
    count: int
    deterministic: bool


@dataclass(frozen=True)
class DropoutDistribution:
    """The segmentations of one word under BPE-dropout, most frequent first."""

    word: str
    p: float
    samples: int
    seed: int
    deterministic: tuple[str, ...]  # the segmentation without dropout
    outcomes: tuple[DropoutOutcome, ...]  # most frequent first; ties in order of first appearance

    def pairs(self) -> list[tuple[tuple[str, ...], int]]:
        """(segmentation, count) pairs, most frequent first."""
        return [(o.tokens, o.count) for o in self.outcomes]


def dropout_distribution(
    tokenizer: Tokenizer, word: str, *, p: float, samples: int, seed: int = 0
) -> DropoutDistribution:
    """Sample BPE-dropout `samples` times on one word (normalized and checked to be one word)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise BPEError("dropout probability must be between 0 and 1")
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= _MAX_DROPOUT_SAMPLES:
        raise BPEError(f"the number of dropout samples must be between 1 and {_MAX_DROPOUT_SAMPLES:,}")
    words = tokenizer.words_of(word)
    if len(words) != 1:
        raise BPEError(
            f"dropout works on one word; {word[:30]!r} is {len(words)} words as this tokenizer splits text"
        )
    (normalized,) = words
    deterministic = tuple(tokenizer.encode_word(normalized))
    counts = Counter(tuple(s) for s in tokenizer.dropout(normalized, p=p, seed=seed, samples=samples))
    outcomes = tuple(
        DropoutOutcome(tokens, n, tokens == deterministic) for tokens, n in counts.most_common()
    )
    return DropoutDistribution(normalized, float(p), samples, seed, deterministic, outcomes)


def _count_at(tokenizer: Tokenizer, rank: int | None) -> int | None:
    trace = tokenizer.trace
    return trace[rank].count if rank is not None and rank < len(trace) else None


@lru_cache(maxsize=1)
def _symbol_to_latin1() -> dict[int, int]:
    """str.translate table: each byte symbol to the character of its byte value; every other
    character below U+0100 to U+FFFF, so that only byte symbols survive `encode("latin-1")`."""
    table = dict.fromkeys(range(256), 0xFFFF)
    table.update({ord(ch): byte for ch, byte in char_to_byte().items()})
    return table


def _shown_with_size(tokenizer: Tokenizer, token: str) -> tuple[str, int, int]:
    """`display_token`'s text, and the characters and UTF-8 bytes a token stands for.

    The unknown token stands for no fixed text (0, 0). Bytes that are no valid UTF-8 are
    fragments of characters and add no characters. The end-of-word marker is no character.
    """
    if token == tokenizer.unk_token:
        return token, 0, 0
    data = _symbol_bytes(token) if tokenizer.settings.mode == "bytes" else None
    if data is not None:
        parts = _utf8_parts(data)
        return display_token(tokenizer, token), sum(len(p) for p in parts if isinstance(p, str)), len(data)
    marker = tokenizer.settings.marker
    text = token.removesuffix(marker) if marker else token
    return display_token(tokenizer, token), len(text), len(text.encode("utf-8"))
