"""Greedy longest-match segmentation (WordPiece's encoder), to contrast with BPE. Pure.

BPE replays its merges in the order they were learned; longest-match instead takes, from the
left, the longest piece of the vocabulary that fits. Over the same vocabulary the two can differ.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from bpe_core import Tokenizer


def longest_match(symbols: Sequence[str], vocab: Collection[str]) -> list[str]:
    """Split symbols greedily: at each point the longest run of symbols whose text is in `vocab`.

    A symbol that starts no vocabulary piece stays on its own.

    >>> longest_match(["l", "o", "w", "e", "r"], {"l", "o", "w", "e", "r", "lo", "low", "we"})
    ['low', 'e', 'r']
    """
    out: list[str] = []
    i = 0
    n = len(symbols)
    while i < n:
        piece = symbols[i]
        end = i + 1
        text = symbols[i]
        for j in range(i + 2, n + 1):
            text += symbols[j - 1]
            if text in vocab:
                piece, end = text, j
        out.append(piece)
        i = end
    return out


def compare(tokenizer: Tokenizer, word: str) -> tuple[list[str], list[str]]:
    """(BPE pieces, longest-match pieces) of one normalized word over the tokenizer's vocabulary."""
    vocab = {t for t in tokenizer.vocab if t != tokenizer.unk_token}
    return tokenizer.encode_word(word), longest_match(tokenizer.initial_symbols(word), vocab)


def differences(tokenizer: Tokenizer, words: Iterable[str], *, limit: int = 5) -> list[tuple[str, list[str], list[str]]]:
    """Up to `limit` words whose BPE and longest-match segmentations differ."""
    found = []
    vocab = {t for t in tokenizer.vocab if t != tokenizer.unk_token}
    seen = set()
    for word in words:
        if word in seen:
            continue
        seen.add(word)
        bpe = tokenizer.encode_word(word)
        greedy = longest_match(tokenizer.initial_symbols(word), vocab)
        if bpe != greedy:
            found.append((word, bpe, greedy))
            if len(found) >= limit:
                break
    return found
