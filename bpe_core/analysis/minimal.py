"""Minimal vs BPE: the fewest tokens a word can be cut into with the same vocabulary, beside BPE's cut.

BPE applies its merges in rank order, which is deterministic but not minimal: with the merges
`b c`, `a b`, `c d` learned in that order, "abcd" becomes `a`+`bc`+`d` (`b c` fires first and
nothing joins `bc` to a neighbour), while `ab`+`cd` is two tokens. `shortest_split` finds a shortest cut by dynamic
programming over the word's symbols (characters, the end-of-word marker as the tokenizer adds it,
or bytes for byte-level tokenizers); any vocabulary token may be used, and a single symbol always
may (BPE keeps a symbol it cannot merge, as `<unk>` when it is unknown), never `<unk>` itself.

Among several shortest cuts the one chosen takes the longest first token, then the longest next
one, and so on (the latest cut positions, compared left to right), so the result is one answer.

`minimal_vs_bpe` does this for a corpus's words, most frequent first. The work is bounded: words
of more than `max_symbols` symbols and distinct words beyond the `max_words` most frequent are
not examined, and the report says how many of each were left out.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass

from ..model import Tokenizer
from ..pretokenize import normalize, require_str, split_words
from ..settings import BPEError

MAX_SYMBOLS = 64  # longer words are not examined (runs of spaces, long URLs): the cost grows with length
MAX_WORDS = 50_000  # distinct words examined, most frequent first
EXAMPLES = 200


def shortest_split(symbols: Sequence[str], vocab: Container[str], *, max_token: int | None = None) -> list[str]:
    """A shortest cut of `symbols` into tokens of `vocab` (a single symbol is always allowed).

    `max_token` bounds a token's length in symbols (the longest token's length in characters
    bounds it for any vocabulary). Ties: the longest first token, then the longest next, ...

    >>> shortest_split(list("abcd"), {"ab", "bc", "cd", "abc"})
    ['abc', 'd']
    >>> shortest_split(["l", "o", "w", "</w>"], {"lo", "w</w>", "low"})
    ['low', '</w>']
    """
    n = len(symbols)
    if n == 0:
        return []
    longest = n if max_token is None else max(1, min(n, max_token))
    # cost[i]: fewest tokens for symbols[i:]; filled from the right.
    cost = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        best = 1 + cost[i + 1]
        piece = symbols[i]
        for j in range(i + 2, min(n, i + longest) + 1):
            piece += symbols[j - 1]
            if cost[j] + 1 < best and piece in vocab:
                best = cost[j] + 1
        cost[i] = best
    out: list[str] = []
    i = 0
    while i < n:
        # The longest token from i that still leads to a shortest cut.
        for j in range(min(n, i + longest), i, -1):
            if cost[j] == cost[i] - 1:
                piece = "".join(symbols[i:j])
                if j == i + 1 or piece in vocab:
                    out.append(piece)
                    i = j
                    break
    return out


class _Vocab:
    """The tokens a shortest cut may use: the vocabulary without the unknown token."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        self.vocab = tokenizer.vocab
        self.unk = tokenizer.unk_token

    def __contains__(self, token: object) -> bool:
        return token in self.vocab and token != self.unk


def longest_token(tokenizer: Tokenizer) -> int:
    """The longest vocabulary token, in characters (byte-level: bytes): a bound on a token's symbols."""
    return max((len(t) for t in tokenizer.vocab if t != tokenizer.unk_token), default=1)


def minimal_segmentation(tokenizer: Tokenizer, word: str) -> list[str]:
    """A shortest cut of one normalized word (pre-token) in `tokenizer`'s vocabulary.

    >>> from bpe_core import train
    >>> tok = train("low low low lower", merges=3)
    >>> tok.encode_word("low"), minimal_segmentation(tok, "low")
    (['low</w>'], ['low</w>'])
    """
    require_str(word, what="the word")
    return shortest_split(tokenizer.initial_symbols(word), _Vocab(tokenizer), max_token=longest_token(tokenizer))


