"""Training a corpus into everything the pages draw from. Pure: no Streamlit here.

A `Trained` bundle holds the tokenizer and what the animation needs at every step: the
compression curve and the corpus's most frequent words (as the tokenizer splits them). The curve
and the collapse step are the engine's (`bpe_core.analysis.compression`); this module only
gathers them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from bpe_core import BPEError, Settings, Tokenizer, check_target, first_merges, train_from_counts
from bpe_core.analysis import Curve, collapse_step, compression_curve
from bpe_core.pretokenize import count_words, counted_word_text

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
        if self.target == "merges":
            check_target(merges=self.amount)
        else:
            check_target(vocab_size=self.amount)

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


@dataclass
class Trained:
    """A trained tokenizer with what the pages show about it."""

    tokenizer: Tokenizer
    request: TrainRequest
    top_words: list[tuple[str, int]]  # most frequent words (normalized text), most frequent first
    curve: Curve
    collapse_step: int | None  # first step after which every corpus word is one token
    alphabet: int  # base symbols

    @property
    def steps(self) -> int:
        return len(self.tokenizer.merges)

    @property
    def byte_level(self) -> bool:
        return self.tokenizer.settings.mode == "bytes"

    @property
    def stop_reason(self) -> str:
        return self.tokenizer.training.stop_reason if self.tokenizer.training else ""

    def first_merges(self, merges: int) -> Trained:
        """This bundle as training with only its first `merges` merges would make it, at once.

        The Compare page's first visit shows the sidebar's tokenizer beside the same one with half
        its merges: cut here in no time, where training again on a large corpus takes seconds.
        """
        tokenizer = first_merges(self.tokenizer, merges)
        return replace(self, tokenizer=tokenizer, request=TrainRequest(tokenizer.settings, "merges", merges),
                       curve=self.curve.first(len(tokenizer.merges)), collapse_step=collapse_step(tokenizer.training))


def train_corpus(
    texts: list[str], request: TrainRequest, *, progress: Progress | None = None
) -> Trained:
    """Count words, train, and gather the curve and top words. Raises BPEError with a clear message."""
    settings = request.settings
    counts = count_words(texts, settings)
    if not counts:
        raise BPEError("the corpus is empty (or only whitespace): there is nothing to train on")
    kwargs = {"merges": request.amount} if request.target == "merges" else {"vocab_size": request.amount}
    tokenizer = train_from_counts(counts, settings, top_k=10, progress=progress, **kwargs)
    result = tokenizer.training  # always set for a tokenizer trained here
    return Trained(
        tokenizer=tokenizer,
        request=request,
        top_words=[(counted_word_text(w, settings), n) for w, n in counts.most_common(TOP_WORDS)],
        curve=compression_curve(result, counts, settings),
        collapse_step=collapse_step(result),
        alphabet=len(result.base),  # the engine refuses a vocabulary smaller than this
    )
