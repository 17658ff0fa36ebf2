"""Training a corpus into everything the pages draw from. Pure: no Streamlit here.

A `Trained` bundle holds the tokenizer and what the animation needs at every step: the
compression curve and the corpus's most frequent words (as the tokenizer splits them). The curve
and the collapse step are the engine's (`bpe_core.analysis.compression`); this module only
gathers them.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from bpe_core import BPEError, Settings, Tokenizer, check_target, first_merges, train_from_counts
from bpe_core.analysis import Curve, collapse_step, compression_curve
from bpe_core.pretokenize import count_words, counted_word_text
from bpe_core.sources import cut_pieces
from explorer.data.family_training import train_family

Progress = Callable[[int, int], None]  # (done, total): merges made, or bytes of text counted

TARGETS = ("merges", "vocab")
FAMILIES = ("bpe", "wordpiece", "unigram", "superbpe")
_UNITS = {"wordpiece": "tokens added", "unigram": "pieces pruned"}
TOP_WORDS = 40  # words kept for the animation's word panel
LONG_WORD = 300  # characters of a very long word (a whole text without pre-tokenizer) shown
COUNT_PIECE_CHARS = 1_000_000  # characters counted between two reports of counting progress


@dataclass(frozen=True)
class TrainRequest:
    """What to train: engine settings plus a target, a number of merges or a vocabulary size."""

    settings: Settings = field(default_factory=Settings)
    target: str = "merges"
    amount: int = 10
    family: str = "bpe"  # one of FAMILIES; every family but bpe trains to a vocabulary size
    transition: int | None = None  # SuperBPE only: the vocabulary size where phase two starts (None: 90%)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise BPEError(f"unknown tokenizer family {self.family!r}; choose one of {', '.join(FAMILIES)}")
        if self.target not in TARGETS:
            raise BPEError(f"unknown target {self.target!r}; choose merges or vocab")
        if self.family != "bpe" and self.target != "vocab":
            raise BPEError(f"{self.family} trains to a vocabulary size, not to a number of merges")
        if self.transition is not None and self.family != "superbpe":
            raise BPEError("only SuperBPE has a transition")
        if self.transition is not None and not 256 <= self.transition <= self.amount:
            raise BPEError(f"the transition must be from 256 (the bytes) to the vocabulary size "
                           f"({self.amount:,}), not {self.transition:,}")
        if self.target == "merges":
            check_target(merges=self.amount)
        else:
            check_target(vocab_size=self.amount)

    def key(self) -> tuple:
        return (tuple(sorted(self.settings.to_dict().items())), self.target, self.amount, self.family,
                self.transition)

    def describe(self) -> str:
        s = self.settings
        if self.family != "bpe":
            return describe_family(self)
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


def describe_family(request: TrainRequest) -> str:
    """A WordPiece, Unigram or SuperBPE request in words."""
    s = request.settings
    bits = [{"wordpiece": "WordPiece", "unigram": "Unigram", "superbpe": "SuperBPE"}[request.family]]
    if request.family == "wordpiece" and s.lowercase:
        bits.append("lowercase")
    if request.family == "superbpe":
        bits.append("bytes, the paper's pre-tokenizer in phase one")
        bits.append(f"tie-break {s.tie_break}")
        if s.min_frequency > 1:
            bits.append(f"min frequency {s.min_frequency}")
        bits.append("transition at 90%" if request.transition is None else f"transition {request.transition:,}")
    bits.append(f"vocabulary {request.amount:,}")
    return ", ".join(bits)


def family_request(family: str, vocab_size: int, *, limit: int, lowercase: bool = False, tie_break: str = "count-pair",
                   min_frequency: int = 1, transition: int | None = 0) -> TrainRequest:
    """A WordPiece, Unigram or SuperBPE request from the sidebar's values, keeping only the settings
    the family has: WordPiece lowercase; SuperBPE (bytes) tie-break, minimum pair count and the
    transition (0 or None: the engine's 90%); Unigram none. `limit`: the app's largest vocabulary."""
    if family not in FAMILIES or family == "bpe":
        raise BPEError(f"unknown tokenizer family {family!r}; choose one of {', '.join(FAMILIES)}")
    if vocab_size > limit:
        raise BPEError(f"a vocabulary of {vocab_size:,} is more than this app trains for one visitor ({limit:,} at "
                       "most); the command line (python -m bpe_core train) has no such limit")
    if family == "wordpiece":
        settings = Settings(lowercase=lowercase)
    elif family == "superbpe":
        settings = Settings(mode="bytes", tie_break=tie_break, min_frequency=min_frequency)
    else:
        settings = Settings()
    wanted = (transition or None) if family == "superbpe" else None
    return TrainRequest(settings, "vocab", vocab_size, family=family, transition=wanted)


def progress_status(family: str, done: int, total: int) -> str:
    """Training progress in words, in true numbers: merges (BPE, SuperBPE), tokens added (WordPiece:
    each step adds one), pieces pruned (Unigram: each round prunes some of the seed's pieces).

    >>> progress_status("bpe", 5, 10), progress_status("unigram", 300, 1200)
    ('merge 5 of 10', '300 of 1,200 pieces pruned')
    """
    if family in _UNITS:
        return f"{done:,} of {total:,} {_UNITS[family]}"
    return f"merge {done:,} of {total:,}"


@dataclass
class Trained:
    """A trained tokenizer with what the pages show about it.

    Families (`request.family`): for BPE, `model` is None and `tokenizer` the trained BPE. For
    SuperBPE, `model` is the `SuperBPEModel` and `tokenizer` its bytes-mode BPE over the same merges
    (merge trees, ranks, vocabulary; encode text with the model). For WordPiece and Unigram,
    `tokenizer` is None and `model` the `WordPieceModel` / `UnigramModel`; `steps` counts WordPiece's
    merge steps and Unigram's pruning rounds; `curve` is WordPiece's corpus tokens after each step
    (the training's segmentation) and Unigram's tokens of the corpus's most frequent words after
    each round (`family_training.CURVE_WORDS` of them, Viterbi with that round's pieces);
    `collapse_step` is None for Unigram and SuperBPE. `story` holds what the Watch page animates
    (`family_training`: WordPieceStory, UnigramStory, SuperBPEStory; None for BPE).
    """

    tokenizer: Tokenizer | None  # None for WordPiece and Unigram
    request: TrainRequest
    top_words: list[tuple[str, int]]  # most frequent words (normalized text), most frequent first
    curve: Curve
    collapse_step: int | None  # first step after which every corpus word is one token
    alphabet: int  # base symbols
    model: Any = None  # the family's model (bpe_core.families), None for BPE
    story: Any = None  # the family's animation data (see the docstring)

    @property
    def family(self) -> str:
        return getattr(self.request, "family", "bpe")

    @property
    def steps(self) -> int:
        if self.family in ("wordpiece", "unigram"):
            return len(self.model.trace)
        return len(self.tokenizer.merges)

    @property
    def byte_level(self) -> bool:
        if self.family in ("wordpiece", "unigram"):
            return False
        return self.tokenizer.settings.mode == "bytes"

    @property
    def stop_reason(self) -> str:
        if self.family != "bpe":
            return getattr(self.story, "stop_reason", "")
        return self.tokenizer.training.stop_reason if self.tokenizer.training else ""

    def first_merges(self, merges: int) -> Trained:
        """This bundle as training with only its first `merges` merges would make it, at once.

        The Compare page's first visit shows the sidebar's tokenizer beside the same one with half
        its merges: cut here in no time, where training again on a large corpus takes seconds.
        """
        if self.family != "bpe":
            raise BPEError("only a BPE tokenizer can be cut to its first merges")
        tokenizer = first_merges(self.tokenizer, merges)
        return replace(self, tokenizer=tokenizer, request=TrainRequest(tokenizer.settings, "merges", merges),
                       curve=self.curve.first(len(tokenizer.merges)), collapse_step=collapse_step(tokenizer.training))


def counting_status(done: int, total: int) -> str:
    """Counting progress in words, in true numbers of UTF-8 bytes.

    >>> counting_status(12_345_678, 48_000_000)
    'counting words: 12.3 of 48.0 MB'
    >>> counting_status(2_500, 90_000)
    'counting words: 2.5 of 90.0 KB'
    """
    unit, scale = ("MB", 1e6) if total >= 1_000_000 else ("KB", 1e3)
    return f"counting words: {done / scale:,.1f} of {total / scale:,.1f} {unit}"


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def count_with_progress(texts: list[str], settings: Settings, progress: Progress) -> Counter[str]:
    """`count_words(texts, settings)`, counted a piece at a time, reporting (bytes counted, bytes in all).

    The pieces are cut where the settings' splitting always cuts (`sources.cut_pieces`), so the
    counts, their order included, are exactly those of counting each text whole. The bytes are
    the texts' UTF-8 bytes; the last report is (total, total).
    """
    total = sum(map(_utf8_len, texts))
    done = 0
    progress(0, total)

    def pieces() -> Iterator[str]:
        nonlocal done
        for text in texts:
            for piece in cut_pieces(text, settings, piece_chars=COUNT_PIECE_CHARS):
                yield piece
                done += _utf8_len(piece)  # runs once count_words has counted the piece
                progress(done, total)

    counts = count_words(pieces(), settings)
    if done < total:  # texts with nothing to cut (empty ones): report the end all the same
        progress(total, total)
    return counts


def train_corpus(
    texts: list[str], request: TrainRequest, *, progress: Progress | None = None,
    count_progress: Progress | None = None,
) -> Trained:
    """Count words, train, and gather the curve and top words. Raises BPEError with a clear message.

    `progress(merges done, merges in all)` follows the training; `count_progress(bytes counted,
    bytes in all)` the counting of the words before it (a large upload takes seconds).
    """
    if request.family != "bpe":
        parts = train_family(texts, request.family, request.settings, vocab_size=request.amount,
                             transition=request.transition, progress=progress, count_progress=count_progress)
        return Trained(tokenizer=parts.tokenizer, request=request, top_words=parts.top_words, curve=parts.curve,
                       collapse_step=parts.collapse_step, alphabet=parts.alphabet, model=parts.model,
                       story=parts.story)
    settings = request.settings
    counts = count_words(texts, settings) if count_progress is None else count_with_progress(
        texts, settings, count_progress)
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
