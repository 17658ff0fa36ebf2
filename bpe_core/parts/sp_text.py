"""SentencePiece's own normalizer and decoder, as `sentencepiece` (not `tokenizers`) runs them.

The normalizer walks the text in chunks: a user-defined symbol (longest first) is kept as it
is; otherwise the longest charsmap key there is replaced; otherwise one character is kept. Then
`remove_extra_whitespaces` drops leading, trailing and repeated spaces, a dummy "▁" is added in
front (or behind, with `treat_whitespace_as_suffix`), and spaces become "▁".

Alignment follows sentencepiece's own offsets: each normalized character starts where the
chunk it came from starts and ends where the next kept character's chunk starts, so a token
covers everything up to the next token (removed spaces and characters included) and the dummy
"▁" covers nothing. `Normalized.offsets` then gives sentencepiece's begin and end exactly.

>>> n = SentencePieceNormalizer(charsmap=None).normalize(Normalized.of("  a  b "))
>>> n.text, n.offsets(0, 2), n.offsets(2, 4)
('▁a▁b', (2, 3), (3, 6))
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from .decoder_parts import SPACE, ByteFallbackDecoder, FuseDecoder, ReplaceDecoder, SequenceDecoder, StripDecoder
from .normalized import Normalized
from .precompiled import CharsMap, Precompiled


class SentencePieceNormalizer:
    """sentencepiece's Normalizer: charsmap, extra whitespace, dummy prefix, spaces as "▁"."""

    hf_caveat = ("sentencepiece's normalizer (its removal of extra spaces, its suffix mode) has no tokenizers "
                 "equivalent: runs of spaces may encode differently")

    def __init__(
        self,
        *,
        charsmap: CharsMap | None,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
        treat_whitespace_as_suffix: bool = False,
        user_defined: Sequence[str] = (),
    ) -> None:
        self.charsmap = charsmap
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.escape_whitespaces = escape_whitespaces
        self.treat_whitespace_as_suffix = treat_whitespace_as_suffix
        self.user_defined = tuple(user_defined)
        by_first: dict[str, list[str]] = {}
        for symbol in sorted(set(self.user_defined), key=len, reverse=True):
            if symbol:
                by_first.setdefault(symbol[0], []).append(symbol)
        self._user = by_first
        # The same greedy scan as `_chunk`'s: at each place the longest symbol, else one character.
        longest_first = sorted(set(self.user_defined) - {""}, key=lambda s: (-len(s), s))
        self._pattern = regex.compile("|".join(map(regex.escape, longest_first))) if longest_first else None
        self._space = SPACE if escape_whitespaces else " "

    def _chunk(self, text: str, i: int) -> tuple[str, int]:
        """What `text[i:]` begins with, normalized, and how many characters that consumed."""
        for symbol in self._user.get(text[i], ()):
            if text.startswith(symbol, i):
                return symbol, len(symbol)
        if self.charsmap is not None:
            found = self.charsmap.longest_prefix(text, i)
            if found is not None:
                return found[1], found[0]
        return text[i], 1

    def normalize(self, text: Normalized) -> Normalized:
        source = text.text
        if not source:
            return text
        if self.charsmap is None and not self.remove_extra_whitespaces and not self.treat_whitespace_as_suffix:
            return self._plain(text)
        out: list[str] = []
        starts: list[int] = []  # for each character of `out`, where its chunk starts in `source`
        at, end = 0, len(source)
        if self.remove_extra_whitespaces:
            while at < end:
                lead, used = self._chunk(source, at)
                if lead != " ":
                    break
                at += used
            if at == end:
                return Normalized("", [] if text.spans is not None else None, at_start=text.at_start,
                                  origin=text.origin)
        space = self._space
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            out.append(space)
            starts.append(at)
        prev_space = remove = self.remove_extra_whitespaces
        user = self._user
        longest = self.charsmap.longest_prefix if self.charsmap is not None else None
        while at < end:
            # The chunk here, as `_chunk` finds it (inlined: this loop runs once a character).
            ch = source[at]
            new = None
            used = 1
            if user and ch in user:
                for symbol in user[ch]:
                    if source.startswith(symbol, at):
                        new, used = symbol, len(symbol)
                        break
            if new is None:
                found = longest(source, at) if longest is not None else None
                if found is None:
                    if ch != " ":  # the usual case: a character kept as it is
                        out.append(ch)
                        starts.append(at)
                        prev_space = False
                        at += 1
                        continue
                    new = ch
                else:
                    used, new = found
            if prev_space:
                new = new.lstrip(" ")
            if new:
                for ch in new:
                    out.append(space if ch == " " else ch)
                    starts.append(at)
                prev_space = remove and new[-1] == " "
            at += used
        if self.remove_extra_whitespaces:
            # Trailing spaces go (a "▁" in the input itself too, as sentencepiece has it), and the
            # text then ends where the first of them began.
            while out and out[-1] == space:
                out.pop()
                at = starts.pop()
        if self.add_dummy_prefix and self.treat_whitespace_as_suffix:
            out.append(space)
            starts.append(at)
        return self._aligned(text, "".join(out), starts, at)

    def _plain(self, text: Normalized) -> Normalized:
        """Without charsmap or whitespace removal: only the dummy prefix and "▁" for spaces."""
        body = text.text.replace(" ", self._space) if self.escape_whitespaces else text.text
        new = self._space + body if self.add_dummy_prefix else body
        if text.spans is None:
            return Normalized(new, None, at_start=text.at_start, origin=text.origin)
        first = text.spans[0][0]
        spans = list(text.spans)
        if self._pattern is not None:
            # A user-defined symbol is one chunk: its characters start where it starts.
            for match in self._pattern.finditer(text.text):
                start, end = match.span()
                begin = spans[start][0]
                spans[start:end - 1] = [(begin, begin)] * (end - 1 - start)
                spans[end - 1] = (begin, spans[end - 1][1])
        if self.add_dummy_prefix:
            spans.insert(0, (first, first))
        return Normalized(new, spans, at_start=text.at_start, origin=text.origin)

    @staticmethod
    def _aligned(text: Normalized, new: str, starts: list[int], last: int) -> Normalized:
        """`new` with spans from chunk starts (character k spans starts[k] to starts[k + 1])."""
        old = text.spans
        if old is None:
            return Normalized(new, None, at_start=text.at_start, origin=text.origin)

        def where(i: int) -> int:  # an offset of `text` as one of the original
            return old[i][0] if i < len(old) else old[-1][1]

        bounds = [*map(where, starts), where(last)]
        spans = list(zip(bounds, bounds[1:]))
        return Normalized(new, spans, at_start=text.at_start, origin=text.origin)

    def to_hf(self) -> dict[str, Any]:
        """The nearest `tokenizers` normalizer (it cannot drop extra spaces sentencepiece's way:
        a Strip and a Replace of repeated spaces come close)."""
        members: list[dict[str, Any]] = []
        if self.charsmap is not None:
            members.append(Precompiled(self.charsmap.data).to_hf())
        if self.remove_extra_whitespaces:
            members.append({"type": "Strip", "strip_left": True, "strip_right": True})
            members.append({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})
        if self.add_dummy_prefix and not self.treat_whitespace_as_suffix:
            members.append({"type": "Prepend", "prepend": " "})  # (no `tokenizers` part appends)
        if self.escape_whitespaces:
            members.append({"type": "Replace", "pattern": {"String": " "}, "content": SPACE})
        return {"type": "Sequence", "normalizers": members}


