"""`train --model unigram`: Unigram on the SOURCES, counted in this process, streaming.

Unigram keeps tabs inside its words (only U+0020 separates them), so it reads the texts itself:
the pieces of each text are cut again only before a space, where its meta-space words always
part, and counted one by one (exact, bounded memory). Training cuts its words further at line
breaks and into runs of at most `MAX_TRAINING_WORD` characters (`unigram_text.training_words`),
as the explorer does: one text without spaces (a megabyte "word") trains as its runs.
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


def train(args: argparse.Namespace) -> Trained:
    """Train on the parsed `train` arguments."""
    asked = vocab_size(args)
    counts = apply_min_count(_counts(args), args.min_count or 1)
    started = time.perf_counter()
    model = train_unigram_from_counts(counts, vocab_size=asked)
    return Trained(model, report(model, counts, asked, time.perf_counter() - started, args.output))


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


def report(model: UnigramModel, counts: Counter[str], asked: int, seconds: float, output: str) -> list[str]:
    """The summary of a run: rounds, words, the pieces and the unknown piece."""
    size = len(model.pieces)
    rounds = "1 round" if len(model.trace) == 1 else f"{len(model.trace):,} rounds"
    done = (f"{rounds} in {seconds:.2f} s on {words_counted(counts)}; vocabulary {size - 1:,} pieces + "
            f"{model.unk_token}")
    return sized_report(model, done, size=size, asked=asked, why="the corpus's substrings make no more pieces",
                        output=output)
