"""A tokenizer of any family behind one face, wherever it came from. Pure: no Streamlit here.

`family_view` reads the sidebar's `Trained` bundle; the Compare, Unseen words, Vocabulary and
Import/export pages also hold tokenizers that are no bundle (an imported file, a built-in), so
`AnyModel` wraps either: a BPE `Tokenizer`, or a WordPiece, Unigram or SuperBPE model (SuperBPE
keeps its merge view, a bytes-mode `Tokenizer`, beside it for merge trees and ranks). Segments
are `family_view.Piece`s, so a page draws every family's tokens the same way.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from bpe_core import BPEError, Tokenizer
from bpe_core.families import SuperBPEModel, UnigramModel, WordPieceModel
from bpe_core.families.superbpe import is_superword
from bpe_core.model import Encoding
from explorer.data.family_view import FAMILY_TITLES, Piece, family_of, token_surface

FamilyModel = WordPieceModel | UnigramModel | SuperBPEModel
_CLASSES: dict[type, str] = {WordPieceModel: "wordpiece", UnigramModel: "unigram", SuperBPEModel: "superbpe"}


def family_of_model(obj: object) -> str:
    """"bpe", "wordpiece", "unigram" or "superbpe" for a loaded model object."""
    if isinstance(obj, Tokenizer):
        return "bpe"
    for cls, family in _CLASSES.items():
        if isinstance(obj, cls):
            return family
    raise BPEError(f"not a tokenizer of a known family: {type(obj).__name__}")


@dataclass(frozen=True, eq=False)
class AnyModel:
    """One tokenizer of any family: `tokenizer` (BPE; SuperBPE's merge view) and/or `model`."""

    family: str
    tokenizer: Tokenizer | None
    model: Any = None  # WordPieceModel | UnigramModel | SuperBPEModel, None for BPE

    @classmethod
    def of(cls, obj: object) -> AnyModel:
        """Wrap a loaded object: a `Tokenizer` or a family model."""
        family = family_of_model(obj)
        if family == "bpe":
            assert isinstance(obj, Tokenizer)
            return cls("bpe", obj)
        return cls(family, obj.tokenizer if isinstance(obj, SuperBPEModel) else None, obj)

    @classmethod
    def of_trained(cls, trained: Any) -> AnyModel:
        """Wrap a `Trained` bundle of any family (one from before families existed is BPE)."""
        family = family_of(trained)
        if family == "bpe":
            return cls("bpe", trained.tokenizer)
        model = getattr(trained, "model", None)
        if model is None:
            raise BPEError(f"this {FAMILY_TITLES[family]} training has no model")
        return cls.of(model)

    # ---- what it is -------------------------------------------------------------------------

    @property
    def title(self) -> str:
        return FAMILY_TITLES[self.family]

    @property
    def merge_based(self) -> bool:
        """Ranked merges with merge trees (BPE and SuperBPE)."""
        return self.tokenizer is not None

    @property
    def byte_level(self) -> bool:
        """Tokens of GPT-2's byte symbols ("Ġ" for a space)."""
        return self.tokenizer is not None and self.tokenizer.settings.mode == "bytes"

    @property
    def vocab(self) -> dict[str, int]:
        return self.tokenizer.vocab if self.model is None else self.model.vocab

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def merge_count(self) -> int | None:
        """Merges in the model (None for WordPiece's training steps and Unigram: no ranked merges)."""
        return len(self.tokenizer.merges) if self.tokenizer is not None else None

    @property
    def unk_token(self) -> str | None:
        if self.model is None:
            return self.tokenizer.unk_token
        return getattr(self.model, "unk_token", None)

    @cached_property
    def birth(self) -> dict[str, int]:
        """Token -> the 0-based step that made it: a merge's rank (BPE, SuperBPE), a WordPiece
        training step that added a token; empty for Unigram and for a loaded model without trace."""
        if self.tokenizer is not None:
            return self.tokenizer.birth
        if self.family == "wordpiece":
            return {step.token: step.step - 1 for step in self.model.trace if step.added}
        return {}

    # ---- encoding ---------------------------------------------------------------------------

    def segment(self, text: str) -> list[Piece]:
        """`text` as this tokenizer encodes it, with character spans (as `family_view.segment`)."""
        if self.model is None:
            tok = self.tokenizer
            encoding = tok.encode(text)
            unk = tok.unk_id
            return [Piece(t, i, s, e, unk is not None and i == unk, False)
                    for t, i, (s, e) in zip(encoding.tokens, encoding.ids, encoding.spans)]
        model, vocab = self.model, self.model.vocab
        out: list[Piece] = []
        for token, start, end in model.encode_with_spans(text):
            token_id = vocab.get(token)
            if self.family == "wordpiece":
                out.append(Piece(token, token_id, start, end, token == model.unk_token, False))
            elif self.family == "unigram":
                unknown = token_id is None or token_id == model.unk_id
                out.append(Piece(token, model.unk_id if token_id is None else token_id, start, end, unknown, False))
            else:
                out.append(Piece(token, token_id, start, end, False, is_superword(token)))
        return out

    def encoding(self, text: str) -> Encoding:
        """`segment` as the engine's `Encoding` (tokens, ids, spans), for `compare_segmentations`."""
        return pieces_encoding(self.segment(text))

    def encode_ids(self, text: str) -> list[int]:
        return self.tokenizer.encode(text).ids if self.model is None else self.model.encode_ids(text)

    def encode_tokens(self, text: str) -> list[str]:
        return self.tokenizer.encode(text).tokens if self.model is None else self.model.encode(text)

    # ---- tokens -----------------------------------------------------------------------------

    def surface(self, token: str) -> str:
        """The text a token stands for, the family's markers read (`family_view.token_surface`)."""
        return token_surface(self.family, token, byte_level=self.byte_level if self.family == "bpe" else None)

    def overlap_key(self, token: str) -> str:
        """A token compared across families: its text without a word-start space or end-of-word marker.

        >>> AnyModel.of(WordPieceModel(["[UNK]", "low", "##er"])).overlap_key("##er")
        'er'
        """
        text = self.surface(token)
        return text[1:] if text.startswith(" ") and len(text) > 1 else text

    def is_continuation(self, token: str) -> bool:
        """A WordPiece piece that continues a word ("##ing")."""
        prefix = self.model.prefix if self.family == "wordpiece" else None
        return prefix is not None and token.startswith(prefix) and len(token) > len(prefix)

    def is_superword(self, token: str) -> bool:
        return self.family == "superbpe" and is_superword(token)


def pieces_encoding(pieces: Sequence[Piece]) -> Encoding:
    """Pieces as the engine's `Encoding` (an id the vocabulary lacks is -1)."""
    return Encoding([p.token for p in pieces], [-1 if p.token_id is None else p.token_id for p in pieces],
                    [(p.start, p.end) for p in pieces])


def overlap_keys(model: AnyModel) -> frozenset[str]:
    """The distinct `overlap_key`s of a vocabulary, its unknown token left out."""
    unk = model.unk_token
    return frozenset(model.overlap_key(t) for t in model.vocab if t != unk)
