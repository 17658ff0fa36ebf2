"""SentencePiece's models as `sentencepiece` 0.2.3 runs them, on the whole normalized text at once.

- BPE is in `sp_bpe`; the model of scored pieces (Viterbi in sentencepiece's 32-bit float
  arithmetic) is its family's, in `bpe_core/families/` (a `*_part` module).
- WORD splits before each "▁"; CHAR takes one character (or user-defined symbol) at a time.

What all of them share (`SentencePieceModel._emit`): with byte fallback an unknown piece becomes its
UTF-8 bytes as "<0xNN>" pieces (all but the last with an empty span, sentencepiece's offsets);
without it, a run of unknown pieces is one unknown token.
"""
from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

import regex

from ..settings import BPEError
from .base import PieceToken

# Piece types, as sentencepiece_model.proto numbers them.
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
PIECE_TYPES = {NORMAL: "NORMAL", UNKNOWN: "UNKNOWN", CONTROL: "CONTROL", USER_DEFINED: "USER_DEFINED",
               UNUSED: "UNUSED", BYTE: "BYTE"}

FLT_MAX = 3.4028234663852886e38  # where sentencepiece starts looking for the lowest score
UNK_PENALTY = 10.0
RESET = 100000.0  # sentencepiece rebases its Viterbi path scores past this


def f32(value: float) -> float:
    """`value` rounded to a 32-bit float, as C++ `float` arithmetic gives it."""
    cell = array("f", [value])
    return cell[0]


