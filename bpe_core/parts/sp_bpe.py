"""sentencepiece's BPE: merges by the score of the piece a pair makes, not by a merge list.

Every character (or user-defined symbol, which never merges) starts as a symbol; the adjacent
pair whose concatenation is a piece with the highest score merges first, the leftmost on a tie
(scores compared by their float bits, as sentencepiece 0.2.3 does, so -0.0 is below 0.0). An
UNUSED piece may be formed, then is split back the way it was made. The text is cut where two
neighbouring characters appear together in no piece, and each stretch merged alone: no symbol
can cross such a cut, so the merges are the same, in much smaller heaps, and a stretch seen
before is looked up.
"""
from __future__ import annotations

import heapq
import struct
from collections.abc import Sequence
from functools import cached_property
from typing import Any

from .base import PieceToken
from .cache import PieceCache
from .sp_models import UNUSED, USER_DEFINED, SentencePieceModel


def _score_key(score: float) -> int:
    """An integer that orders scores as sentencepiece's BPE does, by their float bits (so -0.0
    is below 0.0): negative floats in reverse order of their bits, all below the others."""
    bits = struct.unpack("<i", struct.pack("<f", score))[0]
    return bits if bits >= 0 else -(bits & 0x7FFFFFFF) - 1


class SentencePieceBPE(SentencePieceModel):
    """sentencepiece's BPE: merge by the score of the piece a pair makes.

    >>> bpe = SentencePieceBPE([("<unk>", 0, 2), ("a", -1, 1), ("b", -2, 1), ("ab", -0.5, 1)])
    >>> bpe.tokenize("abba")
    [('ab', 3, 0, 2), ('b', 2, 2, 3), ('a', 1, 3, 4)]
    """

    kind = "BPE"
    _one_table = True

    def __init__(self, pieces: Sequence[tuple[str, float, int]], *, byte_fallback: bool = False) -> None:
        super().__init__(pieces, byte_fallback=byte_fallback)
        self._keys = {i: _score_key(self.pieces[i][1]) for i in self._normal.values()}
        # Two characters side by side that no piece holds never end up in one symbol.
        self._pairs = {piece[k:k + 2] for piece in self._normal for k in range(len(piece) - 1)}
        self._cache: PieceCache[list[tuple[int, int, int]]] = PieceCache(limit=100_000)

    def tokenize(self, piece: str) -> list[PieceToken]:
        if not piece:
            return []
        segments: list[tuple[int, int, int]] = []
        if self._user is None:
            self._stretches(piece, 0, segments)
        else:
            at = 0
            for match in self._user.finditer(piece):
                start, end = match.span()
                self._stretches(piece[at:start], at, segments)
                segments.append((start, end, self._normal[match.group()]))
                at = end
            self._stretches(piece[at:], at, segments)
        return self._emit(piece, segments)

    def clear_cache(self) -> None:
        self._cache.clear()

    def _stretches(self, text: str, origin: int, segments: list[tuple[int, int, int]]) -> None:
        """The segments of `text` (no user-defined symbol in it), cut where no piece can span."""
        pairs, cache = self._pairs, self._cache
        start = 0
        size = len(text)
        for cut in range(1, size + 1):
            if cut < size and text[cut - 1:cut + 1] in pairs:
                continue
            stretch = text[start:cut]
            found = cache.get(stretch)
            if found is None:
                found = self._merge(stretch)
                cache.put(stretch, found)
            segments.extend((origin + start + a, origin + start + b, i) for a, b, i in found)
            start = cut

    def _merge(self, text: str) -> list[tuple[int, int, int]]:
        """sentencepiece's merges over the characters of `text`, as (start, end, id) segments."""
        symbols = list(text)
        count = len(symbols)
        prev = list(range(-1, count - 1))
        after = list(range(1, count + 1))
        after[-1] = -1
        normal, keys, pieces = self._normal, self._keys, self.pieces
        heap: list[tuple[int, int, int, int]] = []
        split_back: dict[str, tuple[str, str]] = {}

        def consider(left: int, right: int) -> None:
            if left < 0 or right < 0:
                return
            joined = symbols[left] + symbols[right]
            found = normal.get(joined)
            if found is None:
                return
            # The highest score first, then the leftmost pair.
            heapq.heappush(heap, (-keys[found], left, right, len(joined)))
            if pieces[found][2] == UNUSED:
                split_back[joined] = (symbols[left], symbols[right])

        for i in range(1, count):
            consider(i - 1, i)
        while heap:
            _key, left, right, size = heapq.heappop(heap)
            a, b = symbols[left], symbols[right]
            # Stale: one side has merged since (emptied, or grown so the size no longer adds up).
            if not a or not b or len(a) + len(b) != size:
                continue
            symbols[left], symbols[right] = a + b, ""
            follow = after[right]
            after[left] = follow
            if follow >= 0:
                prev[follow] = left
            consider(prev[left], left)
            consider(left, follow)

        segments: list[tuple[int, int, int]] = []
        at = 0
        unk_id = self._unk

        def resegment(symbol: str, depth: int) -> None:
            """An UNUSED piece split back the way it was made (sentencepiece stops at depth 100)."""
            nonlocal at
            token_id = normal.get(symbol, unk_id)
            halves = None
            if depth <= 100 and token_id != unk_id and pieces[token_id][2] == UNUSED:
                halves = split_back.get(symbol)
                if halves is None:
                    token_id = unk_id
            if halves is None:
                segments.append((at, at + len(symbol), token_id))
                at += len(symbol)
            else:
                resegment(halves[0], depth + 1)
                resegment(halves[1], depth + 1)

        index = 0
        while index >= 0:
            resegment(symbols[index], 0)
            index = after[index]
        return segments

    @cached_property
    def merges(self) -> list[tuple[str, str]]:
        """A merge list for `tokenizers`' BPE: every split of a piece into two pieces, the pieces
        with higher scores first (it ranks merges, sentencepiece scores what they make)."""
        normal = {p: i for p, i in self._normal.items() if self.pieces[i][2] != USER_DEFINED}
        ranked = []
        for piece, token_id in normal.items():
            for k in range(1, len(piece)):
                left, right = piece[:k], piece[k:]
                if left in normal and right in normal:
                    ranked.append((-self.pieces[token_id][1], token_id, normal[left], normal[right], left, right))
        ranked.sort()
        return [(left, right) for *_key, left, right in ranked]

    def to_hf(self) -> dict[str, Any]:
        return {
            "type": "BPE", "dropout": None, "unk_token": self.unk_token, "continuing_subword_prefix": None,
            "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": self.byte_fallback,
            "ignore_merges": False, "vocab": dict(sorted(self.vocab.items(), key=lambda kv: kv[1])),
            "merges": [list(pair) for pair in self.merges],
        }
