"""The engine's settings as named presets, each a pipeline of parts.

A `Settings` record (mode, end of word, pre-tokenizer, lowercase, normalization) is one way of
building a tokenizer of parts: its normalizer, its pre-tokenizer and its decoder are parts
(`formats.huggingface.settings_parts` writes them as `tokenizer.json` does, `parts.hf_parts`
reads them), and its merges make a BPE model part. `PRESETS` names the ones the lessons and the
app use; `as_parts` turns any trained BPE `Tokenizer` into its pipeline, with the same tokens,
ids and spans (the lessons' separate `</w>` is a symbol of the BPE part of its own).

>>> from bpe_core import train
>>> tok = train("low low lower newest widest", preset("lesson").settings, merges=5)
>>> parts = as_parts(tok)
>>> parts.encode("lowest").tokens == tok.encode("lowest").tokens == ['low', 'e', 'st</w>']
True
>>> [stage for stage, _ in describe(parts)]
['pre-tokenizer', 'model', 'decoder']
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .formats.huggingface import settings_parts
from .model import Tokenizer
from .parts.bpe import BPE
from .parts.hf_parts import Reader
from .parts.pipeline import PartsTokenizer
from .parts.ranks import Ranks
from .settings import EOW, BPEError, Settings


@dataclass(frozen=True)
class Preset:
    """A named `Settings`: `title` and `about` say what it does, in words."""

    name: str
    title: str
    settings: Settings
    about: str


PRESETS: tuple[Preset, ...] = (
    Preset("lesson", "The lessons' word mode", Settings(mode="word", eow="separate"),
           "words split on whitespace, each ending in a separate </w> symbol"),
    Preset("word-suffix", "Word mode, </w> glued on", Settings(mode="word", eow="suffix"),
           "words split on whitespace, the last character carrying </w> (subword-nmt, tokenizers)"),
    Preset("word", "Word mode, no marker", Settings(mode="word", eow="none"),
           "words split on whitespace, nothing marks a word's end"),
    Preset("text", "Text mode", Settings(mode="text"), "the whole text is one piece: merges may cross spaces"),
    Preset("gpt2", "GPT-2 bytes", Settings(mode="bytes", pretokenizer="gpt2"),
           "UTF-8 bytes, split with GPT-2's pattern"),
    Preset("gpt4", "GPT-4 bytes", Settings(mode="bytes", pretokenizer="gpt4"),
           "UTF-8 bytes, split with cl100k's pattern"),
    Preset("o200k", "GPT-4o bytes", Settings(mode="bytes", pretokenizer="o200k"),
           "UTF-8 bytes, split with o200k's pattern"),
)


def preset(name: str) -> Preset:
    """The preset called `name`; a one-line BPEError for one that is none."""
    for one in PRESETS:
        if one.name == name:
            return one
    raise BPEError(f"unknown preset {name!r}; choose one of {', '.join(p.name for p in PRESETS)}")


def as_parts(tok: Tokenizer) -> PartsTokenizer:
    """`tok` as a tokenizer of parts: its settings' parts around a BPE model of its merges (a rank
    table's ranks for a tiktoken-style tokenizer), encoding exactly as `tok` does."""
    settings = tok.settings
    reader = Reader(f"the {settings.mode}-mode settings")
    steps = settings_parts(settings)
    if tok.table.concat:
        model: Any = Ranks(tok.vocab)  # shared, not copied: both only read it (BPE checks a copy)
    else:
        model = BPE(tok.vocab, tok.merges, unk_token=tok.unk_token,
                    end_of_word_suffix=EOW if settings.marker and settings.eow == "suffix" else None,
                    end_of_word_symbol=EOW if settings.marker and settings.eow == "separate" else None)
    return PartsTokenizer(model=model, normalizer=reader.normalizer(steps["normalizer"]),
                          pre_tokenizer=reader.pre_tokenizer(steps["pre_tokenizer"]),
                          decoder=reader.decoder(steps["decoder"]), name="settings", source="settings")


def describe(tok: PartsTokenizer) -> list[tuple[str, str]]:
    """(stage, what it is) of each part a tokenizer of parts has, in the order text meets them.

    Each part is named by its `tokenizer.json` type, a Sequence by its members joined with " → ".
    """
    out = []
    for stage, part in (("normalizer", tok.normalizer), ("pre-tokenizer", tok.pre_tokenizer), ("model", tok.model),
                        ("decoder", tok.decoder), ("post-processor", tok.post_processor)):
        if part is not None:
            out.append((stage, _name(part)))
    return out


def _name(part: Any) -> str:
    kind = getattr(part, "kind", None)
    if kind is not None:  # a model: its kind and size
        return f"{kind}, {len(part.vocab):,} tokens"
    try:
        return _json_name(part.to_hf())
    except BPEError:  # a part of ours with no tokenizer.json form
        return type(part).__name__


def _json_name(data: dict[str, Any]) -> str:
    """A serialized part's type; a Sequence's members', joined."""
    if data.get("type") == "Sequence":
        members = next((v for v in data.values() if isinstance(v, list)), [])
        return " → ".join(_json_name(m) for m in members if isinstance(m, dict)) or "Sequence (empty)"
    return str(data.get("type", "?"))
