"""The BPE model's inner loops: merging one piece's symbols by rank, and its tokens' byte spans;
and the model's `tokenizer.json` form (`model_json`), which the rank table and SuperBPE write too.

Symbols are token ids; `ranks` maps an id pair to its merge's rank and `merged[rank]` is the id
that merge makes (see `bpe.BPE`).

>>> merge_short([0, 1, 2], {(0, 1): 0, (3, 2): 1}, [3, 4])
[4]
"""
from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .base import PieceToken

NO_MERGE = 1 << 62  # the rank of a pair no merge joins: above any real rank, and still an int


def merge_short(ids: list[int], ranks: Mapping[tuple[int, int], int], merged: Sequence[int]) -> list[int]:
    """Merge the lowest-ranked pair, leftmost among equals, until none merges (rescanning: few symbols)."""
    get = ranks.get
    # pair_ranks[i] is the rank of (ids[i], ids[i + 1]); a merge changes only its neighbours.
    pair_ranks = [get(pair, NO_MERGE) for pair in zip(ids, ids[1:])]
    while pair_ranks:
        best = min(pair_ranks)
        if best == NO_MERGE:
            break
        i = pair_ranks.index(best)  # the leftmost of equal ranks
        ids[i : i + 2] = [merged[best]]
        del pair_ranks[i]
        if i < len(pair_ranks):
            pair_ranks[i] = get((ids[i], ids[i + 1]), NO_MERGE)
        if i:
            pair_ranks[i - 1] = get((ids[i - 1], ids[i]), NO_MERGE)
    return ids


def merge_heap(
    ids: list[int],
    lens: list[int],
    ranks: Mapping[tuple[int, int], int],
    merged: Sequence[int],
    *,
    dropout: float | None = None,
    draw: Callable[[], float] | None = None,
) -> tuple[list[int], list[int]]:
    """`tokenizers`' own merge loop: a heap of (rank, position), each symbol's length summed.

    With `dropout` a popped merge is skipped when `draw()` falls below it; the skipped ones go
    back on the heap once a merge happens, as there.

    >>> merge_heap([0, 1, 2], [1, 1, 2], {(0, 1): 0, (3, 2): 1}, [3, 4])
    ([4], [4])
    """
    n = len(ids)
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    heap = [(r, i) for i, pair in enumerate(zip(ids, ids[1:])) if (r := ranks.get(pair)) is not None]
    heapq.heapify(heap)
    skipped: list[tuple[int, int]] = []
    while heap:
        top = heapq.heappop(heap)
        if dropout is not None and draw is not None and draw() < dropout:
            skipped.append(top)
            continue
        for entry in skipped:
            heapq.heappush(heap, entry)
        skipped.clear()
        rank, i = top
        j = nxt[i]
        if not lens[i] or j < 0:
            continue
        now = ranks.get((ids[i], ids[j]))
        if now is None or merged[now] != merged[rank]:
            continue  # an entry the merges since have made stale
        ids[i] = merged[rank]
        lens[i] += lens[j]
        lens[j] = 0
        k = nxt[i] = nxt[j]
        if k >= 0:
            prv[k] = i
            r = ranks.get((ids[i], ids[k]))
            if r is not None:
                heapq.heappush(heap, (r, i))
        h = prv[i]
        if h >= 0:
            r = ranks.get((ids[h], ids[i]))
            if r is not None:
                heapq.heappush(heap, (r, h))
    keep = [i for i in range(n) if lens[i]]
    return [ids[i] for i in keep], [lens[i] for i in keep]


def byte_spans(piece: str, ids: list[int], lens: list[int], tokens: Mapping[int, str]) -> list[PieceToken]:
    """Tokens from byte lengths: each token's byte range (the lengths summed) mapped to the
    characters holding it, as `tokenizers` maps it; a range past the piece's bytes (byte fallback
    of a prefix or suffix, where `tokenizers` leaks raw byte offsets) is clamped to its end.

    >>> byte_spans("é!", [7, 8, 9], [1, 1, 1], {7: "<0xC3>", 8: "<0xA9>", 9: "!"})
    [('<0xC3>', 7, 0, 1), ('<0xA9>', 8, 0, 1), ('!', 9, 1, 2)]
    """
    if piece.isascii():
        char_at: Sequence[int] = range(len(piece))
    else:
        char_at = [k for k, ch in enumerate(piece) for _ in range(len(ch.encode("utf-8")))]
    size, n = len(char_at), len(piece)
    out: list[PieceToken] = []
    pos = 0
    for token_id, length in zip(ids, lens):
        start, end = pos, min(pos + length, size)
        pos += length
        if start >= size:
            out.append((tokens[token_id], token_id, n, n))
        else:
            out.append((tokens[token_id], token_id, char_at[start], char_at[end - 1] + 1))
    return out


def model_json(vocab: dict[str, int], merges: Sequence[tuple[str, str]], *, dropout: float | None = None,
               unk_token: str | None = None, continuing_subword_prefix: str | None = None,
               end_of_word_suffix: str | None = None, fuse_unk: bool = False, byte_fallback: bool = False,
               ignore_merges: bool = False) -> dict[str, Any]:
    """A BPE model as `tokenizer.json` writes it, every field `tokenizers` reads in its order."""
    return {
        "type": "BPE",
        "dropout": dropout,
        "unk_token": unk_token,
        "continuing_subword_prefix": continuing_subword_prefix,
        "end_of_word_suffix": end_of_word_suffix,
        "fuse_unk": fuse_unk,
        "byte_fallback": byte_fallback,
        "ignore_merges": ignore_merges,
        "vocab": vocab,
        "merges": [[a, b] for a, b in merges],
    }
