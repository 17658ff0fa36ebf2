"""A token's text, quickly: the text it stands for (bytes of no whole character as a hex group) and
its shown form, fast enough for a vocabulary of 250,000 tokens. Pure.

The shown form is the engine's rule (`bpe_core.analysis.segments`); the shortcuts here give the same
strings for the common token (plain characters and spaces) without walking it character by character.
"""
from __future__ import annotations

import unicodedata

from bpe_core.analysis import hex_bytes, visible_whitespace


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
