"""Added and special tokens: cut out of the text whole, before the model sees it.

Hugging Face `tokenizers` matches them in two passes: tokens with `normalized=False` in the raw
text, then tokens with `normalized=True` in each normalized stretch between those (their content
normalized the same way first). At any position the longest token that starts there wins, the
leftmost match first. `single_word` tokens match only between non-word characters; `lstrip` and
`rstrip` tokens swallow the whitespace beside them (it is in the token's span, not a token of its own).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import regex

from .normalized import Normalized


@dataclass(frozen=True)
class AddedToken:
    """A token matched in the text whole, with `tokenizers`' options."""

    content: str
    id: int
    special: bool = False
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = True

    def to_hf(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "content": self.content,
            "single_word": self.single_word,
            "lstrip": self.lstrip,
            "rstrip": self.rstrip,
            "normalized": self.normalized,
            "special": self.special,
        }


# A stretch of text: its string and, when it is an added token, that token.
Segment = tuple[Normalized, AddedToken | None]


class Matcher:
    """Finds one set of added tokens in a text, leftmost-longest."""

    def __init__(self, tokens: Sequence[AddedToken], contents: Sequence[str]) -> None:
        by_content: dict[str, AddedToken] = {}
        for token, content in zip(tokens, contents):
            if content:
                by_content.setdefault(content, token)
        self.by_content = by_content
        # Longest first: at one position an alternation takes the first alternative that matches.
        ordered = sorted(by_content, key=lambda c: (-len(c), c))
        self.pattern = regex.compile("|".join(map(regex.escape, ordered))) if ordered else None

    def split(self, piece: Normalized) -> list[Segment]:
        """`piece` cut into stretches of text and matched tokens, in order, empty text left out."""
        if self.pattern is None or not piece.text:
            return [(piece, None)]
        text = piece.text
        out: list[Segment] = []
        done = 0
        for match in self.pattern.finditer(text):
            token = self.by_content[match.group()]
            start, stop = match.span()
            if token.single_word and not _alone(text, start, stop):
                continue
            if token.lstrip:
                start = max(_spaces_before(text, start), done)
            if token.rstrip:
                stop = _spaces_after(text, stop)
            if start < done:  # an earlier token's rstrip took this match's start
                continue
            if done < start:
                out.append((piece.slice(done, start), None))
            # The whitespace a token strips is in its span, as `tokenizers` gives it.
            out.append((piece.slice(start, stop), token))
            done = stop
        if done < len(text):
            out.append((piece.slice(done, len(text)), None))
        return out


# A word character as `tokenizers` tells one (Unicode's \w: letters, marks, decimal digits, connector
# punctuation, the joiners): a combining accent or U+200D continues a word, "①" does not.
_WORD_CHAR = regex.compile(r"\w")


def _is_word_char(ch: str) -> bool:
    return _WORD_CHAR.match(ch) is not None


def _alone(text: str, start: int, stop: int) -> bool:
    """No word character touches the match on either side."""
    before = start == 0 or not _is_word_char(text[start - 1])
    after = stop == len(text) or not _is_word_char(text[stop])
    return before and after


def _spaces_before(text: str, at: int) -> int:
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at


def _spaces_after(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


class AddedVocabulary:
    """The added tokens of a tokenizer, split into the raw-text and the normalized-text sets."""

    def __init__(self, tokens: Sequence[AddedToken], normalize: Callable[[str], str] | None) -> None:
        self.tokens = list(tokens)
        raw = [t for t in tokens if not t.normalized]
        normalized = [t for t in tokens if t.normalized]
        self.raw = Matcher(raw, [t.content for t in raw])
        contents = [normalize(t.content) if normalize else t.content for t in normalized]
        self.normalized = Matcher(normalized, contents)
        self.by_id = {t.id: t for t in tokens}

    def segments(self, text: Normalized, normalize: Callable[[Normalized], Normalized] | None) -> list[Segment]:
        """The text cut into matched tokens and normalized stretches between them."""
        out: list[Segment] = []
        for piece, token in self.raw.split(text):
            if token is not None:
                out.append((piece, token))
                continue
            normal = normalize(piece) if normalize else piece
            out.extend(self.normalized.split(normal))
        return out
