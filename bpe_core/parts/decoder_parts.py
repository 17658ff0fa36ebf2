"""The parts that turn tokens back into text, as Hugging Face `tokenizers` has them.

A decoder's `decode_chain` maps the list of tokens to a list of strings (a `Sequence` feeds each
decoder's strings to the next); the text is their concatenation. `decoders` reads them from a
`tokenizer.json`.

>>> "".join(MetaspaceDecoder().decode_chain(["▁Hello", "▁wor", "ld"]))
'Hello world'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import regex

from ..pretokenize import char_to_byte, symbol_bytes
from .base import Decoder
from .pretokenizers_onig import compile_file_onig

SPACE = "▁"  # U+2581, SentencePiece's stand-in for a space

# What a decoder makes of one token in the middle of a text (`inner`): the token as text, or as
# bytes once a byte decoder has read it, and whether a Fuse before it has joined every token into
# one string (a later Strip then cuts elsewhere, a Metaspace's leading replacement is gone).
Inner = tuple[str | bytes, bool]


def decoded_alone(decoder: Decoder, value: str | bytes, fused: bool) -> Inner:
    """The rule of a decoder with none of its own: its strings for the token alone, joined."""
    if isinstance(value, bytes):
        return value, fused
    return "".join(decoder.decode_chain([value])), fused


@dataclass(frozen=True, kw_only=True)
class ByteLevelDecoder:
    """GPT-2's byte characters back to bytes, read as UTF-8 (invalid stretches become U+FFFD).

    >>> ByteLevelDecoder().decode_chain(["Ġcaf", "Ã©", "Ġ", "ðŁ"])
    [' café \\ufffd']
    """

    # These matter only to the pre-tokenizer and post-processor of the same name; kept for `to_hf`.
    add_prefix_space: bool = True
    trim_offsets: bool = True
    use_regex: bool = True

    def decode_chain(self, tokens: list[str]) -> list[str]:
        table = char_to_byte()
        data = bytearray()
        for token in tokens:
            try:
                data += bytes(table[ch] for ch in token)
            except KeyError:
                # A token with any character that is no byte symbol (an added token such as
                # "<|endoftext|>" written plainly, or "x y") stands for its own UTF-8 bytes.
                data += token.encode("utf-8", "surrogatepass")
        # Python's "replace" substitutes one U+FFFD per maximal invalid subpart, as Rust's
        # from_utf8_lossy does; the whole chain is one string, so a character split across
        # tokens is put back together. An empty chain still gives one (empty) string.
        return [data.decode("utf-8", "replace")]

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        data = symbol_bytes(value) if isinstance(value, str) else None
        return (value if data is None else data), fused

    def to_hf(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "trim_offsets": self.trim_offsets,
                "use_regex": self.use_regex}


PREPEND_SCHEMES = ("always", "first", "never")


@dataclass(frozen=True, kw_only=True)
class MetaspaceDecoder:
    """Replacements back to spaces, but the first token loses them all (a scheme other than "never").

    >>> MetaspaceDecoder().decode_chain(["▁a▁b", "▁c"]), MetaspaceDecoder(prepend_scheme="never").decode_chain(["▁a"])
    (['ab', ' c'], [' a'])
    """

    replacement: str = SPACE
    prepend_scheme: str = "always"
    split: bool = True

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = [token.replace(self.replacement, " ") for token in tokens]
        # Every replacement of the first token goes, not only a leading one, as `tokenizers` does.
        if out and self.prepend_scheme != "never":
            out[0] = tokens[0].replace(self.replacement, "")
        return out

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        if isinstance(value, bytes):
            return value, fused
        # Fused, the token is inside the first (only) string, which loses its replacements.
        gone = fused and self.prepend_scheme != "never"
        return value.replace(self.replacement, "" if gone else " "), fused

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Metaspace", "replacement": self.replacement, "prepend_scheme": self.prepend_scheme,
                "split": self.split}


# `tokenizers`' cleanup of decoded text (continuation-prefix and CTC decoders): spaces before
# punctuation and English contractions, in this order, inside each token (never across tokens).
_CLEANUP = ((" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"), (" 'm", "'m"),
            (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"))


def clean_up(token: str) -> str:
    """`tokenizers`' tokenization cleanup of one string.

    >>> clean_up("it 's here , I do not know .")
    "it's here, I don't know."
    """
    for old, new in _CLEANUP:
        token = token.replace(old, new)
    return token


@dataclass(frozen=True, kw_only=True)
class BPEDecoder:
    """Every end-of-word suffix becomes a space, except in the last token where it goes.

    >>> BPEDecoder().decode_chain(["hel", "lo</w>", "you</w>"])
    ['hel', 'lo ', 'you']
    """

    suffix: str = "</w>"

    def decode_chain(self, tokens: list[str]) -> list[str]:
        last = len(tokens) - 1
        return [token.replace(self.suffix, "" if i == last else " ") for i, token in enumerate(tokens)]

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        if isinstance(value, bytes):
            return value, fused
        return value.replace(self.suffix, "" if fused else " "), fused

    def to_hf(self) -> dict[str, Any]:
        return {"type": "BPEDecoder", "suffix": self.suffix}


_HEX = frozenset("0123456789abcdefABCDEF")


def byte_token(token: str) -> int | None:
    """The byte of a "<0xNN>" token, or None."""
    if len(token) != 6 or not token.startswith("<0x") or token[5] != ">":
        return None
    digits = token[3:5]
    # Rust's u8::from_str_radix takes a leading "+" ("<0x+A>" is byte 10); Python's int() would
    # also take spaces and underscores, so the digits are checked by hand.
    if all(ch in _HEX for ch in digits) or (digits[0] == "+" and digits[1] in _HEX):
        return int(digits, 16)
    return None


@dataclass(frozen=True, kw_only=True)
class ByteFallbackDecoder:
    """Each run of "<0xNN>" tokens becomes its UTF-8 text; an invalid run becomes one U+FFFD per byte.

    >>> ByteFallbackDecoder().decode_chain(["<0xE2>", "<0x96>", "<0x81>", "a", "<0xE2>", "<0x96>"])
    ['▁', 'a', '\\ufffd', '\\ufffd']
    """

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()
        for token in [*tokens, None]:
            byte = None if token is None else byte_token(token)
            if byte is not None:
                run.append(byte)
                continue
            if run:
                try:
                    out.append(run.decode("utf-8"))
                except UnicodeDecodeError:
                    # Not a lossy decode: `tokenizers` gives up on the whole run, byte by byte.
                    out.extend("\ufffd" * len(run))
                run.clear()
            if token is not None:
                out.append(token)
        return out

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        byte = None if fused or isinstance(value, bytes) else byte_token(value)
        return (bytes([byte]) if byte is not None else value), fused

    def to_hf(self) -> dict[str, Any]:
        return {"type": "ByteFallback"}


@dataclass(frozen=True, kw_only=True)
class FuseDecoder:
    """All the strings as one (so later decoders of a Sequence see a single token)."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        return value, True

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Fuse"}


