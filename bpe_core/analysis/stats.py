"""How many tokens a text costs: bytes, characters, words and tokens, and their ratios.

The numbers behind `python -m bpe_core stats` and the language-tax comparison: the same text
through different tokenizers, or different languages through one tokenizer.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..pretokenize import require_str
from ..tokenizer_model import TokenizerModel


@dataclass(frozen=True)
class TextStats:
    """A text's size in UTF-8 bytes, characters (code points), whitespace-separated words and tokens.

    >>> s = TextStats(bytes=12, characters=10, words=2, tokens=4)
    >>> s.tokens_per_byte, s.tokens_per_character, s.characters_per_token
    (0.3333333333333333, 0.4, 2.5)
    """

    bytes: int
    characters: int
    words: int
    tokens: int

    @property
    def tokens_per_byte(self) -> float:
        """Tokens per UTF-8 byte; 0.0 for an empty text."""
        return self.tokens / self.bytes if self.bytes else 0.0

    @property
    def tokens_per_character(self) -> float:
        """Tokens per character (code point); 0.0 for an empty text."""
        return self.tokens / self.characters if self.characters else 0.0

    @property
    def characters_per_token(self) -> float:
        """Characters per token; 0.0 when the text has no tokens."""
        return self.characters / self.tokens if self.tokens else 0.0


def text_stats(tokenizer: TokenizerModel, text: str) -> TextStats:
    """Count a text's bytes, characters, words and tokens (encoded once, ids only: fast on megabytes).

    Words are whitespace-separated (`str.split()`), whatever the tokenizer's own pre-tokenization;
    characters are code points, as `len` counts them, before any normalization the tokenizer applies.

    >>> from bpe_core import train
    >>> text_stats(train("low low lower", merges=2), "low lower é")  # low </w> low e r </w> <unk> </w>
    TextStats(bytes=12, characters=11, words=3, tokens=8)
    """
    require_str(text)
    return TextStats(
        bytes=len(text.encode("utf-8", "surrogatepass")),
        characters=len(text),
        words=len(text.split()),
        tokens=len(tokenizer.encode_ids(text)),
    )
