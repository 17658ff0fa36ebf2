"""SentencePiece's models as `sentencepiece` 0.2.3 runs them, on the whole normalized text at once.

- BPE is in `sp_bpe`.
- Unigram: Viterbi over all pieces, in sentencepiece's arithmetic: path scores are 32-bit floats,
  rebased to 0 whenever one passes 100,000 in size (so rounding decides near-ties that
  `tokenizers`' 64-bit Unigram, run word by word, decides otherwise), the first best path found
  wins a tie, a character no piece covers is unknown with the lowest score minus 10, and a
  user-defined piece scores 0.1 per UTF-8 byte after its first.
- WORD splits before each "▁"; CHAR takes one character (or user-defined symbol) at a time.

What all of them share (`SentencePieceModel._emit`): with byte fallback an unknown piece becomes its
UTF-8 bytes as "<0xNN>" pieces (all but the last with an empty span, sentencepiece's offsets);
without it, a run of unknown pieces is one unknown token.
"""
from __future__ import annotations

import math
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

_FLT_MAX = 3.4028234663852886e38  # where sentencepiece starts looking for the lowest score
_UNK_PENALTY = 10.0
_RESET = 100000.0  # sentencepiece's Unigram rebases its path scores past this


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


class SentencePieceUnigram(SentencePieceModel):
    """sentencepiece's Unigram Viterbi, in its 32-bit float arithmetic.

    >>> uni = SentencePieceUnigram([("<unk>", 0, 2), ("a", -1, 1), ("b", -2, 1), ("ab", -2.5, 1)])
    >>> uni.tokenize("abx")
    [('ab', 3, 0, 2), ('x', 0, 2, 3)]
    """

    kind = "Unigram"

    def __init__(self, pieces: Sequence[tuple[str, float, int]], *, byte_fallback: bool = False) -> None:
        super().__init__(pieces, byte_fallback=byte_fallback)
        if not self._normal:
            raise BPEError("a Unigram model needs pieces besides the unknown, control and byte ones")
        for i, (_p, score, _kind) in enumerate(self.pieces):
            if not math.isfinite(score):
                raise BPEError(f"piece {i} has the score {score}, which sentencepiece refuses")
        lowest = min([_FLT_MAX, *(s for _p, s, kind in self.pieces if kind == NORMAL)])
        self._unk_score = f32(lowest - _UNK_PENALTY)
        scores: dict[int, float] = {}
        prefixes: dict[str, int] = {}
        longest = 1
        for piece, token_id in self._normal.items():
            _p, score, kind = self.pieces[token_id]
            for k in range(1, len(piece)):
                prefixes.setdefault(piece[:k], -1)
            longest = max(longest, len(piece))
            if kind == UNUSED:
                continue  # in the trie, never used
            prefixes[piece] = token_id
            # A user-defined piece: 0.1 per UTF-8 byte after its first, as a float.
            length = len(piece.encode("utf-8"))
            scores[token_id] = f32(0.1 * (length - 1)) if kind == USER_DEFINED else score
        self._scores = scores
        self._prefixes = prefixes
        self._longest = longest

    def tokenize(self, piece: str) -> list[PieceToken]:
        size = len(piece)
        if not size:
            return []
        best = array("f", bytes(4 * (size + 1)))  # the best path's score to each place, as floats
        starts = [-1] * (size + 1)
        ids = [-1] * (size + 1)
        prefixes, scores, longest = self._prefixes, self._scores, self._longest
        unk_score, unk_id = self._unk_score, self._unk
        cell = array("f", [0.0])
        frontier = 0  # the furthest place a piece has reached
        for start in range(size):
            here = best[start]
            if not -_RESET <= here <= _RESET:
                # sentencepiece keeps the float scores small: past 100,000 it subtracts the
                # score here from every place from here to the frontier that has a path.
                for i in range(start, frontier + 1):
                    if i == start or starts[i] >= 0:
                        best[i] -= here
                here = 0.0
            single = False
            stop = start + longest
            if stop > size:
                stop = size
            end = start + 1
            while end <= stop:
                found = prefixes.get(piece[start:end])
                if found is None:
                    break
                if found >= 0:
                    if end > frontier:
                        frontier = end
                    cell[0] = scores[found] + here  # float + float, rounded to a float
                    candidate = cell[0]
                    if starts[end] < 0 or candidate > best[end]:
                        best[end] = candidate
                        starts[end] = start
                        ids[end] = found
                    if end == start + 1:
                        single = True
                end += 1
            if not single:
                end = start + 1
                if end > frontier:
                    frontier = end
                cell[0] = unk_score + here
                candidate = cell[0]
                if starts[end] < 0 or candidate > best[end]:
                    best[end] = candidate
                    starts[end] = start
                    ids[end] = unk_id
        segments: list[tuple[int, int, int]] = []
        end = size
        while end > 0:
            start = starts[end]
            segments.append((start, end, ids[end]))
            end = start
        segments.reverse()
        return self._emit(piece, segments)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Unigram", "unk_id": self.unk_id,
                "byte_fallback": self.byte_fallback, "vocab": [[p, s] for p, s, _kind in self.pieces]}


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
