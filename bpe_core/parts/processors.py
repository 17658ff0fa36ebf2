"""Post-processors: what Hugging Face `tokenizers` does after the model, when no special tokens are added.

Encoding with `add_special_tokens=False` (all this package does), a post-processor adds no
token; the byte-level ones (`ByteLevel`, `RobertaProcessing`) may still trim each token's offsets
so they leave out the spaces the token begins or ends with. `BertProcessing`,
`TemplateProcessing` and `Sequence` keep their fields only so `to_hf` writes them back.

>>> ByteLevelProcessor().process_offsets(["Hello", "Ġworld", "ĠĠ"], [(0, 5), (5, 11), (11, 13)])
[(0, 5), (6, 11), (13, 13)]
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .base import Builder, PartReader, PostProcessor
from .part_fields import flag

Offsets = list[tuple[int, int]]

# Unicode's White_Space property, which Rust's char::is_whitespace tests. Python's str.isspace()
# differs: it also takes U+001C..U+001F (information separators).
WHITE_SPACE = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
BYTE_SPACE = "Ġ"  # GPT-2's byte character for the space


def _spacey(ch: str) -> bool:
    return ch == BYTE_SPACE or ch in WHITE_SPACE


def trim_offsets(tokens: list[str], offsets: Offsets, *, add_prefix_space: bool) -> Offsets:
    """Each token's offsets without the spaces ("Ġ" or whitespace) it begins or ends with, as `tokenizers` trims.

    >>> trim_offsets(["ĠHi", "Ġ", "ĠĠthere"], [(0, 3), (3, 4), (4, 11)], add_prefix_space=True)
    [(0, 3), (4, 4), (6, 11)]
    """
    # The spaces are counted in the token's characters (one byte character is one original
    # character for a space). With `add_prefix_space`, one space beginning the first token (or one
    # whose offsets start at 0: pre-tokenized words each start there) is the one the pre-tokenizer
    # added, so it stays; two or more are all trimmed.
    out = []
    for i, (token, (start, end)) in enumerate(zip(tokens, offsets)):
        lead = 0
        while lead < len(token) and _spacey(token[lead]):
            lead += 1
        trail = 0
        while trail < len(token) and _spacey(token[-1 - trail]):
            trail += 1
        if lead:
            if add_prefix_space and lead == 1 and (i == 0 or start == 0):
                lead = 0
            start = min(start + lead, end)
        # An all-space token counts its spaces both ways; the start has moved first, and the end
        # never goes below it.
        if trail and end >= trail:
            end = max(end - trail, start)
        out.append((start, end))
    return out


@dataclass(frozen=True, kw_only=True)
class ByteLevelProcessor:
    """Trims byte-level spaces from offsets when `trim_offsets`; `use_regex` is kept for `to_hf`."""

    add_prefix_space: bool = True
    trim_offsets: bool = True
    use_regex: bool = True

    def process_offsets(self, tokens: list[str], offsets: Offsets) -> Offsets:
        if not self.trim_offsets:
            return list(offsets)
        return trim_offsets(tokens, offsets, add_prefix_space=self.add_prefix_space)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "ByteLevel", "add_prefix_space": self.add_prefix_space, "trim_offsets": self.trim_offsets,
                "use_regex": self.use_regex}


@dataclass(frozen=True, kw_only=True)
class RobertaProcessor:
    """RoBERTa's `<s> A </s>`: without special tokens, only ByteLevel's trimming (`trim_offsets`)."""

    sep: tuple[str, int]
    cls: tuple[str, int]
    trim_offsets: bool = True
    add_prefix_space: bool = True

    def process_offsets(self, tokens: list[str], offsets: Offsets) -> Offsets:
        if not self.trim_offsets:
            return list(offsets)
        return trim_offsets(tokens, offsets, add_prefix_space=self.add_prefix_space)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "RobertaProcessing", "sep": list(self.sep), "cls": list(self.cls),
                "trim_offsets": self.trim_offsets, "add_prefix_space": self.add_prefix_space}


@dataclass(frozen=True, kw_only=True)
class BertProcessor:
    """BERT's `[CLS] A [SEP]`: without special tokens, nothing."""

    sep: tuple[str, int]
    cls: tuple[str, int]

    def process_offsets(self, tokens: list[str], offsets: Offsets) -> Offsets:
        return list(offsets)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "BertProcessing", "sep": list(self.sep), "cls": list(self.cls)}


