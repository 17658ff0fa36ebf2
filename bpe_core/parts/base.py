"""The four kinds of part a tokenizer is built of, and how a part is read from a `tokenizer.json`.

A tokenizer is normalizer -> pre-tokenizer -> model -> decoder (with a post-processor that may
only adjust offsets), as Hugging Face `tokenizers` models it:

- a `Normalizer` turns the text into another text, keeping each character's original span;
- a `PreTokenizer` cuts the normalized text into pieces (words), possibly changing them (byte
  level maps each byte to a printable character);
- a `ModelPart` turns one piece into tokens: (token, id, start, end), start and end counted in
  the piece's characters;
- a `Decoder` turns a list of tokens back into strings whose concatenation is the text.

Each part knows its own `tokenizer.json` form (`to_hf`). Reading goes the other way: each part
module has a table `HF_TYPES` from the serialized `"type"` to a builder `(data, reader) -> part`;
`reader` (a `PartReader`) reads nested parts (a `Sequence`'s members) and raises one-line
errors naming the file and the part. Adding a part is one class and one table entry.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, Protocol

from ..settings import BPEError
from .normalized import Normalized

# One token of a piece: the token, its id, and its span in the piece's characters.
PieceToken = tuple[str, int, int, int]


class Normalizer(Protocol):
    def normalize(self, text: Normalized) -> Normalized: ...

    def to_hf(self) -> dict[str, Any]: ...


class PreTokenizer(Protocol):
    """Cuts normalized text into pieces. One that reads the pieces' original offsets says so with
    a true `needs_offsets` (optional: absent means False), so ids-only encoding keeps them."""

    def pre_tokenize(self, pieces: list[Normalized]) -> list[Normalized]: ...

    def to_hf(self) -> dict[str, Any]: ...


class ModelPart(Protocol):
    """A model turns one pre-tokenized piece into tokens (BPE, WordLevel here; the families' own in
    `bpe_core/families/*_part.py`)."""

    kind: str  # its serialized "type" ("BPE", "WordLevel", ...)
    vocab: dict[str, int]
    unk_token: str | None
    unk_id: int | None  # the id of the unknown token (whose text may be the input's own, not its spelling)

    def tokenize(self, piece: str) -> list[PieceToken]: ...

    def clear_cache(self) -> None:
        """Forget the pieces encoded so far (models keep a bounded cache of them)."""
        ...

    def to_hf(self) -> dict[str, Any]: ...


class Decoder(Protocol):
    def decode_chain(self, tokens: list[str]) -> list[str]: ...

    def inner(self, value: str | bytes, fused: bool) -> tuple[str | bytes, bool]:
        """What the decoder makes of one token in the middle of a text (see `decoders.token_bytes`):
        the token as text, or as bytes once a byte decoder read it; whether a Fuse came before."""
        ...

    def to_hf(self) -> dict[str, Any]: ...


class PostProcessor(Protocol):
    """What a post-processor does when no special tokens are added: adjust the tokens' offsets."""

    def process_offsets(self, tokens: list[str], offsets: list[tuple[int, int]]) -> list[tuple[int, int]]: ...

    def to_hf(self) -> dict[str, Any]: ...


class PartReader(Protocol):
    """What a builder may ask while it reads its part (see `hf_parts.Reader`)."""

    name: str  # the file's name, for messages

    def fail(self, what: str, message: str) -> NoReturn:
        """Raise one line: `{name}: {what}: {message}`."""
        ...

    def normalizer(self, raw: Any) -> Normalizer | None: ...

    def pre_tokenizer(self, raw: Any) -> PreTokenizer | None: ...

    def decoder(self, raw: Any) -> Decoder | None: ...


Builder = Callable[[dict[str, Any], PartReader], Any]


def part_error(message: str) -> NoReturn:
    raise BPEError(message)
