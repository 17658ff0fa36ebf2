"""The WordLevel model, as Hugging Face `tokenizers` defines it: a piece is its token, or the unknown token.

Also the reading of a vocabulary object (token -> id), which other models' readers share.

>>> model = WordLevel({"hi": 0, "there": 1, "<unk>": 2}, unk_token="<unk>")
>>> model.tokenize("hi"), model.tokenize("you")
([('hi', 0, 0, 2)], [('<unk>', 2, 0, 3)])
"""
from __future__ import annotations

from typing import Any

from ..pretokenize import type_name
from ..settings import BPEError
from .base import PartReader, PieceToken
from .part_fields import text

MAX_ID = 2**32 - 1  # ids are u32 in `tokenizers`


class WordLevel:
    """A vocabulary of whole pieces: a piece is its token, or `unk_token` when it is not one.

    `unk_token=None` means no unknown token: a piece outside the vocabulary is an error, as in
    `tokenizers` when its `unk_token` is not in the vocabulary.
    """

    kind = "WordLevel"

    def __init__(self, vocab: dict[str, int], *, unk_token: str | None = None) -> None:
        self.vocab = check_vocab(vocab)
        if unk_token is not None and not isinstance(unk_token, str):
            raise BPEError(f"the unknown token must be a string or None, not {type_name(unk_token)}")
        self.unk_token = unk_token
        self.unk_id = self.vocab.get(unk_token) if unk_token is not None else None

    def __repr__(self) -> str:
        return f"WordLevel({len(self.vocab):,} tokens, unk_token={self.unk_token!r})"

    def clear_cache(self) -> None:
        """Nothing to forget: a piece is one dictionary lookup."""

    def tokenize(self, piece: str) -> list[PieceToken]:
        """The piece as one token (an empty piece too: `tokenizers` looks "" up like any other)."""
        found = self.vocab.get(piece)
        if found is not None:
            return [(piece, found, 0, len(piece))]
        if self.unk_id is None:
            raise BPEError(
                f"{piece[:40]!r} is not in this WordLevel vocabulary and it has no unknown token "
                f"({self.unk_token!r} is not in the vocabulary)"
                if self.unk_token is not None
                else f"{piece[:40]!r} is not in this WordLevel vocabulary and it has no unknown token"
            )
        return [(self.unk_token, self.unk_id, 0, len(piece))]  # type: ignore[list-item]

    def to_hf(self) -> dict[str, Any]:
        # `tokenizers` requires a string: without an unknown token, name one the vocabulary lacks.
        unk = self.unk_token
        if unk is None:
            unk = "<unk>"
            while unk in self.vocab:
                unk = f"<{unk}>"
        return {"type": "WordLevel", "vocab": vocab_in_id_order(self.vocab), "unk_token": unk}


def check_vocab(vocab: object) -> dict[str, int]:
    """A copy of `vocab` after checking it maps strings to ids from 0 to 2**32 - 1."""
    if not isinstance(vocab, dict):
        raise BPEError(f"the vocabulary must be a dict of token -> id, not {type_name(vocab)}")
    # Whole-dictionary checks first (vocabularies have 100,000s of tokens); the slow loop only
    # runs to name what is wrong.
    ids = vocab.values()
    if set(map(type, vocab)) <= {str} and set(map(type, ids)) <= {int} and (
        not vocab or (min(ids) >= 0 and max(ids) <= MAX_ID)
    ):
        return dict(vocab)
    for token, token_id in vocab.items():
        if not isinstance(token, str):
            raise BPEError(f"every token of the vocabulary must be a string, not {type_name(token)}")
        if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id <= MAX_ID:
            raise BPEError(f"token {token[:40]!r} has id {token_id!r}: ids are whole numbers from 0 to {MAX_ID:,}")
    return dict(vocab)  # str and int subclasses


def vocab_in_id_order(vocab: dict[str, int]) -> dict[str, int]:
    """The vocabulary ordered by id, as `tokenizers` writes it (every token kept, even one sharing an id)."""
    return dict(sorted(vocab.items(), key=lambda item: item[1]))


def read_vocab(data: dict[str, Any], reader: PartReader, what: str) -> dict[str, int]:
    """The required "vocab" object of a model: token -> id."""
    if "vocab" not in data:
        reader.fail(what, "has no 'vocab'")
    try:
        return check_vocab(data["vocab"])
    except BPEError as exc:
        reader.fail(what, f"'vocab': {exc}")


def _read_wordlevel(data: dict[str, Any], reader: PartReader) -> WordLevel:
    what = "model WordLevel"
    vocab = read_vocab(data, reader, what)
    return WordLevel(vocab, unk_token=text(data, "unk_token", None, reader, what))


HF_TYPES = {"WordLevel": _read_wordlevel}
