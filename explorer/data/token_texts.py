"""A token's text, quickly: the text it stands for (bytes of no whole character as a hex group) and
its shown form, fast enough for a vocabulary of 250,000 tokens; a text's pieces grouped by word. Pure.

The shown form is the engine's rule (`bpe_core.analysis.segments`); the shortcuts here give the same
strings for the common token (plain characters and spaces) without walking it character by character.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from bpe_core.analysis import hex_bytes, visible_whitespace
from explorer.data.family_view import Piece


def pieces_by_word(text: str, pieces: Sequence[Piece]) -> list[tuple[str, list[Piece]]]:
    """The text's words (runs of non-space) with the pieces of the whole text's encoding that spell each.

    A piece belongs to the first word that ends after it starts, so a space a token carries in
    front (`Ġthe`, `▁the`) goes with the word it precedes; trailing space goes with the last word.

    >>> [(w, [p.token for p in ps]) for w, ps in pieces_by_word("a bc", [Piece("a", 0, 0, 1, False, False),
    ...     Piece("Ġb", 1, 1, 3, False, False), Piece("c", 2, 3, 4, False, False)])]
    [('a', ['a']), ('bc', ['Ġb', 'c'])]
    """
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if not words:
        return []
    out: list[tuple[str, list[Piece]]] = [(text[start:end], []) for start, end in words]
    at = 0
    for piece in pieces:
        while at < len(words) - 1 and words[at][1] <= piece.start:
            at += 1
        out[at][1].append(piece)
    return [(word, found) for word, found in out if found]


def plain(text: str) -> bool:
    """Text that `token_text` and `visible_whitespace` show as it is (a shortcut for 200k tokens): printable,
    no space, no U+FFFD, not starting with a combining mark."""
    if not text or not text.isprintable() or " " in text or "\ufffd" in text:
        return False
    return text.isascii() or unicodedata.category(text[0])[0] != "M"


def visible(text: str) -> str:
    """`visible_whitespace(text)`, quick for the common token: plain but for plain spaces (`·the`)."""
    dotted = text.replace(" ", "·")
    return dotted if plain(dotted) else visible_whitespace(text)


def bytes_surface(data: bytes) -> str:
    """Bytes as the text they are: UTF-8 as its characters, bytes of no whole character as a hex group.

    >>> bytes_surface(" é".encode() + "日".encode()[:2])
    ' é<e6 97>'
    """
    out: list[str] = []
    bad = bytearray()  # neighbouring bytes of no whole character make one group
    at = 0
    while at < len(data):
        try:
            good, skip = data[at:].decode("utf-8"), None
        except UnicodeDecodeError as exc:
            good, skip = data[at:at + exc.start].decode("utf-8"), (at + exc.start, at + exc.end)
        if good and bad:
            out.append(hex_bytes(bytes(bad)))
            bad.clear()
        out.append(good)
        if skip is None:
            break
        bad += data[skip[0]:skip[1]]
        at = skip[1]
    if bad:
        out.append(hex_bytes(bytes(bad)))
    return "".join(out)