@dataclass(frozen=True)
class WordSplit:
    """One word with BPE's tokens and a shortest cut (tokens as the tokenizer spells them)."""

    word: str  # the normalized word as text
    count: int  # its occurrences in the corpus
    bpe: tuple[str, ...]
    minimal: tuple[str, ...]

    @property
    def extra(self) -> int:
        """Tokens BPE spends on one occurrence beyond the minimum."""
        return len(self.bpe) - len(self.minimal)


@dataclass(frozen=True)
class MinimalReport:
    """How far BPE's cuts of a corpus's words are from the shortest ones."""

    words: int  # distinct words examined
    occurrences: int  # their occurrences
    bpe_tokens: int  # BPE's tokens over those occurrences
    minimal_tokens: int  # the shortest cuts' tokens over the same occurrences
    affected_words: int  # distinct words BPE cuts into more pieces than needed
    affected_occurrences: int
    examples: tuple[WordSplit, ...]  # affected words, most frequent first (ties: first seen in the corpus)
    long_words: int  # distinct words not examined: more than max_symbols symbols
    long_occurrences: int
    rare_words: int  # distinct words not examined: beyond the max_words most frequent
    rare_occurrences: int
    max_symbols: int
    max_words: int

    @property
    def extra_tokens(self) -> int:
        """Tokens BPE spends beyond the minimum, over every examined occurrence."""
        return self.bpe_tokens - self.minimal_tokens

    @property
    def capped(self) -> bool:
        return bool(self.long_words or self.rare_words)


def word_counts(tokenizer: Tokenizer, text: str) -> Counter[str]:
    """The normalized words (pre-tokens) of `text` as `tokenizer` splits it, counted."""
    require_str(text)
    settings = tokenizer.settings
    return Counter(split_words(normalize(text, settings), settings))


def minimal_vs_bpe(
    tokenizer: Tokenizer,
    text: str,
    *,
    max_symbols: int = MAX_SYMBOLS,
    max_words: int = MAX_WORDS,
    examples: int = EXAMPLES,
) -> MinimalReport:
    """Compare BPE's cut of each corpus word with a shortest one, over the most frequent words.

    >>> from bpe_core import train
    >>> r = minimal_vs_bpe(train("low lower newest", merges=5), "low lower newest")
    >>> r.words, r.affected_words, r.extra_tokens
    (3, 0, 0)
    """
    for name, value in (("max_symbols", max_symbols), ("max_words", max_words), ("examples", examples)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BPEError(f"{name} must be a whole number, 1 or more; not {value!r}")
    counts = word_counts(tokenizer, text)
    vocab = _Vocab(tokenizer)
    longest = longest_token(tokenizer)
    settings = tokenizer.settings
    bytes_mode = settings.mode == "bytes"
    marker_symbol = 1 if settings.marker and settings.eow == "separate" else 0
    words = occurrences = bpe_tokens = minimal_tokens = affected = affected_occ = 0
    long_words = long_occ = 0
    found: list[WordSplit] = []
    ranked = counts.most_common()
    for word, n in ranked[:max_words]:
        size = len(word.encode("utf-8")) if bytes_mode else len(word) + marker_symbol
        if size > max_symbols:
            long_words += 1
            long_occ += n
            continue
        bpe = tokenizer.encode_word(word)
        words += 1
        occurrences += n
        bpe_tokens += n * len(bpe)
        if len(bpe) == 1:
            minimal_tokens += n
            continue
        symbols = tokenizer.initial_symbols(word)
        if len(bpe) == 2:  # only the whole word as one token is shorter
            whole = "".join(symbols)
            best = [whole] if whole in vocab else bpe
        else:
            best = shortest_split(symbols, vocab, max_token=longest)
        minimal_tokens += n * len(best)
        if len(best) < len(bpe):
            affected += 1
            affected_occ += n
            if len(found) < examples:
                found.append(WordSplit(word, n, tuple(bpe), tuple(best)))
    rare = ranked[max_words:]
    return MinimalReport(
        words=words, occurrences=occurrences, bpe_tokens=bpe_tokens, minimal_tokens=minimal_tokens,
        affected_words=affected, affected_occurrences=affected_occ, examples=tuple(found),
        long_words=long_words, long_occurrences=long_occ,
        rare_words=len(rare), rare_occurrences=sum(n for _, n in rare),
        max_symbols=max_symbols, max_words=max_words,
    )
