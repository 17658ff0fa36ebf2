"""Training and encoding settings shared by every part of the engine."""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

EOW = "</w>"
UNK = "<unk>"

MODES = ("word", "text", "bytes")
EOW_STYLES = ("separate", "suffix", "none")
PRETOKENIZERS = ("whitespace", "gpt2", "gpt4", "o200k", "qwen", "none")
TIE_BREAKS = ("count-pair", "first", "hf")
NORMALIZATIONS = ("none", "NFC", "NFKC")

# The pre-tokenizer each mode uses when none is asked for.
DEFAULT_PRETOKENIZER = {"word": "whitespace", "text": "none", "bytes": "gpt2"}


class BPEError(ValueError):
    """A problem with the caller's input or settings, with a message a user can act on."""


@dataclass(frozen=True)
class Settings:
    """How a corpus becomes symbols and how ties between equally frequent pairs are broken.

    >>> Settings(mode="text", tie_break="first").pretokenizer
    'none'
    """

    mode: str = "word"
    eow: str = "separate"
    pretokenizer: str = ""
    tie_break: str = "count-pair"
    lowercase: bool = False
    normalization: str = "none"
    min_frequency: int = 1

    def __post_init__(self) -> None:
        _check_choice("mode", self.mode, MODES)
        _check_choice("end-of-word style", self.eow, EOW_STYLES)
        _check_choice("tie-break", self.tie_break, TIE_BREAKS)
        _check_choice("normalization", self.normalization, NORMALIZATIONS)
        if not self.pretokenizer:
            object.__setattr__(self, "pretokenizer", DEFAULT_PRETOKENIZER[self.mode])
        _check_choice("pre-tokenizer", self.pretokenizer, PRETOKENIZERS)
        if self.mode == "word" and self.pretokenizer != "whitespace":
            raise BPEError(
                "word mode always splits on whitespace; "
                "--pretokenizer applies to the text and bytes modes"
            )
        if self.mode == "bytes" and self.pretokenizer == "whitespace":
            raise BPEError("bytes mode pre-tokenizes with gpt2, gpt4, o200k, qwen or none")
        if isinstance(self.min_frequency, bool) or not isinstance(self.min_frequency, int):
            raise BPEError("minimum frequency must be a whole number")
        if self.min_frequency < 1:
            raise BPEError("minimum frequency must be at least 1")

    @property
    def marker(self) -> str:
        """The end-of-word marker added to each word, or '' when there is none."""
        return EOW if self.mode == "word" and self.eow != "none" else ""

    @property
    def has_unk(self) -> bool:
        """Whether unseen characters can occur (every byte is known in bytes mode)."""
        return self.mode != "bytes"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)

    def with_changes(self, **changes: Any) -> Settings:
        return replace(self, **changes)


def _check_choice(what: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise BPEError(f"unknown {what} {value!r}; choose one of: {', '.join(choices)}")
