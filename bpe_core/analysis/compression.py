"""How much a training run compresses its corpus, step by step, and when every word becomes one token.

Both come from the trainer's trace (`TrainResult`): each merge records the corpus's token count
and how many distinct words are still more than one token after it, so nothing is encoded again.

>>> from bpe_core import Settings, train
>>> result = train("low low lower", merges=6).training
>>> compression_curve(result, {"low": 2, "lower": 1}, Settings()).total_tokens
[14, 11, 8, 6, 5, 4, 3]
>>> collapse_step(result)  # after merge 6, "low</w>" and "lower</w>" are one token each
6
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..settings import Settings
from ..trainer import TrainResult


@dataclass(frozen=True)
class Curve:
    """Compression after each step: index 0 is before any merge, index t after t merges."""

    total_tokens: list[int]
    tokens_per_word: list[float]
    multi_token_words: list[int]
    characters: int = 0  # characters of the corpus words (bytes in bytes mode), repeats counted
    has_words: bool = True  # False when the whole text is one "word" (no pre-tokenizer): per word means nothing

    @property
    def steps(self) -> int:
        return len(self.total_tokens) - 1

    def first(self, steps: int) -> Curve:
        """The curve of the first `steps` merges only."""
        return replace(self, total_tokens=self.total_tokens[: steps + 1],
                       tokens_per_word=self.tokens_per_word[: steps + 1],
                       multi_token_words=self.multi_token_words[: steps + 1])

    def tokens_per_character(self, step: int) -> float:
        """Tokens per character (per byte in bytes mode) after `step` merges."""
        return self.total_tokens[step] / self.characters if self.characters else 0.0


def compression_curve(result: TrainResult, word_counts: Mapping[str, int], settings: Settings) -> Curve:
    """The corpus's tokens, tokens per word and multi-token words before any merge and after each.

    `word_counts` are the counts the run was trained on (as `count_words` gives them).
    """
    words = result.word_count or 1
    totals = [result.initial_tokens, *(m.total_tokens for m in result.trace)]
    multi = [result.initial_multi_token_words, *(m.multi_token_words for m in result.trace)]
    # Bytes-mode words are written one symbol a byte, so this counts bytes there, characters elsewhere.
    characters = sum(len(word) * n for word, n in word_counts.items())
    return Curve(
        totals,
        [t / words for t in totals],
        multi,
        characters=characters,
        has_words=settings.mode == "word" or settings.pretokenizer != "none",
    )


def collapse_step(result: TrainResult | None) -> int | None:
    """The first step after which every corpus word is one token (0: already before any merge).

    None when the run stopped before that, or when there is no training record (a loaded file).
    """
    if result is None:
        return None
    if result.initial_multi_token_words == 0:
        return 0
    return next((m.rank + 1 for m in result.trace if m.multi_token_words == 0), None)