def _utf8_chars(data: bytes) -> str:
    """Bytes as text, each byte that starts no valid character one U+FFFD (sentencepiece's rule,
    unlike Python's, which replaces a truncated sequence by one U+FFFD)."""
    out: list[str] = []
    i, end = 0, len(data)
    while i < end:
        lead = data[i]
        length = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        try:
            out.append(data[i:i + length].decode("utf-8"))
            i += length
        except UnicodeDecodeError:
            out.append("\ufffd")
            i += 1
    return "".join(out)


def _llama_decoders() -> tuple[Any, ...]:
    return (ReplaceDecoder(pattern=SPACE, content=" "), ByteFallbackDecoder(), FuseDecoder(),
            StripDecoder(content=" ", start=1))


@dataclass(frozen=True, kw_only=True)
class SentencePieceDecoder(SequenceDecoder):
    """sentencepiece's decoding of pieces; its `decoders` are the nearest `tokenizers` chain (what
    `to_hf` writes and `token_bytes` reads), `decode_chain` is sentencepiece's own.

    Control pieces are invisible to the leading-space rule (they reach here only when the caller
    keeps special tokens, and then show as themselves).

    >>> d = SentencePieceDecoder(byte_pieces=frozenset({"<0xE4>", "<0xB9>", "<0xBE>"}))
    >>> "".join(d.decode_chain(["▁Hi", "▁", "<0xE4>", "<0xB9>", "<0xBE>", "<0xE4>", "<unk>"]))
    'Hi 乾\\ufffd ⁇ '
    """

    decoders: tuple[Any, ...] = field(default_factory=_llama_decoders)
    byte_pieces: frozenset[str] = frozenset()
    control_pieces: frozenset[str] = frozenset()
    unk_piece: str | None = "<unk>"
    unk_surface: str = " \u2047 "
    strip_leading_space: bool = True  # add_dummy_prefix or remove_extra_whitespaces
    strip_all_leading: bool = False  # remove_extra_whitespaces: every leading "▁" goes
    denormalizer: Any = None  # a normalizer sentencepiece runs on the decoded text

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()
        empty = True  # nothing written yet
        first_seen = False  # a leading "▁" already taken off
        for token in tokens:
            if token in self.byte_pieces:
                run.append(int(token[3:5], 16))
                continue
            if run:
                out.append(_utf8_chars(bytes(run)))
                run.clear()
                empty = empty and not out[-1]
            if token in self.control_pieces:
                out.append(token)
                continue
            # A leading "▁" goes (every one while nothing is written, without extra spaces).
            stripped = empty and not first_seen and self.strip_leading_space and token.startswith(SPACE)
            if stripped and not self.strip_all_leading:
                first_seen = True
            if token == self.unk_piece:
                text = self.unk_surface
            else:
                text = (token[1:] if stripped else token).replace(SPACE, " ")
            out.append(text)
            empty = empty and not text
        if run:
            out.append(_utf8_chars(bytes(run)))
        if self.denormalizer is not None:
            return [self.denormalizer.normalize(Normalized.of("".join(out), track=False)).text]
        return out
