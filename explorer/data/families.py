"""The Families page's data: BPE, WordPiece, Unigram and SuperBPE trained on one corpus. Pure: no Streamlit.

All four train on the same text (the corpus's first `TRAIN_CHARS` characters) to the same
vocabulary size, each with its own engine in `bpe_core`:

* BPE: `bpe_core.train`, byte level, GPT-4o's split (the "o200k" pre-tokenizer);
* WordPiece: `train_wordpiece` (BERT's pre-tokenizer, "##" continuations, five special tokens);
* Unigram: `train_unigram` (meta-space "▁" words, EM and pruning);
* SuperBPE: `train_superbpe` with the same "o200k" split for phase one, so its first merges are
  BPE's, then merges across spaces up to the vocabulary size.

Token counts are measured on held-out text (the `HELD_OUT_CHARS` characters after the training
text) or, for a corpus no longer than the training text, on the training text itself.
"""
from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bpe_core import BPEError, Settings, train
from bpe_core.analysis import DropoutDistribution, dropout_distribution
from bpe_core.families import train_superbpe, train_unigram, train_wordpiece
from bpe_core.pretokenize import symbols_to_bytes

FAMILIES = ("BPE", "WordPiece", "Unigram", "SuperBPE")
TRAIN_CHARS = 250_000  # characters of the corpus every family trains on (its start)
HELD_OUT_CHARS = 50_000  # characters after them on which tokens are counted
MIN_VOCAB, MAX_VOCAB = 100, 8_000  # what the page lets one ask for
BPE_SETTINGS = Settings(mode="bytes", pretokenizer="o200k")
LONG_WORD = 100  # longer runs of non-whitespace are left out of training (WordPiece's max_input_chars_per_word)
_LONG_WORD = re.compile(r"\S{%d,}" % (LONG_WORD + 1))
CACHE_ENTRIES = 4  # trained sets the server keeps (every session shares them)

# The lesson's comparison table (`shared/seeds/`), SuperBPE added from its paper.
LESSON: dict[str, tuple[str, str, str, str]] = {
    # family: (direction, selection criterion, encoding, multiple segmentations)
    "BPE": ("bottom-up merging", "pair frequency", "replay the merges in order", "only with dropout"),
    "WordPiece": ("bottom-up merging", "likelihood gain of the pair: count(ab) / (count(a) · count(b))",
                  "greedy longest match", "no"),
    "Unigram": ("top-down pruning", "likelihood loss from removal", "Viterbi (most probable segmentation)",
                "natively (n-best, sampling)"),
    "SuperBPE": ("bottom-up merging, in two phases", "pair frequency; after the transition, pairs may cross spaces",
                 "replay the merges in order", "only with dropout"),
}
BYTE_LEVEL = {"BPE": True, "WordPiece": False, "Unigram": False, "SuperBPE": True}


@dataclass(frozen=True)
class FamilyRun:
    """One family trained: its model (None if it could not train), the seconds it took, the numbers."""

    family: str
    model: Any
    seconds: float
    error: str = ""
    vocab_size: int = 0  # tokens in the vocabulary reached (special tokens included)
    tokens: int = 0  # tokens of the measured text
    note: str = ""  # why the vocabulary reached is not the size asked for


@dataclass(frozen=True)
class Families:
    """The four families trained on one corpus with one vocabulary size."""

    runs: tuple[FamilyRun, ...]
    vocab_size: int
    transition: int
    corpus_chars: int
    train_chars: int
    measured_on: str  # "held-out" or "training"
    measured_chars: int
    measured_words: int  # whitespace-separated words of the measured text
    long_words: int = 0  # words longer than LONG_WORD characters left out of the training text

    def run(self, family: str) -> FamilyRun:
        return next(r for r in self.runs if r.family == family)

    def tokens_per_word(self, run: FamilyRun) -> float | None:
        return run.tokens / self.measured_words if run.model is not None and self.measured_words else None


def default_vocab_size(chars: int) -> int:
    """A vocabulary size that shows each family at work: above the 256 bytes, larger for larger corpora.

    At 80% the transition is then above the bytes, so SuperBPE's phase one learns merges.

    >>> default_vocab_size(300), default_vocab_size(10_000), default_vocab_size(5_000_000)
    (400, 500, 2000)
    """
    if chars < 5_000:
        return 400
    if chars < 100_000:
        return 500
    return 2_000


def transition_size(vocab_size: int, percent: int) -> int:
    """SuperBPE's transition vocabulary size: `percent` of the vocabulary, at least the 256 bytes.

    >>> transition_size(2000, 80), transition_size(300, 50)
    (1600, 256)
    """
    return max(256, min(vocab_size, round(vocab_size * percent / 100)))


def drop_long_words(text: str) -> tuple[str, int]:
    """The text with every run of more than `LONG_WORD` non-whitespace characters made a space, and their number.

    WordPiece encodes such a word as its unknown token anyway, and its trainer's time grows with
    the square of a word's length (a 20,000-letter word takes it seconds).

    >>> drop_long_words("ok " + "x" * 101 + " fine")
    ('ok   fine', 1)
    """
    return _LONG_WORD.subn(" ", text)


def split_corpus(text: str) -> tuple[str, str, str]:
    """(training text, measured text, "held-out" or "training")."""
    train_text = text[:TRAIN_CHARS]
    held = text[TRAIN_CHARS:TRAIN_CHARS + HELD_OUT_CHARS]
    if held.strip():
        return train_text, held, "held-out"
    return train_text, train_text, "training"


def check_request(text: str, vocab_size: int) -> None:
    """A one-line BPEError for what no family can train."""
    if not text.strip():
        raise BPEError("the corpus is empty (or only whitespace): there is nothing to train on")
    if not MIN_VOCAB <= vocab_size <= MAX_VOCAB:
        raise BPEError(f"ask for a vocabulary of {MIN_VOCAB:,} to {MAX_VOCAB:,} tokens, not {vocab_size:,}")


