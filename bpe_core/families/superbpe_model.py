"""The SuperBPE model: one ranked merge list over bytes, encoded piece by piece of the phase-two
split; our JSON and a `tokenizer.json` that `tokenizers` encodes identically.

A `SuperBPEModel` keeps a plain bytes-mode `Tokenizer` (`.tokenizer`) over the same merges: its
vocabulary, merge trees, births and children are the explorer's as for any BPE tokenizer; only
the split into pieces differs, so encode text with this class, not with `.tokenizer.encode`.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import cached_property
from itertools import chain
from typing import Any

from ..encoder import encode_ranked
from ..json_limits import load_json
from ..model import Encoding, Tokenizer
from ..parts.bpe_merge import model_json
from ..pretokenize import byte_to_char, bytes_to_symbols, require_str, symbols_to_bytes
from ..settings import TIE_BREAKS, BPEError, Settings
from .superbpe import MAX_WORDS, STAGE2_PATTERN, check_symbols, is_superword, phase_two_spans, word_cut
from .superbpe_trainer import SuperBPEStep, SuperBPETraining

FORMAT = "bpe-explorer"
MODEL = "superbpe"
VERSION = 1
_CACHE_LIMIT = 200_000


class SuperBPEModel:
    """A trained (or loaded) SuperBPE tokenizer: `merges` ranked in order, the first `transition`
    of them learned in phase one.

    >>> from bpe_core.families import train_superbpe
    >>> model = train_superbpe(["of the cat, of the dog, of the end"] * 3, vocab_size=275, transition=265)
    >>> model.encode("of the cat").tokens
    ['of', 'ĠtheĠcat']
    >>> [step for step in model.steps if step[5]][:1]  # (rank, left, right, token, phase, superword)
    [(9, 'Ġof', 'Ġthe', 'ĠofĠthe', 2, True)]
    >>> model.decode(model.encode_ids("of the dog")) == "of the dog"
    True
    """

    def __init__(
        self,
        *,
        merges: Sequence[tuple[str, str]],
        transition: int,
        tie_break: str = "count-pair",
        pretokenizer: str = "superbpe",
        max_words: int | None = MAX_WORDS,
        colon_rule: bool = True,
        training: SuperBPETraining | None = None,
    ) -> None:
        self.merges = [(a, b) for a, b in merges]
        self.transition = transition
        self.pretokenizer = pretokenizer
        self.max_words = max_words
        self.colon_rule = colon_rule
        self.training = training
        base = sorted(byte_to_char())
        self.tokenizer = Tokenizer(
            settings=Settings(mode="bytes", pretokenizer="none", tie_break=tie_break),
            merges=self.merges,
            base=base,
            training=None,
        )
        self.vocab: dict[str, int] = self.tokenizer.vocab
        self._cache: dict[str, tuple[tuple[str, ...], tuple[int, ...]]] = {}
        self._words: dict[str, list[str]] = {}  # phase one's tokens of each word of the pieces

    # ---- what training made ---------------------------------------------------------------

    @property
    def trace(self) -> list[SuperBPEStep]:
        """Every merge with its count (empty for a loaded model: see `steps`)."""
        return self.training.trace if self.training else []

    @cached_property
    def steps(self) -> list[tuple[int, str, str, str, int, bool]]:
        """(rank, left, right, token, phase, superword) of every merge, trained or loaded."""
        return [
            (rank, a, b, a + b, 1 if rank < self.transition else 2, is_superword(a + b))
            for rank, (a, b) in enumerate(self.merges)
        ]

    @cached_property
    def superwords(self) -> list[str]:
        """The vocabulary's superword tokens, in id order."""
        return [t for t in sorted(self.vocab, key=self.vocab.__getitem__) if is_superword(t)]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    # ---- encoding ---------------------------------------------------------------------------

    @cached_property
    def _phase_one_cut(self) -> re.Pattern[str] | None:
        """`word_cut` of the phase-one tokens, or None when some token is made by two merges."""
        made = [a + b for a, b in self.merges]
        return word_cut(made[: self.transition]) if len(set(made)) == len(made) else None

    def _piece(self, piece: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
        hit = self._cache.get(piece)
        if hit is None:
            tokens = self._encode_piece(bytes_to_symbols(piece.encode("utf-8")))
            vocab = self.vocab
            hit = (tokens, tuple(vocab[t] for t in tokens))
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache = {}  # a new dictionary: another thread may hold the old one
            self._cache[piece] = hit
        return hit

    def _encode_piece(self, symbols: str) -> tuple[str, ...]:
        """Merge by rank, as `tokenizers` does. When no token is made twice, merging by rank
        applies the merges in rank order, so phase one's merges can go first, on the words the
        piece is cut into (each word once: they repeat, the phrases seldom do), then the rest."""
        table = self.tokenizer.table
        cut = self._phase_one_cut
        if cut is None:
            return tuple(encode_ranked(symbols, table))
        words = self._words
        done: list[str] = []
        for part in cut.split(symbols):
            found = words.get(part)
            if found is None:
                found = encode_ranked(part, table, limit=self.transition)
                if len(words) >= _CACHE_LIMIT:
                    self._words = words = {}
                words[part] = found
            done.extend(found)
        return tuple(encode_ranked(done, table))

    def encode(self, text: str) -> Encoding:
        """The tokens of a text (byte symbols, as GPT-2 spells bytes) with ids and spans; every
        byte is in the vocabulary, so none is unknown."""
        spans = self.encode_with_spans(text)
        vocab = self.vocab
        return Encoding([t for t, _, _ in spans], [vocab[t] for t, _, _ in spans], [(s, e) for _, s, e in spans],
                        [False] * len(spans))

    def encode_tokens(self, text: str) -> list[str]:
        """Only the tokens of a text."""
        require_str(text)
        return list(chain.from_iterable(self._piece(text[s:e])[0] for s, e in phase_two_spans(text)))

    unk_token = None  # byte level: nothing is unknown

    def count_unknown(self, text: str) -> int:
        """Nothing is unknown at byte level (what `encode` refuses, this refuses too)."""
        self.encode_ids(text)
        return 0

    def token_bytes(self, token: str) -> bytes:
        """The bytes a token's byte symbols stand for."""
        return symbols_to_bytes(token)

    def encode_ids(self, text: str) -> list[int]:
        """The token ids of a text."""
        require_str(text)
        return list(chain.from_iterable(self._piece(text[s:e])[1] for s, e in phase_two_spans(text)))

    def encode_with_spans(self, text: str) -> list[tuple[str, int, int]]:
        """(token, start, end) with character spans in the text; a token holding part of a
        character's bytes spans that whole character.

        >>> from bpe_core.families import train_superbpe
        >>> train_superbpe("aé aé aé", vocab_size=256, transition=256).encode_with_spans("é")
        [('Ã', 0, 1), ('©', 0, 1)]
        """
        require_str(text)
        out: list[tuple[str, int, int]] = []
        for start, end in phase_two_spans(text):
            piece = text[start:end]
            char_at: list[int] = []
            for i, ch in enumerate(piece):
                char_at.extend([start + i] * len(ch.encode("utf-8")))
            pos = 0
            for token in self._piece(piece)[0]:
                n = len(token)
                out.append((token, char_at[pos], char_at[pos + n - 1] + 1))
                pos += n
        return out

    def decode(self, ids: Iterable[int]) -> str:
        """Ids -> text (exact for whole characters; a cut character's bytes become U+FFFD)."""
        return self.tokenizer.decode(ids)

    # ---- files ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Our JSON: the merges (byte symbols), the transition and the phase-two rules."""
        return {
            "format": FORMAT,
            "model": MODEL,
            "version": VERSION,
            "tie_break": self.tokenizer.settings.tie_break,
            "pretokenizer": self.pretokenizer,
            "phase_two_split": STAGE2_PATTERN,
            "max_words": self.max_words,
            "colon_rule": self.colon_rule,
            "transition": self.transition,
            "merges": [[a, b] for a, b in self.merges],
        }

    def to_json(self) -> str:
        from ..formats._common import dump_json  # a late import: the formats import the families

        return dump_json(self.to_dict()) + "\n"

    @classmethod
    def from_dict(cls, data: object) -> SuperBPEModel:
        """A model from our JSON; anything malformed is a one-line BPEError."""
        return _from_dict(data)

    @classmethod
    def from_json(cls, text: str) -> SuperBPEModel:
        try:
            data = load_json(text, where="the SuperBPE model")
        except (json.JSONDecodeError, TypeError) as exc:
            raise BPEError(f"not a SuperBPE JSON file: {str(exc).splitlines()[0]}") from None
        return _from_dict(data)

    def to_hf_dict(self) -> dict[str, Any]:
        """A `tokenizer.json` (byte-level BPE after the authors' phase-two `Split`) that
        `tokenizers` loads and that encodes every text to our tokens and ids."""
        vocab = dict(sorted(self.vocab.items(), key=lambda item: item[1]))
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
        split = {"type": "Split", "pattern": {"Regex": STAGE2_PATTERN}, "behavior": "Isolated", "invert": False}
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": None,
            "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split, byte_level]},
            "post_processor": None,
            "decoder": {**byte_level, "use_regex": True},
            "model": model_json(vocab, self.merges),
        }


