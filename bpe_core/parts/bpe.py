"""The BPE model, as Hugging Face `tokenizers` defines it: a piece's characters, merged by rank.

A piece's characters are its first symbols: every one but the first carries the
`continuing_subword_prefix`, the last one the `end_of_word_suffix`. A symbol the vocabulary lacks
becomes its UTF-8 bytes as "<0xNN>" tokens (`byte_fallback`, when every one of them exists),
else the unknown token (neighbours fused into one with `fuse_unk`), else it is dropped. Then the
neighbouring pair of lowest rank (leftmost among equals) merges, until none can; merging (a, b)
gives the token `a + b` without b's prefix. `ignore_merges` takes a piece that is itself a token
whole. Offsets follow `tokenizers` to the letter, quirks included (see `BPE.tokenize`).

>>> model = BPE({"l": 0, "o": 1, "w": 2, "lo": 3, "low": 4}, [("l", "o"), ("lo", "w")])
>>> model.tokenize("lowl")
[('low', 4, 0, 3), ('l', 0, 3, 4)]
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

from ..pretokenize import type_name
from ..settings import BPEError
from .base import PartReader, PieceToken
from .bpe_merge import byte_spans, merge_heap, merge_short, model_json
from .cache import PieceCache
from .wordlevel import check_vocab, read_vocab, vocab_in_id_order

_SHORT = 48  # pieces of more symbols use the heap, which is faster for them than rescanning


class BPE:
    """A vocabulary and an ordered merge list: Hugging Face's BPE model.

    `dropout` (0 to 1) skips each merge with that probability, drawing from `rng`: a
    `random.Random`, an int seed for one, or None for a fresh unseeded one. `tokenizers` draws
    from its own generator, so dropout output is never compared with it; with `dropout` None or
    0 encoding is deterministic and cached.

    One model may serve many threads: nothing changes after construction but the cache, which is
    swapped for a new dictionary when full, never emptied in place.
    """

    kind = "BPE"

    def __init__(
        self,
        vocab: dict[str, int],
        merges: Sequence[tuple[str, str]],
        *,
        unk_token: str | None = None,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        end_of_word_symbol: str | None = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
        ignore_merges: bool = False,
        dropout: float | None = None,
        rng: random.Random | int | None = None,
    ) -> None:
        self.vocab = vocab = check_vocab(vocab)
        for name, value in (("unk_token", unk_token), ("continuing_subword_prefix", continuing_subword_prefix),
                            ("end_of_word_suffix", end_of_word_suffix), ("end_of_word_symbol", end_of_word_symbol)):
            if value is not None and not isinstance(value, str):
                raise BPEError(f"{name} must be a string or None, not {type_name(value)}")
        for name, flag in (("fuse_unk", fuse_unk), ("byte_fallback", byte_fallback), ("ignore_merges", ignore_merges)):
            if not isinstance(flag, bool):
                raise BPEError(f"{name} must be true or false, not {type_name(flag)}")
        if dropout is not None and (isinstance(dropout, bool) or not isinstance(dropout, (int, float))
                                    or not 0.0 <= dropout <= 1.0):
            raise BPEError(f"dropout must be a probability from 0 to 1, or None; not {dropout!r}")
        self.unk_token = unk_token
        self.unk_id = vocab.get(unk_token) if unk_token is not None else None
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback
        self.ignore_merges = ignore_merges
        self.dropout = None if dropout is None else float(dropout)
        self._sampling = bool(dropout)  # dropout 0 encodes (and caches) as no dropout, as in `tokenizers`
        self._rng = rng if isinstance(rng, random.Random) else random.Random(rng)
        self._prefix = continuing_subword_prefix or ""  # "" adds nothing, as None
        self._suffix = end_of_word_suffix or ""
        # Ours, not `tokenizers`': a symbol of its own after each piece's characters (the lessons'
        # separate "</w>"), zero characters wide at the piece's end; a vocabulary without it
        # writes the unknown token there, as the engine's word mode does.
        self.end_of_word_symbol = end_of_word_symbol
        self._end = end_of_word_symbol or ""
        self._end_id = (vocab.get(end_of_word_symbol, self.unk_id) if end_of_word_symbol else None)
        # A token's text for its id: with ids shared by several tokens the last one listed wins.
        self.id_to_token = {token_id: token for token, token_id in vocab.items()}
        self.merges = self._check_merges(merges)
        self._byte_ids = [vocab.get(f"<0x{b:02X}>") for b in range(256)]
        plen = len(self._prefix)
        # The id of prefix + character, by character: a piece's later symbols at one lookup each.
        self._continued = (
            {t[plen:]: i for t, i in vocab.items() if len(t) == plen + 1 and t.startswith(self._prefix)} if plen else {}
        )
        self._cache: PieceCache[tuple[PieceToken, ...]] = PieceCache(limit=100_000)

    def _check_merges(self, merges: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """The merges as pairs; builds the id-pair -> rank table and each rank's merged id.

        Merging (a, b) makes a + b[len(prefix):], the prefix cut in bytes whether or not b starts
        with it, as `tokenizers` does (it panics where that cut is impossible: an error here). A
        pair listed twice keeps its last rank, as there.
        """
        if isinstance(merges, (str, bytes, dict)) or not isinstance(merges, Sequence):
            raise BPEError(f"merges must be a list of (left, right) pairs, not {type_name(merges)}")
        vocab, prefix = self.vocab, self._prefix
        regular = True  # every merge removes exactly the prefix's characters: lengths add up
        try:  # the bulk path; any problem is found and named by the loop below
            pairs = [(a, b) for a, b in merges]
            ids = [(vocab[a], vocab[b]) for a, b in pairs]
            if not prefix:
                made = [vocab[a + b] for a, b in pairs]
            elif all(b.startswith(prefix) for _, b in pairs):
                cut = len(prefix)
                made = [vocab[a + b[cut:]] for a, b in pairs]
            else:
                made = [vocab[a + self._tail(b)] for a, b in pairs]
                regular = all(len(b) - len(self._tail(b)) == len(prefix) for _, b in pairs)
            if not all(type(p) in (tuple, list) for p in merges) or not all(
                type(a) is str and type(b) is str for a, b in pairs
            ):
                raise TypeError  # ("ab" would unpack as a pair of characters)
        except (KeyError, TypeError, ValueError, BPEError):
            self._name_bad_merge(merges)
            raise  # unreachable: the loop raises
        self._ranks = dict(zip(ids, range(len(ids))))
        self._merged = made
        # Token lengths tell each token's span unless ids are shared or a merge cuts oddly.
        self._regular = regular and len(self.id_to_token) == len(vocab)
        return pairs

    def _tail(self, right: str) -> str:
        """`right` without the prefix's bytes, as `tokenizers` cuts it."""
        raw, cut = right.encode("utf-8"), len(self._prefix.encode("utf-8"))
        try:
            if len(raw) < cut:
                raise UnicodeDecodeError("utf-8", raw, 0, len(raw), "shorter than the prefix")
            return raw[cut:].decode("utf-8")
        except UnicodeDecodeError:
            raise BPEError(
                f"the continuing_subword_prefix {self._prefix!r} cannot be cut from {right!r} "
                "(tokenizers fails on this merge too)"
            ) from None

    def _name_bad_merge(self, merges: Sequence[tuple[str, str]]) -> None:
        """Raise a one-line error for the first merge that is malformed or leaves the vocabulary."""
        vocab = self.vocab
        for rank, pair in enumerate(merges):
            if (isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2
                    or not all(isinstance(p, str) for p in pair)):
                raise BPEError(f"merge {rank} must be a pair of two strings, not {pair!r:.60}")
            a, b = pair
            for side in (a, b):
                if side not in vocab:
                    raise BPEError(f"merge {rank} ({a!r}, {b!r}): {side!r} is not in the vocabulary")
            try:
                tail = self._tail(b) if self._prefix else b
            except BPEError as exc:
                raise BPEError(f"merge {rank} ({a!r}, {b!r}): {exc}") from None
            if a + tail not in vocab:
                raise BPEError(f"merge {rank} ({a!r}, {b!r}) makes {a + tail!r}, which is not in the vocabulary")
        raise BPEError("the merges are not a list of (left, right) pairs of strings")

    def __repr__(self) -> str:
        return f"BPE({len(self.vocab):,} tokens, {len(self.merges):,} merges)"

    # ---- encoding ---------------------------------------------------------------------------

    def clear_cache(self) -> None:
        """Forget every piece encoded so far."""
        self._cache.clear()

    def tokenize(self, piece: str) -> list[PieceToken]:
        """The piece's tokens: (token, id, start, end), start and end in the piece's characters.

        Offsets are `tokenizers`' own: each symbol counts its character's UTF-8 bytes (one each
        for byte-fallback tokens) and a token's byte range is mapped back to characters, so the
        byte tokens of one character all carry its span. Quirks kept: a dropped character (no
        unknown token) shifts the offsets after it; the bytes of a character that follows an
        unknown one come before the unknown token (`tokenizers` writes an unknown token only when
        a character of the vocabulary comes, or at the end). Where `tokenizers` runs past the
        piece's bytes (byte fallback of a prefix or suffix) offsets are clamped to the piece's end.
        """
        if not piece:
            return []
        if self._sampling:
            return self._encode(piece, sample=True)
        hit = self._cache.get(piece)
        if hit is None:
            whole = self.vocab.get(piece) if self.ignore_merges else None
            if whole is not None:
                hit = ((piece, whole, 0, len(piece)),)
            else:
                hit = tuple(self._encode(piece, sample=False))
            self._cache.put(piece, hit)
        return list(hit)

    def piece_ids(self, piece: str) -> tuple[int, ...]:
        """The ids of `tokenize(piece)`, without spans and without its cache (the pipeline keeps
        its own of ids): merged from plain characters in the common case."""
        if piece and not self._sampling and self._regular:
            whole = self.vocab.get(piece) if self.ignore_merges else None
            if whole is not None:
                return (whole,)
            ids = self._plain_symbols(piece)
            if ids is not None:
                if len(ids) <= _SHORT:
                    return tuple(merge_short(ids, self._ranks, self._merged))
                return tuple(merge_heap(ids, [1] * len(ids), self._ranks, self._merged)[0])
        return tuple(t[1] for t in self.tokenize(piece))

    def _encode(self, piece: str, *, sample: bool) -> list[PieceToken]:
        if self._regular and not sample:
            ids = self._plain_symbols(piece)
            if ids is not None:
                if len(ids) <= _SHORT:
                    return self._spans_from_lengths(merge_short(ids, self._ranks, self._merged))
                ids, counts = merge_heap(ids, [1] * len(ids), self._ranks, self._merged)
                if self._end:
                    counts[-1] -= 1  # the end-of-word symbol, in the last token, holds no character
                return self._spans_from_counts(ids, counts)
        ids, lens = self._symbols(piece)
        if not ids:
            return []
        dropout = self.dropout if sample else None
        ids, lens = merge_heap(ids, lens, self._ranks, self._merged, dropout=dropout, draw=self._rng.random)
        return byte_spans(piece, ids, lens, self.id_to_token)

    def _plain_symbols(self, piece: str) -> list[int] | None:
        """The first symbols' ids when every character is a token as it is (the common case)."""
        get = self.vocab.get
        if self._prefix:
            ids = [get(piece[0]), *map(self._continued.get, piece[1:])]
        else:
            ids = list(map(get, piece))
        if self._suffix:
            last = piece[-1] if len(piece) == 1 else self._prefix + piece[-1]
            ids[-1] = get(last + self._suffix)
        if self._end:
            ids.append(self._end_id)
        return None if None in ids else ids  # type: ignore[return-value]

    def _symbols(self, piece: str) -> tuple[list[int], list[int]]:
        """The first symbols' ids and byte lengths, with byte fallback and unknowns as `tokenizers` makes them."""
        get, prefix, suffix = self.vocab.get, self._prefix, self._suffix
        ids: list[int] = []
        lens: list[int] = []
        unk: list[int] | None = None  # the unknown token waiting to be written: [id, byte length]
        last = len(piece) - 1
        for k, ch in enumerate(piece):
            size = 1 if ch < "\x80" else len(ch.encode("utf-8"))
            symbol = prefix + ch if k and prefix else ch
            if k == last and suffix:
                symbol += suffix
            found = get(symbol)
            if found is not None:
                if unk is not None:
                    ids.append(unk[0])
                    lens.append(unk[1])
                    unk = None
                ids.append(found)
                lens.append(size)
                continue
            if self.byte_fallback:
                # The bytes of the symbol, prefix and suffix included; a waiting unknown token is
                # not written first (`tokenizers` writes it after them).
                byte_ids = [self._byte_ids[b] for b in symbol.encode("utf-8")]
                if None not in byte_ids:
                    ids.extend(byte_ids)  # type: ignore[arg-type]
                    lens.extend([1] * len(byte_ids))
                    continue
            if self.unk_token is None:
                continue  # no unknown token: the character is dropped
            if unk is not None and self.fuse_unk:
                unk[1] += size
                continue
            if unk is not None:
                ids.append(unk[0])
                lens.append(unk[1])
            if self.unk_id is None:
                raise BPEError(
                    f"{ch!r} is not in this BPE vocabulary and the unknown token {self.unk_token!r} is not either"
                )
            unk = [self.unk_id, size]
        if unk is not None:
            ids.append(unk[0])
            lens.append(unk[1])
        if self._end_id is not None:
            # One byte past the piece's (a length of 0 would read as merged away): `byte_spans`
            # clamps it, so the symbol alone spans the piece's end, and a token holding it ends there.
            ids.append(self._end_id)
            lens.append(1)
        return ids, lens

    # ---- offsets ----------------------------------------------------------------------------

    def _spans_from_lengths(self, ids: list[int]) -> list[PieceToken]:
        """Spans of tokens merged from plain characters: each token's length, less prefix and suffix."""
        tokens = list(map(self.id_to_token.__getitem__, ids))
        lengths = list(map(len, tokens))
        if self._prefix or self._suffix:
            # Every token but the first starts with the prefix; the last one ends with the suffix.
            plen = len(self._prefix)
            lengths = [n - plen for n in lengths]
            lengths[0] += plen
            lengths[-1] -= len(self._suffix)
        if self._end:
            lengths[-1] -= len(self._end)  # the last token ends with the end-of-word symbol
        ends = list(accumulate(lengths))
        return list(zip(tokens, ids, [0, *ends[:-1]], ends))

    def _spans_from_counts(self, ids: list[int], counts: list[int]) -> list[PieceToken]:
        tokens = self.id_to_token
        out: list[PieceToken] = []
        pos = 0
        for token_id, count in zip(ids, counts):
            out.append((tokens[token_id], token_id, pos, pos + count))
            pos += count
        return out

    # ---- tokenizer.json ---------------------------------------------------------------------

    def to_hf(self) -> dict[str, Any]:
        if self.end_of_word_symbol:
            raise BPEError("a separate end-of-word symbol has no tokenizer.json form of its own; export the trained "
                           "tokenizer itself (its export spells the symbol with a stand-in character)")
        return model_json(vocab_in_id_order(self.vocab), self.merges, dropout=self.dropout, unk_token=self.unk_token,
                          continuing_subword_prefix=self.continuing_subword_prefix,
                          end_of_word_suffix=self.end_of_word_suffix, fuse_unk=self.fuse_unk,
                          byte_fallback=self.byte_fallback, ignore_merges=self.ignore_merges)