@dataclass(frozen=True, kw_only=True)
class TemplateProcessor:
    """Templates of special tokens around the sequences: without special tokens, nothing.

    The templates are kept as the file has them (`single`, `pair`: lists of
    {"SpecialToken": ...} / {"Sequence": ...}; `special_tokens`: name -> its ids and tokens).
    """

    single: list[Any]
    pair: list[Any]
    special_tokens: dict[str, Any]

    def process_offsets(self, tokens: list[str], offsets: Offsets) -> Offsets:
        return list(offsets)

    def to_hf(self) -> dict[str, Any]:
        return {"type": "TemplateProcessing", "single": copy.deepcopy(self.single), "pair": copy.deepcopy(self.pair),
                "special_tokens": copy.deepcopy(self.special_tokens)}


@dataclass(frozen=True, kw_only=True)
class SequenceProcessor:
    """Each post-processor in turn."""

    processors: tuple[PostProcessor, ...]

    def process_offsets(self, tokens: list[str], offsets: Offsets) -> Offsets:
        offsets = list(offsets)
        for processor in self.processors:
            offsets = processor.process_offsets(tokens, offsets)
        return offsets

    def to_hf(self) -> dict[str, Any]:
        return {"type": "Sequence", "processors": [processor.to_hf() for processor in self.processors]}


# ---- reading tokenizer.json ----------------------------------------------------------------
# The flags `tokenizers` requires default to its Python constructors' values here; the special
# tokens and templates, which have no sensible default, are required.

def _special(data: dict[str, Any], key: str, reader: PartReader, what: str) -> tuple[str, int]:
    value = data.get(key)
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)
            and isinstance(value[1], int) and not isinstance(value[1], bool) and value[1] >= 0):
        reader.fail(what, f"{key!r} must be a [token, id] pair such as [\"</s>\", 2], not {value!r}")
    return value[0], value[1]


def _byte_level(data: dict[str, Any], reader: PartReader) -> ByteLevelProcessor:
    what = "post-processor ByteLevel"
    return ByteLevelProcessor(add_prefix_space=flag(data, "add_prefix_space", True, reader, what),
                              trim_offsets=flag(data, "trim_offsets", True, reader, what),
                              use_regex=flag(data, "use_regex", True, reader, what))


def _roberta(data: dict[str, Any], reader: PartReader) -> RobertaProcessor:
    what = "post-processor RobertaProcessing"
    return RobertaProcessor(sep=_special(data, "sep", reader, what), cls=_special(data, "cls", reader, what),
                            trim_offsets=flag(data, "trim_offsets", True, reader, what),
                            add_prefix_space=flag(data, "add_prefix_space", True, reader, what))


def _bert(data: dict[str, Any], reader: PartReader) -> BertProcessor:
    what = "post-processor BertProcessing"
    return BertProcessor(sep=_special(data, "sep", reader, what), cls=_special(data, "cls", reader, what))


_PIECES = {"SpecialToken", "Sequence"}


def _template(data: dict[str, Any], reader: PartReader) -> TemplateProcessor:
    what = "post-processor TemplateProcessing"
    templates = []
    for key in ("single", "pair"):
        value = data.get(key)
        if not isinstance(value, list) or not all(
            isinstance(piece, dict) and len(piece) == 1 and set(piece) <= _PIECES and isinstance(
                next(iter(piece.values())), dict) for piece in value):
            reader.fail(what, f'{key!r} must be a list of {{"SpecialToken": {{...}}}} and {{"Sequence": {{...}}}}'
                        " (the form `tokenizers` writes, not a template string)")
        templates.append(value)
    special = data.get("special_tokens")
    if not isinstance(special, dict) or not all(
        isinstance(entry, dict) and isinstance(entry.get("ids"), list) and isinstance(entry.get("tokens"), list)
        for entry in special.values()
    ):
        reader.fail(what, "'special_tokens' must map each name to {\"id\": ..., \"ids\": [...], \"tokens\": [...]}")
    return TemplateProcessor(single=copy.deepcopy(templates[0]), pair=copy.deepcopy(templates[1]),
                             special_tokens=copy.deepcopy(special))


def _sequence(data: dict[str, Any], reader: PartReader) -> SequenceProcessor:
    what = "post-processor Sequence"
    members = data.get("processors")
    if not isinstance(members, list):
        reader.fail(what, "'processors' must be a list of post-processors")
    processors = []
    for i, raw in enumerate(members):
        kind = raw.get("type") if isinstance(raw, dict) else None
        builder = HF_TYPES.get(kind) if isinstance(kind, str) else None
        if builder is None:
            reader.fail(what, f"post-processor {i} has type {kind!r}; supported: {', '.join(sorted(HF_TYPES))}")
        processors.append(builder(raw, reader))
    return SequenceProcessor(processors=tuple(processors))


HF_TYPES: dict[str, Builder] = {
    "ByteLevel": _byte_level,
    "RobertaProcessing": _roberta,
    "BertProcessing": _bert,
    "TemplateProcessing": _template,
    "Sequence": _sequence,
}