@dataclass(frozen=True, kw_only=True)
class StripDecoder:
    """Up to `start` leading and `stop` trailing `content` characters off each token.

    >>> StripDecoder(content=" ", start=1).decode_chain([" a", "  b "])
    ['a', ' b ']
    """

    content: str = " "
    start: int = 0
    stop: int = 0

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            head = 0
            while head < min(self.start, len(token)) and token[head] == self.content:
                head += 1
            tail = len(token)
            while len(token) - tail < self.stop and tail > 0 and token[tail - 1] == self.content:
                tail -= 1
            # `tokenizers` panics when a token is all `content` and more is to be cut than it
            # has (the two cuts cross, or `stop` passes its start); here the token becomes empty.
            out.append(token[head:tail] if head < tail else "")
        return out

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        return (value, fused) if fused else decoded_alone(self, value, fused)  # fused: its ends are elsewhere

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Strip", "content": self.content, "start": self.start, "stop": self.stop}


def onig_spans(pattern: regex.Pattern[str], text: str) -> list[tuple[int, int]]:
    """The matches of `pattern` in `text` as the Oniguruma iterator `tokenizers` uses finds them.

    >>> onig_spans(regex.compile("x*"), "axb"), [m.span() for m in regex.finditer("x*", "axb")]
    ([(0, 0), (1, 2), (3, 3)], [(0, 0), (1, 2), (2, 2), (3, 3)])
    """
    # Unlike Python's `finditer`, an empty match right where the previous match ended is skipped.
    spans: list[tuple[int, int]] = []
    pos, last_end = 0, -1
    while pos <= len(text):
        found = pattern.search(text, pos)
        if found is None:
            break
        start, end = found.span()
        if start == end == last_end:
            pos += 1
            continue
        spans.append((start, end))
        pos = last_end = end
    return spans


@dataclass(frozen=True, kw_only=True)
class ReplaceDecoder:
    """Every match of a literal string or a regex in each token replaced by `content` (literally).

    >>> ReplaceDecoder(pattern="▁", content=" ").decode_chain(["▁Hi", "▁there"])
    [' Hi', ' there']
    """

    pattern: str
    content: str
    is_regex: bool = False
    _compiled: regex.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A literal is searched as an escaped regex, as `tokenizers` does (an empty one matches
        # between every two characters).
        # A regex is Oniguruma's, read as `tokenizers` reads it (a PatternError if it cannot be).
        compiled = compile_file_onig(self.pattern) if self.is_regex else regex.compile(regex.escape(self.pattern))
        object.__setattr__(self, "_compiled", compiled)

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for token in tokens:
            pieces, prev = [], 0
            # An empty token is left alone even by a pattern that matches the empty string.
            for start, end in onig_spans(self._compiled, token) if token else ():
                pieces += [token[prev:start], self.content]
                prev = end
            pieces.append(token[prev:])
            out.append("".join(pieces))
        return out

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        return decoded_alone(self, value, fused)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Replace", "pattern": {"Regex" if self.is_regex else "String": self.pattern},
                "content": self.content}


@dataclass(frozen=True, kw_only=True)
class CTCDecoder:
    """Speech models' output: repeats collapsed, padding dropped, the word delimiter as a space.

    >>> CTCDecoder().decode_chain(["h", "h", "<pad>", "i", "i", "|", "y", "o", "u"])
    ['h', 'i', ' ', 'y', 'o', 'u']
    """

    pad_token: str = "<pad>"
    word_delimiter_token: str = "|"
    cleanup: bool = True

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i and token == tokens[i - 1]:
                continue  # repeats are collapsed before the padding goes
            token = token.replace(self.pad_token, "")
            if self.cleanup:
                token = clean_up(token).replace(self.word_delimiter_token, " ")
            if token:
                out.append(token)
        return out

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        return decoded_alone(self, value, fused)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "CTC", "pad_token": self.pad_token, "word_delimiter_token": self.word_delimiter_token,
                "cleanup": self.cleanup}


@dataclass(frozen=True, kw_only=True)
class SequenceDecoder:
    """Each decoder in turn, on the strings the previous one gave."""

    decoders: tuple[Decoder, ...]

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for decoder in self.decoders:
            tokens = decoder.decode_chain(tokens)
        return tokens

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        for decoder in self.decoders:
            if isinstance(value, bytes):
                break  # the token is bytes now; what follows works on text
            value, fused = decoder.inner(value, fused)
        return value, fused

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "decoders": [decoder.to_hf() for decoder in self.decoders]}