def _read_merges(raw: object, reader: PartReader, what: str) -> list[tuple[str, str]]:
    """Merges as ["a", "b"] pairs or as "a b" strings (one space), all of one kind, as `tokenizers` reads them."""
    if not isinstance(raw, list):
        reader.fail(what, f"'merges' must be a list of [left, right] pairs or \"left right\" strings, not "
                          f"{'null' if raw is None else type_name(raw)}")
    kinds = set(map(type, raw))
    if kinds <= {str}:
        split = [entry.split(" ") for entry in raw]
        if all(len(parts) == 2 for parts in split):
            return [(a, b) for a, b in split]
        number = next(i for i, parts in enumerate(split) if len(parts) != 2)
        reader.fail(what, f"merge {number} {raw[number]!r:.60} must be two tokens with one space between them")
    if kinds <= {list} and all(len(e) == 2 and type(e[0]) is str and type(e[1]) is str for e in raw):
        return [(a, b) for a, b in raw]
    if str in kinds:
        reader.fail(what, "'merges' mixes [left, right] pairs with \"left right\" strings: use one kind")
    number = next(
        i for i, e in enumerate(raw) if type(e) is not list or len(e) != 2 or not all(type(p) is str for p in e)
    )
    reader.fail(what, f"merge {number} {raw[number]!r:.60} must be a [left, right] pair of strings")


