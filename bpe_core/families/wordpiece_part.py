"""The WordPiece model, as Hugging Face `tokenizers` defines it: greedy longest match first.

From the piece's start, the longest prefix that is a token is taken; from then on each longest
match is looked up with the `continuing_subword_prefix` in front ("##"). A piece with a stretch
no token matches is one unknown token for the whole piece, and so is a piece of more than
`max_input_chars_per_word` characters.

>>> model = WordPiece({"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "##a": 4})
>>> model.tokenize("unaffable")
[('un', 1, 0, 2), ('##aff', 2, 2, 5), ('##able', 3, 5, 9)]
>>> model.tokenize("unknown")
[('[UNK]', 0, 0, 7)]
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..parts.base import PartReader, PieceToken
from ..parts.cache import PieceCache
from ..parts.decoder_parts import Inner, clean_up
from ..parts.part_fields import flag, number, text
from ..parts.wordlevel import check_vocab, read_vocab, vocab_in_id_order
from ..pretokenize import type_name
from ..settings import BPEError


class WordPiece:
    """A WordPiece vocabulary with its options.

    One model may serve many threads: nothing changes after construction but the cache, which is
    swapped for a new dictionary when full, never emptied in place.
    """

    kind = "WordPiece"

    def __init__(
        self,
        vocab: dict[str, int],
        *,
        unk_token: str = "[UNK]",
        continuing_subword_prefix: str = "##",
        max_input_chars_per_word: int = 100,
    ) -> None:
        self.vocab = check_vocab(vocab)
        for name, value in (("unk_token", unk_token), ("continuing_subword_prefix", continuing_subword_prefix)):
            if not isinstance(value, str):
                raise BPEError(f"{name} must be a string, not {type_name(value)}")
        if (isinstance(max_input_chars_per_word, bool) or not isinstance(max_input_chars_per_word, int)
                or max_input_chars_per_word < 0):
            raise BPEError(
                f"max_input_chars_per_word must be a whole number, 0 or more, not {max_input_chars_per_word!r}"
            )
        self.unk_token: str | None = unk_token  # typed as `ModelPart` has it; always a string here
        self._unk = unk_token
        self.unk_id = self.vocab.get(unk_token)
        self.continuing_subword_prefix = continuing_subword_prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        # No match can be longer than the longest token of its kind: the search starts there.
        plen = len(continuing_subword_prefix)
        self._max_first = max(map(len, self.vocab), default=0)
        self._max_rest = max((len(t) - plen for t in self.vocab if t.startswith(continuing_subword_prefix)), default=0)
        self._cache: PieceCache[tuple[PieceToken, ...]] = PieceCache(limit=100_000)

    def __repr__(self) -> str:
        return f"WordPiece({len(self.vocab):,} tokens, unk_token={self.unk_token!r})"

    def clear_cache(self) -> None:
        """Forget every piece encoded so far."""
        self._cache.clear()

    def tokenize(self, piece: str) -> list[PieceToken]:
        """The piece's tokens: (token, id, start, end) in its characters (an empty piece has none)."""
        hit = self._cache.get(piece)
        if hit is None:
            hit = self._match(piece)
            self._cache.put(piece, hit)
        return list(hit)

    def _match(self, piece: str) -> tuple[PieceToken, ...]:
        n = len(piece)
        if n > self.max_input_chars_per_word:
            return self._unknown(piece)
        get, prefix = self.vocab.get, self.continuing_subword_prefix
        out: list[PieceToken] = []
        start = 0
        while start < n:
            end = min(n, start + (self._max_rest if start else self._max_first))
            while end > start:
                token = prefix + piece[start:end] if start else piece[:end]
                found = get(token)
                if found is not None:
                    out.append((token, found, start, end))
                    break
                end -= 1
            else:
                return self._unknown(piece)  # nothing matches here: the whole piece is unknown
            start = end
        return tuple(out)

    def _unknown(self, piece: str) -> tuple[PieceToken, ...]:
        if self.unk_id is None:
            raise BPEError(
                f"{piece[:40]!r} has no WordPiece tokens and the unknown token {self.unk_token!r} "
                "is not in the vocabulary"
            )
        return ((self._unk, self.unk_id, 0, len(piece)),)

    def to_hf(self) -> dict[str, Any]:
        return {
            "type": "WordPiece",
            "unk_token": self._unk,
            "continuing_subword_prefix": self.continuing_subword_prefix,
            "max_input_chars_per_word": self.max_input_chars_per_word,
            "vocab": vocab_in_id_order(self.vocab),
        }


def _read_wordpiece(data: dict[str, Any], reader: PartReader) -> WordPiece:
    what = "model WordPiece"
    vocab = read_vocab(data, reader, what)
    return WordPiece(
        vocab,
        unk_token=text(data, "unk_token", None, reader, what),
        continuing_subword_prefix=text(data, "continuing_subword_prefix", None, reader, what),
        max_input_chars_per_word=number(data, "max_input_chars_per_word", None, reader, what),
    )


# ---- its decoder --------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class WordPieceDecoder:
    """Continuation tokens lose their prefix, the others get a space before them (not the first).

    >>> WordPieceDecoder().decode_chain(["un", "##aff", "##able", "!"])
    ['un', 'aff', 'able', '!']
    """

    prefix: str = "##"
    cleanup: bool = True

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out = []
        for i, token in enumerate(tokens):
            if i:
                token = token[len(self.prefix):] if token.startswith(self.prefix) else " " + token
            out.append(clean_up(token) if self.cleanup else token)
        return out

    def inner(self, value: str | bytes, fused: bool) -> Inner:
        if isinstance(value, bytes):
            return value, fused
        if not fused:
            value = value[len(self.prefix):] if value.startswith(self.prefix) else " " + value
        return (clean_up(value) if self.cleanup else value), fused

    def to_hf(self) -> dict[str, Any]:
        return {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup}


def _read_decoder(data: dict[str, Any], reader: PartReader) -> WordPieceDecoder:
    what = "decoder WordPiece"
    return WordPieceDecoder(prefix=text(data, "prefix", "##", reader, what),
                            cleanup=flag(data, "cleanup", True, reader, what))


HF_TYPES = {"WordPiece": _read_wordpiece}  # the model
HF_DECODER_TYPES = {"WordPiece": _read_decoder}


def looks_like_model(raw: dict[str, Any]) -> bool:
    """A model serialized before models carried a "type", told by its fields."""
    return "max_input_chars_per_word" in raw or "continuing_subword_prefix" in raw
