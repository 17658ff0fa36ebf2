"""What one encoding of a text tells the report card: counts of tokens, words and their pieces.

A text is encoded once, with spans (`TokenizerModel.encode`); everything the measures need is
kept and the encoding dropped, so a card of a 5 MB text holds a few dictionaries, not a
million tokens. Words are whitespace-separated, as `bpe_core.analysis.stats` counts them,
whatever the tokenizer's own pre-tokenizer does: a word's pieces are the tokens whose span
overlaps it, so GPT-2's " the" is one piece of "the", and a token over two words (a superword)
is a piece of each.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from ..pretokenize import require_str
from ..tokenizer_model import TokenizerModel

_WORD = regex.compile(r"\S+")
_LETTER = regex.compile(r"\p{L}")
# Scripts whose writing puts no space between words; a text mostly in them is counted per character.
_SPACELESS = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}\p{Tibetan}]")
_BLOCK = 4096  # characters compared at once when looking for where a round trip differs


@dataclass(frozen=True)
class RoundTrip:
    """Whether decoding a text's ids gives the text back; if not, the first character that differs
    (`at`) and a few characters from there of each side."""

    exact: bool
    at: int | None = None
    expected: str = ""
    got: str = ""


@dataclass(frozen=True)
class TextProfile:
    """One text encoded once. `counts` maps each token produced to how many times (tokens as the
    model spells them, which is how its merges spell them); `pieces` maps a number of tokens to
    how many words were cut into that many; `cut_characters` counts the tokens produced whose bytes
    are not whole UTF-8 characters (a byte-level token holding part of one)."""

    bytes: int
    characters: int
    words: int
    tokens: int
    spaceless: bool  # most of its letters are in scripts written without spaces between words
    counts: dict[str, int]
    pieces: dict[int, int]
    unknown: int
    special: int
    cut_characters: int
    round_trip: RoundTrip


def profile(tokenizer: TokenizerModel, text: str) -> TextProfile:
    """Encode `text` once and keep what the report card's measures read.

    >>> from bpe_core import train
    >>> p = profile(train("low low lower", merges=3), "low lower")
    >>> p.words, p.tokens, p.pieces, p.round_trip.exact
    (2, 5, {1: 1, 4: 1}, True)
    """
    require_str(text)
    encoding = tokenizer.encode(text)
    counts = Counter(encoding.tokens)
    unknown = sum(encoding.unknown) if encoding.unknown else 0
    special = sum(encoding.special) if encoding.special else 0
    set_apart = {t for flags in (encoding.unknown, encoding.special) if flags and any(flags)
                 for t, flagged in zip(encoding.tokens, flags) if flagged}
    return TextProfile(
        bytes=len(text.encode("utf-8", "surrogatepass")),
        characters=len(text),
        words=sum(1 for _ in _WORD.finditer(text)),
        tokens=len(encoding.ids),
        spaceless=is_spaceless(text),
        counts=dict(counts),
        pieces=dict(sorted(word_pieces(text, encoding.spans, encoding.special).items())),
        unknown=unknown,
        special=special,
        cut_characters=sum(n for token, n in counts.items()
                           if token not in set_apart and not whole_characters(tokenizer, token)),
        round_trip=round_trip(text, tokenizer.decode(encoding.ids)),
    )


def is_spaceless(text: str) -> bool:
    """True when most of the text's letters are in scripts written without spaces (Chinese, Japanese, Thai…).

    >>> is_spaceless("这是一个句子。"), is_spaceless("a sentence with 一 word")
    (True, False)
    """
    letters = len(_LETTER.findall(text))
    return letters > 0 and 2 * len(_SPACELESS.findall(text)) > letters


def word_pieces(text: str, spans: Sequence[tuple[int, int]], special: Sequence[bool] | None = None) -> Counter[int]:
    """For each whitespace-separated word, how many token spans overlap it; counted by that number.

    A token of no text that is not special (word mode's separate `</w>`) belongs to the word it
    ends; a special one (a post-processor's) to none.

    >>> sorted(word_pieces("ab cd", [(0, 1), (1, 2), (2, 5)]).items())  # a | b | " cd"
    [(1, 1), (2, 1)]
    >>> sorted(word_pieces("ab cd", [(0, 2), (2, 2), (3, 5), (5, 5)], [False, False, False, True]).items())
    [(1, 1), (2, 1)]
    """
    starts, ends = [], []
    for match in _WORD.finditer(text):
        starts.append(match.start())
        ends.append(match.end())
    pieces = [0] * len(starts)
    word, last = 0, 0
    for i, (start, end) in enumerate(spans):
        if start >= end:
            if not (special and special[i]):
                ending = bisect_left(ends, start)
                if ending < len(ends) and ends[ending] == start:
                    pieces[ending] += 1
            continue
        if start < last:  # spans out of order (a post-processor's): find the place again
            word = bisect_right(ends, start)
        last = start
        while word < len(ends) and ends[word] <= start:
            word += 1
        covered = word
        while covered < len(starts) and starts[covered] < end:
            pieces[covered] += 1
            covered += 1
    return Counter(pieces)


def whole_characters(tokenizer: TokenizerModel, token: str) -> bool:
    """True when the token stands for whole UTF-8 characters (False: a byte-level token holding
    part of one, whose bytes alone do not decode)."""
    try:
        tokenizer.token_bytes(token).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def round_trip(text: str, decoded: str) -> RoundTrip:
    """Compare a text with its decoded ids: where they first differ, and a few characters of each there.

    >>> round_trip("a  b", "a b")
    RoundTrip(exact=False, at=2, expected=' b', got='b')
    """
    if text == decoded:
        return RoundTrip(True)
    at = 0
    while text[at:at + _BLOCK] == decoded[at:at + _BLOCK]:
        at += _BLOCK
    while at < len(text) and at < len(decoded) and text[at] == decoded[at]:
        at += 1
    return RoundTrip(False, at, text[at:at + 20], decoded[at:at + 20])
