"""Our JSON for the families beside BPE: `{"format": "bpe-explorer", "model": "wordpiece" | "unigram" |
"superbpe", ...}`, read by each family's own `from_dict` (see `bpe_core/families/`).

A BPE tokenizer's file has no "model" key (or "model": "bpe"); `detect.load_model` reads either,
`detect.load_any` only BPE (its callers need a `Tokenizer`) and names a family file for what it is.
"""
from __future__ import annotations

import os
from typing import Any

from ..families import SuperBPEModel, UnigramModel, WordPieceModel
from ..settings import BPEError
from ._common import dump_json, write_text

FamilyModel = WordPieceModel | UnigramModel | SuperBPEModel
# "model" value -> (the name people read, the class)
FAMILY_MODELS: dict[str, tuple[str, type[WordPieceModel] | type[UnigramModel] | type[SuperBPEModel]]] = {
    "wordpiece": ("WordPiece", WordPieceModel),
    "unigram": ("Unigram", UnigramModel),
    "superbpe": ("SuperBPE", SuperBPEModel),
}


def family_of(data: Any) -> str | None:
    """The family named by a parsed JSON file of ours ("wordpiece", ...), or None for BPE."""
    model = data.get("model") if isinstance(data, dict) else None
    return model if isinstance(model, str) and model in FAMILY_MODELS else None


def family_name(model: object) -> str:
    """"WordPiece", "Unigram" or "SuperBPE" for a family model's object."""
    for name, cls in FAMILY_MODELS.values():
        if isinstance(model, cls):
            return name
    return "BPE"


def family_from_dict(data: Any, *, name: str) -> FamilyModel:
    """A family model from our parsed JSON; a malformed file is a one-line BPEError naming it."""
    family = family_of(data)
    if family is None:
        raise BPEError(f"{name} is not a WordPiece, Unigram or SuperBPE model file")
    try:
        return FAMILY_MODELS[family][1].from_dict(data)
    except BPEError as exc:
        raise BPEError(f"{name}: {str(exc).splitlines()[0] if str(exc) else 'malformed'}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # The families' readers check their files; this keeps any case they missed to one line.
        raise BPEError(f"{name}: malformed {FAMILY_MODELS[family][0]} model file ({type(exc).__name__})") from None


def save_family(model: FamilyModel, path: str | os.PathLike[str]) -> None:
    """Write a family model as our JSON; an unwritable path is a BPEError."""
    write_text(path, dump_json(model.to_dict()) + "\n")


def save_family_hf(model: FamilyModel, path: str | os.PathLike[str]) -> None:
    """Write a family model's `tokenizer.json` (WordPiece, Unigram or byte-level BPE)."""
    write_text(path, dump_json(model.to_hf_dict()) + "\n")
