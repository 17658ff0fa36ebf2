"""tiktoken's byte-pair rule as a model part: a rank table, not a merge list.

A piece arrives in GPT-2's byte characters (as `ByteLevel` with `use_regex=False` gives it). A
piece that is itself a token is that token, even one no merge could build (Llama 3 has 678 such);
otherwise neighbours are joined, the join with the lowest rank first (leftmost among equals),
until no join is a token. A token's id is its rank plus `offset` (Tekken numbers its rank-0
token after its 1,000 special tokens).

>>> from bpe_core.pretokenize import bytes_to_symbols
>>> ranks = {bytes_to_symbols(bytes([b])): b for b in range(256)}
>>> model = Ranks({**ranks, "ab": 256, "abc": 257, "bc": 258}, offset=10)
>>> model.tokenize("abcd"), model.tokenize("bc")
([('abc', 267, 0, 3), ('d', 110, 3, 4)], [('bc', 268, 0, 2)])
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any

from ..encoder import RankTable, encode_ranked
from ..pretokenize import bytes_to_symbols
from ..settings import BPEError
from .base import Builder, PieceToken
from .bpe_merge import model_json
from .cache import PieceCache

# A rank file's tokens as files spell them: Hugging Face reads them as a "BPE" model whose
# `ignore_merges` keeps the whole-piece rule, so the BPE part's builder reads them back.
HF_TYPES: dict[str, Builder] = {}

MergesOf = Callable[[dict[str, int]], list[tuple[str, str]]]


class Ranks:
    """tiktoken's rule over {token in byte characters: rank}; ids are `rank + offset`.

    `size` keeps only the ranks below it (Tekken's files hold more tokens than its models use).
    `merges` computes the merge list from the vocabulary (`derive_merges` by default; the built-in
    tokenizers cache its result on disk): only `to_hf` and the explorer's views need it.
    `reserved` names the ids below `offset` (Tekken's special tokens, id = index): no rank has
    them and `tokenize` never gives them, but `to_hf` writes them into the vocabulary, where
    `tokenizers` looks up an added token's id (one it cannot find there it renumbers).
    """

    kind = "BPE"
    unk_token: str | None = None  # every byte is a token: nothing is unknown
    unk_id: int | None = None

    def __init__(
        self,
        ranks: Mapping[str, int],
        *,
        offset: int = 0,
        size: int | None = None,
        merges: MergesOf | None = None,
        reserved: Sequence[str] = (),
    ) -> None:
        for what, value, least in (("offset", offset, 0), ("size", size, 1)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < least):
                raise BPEError(f"rank table: {what} must be a whole number, {least} or more; not {value!r}")
        if len(reserved) > offset:
            raise BPEError(f"rank table: {len(reserved):,} reserved tokens do not fit below the offset {offset:,}")
        self.offset = offset
        self.size = size
        self.reserved = tuple(reserved)
        self.ranks = _checked(ranks, size)
        # Ranks and ids differ by one constant, so either orders the joins alike: one table serves.
        if offset:
            self.vocab = {token: rank + offset for token, rank in self.ranks.items()}
        else:
            self.vocab = self.ranks if isinstance(self.ranks, dict) else dict(self.ranks)
        self.table = RankTable(self.vocab, concat=True)
        self._merges_of = merges
        self._cache: PieceCache[tuple[PieceToken, ...]] = PieceCache()

    @classmethod
    def from_bytes(
        cls, ranks: Mapping[bytes, int], *, offset: int = 0, size: int | None = None, merges: MergesOf | None = None
    ) -> Ranks:
        """From {token bytes: rank}, as a `.tiktoken` file or Tekken's JSON gives them."""
        return cls({bytes_to_symbols(t): r for t, r in ranks.items()}, offset=offset, size=size, merges=merges)

    def __len__(self) -> int:
        return len(self.vocab)

    def __repr__(self) -> str:
        return f"Ranks({len(self.vocab):,} tokens, offset={self.offset})"

    def tokenize(self, piece: str) -> list[PieceToken]:
        """The piece's tokens with their spans in its characters (one character a byte)."""
        hit = self._cache.get(piece)
        if hit is None:
            hit = self._tokenize(piece)
            self._cache.put(piece, hit)
        return list(hit)

    def piece_ids(self, piece: str) -> tuple[int, ...]:
        """The ids of `tokenize(piece)`, without spans and without its cache (the pipeline keeps
        its own of ids)."""
        vocab = self.vocab
        whole = vocab.get(piece)
        if whole is not None:  # tiktoken's rule: a piece that is a token is that token
            return (whole,)
        tokens = encode_ranked(piece, self.table)
        ids = tuple(map(vocab.get, tokens))
        if None in ids:
            return tuple(t[1] for t in self._tokenize(piece))  # names the token that is missing
        return ids  # type: ignore[return-value]

    def _tokenize(self, piece: str) -> tuple[PieceToken, ...]:
        vocab = self.vocab
        whole = vocab.get(piece)
        if whole is not None:  # tiktoken's rule: a piece that is a token is that token
            return ((piece, whole, 0, len(piece)),)
        out: list[PieceToken] = []
        at = 0
        for token in encode_ranked(piece, self.table):
            token_id = vocab.get(token)
            if token_id is None:  # only a lone character no rank names: not a byte character
                raise BPEError(
                    f"{token!r} is not in the rank table, which has no unknown token (a rank table "
                    "takes pieces in byte-level characters: put ByteLevel before it)"
                )
            out.append((token, token_id, at, at + len(token)))
            at += len(token)
        return tuple(out)

    def clear_cache(self) -> None:
        self._cache.clear()

    @cached_property
    def merges(self) -> list[tuple[str, str]]:
        """Each token a merge builds as that merge, in rank order (see `derive_merges`)."""
        return list((self._merges_of or derive_merges)(self.vocab))

    def to_hf(self) -> dict[str, Any]:
        """A byte-level BPE model that `tokenizers` encodes to the same ids.

        The merges are derived from the ranks: wherever tiktoken builds a token by a join, the
        two halves are the ones its own bytes reach just before its rank, which is that merge.
        `ignore_merges` keeps the whole-piece rule for the tokens no merge builds.
        """
        vocab = {token: i for i, token in enumerate(self.reserved)}
        vocab.update(sorted(self.vocab.items(), key=lambda item: item[1]))
        if len(vocab) != len(self.reserved) + len(self.vocab):
            clash = next(t for t in self.reserved if t in self.vocab)
            raise BPEError(f"rank table: the reserved token {clash!r} is also a rank's token; a file cannot hold both")
        return model_json(vocab, self.merges, ignore_merges=True)


def derive_merges(vocab: Mapping[str, int]) -> list[tuple[str, str]]:
    """Each multi-byte token as the merge of the two pieces tiktoken builds it from, by rank.

    The pieces are what the token's own bytes become under the lower ranks; a token whose bytes
    end in more than two pieces is built by no merge (tiktoken only takes it as a whole piece).

    >>> derive_merges({"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "bc": 5})
    [('a', 'b'), ('ab', 'c'), ('b', 'c')]
    """
    table = RankTable(vocab, concat=True)
    merges: list[tuple[int, str, str]] = []
    for token, rank in vocab.items():
        if len(token) < 2:
            continue
        pieces = encode_ranked(token, table, limit=rank)
        if len(pieces) == 2:
            merges.append((rank, pieces[0], pieces[1]))
    merges.sort()
    return [(a, b) for _, a, b in merges]


def _checked(ranks: Mapping[str, int], size: int | None) -> Mapping[str, int]:
    """The table cut to `size`, after one-line errors for what tiktoken's rule cannot use."""
    if not isinstance(ranks, Mapping):
        raise BPEError(f"rank table: expected {{token: rank}}, not {type(ranks).__name__}")
    values = ranks.values()
    if not all(type(r) is int and r >= 0 for r in values):
        bad = next((t, r) for t, r in ranks.items() if type(r) is not int or r < 0)
        raise BPEError(f"rank table: token {bad[0]!r} has rank {bad[1]!r}; ranks are whole numbers, 0 or more")
    if len(set(values)) != len(ranks):
        raise BPEError("rank table: two tokens share one rank; each rank is one token's id")
    if size is not None and max(values, default=0) >= size:
        ranks = {t: r for t, r in ranks.items() if r < size}
    if not ranks or "" in ranks:
        raise BPEError("rank table: it holds no tokens" if not ranks else "rank table: the empty string is no token")
    missing = [b for b, ch in enumerate(bytes_to_symbols(bytes(range(256)))) if ch not in ranks]
    if missing:
        raise BPEError(
            f"rank table: {len(missing)} of the 256 single-byte tokens are missing (first: {missing[0]:#04x}); "
            "without them some text cannot be encoded"
        )
    return ranks