def _from_dict(data: object) -> SuperBPEModel:
    def fail(message: str) -> BPEError:
        return BPEError(f"not a SuperBPE JSON file: {message}")

    if not isinstance(data, dict):
        raise fail(f"expected a JSON object, found {type(data).__name__}")
    if data.get("format") != FORMAT or data.get("model") != MODEL:
        raise fail(f'"format" must be {FORMAT!r} and "model" {MODEL!r}')
    if data.get("version") != VERSION:
        raise fail(f"version {data.get('version')!r} is not {VERSION}")
    raw = data.get("merges")
    if not isinstance(raw, list):
        raise fail('"merges" must be a list of [left, right] pairs')
    known = set(byte_to_char())
    merges: list[tuple[str, str]] = []
    for n, pair in enumerate(raw, 1):
        if not (isinstance(pair, list) and len(pair) == 2):
            raise fail(f"merge {n:,} is not a [left, right] pair: {pair!r}"[:200])
        try:
            left, right = (check_symbols(part, f"merge {n:,}'s part") for part in pair)
        except BPEError as exc:
            raise fail(str(exc)) from None
        for part in (left, right):
            if part not in known:
                raise fail(f"merge {n:,} uses {part!r}, which no earlier merge makes")
        known.add(left + right)
        merges.append((left, right))
    transition = data.get("transition")
    if isinstance(transition, bool) or not isinstance(transition, int) or not 0 <= transition <= len(merges):
        raise fail(f'"transition" must be a whole number from 0 to {len(merges):,}, not {transition!r}')
    tie_break = data.get("tie_break", "count-pair")
    if tie_break not in TIE_BREAKS:
        raise fail(f'"tie_break" must be one of {", ".join(TIE_BREAKS)}, not {tie_break!r}')
    max_words = data.get("max_words", MAX_WORDS)
    if max_words is not None and (isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1):
        raise fail(f'"max_words" must be a whole number of 1 or more, or null, not {max_words!r}')
    colon_rule = data.get("colon_rule", True)
    if not isinstance(colon_rule, bool):
        raise fail(f'"colon_rule" must be true or false, not {colon_rule!r}')
    pretokenizer = data.get("pretokenizer", "superbpe")
    if not isinstance(pretokenizer, str):
        raise fail(f'"pretokenizer" must be a name, not {pretokenizer!r}')
    if data.get("phase_two_split", STAGE2_PATTERN) != STAGE2_PATTERN:
        raise fail('"phase_two_split" is not the SuperBPE split this version encodes with')
    return SuperBPEModel(
        merges=merges, transition=transition, tie_break=tie_break, pretokenizer=pretokenizer,
        max_words=max_words, colon_rule=colon_rule,
    )
