"""Reading a Hugging Face `tokenizer.json` into a tokenizer of parts.

Each part is dispatched by its serialized `"type"` through the tables the part modules keep
(`HF_TYPES`), so this module knows no part by name: a new part is a class and a table entry in
its own module. A part this package lacks, or a malformed one, is one line naming the file and
the part.
"""
from __future__ import annotations

from typing import Any, NoReturn

from ..settings import BPEError
from . import bpe, decoders, family_parts, normalizers, precompiled, pretokenizers, processors, wordlevel
from .added import AddedToken
from .base import Builder, Decoder, ModelPart, Normalizer, PostProcessor, PreTokenizer
from .pipeline import PartsTokenizer

KINDS: dict[str, dict[str, Builder]] = {
    "normalizer": {**normalizers.HF_TYPES, **precompiled.HF_TYPES},
    "pre-tokenizer": dict(pretokenizers.HF_TYPES),
    # The families' own models and decoders are in their folders (`family_parts`).
    "model": {**bpe.HF_TYPES, **family_parts.table("HF_TYPES"), **wordlevel.HF_TYPES},
    "decoder": {**decoders.HF_TYPES, **family_parts.table("HF_DECODER_TYPES")},
    "post-processor": dict(processors.HF_TYPES),
}


class Reader:
    """Reads the parts of one file, naming it in every message."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, what: str, message: str) -> NoReturn:
        raise BPEError(f"{self.name}: {what}: {message}")

    def part(self, kind: str, raw: Any) -> Any:
        """The part of `kind` serialized as `raw` (None for a missing one)."""
        if raw is None:
            return None
        if not isinstance(raw, dict):
            self.fail(kind, f"must be an object with a 'type', not {type(raw).__name__}")
        part_type = raw.get("type")
        if part_type is None and kind == "model":
            part_type = _model_type(raw)
        if not isinstance(part_type, str):
            self.fail(kind, "has no 'type'")
        table = KINDS[kind]
        builder = table.get(part_type)
        if builder is None:
            raise BPEError(
                f"{self.name}: {kind} {part_type} is not supported here (supported: {', '.join(sorted(table))})"
            )
        try:
            return builder(raw, self)
        except BPEError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
            # The builders check their fields; this keeps any case they missed to one line.
            self.fail(f"{kind} {part_type}", f"malformed ({type(exc).__name__}: {str(exc)[:80]})")

    def normalizer(self, raw: Any) -> Normalizer | None:
        return self.part("normalizer", raw)

    def pre_tokenizer(self, raw: Any) -> PreTokenizer | None:
        return self.part("pre-tokenizer", raw)

    def decoder(self, raw: Any) -> Decoder | None:
        return self.part("decoder", raw)

    def post_processor(self, raw: Any) -> PostProcessor | None:
        return self.part("post-processor", raw)

    def model(self, raw: Any) -> ModelPart:
        if raw is None:
            self.fail("model", "is missing")
        return self.part("model", raw)


def _model_type(raw: dict[str, Any]) -> str | None:
    """Files from before models carried a "type": tell the model by its fields (merges: BPE; a
    family's own test; a vocabulary object alone: WordLevel)."""
    if "merges" in raw:
        return "BPE"
    for kind, looks_like in family_parts.model_detectors():
        if looks_like(raw):
            return kind
    if isinstance(raw.get("vocab"), dict):
        return "WordLevel"
    return None


def read_hf_tokenizer(data: Any, *, name: str = "tokenizer.json") -> PartsTokenizer:
    """A tokenizer of parts from a parsed `tokenizer.json`, the file's token ids kept."""
    reader = Reader(name)
    if not isinstance(data, dict):
        raise BPEError(f"{name} is not a JSON object")
    model = reader.model(data.get("model"))
    tokenizer = PartsTokenizer(
        model=model,
        normalizer=reader.normalizer(data.get("normalizer")),
        pre_tokenizer=reader.pre_tokenizer(data.get("pre_tokenizer")),
        decoder=reader.decoder(data.get("decoder")),
        post_processor=reader.post_processor(data.get("post_processor")),
        added_tokens=_added_tokens(data.get("added_tokens"), model, reader),
        name=name,
        source="huggingface",
    )
    return tokenizer


def _added_tokens(raw: Any, model: ModelPart, reader: Reader) -> list[AddedToken]:
    """The added tokens; one already in the model's vocabulary must keep its id there."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        reader.fail("added_tokens", "must be a list")
    out = []
    owners: dict[int, str] = {token_id: token for token, token_id in model.vocab.items()}
    for number, entry in enumerate(raw):
        what = f"added token {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str) or not entry["content"]:
            reader.fail(what, "needs a non-empty string 'content'")
        content = entry["content"]
        token_id = entry.get("id")
        if isinstance(token_id, bool) or not isinstance(token_id, int) or not 0 <= token_id < 2**32:
            reader.fail(f"added token {content!r}", "needs a whole-number 'id' from 0 to 4,294,967,295")
        flags = {}
        for flag in ("special", "single_word", "lstrip", "rstrip", "normalized"):
            value = entry.get(flag, flag == "normalized" and not entry.get("special", False))
            if not isinstance(value, bool):
                reader.fail(f"added token {content!r}", f"'{flag}' must be true or false")
            flags[flag] = value
        known = model.vocab.get(content)
        if known is not None and known != token_id:
            reader.fail(f"added token {content!r}", f"has id {token_id}, but the model's vocabulary gives it {known}")
        other = owners.setdefault(token_id, content)
        if other != content:
            reader.fail(f"added token {content!r}", f"has id {token_id}, which already belongs to {other!r}")
        out.append(AddedToken(content, token_id, **flags))
    return out
