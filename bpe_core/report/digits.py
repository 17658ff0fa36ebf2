"""How a tokenizer groups the digits of a number: one at a time, in threes from the left, from the right…

Numbers of 1 to `LONGEST` digits (the digits of pi, so no learned token for a round number
helps) are encoded between words, and each token's share of the digits is read off its span.
A rule that holds for every length is the grouping; learned merges give groups of no fixed rule.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..tokenizer_model import TokenizerModel

DIGITS = "31415926535897932384"
LONGEST = 12
EXAMPLE = 10  # the number of digits of the example shown
PER_DIGIT = "per digit"
LEFT = "left to right"
RIGHT = "right to left"
LEARNED = "by learned merges"
UNKNOWN = "unknown to it"


@dataclass(frozen=True)
class DigitGrouping:
    """The rule (`kind`: PER_DIGIT, LEFT, RIGHT, LEARNED or UNKNOWN), the group size of LEFT and
    RIGHT, and each probed number as its groups of digits."""

    kind: str
    size: int
    groups: dict[str, list[str]]

    @property
    def regular(self) -> bool:
        """True when one rule groups every number (per digit, or fixed groups from one end)."""
        return self.kind in (PER_DIGIT, LEFT, RIGHT)

    @property
    def example(self) -> list[str]:
        return self.groups[DIGITS[:EXAMPLE]]

    def describe(self) -> str:
        """The rule in words, e.g. "left to right, 3 at a time".

        >>> DigitGrouping(LEFT, 3, {}).describe(), DigitGrouping(PER_DIGIT, 1, {}).describe()
        ('left to right, 3 at a time', 'per digit')
        """
        return f"{self.kind}, {self.size} at a time" if self.kind in (LEFT, RIGHT) else self.kind


def chunks(number: str, size: int, *, from_right: bool = False) -> list[str]:
    """`number` cut into groups of `size` digits from the left (or the right).

    >>> chunks("1234567", 3), chunks("1234567", 3, from_right=True)
    (['123', '456', '7'], ['1', '234', '567'])
    """
    if not from_right:
        return [number[i:i + size] for i in range(0, len(number), size)]
    head = len(number) % size
    return ([number[:head]] if head else []) + chunks(number[head:], size)


def number_groups(tokenizer: TokenizerModel, number: str) -> list[str] | None:
    """The digits of `number` as the tokens that hold them, encoded as "a NUMBER b"; None when a
    token over them is unknown to the vocabulary."""
    text = f"a {number} b"
    start, end = 2, 2 + len(number)
    encoding = tokenizer.encode(text)
    groups = []
    for i, (s, e) in enumerate(encoding.spans):
        lo, hi = max(s, start), min(e, end)
        if lo < hi:
            if encoding.is_unknown(i):
                return None
            groups.append(text[lo:hi])
    return groups


def digit_grouping(tokenizer: TokenizerModel) -> DigitGrouping:
    """Probe the numbers of 1 to `LONGEST` digits and name the rule that groups them all."""
    found = {DIGITS[:n]: number_groups(tokenizer, DIGITS[:n]) for n in range(1, LONGEST + 1)}
    if any(groups is None for groups in found.values()):
        return DigitGrouping(UNKNOWN, 0, {n: g or [] for n, g in found.items()})
    groups = {n: g for n, g in found.items() if g is not None}
    size = max(len(piece) for pieces in groups.values() for piece in pieces)
    if size == 1:
        return DigitGrouping(PER_DIGIT, 1, groups)
    for kind, from_right in ((LEFT, False), (RIGHT, True)):
        if all(pieces == chunks(n, size, from_right=from_right) for n, pieces in groups.items()):
            return DigitGrouping(kind, size, groups)
    return DigitGrouping(LEARNED, size, groups)