def _train_one(family: str, text: str, vocab_size: int, transition: int) -> Any:
    if family == "BPE":
        return train([text], BPE_SETTINGS, vocab_size=vocab_size)
    if family == "WordPiece":
        return train_wordpiece([text], vocab_size=vocab_size)
    if family == "Unigram":
        return train_unigram([text], vocab_size=vocab_size)
    if 256 < vocab_size <= transition:  # below the bytes, the engine says why
        raise BPEError(f"the transition ({transition:,}) must be below the vocabulary size ({vocab_size:,}) "
                       "for phase two to learn anything")
    return train_superbpe([text], vocab_size=vocab_size, transition=transition, pretokenizer="o200k")


def encode(family: str, model: Any, text: str) -> list[str]:
    """A family's tokens for a text (BPE's `encode` gives an Encoding, the others a list)."""
    return list(model.encode(text).tokens) if family == "BPE" else list(model.encode(text))


def size_note(reached: int, asked: int) -> str:
    """Why a family's vocabulary is not the size asked for, in words ("" when it is).

    >>> size_note(380, 100)
    'more than asked: its base symbols alone are that many'
    """
    if reached > asked:
        return "more than asked: its base symbols alone are that many"
    if reached < asked:
        return "fewer than asked: this text offers no more tokens to learn"
    return ""


def train_families(text: str, *, vocab_size: int, transition: int,
                   progress: Callable[[int, str], None] | None = None) -> Families:
    """Train the four families on the corpus's start; `progress(index, family)` before each.

    A family that cannot train with these settings keeps its message in `error`; the others go on.
    """
    check_request(text, vocab_size)
    train_text, measured, measured_on = split_corpus(text)
    train_text, long_words = drop_long_words(train_text)
    if not train_text.strip():
        raise BPEError(f"every word of the training text is longer than {LONG_WORD} characters: there is nothing "
                       "to train on")
    runs = []
    for index, family in enumerate(FAMILIES):
        if progress is not None:
            progress(index, family)
        start = time.perf_counter()
        try:
            model = _train_one(family, train_text, vocab_size, transition)
        except BPEError as exc:
            runs.append(FamilyRun(family, None, time.perf_counter() - start, error=str(exc)))
            continue
        seconds = time.perf_counter() - start
        runs.append(FamilyRun(family, model, seconds, vocab_size=len(model.vocab),
                              tokens=len(encode(family, model, measured)),
                              note=size_note(len(model.vocab), vocab_size)))
    return Families(tuple(runs), vocab_size, transition, len(text), len(train_text), measured_on,
                    len(measured), len(measured.split()), long_words)


class FamiliesCache:
    """The last `entries` trained sets, keyed by (corpus digest, vocabulary size, transition); locked."""

    def __init__(self, entries: int = CACHE_ENTRIES) -> None:
        self.entries = entries
        self._items: OrderedDict[tuple, Families] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Families | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple, value: Families) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.entries:
                self._items.popitem(last=False)


# ---- vocabulary overlap --------------------------------------------------------------------

SPECIALS = frozenset({"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "<unk>"})


def surface(family: str, token: str) -> bytes:
    """The bytes a token stands for, its word-start or continuation marker dropped.

    Byte-level tokens are decoded ("Ġlow" -> b" low"); then one leading space, "▁" or WordPiece's
    "##" is removed, unless it is the whole token.

    >>> surface("BPE", "Ġlow"), surface("WordPiece", "##low"), surface("Unigram", "▁low"), surface("Unigram", "▁")
    (b'low', b'low', b'low', b' ')
    """
    if BYTE_LEVEL[family]:
        data = symbols_to_bytes(token)
    else:
        data = token.replace("▁", " ").encode("utf-8", errors="surrogatepass")
        if family == "WordPiece" and token.startswith("##") and len(token) > 2:
            return data[2:]
    return data[1:] if data.startswith(b" ") and len(data) > 1 else data


def surfaces(family: str, model: Any) -> frozenset[bytes]:
    """The distinct surfaces of a model's vocabulary, special tokens left out."""
    return frozenset(surface(family, t) for t in model.vocab if t not in SPECIALS)


@dataclass(frozen=True)
class Overlap:
    first: str
    second: str
    shared: int
    only_first: int
    only_second: int

    @property
    def jaccard(self) -> float:
        union = self.shared + self.only_first + self.only_second
        return self.shared / union if union else 0.0


def overlaps(families: Families) -> list[Overlap]:
    """Every pair of trained families (in `FAMILIES` order) compared by surfaces."""
    sets = {r.family: surfaces(r.family, r.model) for r in families.runs if r.model is not None}
    names = [f for f in FAMILIES if f in sets]
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = len(sets[a] & sets[b])
            out.append(Overlap(a, b, shared, len(sets[a]) - shared, len(sets[b]) - shared))
    return out


# ---- several segmentations of one word ------------------------------------------------------

NBEST = 8
DROPOUT_P = 0.1
DROPOUT_SAMPLES = 1_000
DROPOUT_SEED = 0


def unigram_nbest(model: Any, word: str, n: int = NBEST) -> list[tuple[list[str], float, float]]:
    """Unigram's `n` best segmentations of a word: (pieces, log-probability, share among the n)."""
    return model.nbest(word, n)


def bpe_dropout(model: Any, word: str) -> DropoutDistribution:
    """BPE-dropout on the word as it stands after a space (" lowest"), seeded: the same every time."""
    return dropout_distribution(model, " " + word, p=DROPOUT_P, samples=DROPOUT_SAMPLES, seed=DROPOUT_SEED)

