"""Unigram (SentencePiece's model): training (`train_unigram`) and the model (`UnigramModel`).

Text -> words: the meta-space rule of `unigram_text` (a space becomes "▁", which starts each
word). Training: seed pieces, EM and pruning by likelihood loss (`unigram_train`); the slow
reference beside it is `unigram_reference`. Encoding: Viterbi, exactly as `tokenizers`' Unigram
model (`unigram_model`), plus the n best segmentations and sampling for subword regularisation.

>>> model = train_unigram(["low lower newest widest " * 5], vocab_size=20)
>>> model.encode("lowest").tokens
['▁low', 'e', 's', 't']
>>> [pieces for pieces, log_p, p in model.nbest("lowest", 2)]
[['▁low', 'e', 's', 't'], ['▁', 'l', 'o', 'we', 's', 't']]
>>> model.decode(model.encode_ids("low newest"))
'low newest'
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..json_limits import load_json
from ..pretokenize import require_str, type_name
from ..settings import BPEError
from .unigram_model import UnigramModel
from .unigram_text import count_words
from .unigram_train import UnigramRound, train_pieces

__all__ = [
    "UnigramModel", "UnigramRound", "dumps", "loads", "train_unigram", "train_unigram_from_counts", "word_counts",
]

MAX_VOCAB_SIZE = 1_000_000


def train_unigram(texts: Iterable[str], *, vocab_size: int, unk_token: str = "<unk>", **options: Any) -> UnigramModel:
    """Train on texts (each pre-tokenized on its own); options as `train_unigram_from_counts`."""
    if isinstance(texts, (str, bytes)):
        raise BPEError("texts must be a list of strings, not one string")
    try:
        items = list(texts)
    except TypeError:
        raise BPEError(f"texts must be a list of strings, not {type_name(texts)}") from None
    for i, text in enumerate(items):
        require_str(text, what=f"text {i}")
    _check_unk(unk_token)
    return train_unigram_from_counts(count_words(items, unk_token), vocab_size=vocab_size, unk_token=unk_token,
                                     **options)


def train_unigram_from_counts(word_counts: Mapping[str, int], *, vocab_size: int, unk_token: str = "<unk>",
                              max_piece_length: int = 16, seed_size: int = 1_000_000,
                              shrinking_factor: float = 0.75, sub_iterations: int = 2,
                              on_round: Callable[[UnigramRound, Mapping[str, float]], None] | None = None,
                              ) -> UnigramModel:
    """Train on word counts (words already in meta-space form, "▁low"), in their order.

    ``vocab_size`` counts the unknown token; the result may be smaller when the seed is.
    """
    _check_int("vocab size", vocab_size, 2, MAX_VOCAB_SIZE)
    _check_int("maximum piece length", max_piece_length, 1, 1000)
    _check_int("seed size", seed_size, 1, 100_000_000)
    _check_int("sub-iterations", sub_iterations, 1, 100)
    if isinstance(shrinking_factor, bool) or not isinstance(shrinking_factor, (int, float)) \
            or not 0 < shrinking_factor < 1:
        raise BPEError(f"the shrinking factor must be a number between 0 and 1, not {shrinking_factor!r}")
    _check_unk(unk_token)
    if not isinstance(word_counts, Mapping):
        raise BPEError(f"word counts must be a mapping of word to count, not {type_name(word_counts)}")
    words, counts = [], []
    for word, count in word_counts.items():
        require_str(word, what="a word")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise BPEError(f"the count of word {word!r:.40} must be a whole number of at least 0, not {count!r}")
        if word and count:
            words.append(word)
            counts.append(count)
    if not words:
        raise BPEError("the corpus has no words to train on")
    pieces, trace = train_pieces(words, counts, vocab_size=vocab_size, max_piece_length=max_piece_length,
                                 seed_size=seed_size, shrinking_factor=float(shrinking_factor),
                                 sub_iterations=sub_iterations, on_round=on_round)
    vocab = [(unk_token, 0.0)] + [(p, s) for p, s in pieces if p != unk_token]
    return UnigramModel(vocab, unk_token=unk_token, trace=trace)


def word_counts(texts: Iterable[str], *, unk_token: str = "<unk>") -> Counter[str]:
    """The meta-space word counts `train_unigram` trains on (for counting apart from training)."""
    return count_words(texts, unk_token)


def dumps(model: UnigramModel) -> str:
    """Our JSON as text."""
    from ..formats._common import dump_json  # a late import: the formats import the families

    return dump_json(model.to_dict())


def loads(text: str) -> UnigramModel:
    """A model from our JSON text; a one-line BPEError when it is not valid JSON or malformed."""
    try:
        data = load_json(text, where="the Unigram model")
    except (TypeError, json.JSONDecodeError) as exc:
        raise BPEError(f"not valid JSON: {str(exc).splitlines()[0][:100]}") from None
    return UnigramModel.from_dict(data)


def _check_int(what: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BPEError(f"the {what} must be a whole number from {low:,} to {high:,}, not {value!r:.40}")


def _check_unk(unk_token: object) -> None:
    if not isinstance(unk_token, str) or not unk_token or unk_token.isspace():
        raise BPEError(f"the unknown token must be a non-empty string, not {unk_token!r:.40}")