class SentencePieceModel:
    """The pieces, how sentencepiece looks them up, and how it turns a segmentation into tokens.

    Text is matched against NORMAL, USER_DEFINED and UNUSED pieces only; anything else found
    is unknown. `unk_id` is None when the model has no unknown piece (byte fallback only).
    """

    kind = "WordLevel"  # each model says its own; this base class writes a WordLevel (`to_hf`)
    # What a tokenizer.json written from it cannot keep (see PartsTokenizer.hf_caveats).
    hf_caveat = ("sentencepiece's own encoding (score-ordered merges, its 32-bit Viterbi) is written as the "
                 "nearest tokenizers model, which can split a few long or unusual words differently")
    _one_table = False  # BPE keeps every piece in one table: a piece name may not repeat at all

    def __init__(self, pieces: Sequence[tuple[str, float, int]], *, byte_fallback: bool = False) -> None:
        self.pieces = [(str(p), float(s), int(t)) for p, s, t in pieces]
        self.byte_fallback = byte_fallback
        normal: dict[str, int] = {}
        reserved: dict[str, int] = {}
        unk_id = -1
        for i, (piece, _score, kind) in enumerate(self.pieces):
            if not piece:
                raise BPEError(f"piece {i} is empty")
            if len(piece.encode("utf-8", "surrogatepass")) >= 8000:
                raise BPEError(f"piece {i} is 8,000 bytes or longer")
            if "\0" in piece:
                if piece == "\0" and kind == UNUSED:
                    continue  # sentencepiece leaves such a piece out
                raise BPEError(f"piece {i} ({piece!r}) holds a NUL character")
            lookup = kind in (NORMAL, USER_DEFINED, UNUSED)
            if self._one_table:
                other = normal.get(piece, reserved.get(piece))
            else:
                other = (normal if lookup else reserved).get(piece)
            if other is not None:
                raise BPEError(f"piece {i} ({piece!r}) is already piece {other}")
            (normal if lookup else reserved)[piece] = i
            if kind == UNKNOWN:
                if unk_id >= 0:
                    raise BPEError(f"pieces {unk_id} and {i} are both the unknown piece")
                unk_id = i
        if unk_id < 0 and not byte_fallback:
            raise BPEError("no piece is the unknown piece (type UNKNOWN)")
        self._normal, self._reserved = normal, reserved
        self._unk = unk_id  # -1 for none, as sentencepiece has it
        self.unk_id: int | None = unk_id if unk_id >= 0 else None
        self.unk_token: str | None = self.pieces[unk_id][0] if unk_id >= 0 else None
        # Every piece by name, as sentencepiece's PieceToId looks one up: reserved ones first.
        self.vocab = {**normal, **reserved}
        self.user_defined = [p for p, _s, kind in self.pieces if kind == USER_DEFINED]
        longest_first = sorted(set(self.user_defined), key=lambda s: (-len(s), s))
        self._user = regex.compile("|".join(map(regex.escape, longest_first))) if longest_first else None
        self._byte_ids = [self.vocab.get(f"<0x{b:02X}>", unk_id) for b in range(256)] if byte_fallback else []

    def piece_id(self, piece: str) -> int:
        """The id of a piece of text: a NORMAL or USER_DEFINED piece's, else the unknown id."""
        found = self._normal.get(piece, -1)
        return found if found >= 0 and self.pieces[found][2] != UNUSED else self._unk

    def _symbols(self, text: str) -> tuple[list[str], list[bool]]:
        """The text as characters, user-defined symbols (longest first) kept whole and frozen."""
        if self._user is None:
            return list(text), [False] * len(text)
        symbols: list[str] = []
        frozen: list[bool] = []
        at = 0
        for match in self._user.finditer(text):
            start, end = match.span()
            symbols.extend(text[at:start])
            frozen.extend([False] * (start - at))
            symbols.append(match.group())
            frozen.append(True)
            at = end
        symbols.extend(text[at:])
        frozen.extend([False] * (len(text) - at))
        return symbols, frozen

    def _emit(self, text: str, segments: Sequence[tuple[int, int, int]]) -> list[PieceToken]:
        """(start, end, id) segments as tokens: unknown ones as bytes or fused, as sentencepiece.

        An unknown token's text is the text it stands for (as `encode(out_type=str)` shows it).
        """
        pieces = self.pieces
        unk_id = self._unk
        out: list[PieceToken] = []
        prev_unknown = False
        for start, end, token_id in segments:
            unknown = token_id == unk_id
            if unknown and self.byte_fallback:
                data = text[start:end].encode("utf-8", "surrogatepass")
                last = len(data) - 1
                for k, byte in enumerate(data):
                    byte_id = self._byte_ids[byte]
                    out.append((pieces[byte_id][0], byte_id, start, end if k == last else start))
            elif unknown and prev_unknown:
                begin = out[-1][2]
                out[-1] = (text[begin:end], token_id, begin, end)
            elif unknown:
                out.append((text[start:end], token_id, start, end))  # its text, as sentencepiece shows it
            else:
                out.append((pieces[token_id][0], token_id, start, end))
            prev_unknown = unknown
        return out

    def tokenize(self, piece: str) -> list[PieceToken]:
        raise NotImplementedError

    def clear_cache(self) -> None:
        """Nothing to forget (BPE keeps a cache of stretches)."""

    def to_hf(self) -> dict[str, Any]:
        return {"type": "WordLevel", "vocab": dict(self.vocab), "unk_token": self.unk_token}


class SentencePieceWord(SentencePieceModel):
    """sentencepiece's WORD model: a word starts at the text's start and at each "▁"."""

    kind = "WordLevel"

    def tokenize(self, piece: str) -> list[PieceToken]:
        cuts = [0, *(m.start() for m in regex.finditer("\u2581", piece) if m.start() > 0), len(piece)]
        return self._emit(piece, [(a, b, self.piece_id(piece[a:b])) for a, b in zip(cuts, cuts[1:]) if b > a])


class SentencePieceChar(SentencePieceModel):
    """sentencepiece's CHAR model: one character (or user-defined symbol) per piece."""

    kind = "WordLevel"

    def tokenize(self, piece: str) -> list[PieceToken]:
        symbols, _frozen = self._symbols(piece)
        segments = []
        at = 0
        for symbol in symbols:
            segments.append((at, at + len(symbol), self.piece_id(symbol)))
            at += len(symbol)
        return self._emit(piece, segments)
