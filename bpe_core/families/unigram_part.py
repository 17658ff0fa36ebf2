"""The Unigram model, as Hugging Face `tokenizers` defines it: the best-scoring segmentation (Viterbi).

Every way of cutting the piece into vocabulary pieces scores the sum of their log-probabilities;
the best one wins. A character that starts no one-character piece may also be an *unknown* node
scored `min(score) - 10`; neighbouring unknowns (and the unknown piece itself) fuse into one
token whose text is the input's and whose id is `unk_id`. With `byte_fallback` an unknown
token whose UTF-8 bytes all have "<0xNN>" pieces is those pieces instead, each carrying the
unknown token's whole span. Ties go as `tokenizers` breaks them: for each end position the
candidate starting first wins unless a later one is strictly better (the last piece longest).

>>> model = Unigram([("<unk>", 0.0), ("a", -1.0), ("b", -2.0), ("ab", -3.0)], unk_id=0)
>>> model.tokenize("abxx")
[('ab', 3, 0, 2), ('xx', 0, 2, 4)]
"""
from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import Any, cast

from ..parts.base import PartReader, PieceToken
from ..parts.cache import PieceCache
from ..parts.part_fields import flag
from ..parts.sp_models import FLT_MAX, NORMAL, RESET, UNUSED, USER_DEFINED, SentencePieceModel, f32
from ..parts.sp_models import UNK_PENALTY as SP_UNK_PENALTY
from ..pretokenize import type_name
from ..settings import BPEError

UNK_PENALTY = 10.0  # an unknown character scores this far below the lowest piece


class Unigram:
    """Pieces with log-probability scores, in id order; `unk_id` is the unknown piece's id (or None).

    Without an unknown id, a piece that needs an unknown node is an error, as in `tokenizers`.
    A piece listed twice keeps its last id and score; an empty piece is left out of the lattice
    (`tokenizers` loops on one with a positive score, and one of score <= 0 never wins).

    One model may serve many threads: nothing changes after construction but the cache (swapped
    for a new dictionary when full) and the prefix table (built whole on first use).
    """

    kind = "Unigram"

    def __init__(
        self, vocab: Sequence[tuple[str, float]], *, unk_id: int | None = None, byte_fallback: bool = False
    ) -> None:
        if isinstance(vocab, (str, bytes, dict)) or not isinstance(vocab, Sequence):
            raise BPEError(f"a Unigram vocabulary is a list of (piece, score), not {type_name(vocab)}")
        pieces: list[str] = []
        scores: list[float] = []
        for number, entry in enumerate(vocab):
            if (isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence) or len(entry) != 2
                    or not isinstance(entry[0], str) or isinstance(entry[1], bool)
                    or not isinstance(entry[1], (int, float)) or not math.isfinite(entry[1])):
                raise BPEError(f"Unigram vocabulary entry {number} must be (piece, finite score), not {entry!r:.60}")
            pieces.append(entry[0])
            scores.append(float(entry[1]))
        if unk_id is not None and (isinstance(unk_id, bool) or not isinstance(unk_id, int)
                                   or not 0 <= unk_id < len(pieces)):
            raise BPEError(
                f"unk_id {unk_id!r} is not the id of a piece (the vocabulary has {len(pieces):,})"
                if pieces else "a Unigram vocabulary with an unk_id cannot be empty"
            )
        if not isinstance(byte_fallback, bool):
            raise BPEError(f"byte_fallback must be true or false, not {type_name(byte_fallback)}")
        self.pieces = pieces
        self.scores = scores
        self.vocab = {piece: i for i, piece in enumerate(pieces)}
        self.unk_id = unk_id
        self.unk_token = pieces[unk_id] if unk_id is not None else None
        self.byte_fallback = byte_fallback
        self.unk_score = min(scores, default=math.inf) - UNK_PENALTY
        self._byte_ids = [self.vocab.get(f"<0x{b:02X}>") for b in range(256)]
        self._prefixes: dict[str, int] | None = None
        self._cache: PieceCache[tuple[PieceToken, ...]] = PieceCache(limit=100_000)

    def __repr__(self) -> str:
        return f"Unigram({len(self.pieces):,} pieces, unk_id={self.unk_id!r})"

    def _prefix_table(self) -> dict[str, int]:
        """Every prefix of every piece: the piece's id, or -1 for a prefix that is no piece.

        It plays the part of `tokenizers`' trie: the pieces starting at a position are found by
        growing a string until it is no prefix.
        """
        table = self._prefixes
        if table is None:
            table = {}
            for piece in self.pieces:
                for end in range(1, len(piece)):
                    table.setdefault(piece[:end], -1)
            for piece, piece_id in self.vocab.items():
                if piece:
                    table[piece] = piece_id
            self._prefixes = table  # assigned whole: a thread sees nothing yet or all of it
        return table

    def clear_cache(self) -> None:
        """Forget every piece encoded so far."""
        self._cache.clear()

    def tokenize(self, piece: str) -> list[PieceToken]:
        """The piece's tokens: (token, id, start, end) in its characters; an unknown token's text is the input's."""
        hit = self._cache.get(piece)
        if hit is None:
            hit = self._tokens(piece, self._segment(piece))
            self._cache.put(piece, hit)
        return list(hit)

    def _segment(self, piece: str) -> list[tuple[int, int]]:
        """The best path's (start, end) pieces, unknown neighbours fused, as `tokenizers`' `encode_optimized`."""
        n = len(piece)
        if not n:
            return []
        table, scores, unk_id, unk_score = self._prefix_table(), self.scores, self.unk_id, self.unk_score
        get = table.get
        best = [0.0] * (n + 1)
        back = [-1] * (n + 1)  # where the best path into each position starts; -1: none yet
        node = [0] * (n + 1)  # the piece id of that last step (unk_id for an unknown node)
        for start in range(n):
            here = best[start]
            single = False
            end = start + 1
            while end <= n:
                found = get(piece[start:end])
                if found is None:
                    break
                if found >= 0:
                    value = scores[found] + here
                    if back[end] < 0 or value > best[end]:
                        best[end], back[end], node[end] = value, start, found
                    if end == start + 1:
                        single = True
                end += 1
            if not single:
                value = unk_score + here
                end = start + 1
                if back[end] < 0 or value > best[end]:
                    if unk_id is None:
                        raise BPEError(f"{piece[start]!r} is not in this Unigram vocabulary and it has no unk_id")
                    best[end], back[end], node[end] = value, start, unk_id
        # Back from the end; the unknown steps in a row (the unknown piece's too) become one.
        out: list[tuple[int, int]] = []
        end = n
        fused_end = -1
        while end > 0:
            start = back[end]
            if unk_id is not None and node[end] == unk_id:
                if fused_end < 0:
                    fused_end = end
            else:
                if fused_end >= 0:
                    out.append((end, fused_end))
                    fused_end = -1
                out.append((start, end))
            end = start
        if fused_end >= 0:
            out.append((0, fused_end))
        out.reverse()
        return out

    def _tokens(self, piece: str, cuts: list[tuple[int, int]]) -> tuple[PieceToken, ...]:
        out: list[PieceToken] = []
        vocab = self.vocab
        for start, end in cuts:
            text = piece[start:end]
            found = vocab.get(text)
            if found is None:
                if self.byte_fallback:
                    byte_ids = [self._byte_ids[b] for b in text.encode("utf-8")]
                    if None not in byte_ids:
                        # Every byte token carries the whole unknown stretch's span, as in `tokenizers`.
                        out.extend((self.pieces[b], b, start, end) for b in cast(list[int], byte_ids))
                        continue
                found = self.unk_id
                assert found is not None  # an unknown stretch is only made with an unk_id
            out.append((text, found, start, end))
        return tuple(out)

    def to_hf(self) -> dict[str, Any]:
        return {
            "type": "Unigram",
            "unk_id": self.unk_id,
            "vocab": [[p, s] for p, s in zip(self.pieces, self.scores)],
            "byte_fallback": self.byte_fallback,
        }


