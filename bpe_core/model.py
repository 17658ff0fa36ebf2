"""The tokenizer: settings, merges and vocabulary, with encoding, decoding and the training trace.

`training.py` makes one from a corpus (`train`, `train_from_counts`); `formats/` reads one from a file.
"""
from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import chain, repeat

from .collector import collector_paused
from .decoding import decode_with_specials, ids_argument
from .encoder import (
    MergeStep,
    RankTable,
    encode_dropout,
    encode_ranked,
    merge_births,
    merge_steps,
    token_spans,
)
from .encoding import Encoding
from .pretokenize import (
    bytes_to_symbols,
    normalize,
    normalize_with_offsets,
    require_str,
    split_spans,
    split_words,
    symbols_to_bytes,
    word_symbols,
    words_to_symbols,
)
from .settings import UNK, BPEError, Settings
from .trainer import Merge, TrainResult

_CACHE_LIMIT = 200_000


class Tokenizer:
    """A BPE tokenizer: an ordered merge list (or tiktoken ranks) plus a vocabulary.

    Trained tokenizers derive their vocabulary from the merges: base symbols sorted by code point,
    then each new token in the order it was learned, then `<unk>` (word and text modes).

    One tokenizer may serve many threads at once (the explorer shares cl100k and the lessons'
    tokenizers between sessions). Nothing changes after construction except the encode caches,
    and those are never emptied in place: clearing one swaps in a new dictionary, so a call that
    holds the old one still finds every word it put there. Views derived on first use (`merges`
    of a rank file, `birth`, `children`, ...) are computed from data that never changes and
    assigned whole, so a thread sees either nothing yet or the finished value.
    """

    def __init__(
        self,
        *,
        settings: Settings,
        merges: Sequence[tuple[str, str]] | Callable[[], Sequence[tuple[str, str]]],
        base: Sequence[str] = (),
        vocab: dict[str, int] | None = None,
        concat_ranks: dict[str, int] | None = None,
        unk_token: str | None = UNK,
        training: TrainResult | None = None,
        source: str = "trained",
        special_texts: Callable[[], Mapping[int, str]] | None = None,
    ) -> None:
        self.settings = settings
        # A published tokenizer's special tokens (<|endoftext|>), outside its vocabulary: encoding never
        # makes them, but a text its model wrote holds their ids, and decoding gives their text.
        self._special_texts = special_texts
        # A rank file's merges are derived on first use: encoding never needs them.
        self._merges_from = merges
        self.training = training
        self.source = source
        if vocab is None:
            vocab = {}
            # A trained tokenizer reuses its trace's tokens: in text mode they can be long.
            if training is not None and len(training.trace) == len(self.merges):
                made: Iterable[str] = (m.token for m in training.trace)
            else:
                made = (a + b for a, b in self.merges)
            for token in chain(base, made):
                vocab.setdefault(token, len(vocab))
            if settings.has_unk and unk_token:
                vocab.setdefault(unk_token, len(vocab))
        self.vocab = vocab
        self.unk_token = unk_token if unk_token in vocab else None
        self.unk_id = vocab[self.unk_token] if self.unk_token is not None else None
        if concat_ranks is not None:
            self.table = RankTable(concat_ranks, concat=True)
        else:
            ranks: dict[tuple[str, str], int] = {}
            for rank, pair in enumerate(self.merges):
                ranks.setdefault(pair, rank)
            self.table = RankTable(ranks)
        self._cache: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {}
        self._ids: dict[str, tuple[int, ...]] = {}  # encode_ids' own view of the cache
        self._spans: dict[str, tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[int, int], ...]]] = {}

    @cached_property
    def merges(self) -> list[tuple[str, str]]:
        """The ordered merge list; a merge's rank is its index."""
        source = self._merges_from
        with collector_paused():  # a rank file's: 100,000s of pairs
            if callable(source):  # a rank file's deriver, which makes a list of pairs
                return list(source())
            return [(a, b) for a, b in source]

    # ---- vocabulary -------------------------------------------------------------------------

    @cached_property
    def id_to_token(self) -> dict[int, str]:
        return {i: t for t, i in self.vocab.items()}

    @cached_property
    def special_texts(self) -> Mapping[int, str]:
        """Ids outside the vocabulary that `decode` reads as text: a built-in's special tokens, looked
        up on first need ({} for the rest)."""
        return dict(self._special_texts()) if self._special_texts is not None else {}

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @cached_property
    def base(self) -> list[str]:
        """Tokens no merge produces: the alphabet the merges start from (not a rank file's `unreachable`)."""
        made, unreachable = self.birth, self.unreachable
        return [
            t for t in sorted(self.vocab, key=self.vocab.__getitem__)
            if t not in made and t != self.unk_token and t not in unreachable
        ]

    @cached_property
    def birth(self) -> dict[str, int]:
        """For each token a merge makes, the rank of the first merge that makes it.

        Merge rank k is step k + 1, for every tokenizer: a rank file's tokens are ranked by id, but
        its merges (and so `birth`, `encode_word(limit=k)` and `merge_steps`) count from 0 in order.
        """
        return merge_births(self.merges, self.vocab)

    @cached_property
    def unreachable(self) -> frozenset[str]:
        """A rank file's tokens that no merge builds: they have no birth step.

        tiktoken takes a piece of text that is itself a token whole, before any merge, so these
        still occur (Llama 3 has 678, such as " việc"); merging the piece's bytes never makes them.
        Empty for merge lists, whose tokens are their alphabet and what their merges make, and for
        rank tables outside bytes mode (only bytes mode takes a whole piece).
        """
        if not (self.table.concat and self.settings.mode == "bytes"):
            return frozenset()
        birth = self.birth  # a bytes-mode token is one symbol a byte: longer ones need a merge
        if len(self.vocab) == len(birth) + 256:  # every token but the bytes is made (cl100k, o200k)
            return frozenset()
        return frozenset(t for t in self.vocab if len(t) > 1 and t not in birth and t != self.unk_token)

    @cached_property
    def children(self) -> dict[str, list[tuple[str, int]]]:
        """For each token, (made token, rank) of every merge that takes it as a part, by rank."""
        merges = self.merges
        out: defaultdict[str, list[tuple[str, int]]] = defaultdict(list)  # no empty list made per merge
        with collector_paused():
            for rank, (left, right) in enumerate(merges):
                entry = (left + right, rank)
                out[left].append(entry)
                if right != left:
                    out[right].append(entry)
        return dict(out)

    def children_of(self, token: str) -> list[tuple[str, int]]:
        """`children[token]` (or []), without building `children` for one token of a large list."""
        if "children" in self.__dict__ or len(self.merges) < 10_000:
            return self.children.get(token, [])
        return [(a + b, rank) for rank, (a, b) in enumerate(self.merges) if a == token or b == token]

    # ---- encoding ---------------------------------------------------------------------------

    def initial_symbols(self, word: str) -> list[str]:
        """A normalized word's symbols before any merge."""
        require_str(word, what="the word")
        if self.settings.mode == "bytes":
            return list(bytes_to_symbols(word.encode("utf-8")))
        return word_symbols(word, self.settings)

    @cached_property
    def step_table(self) -> RankTable:
        """What may merge, ranked by merge step: the k-th merge of `merges` has rank k.

        A merge list's own table. A rank file's `table` ranks each token by its id, which is no
        step (cl100k's first merge makes token 256; Llama 3's ids skip tokens no merge builds), so
        this one ranks each token a merge builds by its birth. Both order merges alike, so they
        encode alike, but for tiktoken's whole-piece rule (see `unreachable`).
        """
        return RankTable(self.birth, concat=True) if self.table.concat else self.table

    def encode_word(self, word: str, *, limit: int | None = None) -> list[str]:
        """A normalized word's tokens; `limit` keeps only the first `limit` merges of `merges`.

        With no limit, a rank file's word that is itself a token is that token (tiktoken's rule),
        even one no merge builds; with a limit, the word is what that many merges make of it.
        """
        require_str(word, what="the word")
        if limit is None:
            return list(self._encode_cached(word)[0])
        return encode_ranked(self.initial_symbols(word), self.step_table, limit=limit)

    def _encode_cached(self, word: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
        cache = self._cache
        hit = cache.get(word)
        if hit is None:
            tokens = self._words_tokens([word])[0]
            hit = (tokens, self._ids_of(tokens))
            if len(cache) >= _CACHE_LIMIT:
                self._cache = cache = {}  # a new dictionary: other threads may be reading the old one
            cache[word] = hit
        return hit

    def _words_tokens(self, words: list[str]) -> list[tuple[str, ...]]:
        """Normalized words' tokens, not cached (bytes mode: their symbols made in one pass)."""
        table, settings = self.table, self.settings
        if settings.mode != "bytes":
            return [tuple(encode_ranked(word_symbols(word, settings), table)) for word in words]
        whole = self.vocab if table.concat else ()  # tiktoken's rule: a piece that is itself a token is that token
        return [(s,) if s in whole else tuple(encode_ranked(s, table)) for s in words_to_symbols(words)]

    def _ids_of(self, tokens: tuple[str, ...]) -> tuple[int, ...]:
        found = tuple(map(self.vocab.get, tokens, repeat(self.unk_id)))  # a token it lacks: the unknown token
        return found if None not in found else tuple(map(self._token_id, tokens))  # type: ignore[return-value]

    def _token_id(self, token: str) -> int:
        found = self.vocab.get(token)
        if found is not None:
            return found
        if self.unk_id is None:
            raise BPEError(f"{token!r} is not in this tokenizer's vocabulary and it has no unknown token")
        return self.unk_id

    def encode(self, text: str, *, limit: int | None = None) -> Encoding:
        """Tokens, ids and input spans. Characters never seen in training become `<unk>`."""
        require_str(text)
        _check_limit(limit)
        settings = self.settings
        norm, origin, ends = normalize_with_offsets(text, settings)
        same = isinstance(origin, range)  # nothing normalized: a span in `norm` is a span in `text`
        tokens: list[str] = []
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        unk = self.unk_id
        for start, end in split_spans(norm, settings):
            word = norm[start:end]
            if limit is None:
                word_tokens, word_ids, word_spans = self._encode_with_spans(word)
            else:
                word_tokens = tuple(self.encode_word(word, limit=limit))
                word_ids = tuple(self._token_id(t) for t in word_tokens)
                word_spans = self._spans_in(word, word_tokens)
            if unk is not None and unk in word_ids:
                word_tokens = tuple(t if i != unk else str(self.unk_token) for t, i in zip(word_tokens, word_ids))
            tokens += word_tokens
            ids += word_ids
            if same:
                spans += [(start + s, start + e) for s, e in word_spans]
            else:  # from the start of its first character's cluster to the end of its last one's
                spans += [(origin[start + s], ends[start + e - 1] if e > s else origin[start + s])
                          for s, e in word_spans]
        return Encoding(tokens, ids, spans, None if unk is None else [i == unk for i in ids])

    def _encode_with_spans(self, word: str) -> tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[int, int], ...]]:
        """A word's tokens, ids and each token's span in the word, cached as `_encode_cached` is."""
        cache = self._spans
        hit = cache.get(word)
        if hit is None:
            tokens, ids = self._encode_cached(word)
            hit = (tokens, ids, self._spans_in(word, tokens))
            if len(cache) >= _CACHE_LIMIT:
                self._spans = cache = {}  # a new dictionary: other threads may be reading the old one
            cache[word] = hit
        return hit

    def _spans_in(self, word: str, tokens: Sequence[str]) -> tuple[tuple[int, int], ...]:
        return token_spans(word, tokens, byte_level=self.settings.mode == "bytes", marker=self.settings.marker)

    def encode_tokens(self, text: str) -> list[str]:
        """Only the tokens of `text`."""
        return self.encode(text).tokens

    def token_bytes(self, token: str) -> bytes:
        """The bytes a token stands for in the middle of a text: a bytes-mode token's byte
        letters read, a word-mode token's end-of-word marker the space that ends its word (as
        `decode` writes it), any other token (a special one too) as its UTF-8."""
        marker = self.settings.marker
        if marker and token.endswith(marker) and token != self.unk_token:
            return token[: -len(marker)].encode("utf-8", "surrogatepass") + b" "
        if self.settings.mode == "bytes" and token and token != self.unk_token:
            try:
                return symbols_to_bytes(token)
            except BPEError:  # no byte symbols: a special token
                pass
        return token.encode("utf-8", "surrogatepass")

    def clear_cache(self) -> None:
        """Forget every word encoded so far (for timing a cold start, or to free memory); safe while other
        threads encode: the caches are replaced, not emptied under them."""
        self._cache = {}
        self._ids = {}
        self._spans = {}

    def encode_ids(self, text: str) -> list[int]:
        """Only the ids: the fast path for long texts."""
        require_str(text)
        words = split_words(normalize(text, self.settings), self.settings)
        ids = self._ids  # this call's view: whatever other threads do, no word leaves it
        try:  # text like the texts before it has every word cached: one pass in C, no set built
            return list(chain.from_iterable(map(ids.__getitem__, words)))
        except KeyError:
            pass
        distinct = set(words)
        missing = distinct.difference(ids)
        if len(ids) + len(missing) > _CACHE_LIMIT:  # a new dictionary (others may read the old one)
            # that keeps this text's known words: a full cache never drops what the text in hand needs
            self._ids = ids = {word: ids[word] for word in distinct.difference(missing)}
        news = list(missing)
        ids.update(zip(news, map(self._ids_of, self._words_tokens(news))))
        return list(chain.from_iterable(map(ids.__getitem__, words)))

    def count_unknown(self, text: str) -> int:
        """How many of `text`'s tokens are `<unk>` (`encode` flags a token by its id), from the ids."""
        ids = self.encode_ids(text)  # what `encode` refuses, this refuses too
        return ids.count(self.unk_id) if self.unk_id is not None else 0

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> text. Word mode restores single spaces between words; other modes are exact.

        `ids` is a sequence of whole numbers (Python or NumPy ints; not floats, not bools).
        """
        ids = ids_argument(ids)
        id_to_token = self.id_to_token
        try:
            tokens = [id_to_token[i] for i in ids]
        except KeyError as exc:
            specials = self.special_texts
            if specials and all(i in id_to_token or i in specials for i in ids):
                return decode_with_specials(ids, id_to_token, specials, byte_level=self.settings.mode == "bytes",
                                            decode_tokens=self.decode_tokens)
            also = f"; its special tokens' from {min(specials):,} to {max(specials):,}" if specials else ""
            raise BPEError(
                f"token id {exc.args[0]} is not in this tokenizer's vocabulary "
                f"(ids run from 0 to {len(id_to_token) - 1:,}{also})"
            ) from None
        return self.decode_tokens(tokens)

    def decode_tokens(self, tokens: Sequence[str]) -> str:
        settings = self.settings
        if settings.mode == "bytes":
            return symbols_to_bytes("".join(tokens)).decode("utf-8", errors="replace")
        marker = settings.marker
        if not marker:
            return "".join(tokens)
        # Only a token's final marker ends a word: a literal "</w>" inside a word stays text.
        cut = len(marker)
        text = "".join(t[:-cut] + " " if t.endswith(marker) else t for t in tokens)
        return text[:-1] if text.endswith(" ") else text

    # ---- for the explorer -------------------------------------------------------------------

    def merge_steps(self, word: str, *, limit: int | None = None) -> list[MergeStep]:
        """The merges that fire on a normalized word, in order, with the pieces after each. Each step's
        `rank` is the merge's index in `merges` (the `birth` of the token it makes, for a rank file);
        `limit` keeps the first `limit` merges, as in `encode_word`."""
        return merge_steps(self.initial_symbols(word), self.step_table, limit=limit)

    def dropout(self, word: str, *, p: float, seed: int = 0, samples: int = 1) -> list[list[str]]:
        """`samples` BPE-dropout segmentations of a normalized word, reproducible from `seed`."""
        rng = random.Random(seed)
        symbols = self.initial_symbols(word)
        return [encode_dropout(symbols, self.table, p=p, rng=rng) for _ in range(samples)]

    def words_of(self, text: str) -> list[str]:
        """The normalized words of a text, as this tokenizer splits it."""
        norm = normalize(require_str(text), self.settings)
        return [norm[s:e] for s, e in split_spans(norm, self.settings)]

    @property
    def trace(self) -> list[Merge]:
        return self.training.trace if self.training else []

    def top_pairs_at(self, step: int) -> list[tuple[str, str, int]]:
        """The highest pair counts just before merge `step` (0-based), best first."""
        if not self.training or not 0 <= step < len(self.training.top_pairs):
            return []
        return self.training.top_pairs[step]


def _check_limit(limit: object) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise BPEError(f"limit must be a whole number of merges, 0 or more, or None; not {limit!r}")