def _optional(data: dict[str, Any], key: str, kinds: tuple[type, ...], default: Any, reader: PartReader,
              what: str, expected: str) -> Any:
    """A field that may be missing or null (then `default`), else of one of `kinds`."""
    value = data.get(key)
    if value is None:
        return default
    if isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
        reader.fail(what, f"{key!r} must be {expected} or null, not {type_name(value)}")
    return value


def _read_bpe(data: dict[str, Any], reader: PartReader) -> BPE:
    what = "model BPE"
    vocab = read_vocab(data, reader, what)
    if "merges" not in data:
        reader.fail(what, "has no 'merges'")
    merges = _read_merges(data["merges"], reader, what)
    options: dict[str, Any] = {}
    for key in ("unk_token", "continuing_subword_prefix", "end_of_word_suffix"):
        options[key] = _optional(data, key, (str,), None, reader, what, "a string")
    for key in ("fuse_unk", "byte_fallback", "ignore_merges"):
        options[key] = _optional(data, key, (bool,), False, reader, what, "true or false")
    dropout = _optional(data, "dropout", (int, float), None, reader, what, "a number from 0 to 1")
    if dropout is not None and not 0.0 <= dropout <= 1.0:
        reader.fail(what, f"'dropout' must be from 0 to 1, not {dropout!r}")
    try:
        return BPE(vocab, merges, dropout=dropout, **options)
    except BPEError as exc:
        reader.fail(what, str(exc))


HF_TYPES = {"BPE": _read_bpe}