_POW10 = [float(f"1e{k}") for k in range(309)]
_EXACT = 2**53  # integers up to this are floats exactly


def as_tokenizers_reads(score: float) -> float:
    """The score `tokenizers` holds for one written as `repr(score)` (shortest digits, as it writes them).

    Its JSON reader (serde_json without exact float parsing) reads the digits as an integer,
    rounds that to a float, then multiplies or divides by a power of ten: two roundings, so a
    quarter of the scores of a trained model come out one unit in the last place off. Scores
    are compared in Viterbi, so reading a file's scores the same way keeps even near ties alike.

    >>> as_tokenizers_reads(-3.6928514533582995), as_tokenizers_reads(-2.5)
    (-3.692851453358299, -2.5)
    """
    if not math.isfinite(score):
        return score
    mantissa, _, exponent = repr(abs(score)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = int(whole + fraction)  # at most 17 significant digits: no u64 overflow there
    power = (int(exponent) if exponent else 0) - len(fraction)
    if digits <= _EXACT and -22 <= power <= 22:
        return score  # one rounding only (10**22 is a float exactly): the correctly rounded value
    value = float(digits)
    if power >= 0:
        value = value * _POW10[power] if power < len(_POW10) else math.inf
    else:
        while power < -308 and value:
            value /= 1e308
            power += 308
        value /= _POW10[-power] if power >= -308 else 1.0
    if math.isinf(value):
        return score
    return math.copysign(value, score)


def _read_unigram(data: dict[str, Any], reader: PartReader) -> Unigram:
    what = "model Unigram"
    raw = data.get("vocab")
    if not isinstance(raw, list):
        reader.fail(what, f"'vocab' must be a list of [piece, score], not {'null' if raw is None else type_name(raw)}")
    for number, entry in enumerate(raw):
        if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str)
                or isinstance(entry[1], bool) or not isinstance(entry[1], (int, float))):
            reader.fail(what, f"vocab entry {number} must be [piece, score], not {entry!r:.60}")
    unk_id = data.get("unk_id")
    if unk_id is not None and (isinstance(unk_id, bool) or not isinstance(unk_id, int)):
        reader.fail(what, f"'unk_id' must be a piece's id or null, not {unk_id!r}")
    byte_fallback = flag(data, "byte_fallback", False, reader, what)
    try:
        return Unigram([(p, as_tokenizers_reads(s)) for p, s in raw], unk_id=unk_id, byte_fallback=byte_fallback)
    except BPEError as exc:
        reader.fail(what, str(exc))


# ---- sentencepiece's own ------------------------------------------------------------------


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
        lowest = min([FLT_MAX, *(s for _p, s, kind in self.pieces if kind == NORMAL)])
        self._unk_score = f32(lowest - SP_UNK_PENALTY)
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
            if not -RESET <= here <= RESET:
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


HF_TYPES = {"Unigram": _read_unigram}
SENTENCEPIECE_TYPES = {1: SentencePieceUnigram}  # ModelProto's model_type number


def looks_like_model(raw: dict[str, Any]) -> bool:
    """A model serialized before models carried a "type", told by its fields."""
    return isinstance(raw.get("vocab"), list)
