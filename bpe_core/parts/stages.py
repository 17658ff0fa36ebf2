"""A text through a tokenizer of parts, stage by stage: what each part made of it.

`stages(tokenizer, text)` follows `PartsTokenizer.encode` and keeps what it usually throws away:
the stretches the normalizer gave (added tokens cut out before it), the pieces the pre-tokenizer
cut them into, and the model's tokens. Every stretch, piece and token keeps its span in the
original text, so a page can draw each stage under the text it came from.

>>> from bpe_core.parts.hf_parts import read_hf_tokenizer
>>> tok = read_hf_tokenizer({"model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hi": 1}, "unk_token": "[UNK]"},
...                          "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"}})
>>> seen = stages(tok, "Hi you")
>>> seen.normalized, seen.pieces
([Stretch(text='hi you', start=0, end=6, added=False)], [Stretch(text='hi', start=0, end=2, added=False), \
Stretch(text='you', start=3, end=6, added=False)])
>>> seen.encoding.tokens
['hi', '[UNK]']
"""
from __future__ import annotations

from dataclasses import dataclass

from ..encoding import Encoding
from ..pretokenize import require_str
from .normalized import Normalized
from .pipeline import PartsTokenizer


@dataclass(frozen=True)
class Stretch:
    """A stretch of text one stage made, with its span in the original; `added` for an added
    token cut out whole before the normalizer."""

    text: str
    start: int
    end: int
    added: bool = False


@dataclass(frozen=True)
class Stages:
    """The normalizer's stretches, the pre-tokenizer's pieces (added tokens among both) and the
    model's tokens (`encoding`, as `PartsTokenizer.encode` gives it)."""

    normalized: list[Stretch]
    pieces: list[Stretch]
    encoding: Encoding


def stages(tokenizer: PartsTokenizer, text: str) -> Stages:
    """What each part of `tokenizer` made of `text`."""
    require_str(text)
    normalized: list[Stretch] = []
    pieces: list[Stretch] = []
    for segment, added in tokenizer.added.segments(Normalized.of(text), tokenizer._normalize):
        start, end = segment.offsets(0, len(segment))
        if added is not None:
            normalized.append(Stretch(added.content, start, end, True))
            pieces.append(Stretch(added.content, start, end, True))
            continue
        normalized.append(Stretch(segment.text, start, end))
        for piece in tokenizer._pieces(segment):
            pieces.append(Stretch(piece.text, *piece.offsets(0, len(piece))))
    return Stages(normalized, pieces, tokenizer.encode(text))
