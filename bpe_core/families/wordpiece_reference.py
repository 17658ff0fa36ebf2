"""WordPiece's slow, obviously-correct trainer: every step recounts everything from scratch.

Tests check that the fast trainer (`wordpiece_train.train_merges`) gives the same vocabulary, in
the same order, and the same trace.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

from .wordpiece_train import WordPieceStep, initial_vocab, merged_token, word_symbols


def reference_train(
    word_counts: Mapping[str, int], *, vocab_size: int, specials: Sequence[str], prefix: str
) -> tuple[list[str], list[WordPieceStep]]:
    """Same contract as `train_merges`."""
    words = {w: word_symbols(w, prefix) for w in word_counts if w}
    vocab = initial_vocab(list(words), specials, prefix)
    trace: list[WordPieceStep] = []
    while len(vocab) < vocab_size:
        symbols: Counter[str] = Counter()
        pairs: Counter[tuple[str, str]] = Counter()
        for word, seq in words.items():
            for s in seq:
                symbols[s] += word_counts[word]
            for pair in zip(seq, seq[1:]):
                pairs[pair] += word_counts[word]
        if not pairs:
            break
        # Highest exact score, then highest pair count, then the pair's strings in code-point order.
        left, right = min(
            pairs, key=lambda p: (-Fraction(pairs[p], symbols[p[0]] * symbols[p[1]]), -pairs[p], p)
        )
        token = merged_token(left, right, prefix)
        added = token not in vocab
        if added:
            vocab.append(token)
        trace.append(
            WordPieceStep(len(trace) + 1, left, right, token, pairs[(left, right)],
                          symbols[left], symbols[right], added)
        )
        for word, seq in words.items():
            out: list[str] = []
            i = 0
            while i < len(seq):
                if i + 1 < len(seq) and seq[i] == left and seq[i + 1] == right:
                    out.append(token)
                    i += 2
                else:
                    out.append(seq[i])
                    i += 1
            words[word] = out
    return vocab, trace
