"""`train --model unigram`: Unigram on the SOURCES, counted in this process, streaming.

Unigram keeps tabs and newlines inside its words (only U+0020 separates them), so it reads the
texts itself: the pieces of each text are cut again only before a space, where its meta-space
words always part, and counted one by one (exact, bounded memory).

Words longer than MAX_WORD_LENGTH characters are left out of training, as WordPiece leaves out
words longer than its `max_input_chars_per_word` (100): a long word costs its length in every
round of EM, and no count folds it together with others, so one text without spaces (a megabyte
"word") took minutes per round. The summary says how many were left out.
"""
from __future__ import annotations

import argparse
import time
from collections import Counter

from ..cli_count import max_bytes
from ..cli_families import sized_report, text_streams, vocab_size, words_counted
from ..counting import apply_min_count
from ..settings import BPEError
from .registry import Trained
from .unigram import train_unigram_from_counts, word_counts
from .unigram_model import UnigramModel

MAX_WORD_LENGTH = 100  # characters, the "▁" included; WordPiece's max_input_chars_per_word


def train(args: argparse.Namespace) -> Trained:
    """Train on the parsed `train` arguments."""
    asked = vocab_size(args)
    counts, long = cut_long_words(_counts(args))
    counts = apply_min_count(counts, args.min_count or 1)
    if not counts and long:
        raise BPEError(f"the corpus has no words to train on: every word is longer than {MAX_WORD_LENGTH} "
                       f"characters ({words_counted(long)} left out; Unigram splits words at spaces only)")
    started = time.perf_counter()
    model = train_unigram_from_counts(counts, vocab_size=asked)
    return Trained(model, report(model, counts, asked, time.perf_counter() - started, args.output, long=long))


def cut_long_words(counts: Counter[str]) -> tuple[Counter[str], Counter[str]]:
    """(the words of at most MAX_WORD_LENGTH characters, the longer ones), each in their order.

    >>> kept, long = cut_long_words(Counter({"▁a": 2, "▁" + "b" * 100: 1, "▁c": 1}))
    >>> kept, [len(word) for word in long]
    (Counter({'▁a': 2, '▁c': 1}), [101])
    """
    long = Counter({word: n for word, n in counts.items() if len(word) > MAX_WORD_LENGTH})
    if not long:
        return counts, long
    return Counter({word: n for word, n in counts.items() if word not in long}), long


def _counts(args: argparse.Namespace) -> Counter[str]:
    """Unigram's meta-space word counts of the SOURCES, in order of first appearance.

    A cut just before a space is safe: the space becomes the "▁" that starts the next word either
    way, and no word (nor the unknown token's text) holds a space inside it.
    """
    if not args.sources:
        raise BPEError("give the SOURCES to train on")
    counts: Counter[str] = Counter()
    for pieces in text_streams(args.sources, errors=args.errors or "strict", text_field=args.text_field,
                               max_bytes=max_bytes(args)):
        pending = ""
        for piece in pieces:
            pending += piece
            cut = pending.rfind(" ")
            if cut > 0:
                counts.update(word_counts([pending[:cut]]))
                pending = pending[cut:]
        if pending:
            counts.update(word_counts([pending]))
    return counts


def report(model: UnigramModel, counts: Counter[str], asked: int, seconds: float, output: str, *,
           long: Counter[str] | None = None) -> list[str]:
    """The summary of a run: rounds, words (and those left out as too long), the pieces and the
    unknown piece."""
    size = len(model.pieces)
    rounds = "1 round" if len(model.trace) == 1 else f"{len(model.trace):,} rounds"
    cut = f" ({words_counted(long)} over {MAX_WORD_LENGTH} characters left out)" if long else ""
    done = (f"{rounds} in {seconds:.2f} s on {words_counted(counts)}{cut}; vocabulary {size - 1:,} pieces + "
            f"{model.unk_token}")
    return sized_report(model, done, size=size, asked=asked, why="the corpus's substrings make no more pieces",
                        output=output)
