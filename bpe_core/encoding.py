"""What encoding a text gives, whatever the tokenizer: tokens, ids, spans, unknown and special flags."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Encoding:
    """Tokens, their ids, and each token's (start, end) character span in the input text.

    `unknown[i]` says token i stands for text the vocabulary lacks (`<unk>`), `special[i]` that
    it is a special or added token cut out of the text whole; both are all False when not given.
    """

    tokens: list[str]
    ids: list[int]
    spans: list[tuple[int, int]]
    unknown: list[bool] | None = None
    special: list[bool] | None = None

    def is_unknown(self, i: int) -> bool:
        return bool(self.unknown and self.unknown[i])

    def is_special(self, i: int) -> bool:
        return bool(self.special and self.special[i])

    def __len__(self) -> int:
        return len(self.ids)
