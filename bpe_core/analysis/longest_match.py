"""Greedy longest match (the encoder of longest-match families, and the lessons' "common mistake"), bounded.

BPE applies its merges in the order they were learned; longest match instead takes, from the
left, the longest piece of the vocabulary that fits. Over the same vocabulary the two can differ.

Only runs no longer than the longest token can match, so each position tries at most L runs
(L: the longest token's length in characters; in practice the longest token that starts with
the same few characters), and only the lengths some token has: O(n * L) lookups for a word of
n symbols, never quadratic in n. A text trained without pre-tokenization
is one word as long as the corpus, so `compare` and `differences` also cut each word at `cap`
characters and say when they did.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from ..model import Tokenizer

WORD_CAP = 2_000  # characters of a word that compare() and differences() look at
_HEAD = 3  # tokens are grouped by their first characters, which bound the runs worth trying


@dataclass(frozen=True)
class GreedyVocabulary:
    """The pieces longest match may take, with what bounds the search: every token length."""

    tokens: frozenset[str]
    lengths: frozenset[int]  # the lengths, in characters, that some token has
    longest: int
    longest_from: dict[str, int]  # for tokens of _HEAD characters or more: first ones -> longest

    @classmethod
    def of(cls, tokens: Iterable[str]) -> GreedyVocabulary:
        kept = frozenset(tokens)
        lengths = frozenset(map(len, kept))
        longest_from: dict[str, int] = {}
        for token in kept:
            if len(token) >= _HEAD:
                head = token[:_HEAD]
                if len(token) > longest_from.get(head, 0):
                    longest_from[head] = len(token)
        return cls(kept, lengths, max(lengths, default=0), longest_from)

    @classmethod
    def of_tokenizer(cls, tokenizer: Tokenizer) -> GreedyVocabulary:
        """A tokenizer's vocabulary without its unknown token (which matches no text)."""
        return cls.of(t for t in tokenizer.vocab if t != tokenizer.unk_token)


def longest_match(symbols: Sequence[str], vocab: Collection[str] | GreedyVocabulary) -> list[str]:
    """Split symbols greedily: at each point the longest run of symbols whose text is in `vocab`.

    A symbol that starts no vocabulary piece stays on its own. Pass a `GreedyVocabulary` when
    splitting many words: a plain collection is indexed again on every call.

    >>> longest_match(["l", "o", "w", "e", "r"], {"l", "o", "w", "e", "r", "lo", "low", "we"})
    ['low', 'e', 'r']
    >>> longest_match(["n", "e", "w", "</w>"], {"ne", "new</w>", "w</w>"})
    ['new</w>']
    """
    known = vocab if isinstance(vocab, GreedyVocabulary) else GreedyVocabulary.of(vocab)
    tokens, lengths, longest_from = known.tokens, known.lengths, known.longest_from
    text = "".join(symbols)
    cuts = [0, *accumulate(map(len, symbols))]  # cuts[k]: where symbol k starts in text
    out: list[str] = []
    i, n = 0, len(symbols)
    while i < n:
        start = cuts[i]
        # No run longer than the longest token that starts with these characters can match.
        reach = max(_HEAD - 1, longest_from.get(text[start : start + _HEAD], 0))
        j = bisect_right(cuts, start + reach, i + 1) - 1
        end = i + 1
        while j > i + 1:  # longest first: the first run that is a token is the answer
            size = cuts[j] - start
            if size in lengths and text[start:cuts[j]] in tokens:
                end = j
                break
            j -= 1
        out.append(text[start:cuts[end]])
        i = end
    return out


@dataclass(frozen=True)
class GreedyComparison:
    """One word split by BPE and by longest match over the same vocabulary.

    `word` is what was compared: the word itself, or its first `cap` characters when it is
    longer (`capped`; `length` is then the whole word's length).
    """

    word: str
    bpe: list[str]
    greedy: list[str]
    capped: bool
    length: int

    @property
    def differs(self) -> bool:
        return self.bpe != self.greedy


def compare(
    tokenizer: Tokenizer, word: str, *, cap: int = WORD_CAP, vocab: GreedyVocabulary | None = None
) -> GreedyComparison:
    """BPE pieces and longest-match pieces of one normalized word (cut at `cap` characters).

    `vocab` (from `GreedyVocabulary.of_tokenizer`) saves rebuilding it when comparing many words.
    """
    if cap < 1:
        raise ValueError("cap must be at least 1 character")
    seen = word[:cap]
    known = vocab if vocab is not None else GreedyVocabulary.of_tokenizer(tokenizer)
    return GreedyComparison(
        word=seen,
        bpe=tokenizer.encode_word(seen),
        greedy=longest_match(tokenizer.initial_symbols(seen), known),
        capped=len(word) > cap,
        length=len(word),
    )


def differences(
    tokenizer: Tokenizer, words: Iterable[str], *, limit: int = 5, cap: int = WORD_CAP
) -> list[GreedyComparison]:
    """Up to `limit` distinct words whose BPE and longest-match segmentations differ, in order."""
    found: list[GreedyComparison] = []
    known = GreedyVocabulary.of_tokenizer(tokenizer)
    seen: set[str] = set()
    for word in words:
        if word in seen:
            continue
        seen.add(word)
        row = compare(tokenizer, word, cap=cap, vocab=known)
        if row.differs:
            found.append(row)
            if len(found) >= limit:
                break
    return found
