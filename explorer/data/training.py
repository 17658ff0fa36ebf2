"""Training a corpus into everything the pages draw from. Pure: no Streamlit here.

A `Trained` bundle holds the tokenizer and what the animation needs at every step: the
compression curve and the corpus's most frequent words (as the tokenizer splits them).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from bpe_core import MAX_MERGES, BPEError, Settings, Tokenizer, train_from_counts
from bpe_core.pretokenize import count_words, symbols_to_bytes

Progress = Callable[[int, int], None]

TARGETS = ("merges", "vocab")
TOP_WORDS = 40  # words kept for the animation's word panel
LONG_WORD = 300  # characters of a very long word (a whole text without pre-tokenizer) shown


@dataclass(frozen=True)
class TrainRequest:
    """What to train: engine settings plus a target, a number of merges or a vocabulary size."""

    settings: Settings = field(default_factory=Settings)
    target: str = "merges"
    amount: int = 10

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise BPEError(f"unknown target {self.target!r}; choose merges or vocab")
        if isinstance(self.amount, bool) or not isinstance(self.amount, int):
            raise BPEError("the number of merges or the vocabulary size must be a whole number")
        if self.target == "merges" and self.amount < 0:
            raise BPEError("the number of merges must be 0 or more")
        if self.target == "merges" and self.amount > MAX_MERGES:
            raise BPEError(
                f"{self.amount:,} merges is more than the engine allows ({MAX_MERGES:,}); "
                "a corpus rarely has more than a few thousand useful merges, so try 1,000 or 10,000"
            )
        if self.target == "vocab" and self.amount < 1:
            raise BPEError("the vocabulary size must be at least 1")
        if self.target == "vocab" and self.amount > MAX_MERGES:
            raise BPEError(f"a vocabulary of {self.amount:,} is more than the engine allows ({MAX_MERGES:,} merges)")

    def key(self) -> tuple:
        return (tuple(sorted(self.settings.to_dict().items())), self.target, self.amount)

    def describe(self) -> str:
        s = self.settings
        bits = [f"{s.mode} mode"]
        if s.mode == "word":
            bits.append(f"end-of-word {s.eow}")
        else:
            bits.append(f"pre-tokenizer {s.pretokenizer}")
        bits.append(f"tie-break {s.tie_break}")
        if s.lowercase:
            bits.append("lowercase")
        if s.normalization != "none":
            bits.append(s.normalization)
        if s.min_frequency > 1:
            bits.append(f"min frequency {s.min_frequency}")
        bits.append(f"{self.amount:,} merges" if self.target == "merges" else f"vocabulary {self.amount:,}")
        return ", ".join(bits)


@dataclass(frozen=True)
class Curve:
    """Compression after each step: index 0 is before any merge, index t after t merges."""

    total_tokens: list[int]
    tokens_per_word: list[float]
    multi_token_words: list[int]
    characters: int = 0  # characters of the corpus words (bytes in bytes mode), repeats counted
    has_words: bool = True  # False when the whole text is one "word" (no pre-tokenizer): per word means nothing

    @property
    def steps(self) -> int:
        return len(self.total_tokens) - 1

    def tokens_per_character(self, step: int) -> float:
        """Tokens per character (per byte in bytes mode) after `step` merges."""
        return self.total_tokens[step] / self.characters if self.characters else 0.0


@dataclass
class Trained:
    """A trained tokenizer with what the pages show about it."""

    tokenizer: Tokenizer
    request: TrainRequest
    top_words: list[tuple[str, int]]  # most frequent words (normalized text), most frequent first
    curve: Curve
    collapse_step: int | None  # first step after which every corpus word is one token
    alphabet: int  # base symbols
    seconds: float

    @property
    def steps(self) -> int:
        return len(self.tokenizer.merges)

    @property
    def byte_level(self) -> bool:
        return self.tokenizer.settings.mode == "bytes"

    @property
    def stop_reason(self) -> str:
        return self.tokenizer.training.stop_reason if self.tokenizer.training else ""


def _display_word(word: str, settings: Settings) -> str:
    """Word counts hold bytes-mode words as byte symbols; the encoder wants text."""
    if settings.mode == "bytes":
        return symbols_to_bytes(word).decode("utf-8", errors="replace")
    return word


def train_corpus(
    texts: list[str], request: TrainRequest, *, progress: Progress | None = None
) -> Trained:
    """Count words, train, and gather the curve and top words. Raises BPEError with a clear message."""
    started = time.perf_counter()
    settings = request.settings
    counts = count_words(texts, settings)
    if not counts:
        raise BPEError("the corpus is empty (or only whitespace): there is nothing to train on")
    kwargs = {"merges": request.amount} if request.target == "merges" else {"vocab_size": request.amount}
    tokenizer = train_from_counts(counts, settings, top_k=10, progress=progress, **kwargs)
    result = tokenizer.training  # always set for a tokenizer trained here
    alphabet = len(result.base)  # the engine refuses a vocabulary smaller than this
    words = result.word_count or 1
    totals = [result.initial_tokens, *(m.total_tokens for m in result.trace)]
    multi = [result.initial_multi_token_words, *(m.multi_token_words for m in result.trace)]
    # Bytes-mode words are written one symbol a byte, so this counts bytes there, characters elsewhere.
    characters = sum(len(word) * n for word, n in counts.items())
    curve = Curve(totals, [t / words for t in totals], multi, characters=characters,
                  has_words=settings.mode == "word" or settings.pretokenizer != "none")
    collapse = next((t for t, m in enumerate(multi) if m == 0), None)
    top = [(_display_word(w, settings), n) for w, n in counts.most_common(TOP_WORDS)]
    return Trained(
        tokenizer=tokenizer,
        request=request,
        top_words=top,
        curve=curve,
        collapse_step=collapse,
        alphabet=alphabet,
        seconds=time.perf_counter() - started,
    )
