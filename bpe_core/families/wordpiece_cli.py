"""`train --model wordpiece`: WordPiece on the SOURCES, or on word-mode counts made by `count`.

It counts whitespace words exactly as `train` does for BPE in word mode (in this process or on
Dask, or read from a `--counts` file of word mode without normalization); the trainer cuts each
counted word again with BERT's pre-tokenizer and lowercases it when asked.
"""
from __future__ import annotations

import argparse
import time
from collections import Counter

from ..cli_count import COUNTING_OPTIONS, counts_for_training
from ..cli_families import report_counted, sized_report, vocab_size, words_counted
from ..counts_file import read_counts
from ..settings import BPEError, Settings
from .registry import Trained
from .wordpiece import train_wordpiece_from_counts
from .wordpiece_model import WordPieceModel

_WORDS = Settings(mode="word")  # how its words are counted


def train(args: argparse.Namespace) -> Trained:
    """Train on the parsed `train` arguments."""
    asked = vocab_size(args)
    counts, lowercase = _counts(args)
    started = time.perf_counter()
    model = train_wordpiece_from_counts(counts, vocab_size=asked, lowercase=lowercase)
    return Trained(model, report(model, counts, asked, time.perf_counter() - started, args.output))


def _counts(args: argparse.Namespace) -> tuple[Counter[str], bool]:
    """Whitespace word counts (from SOURCES or --counts) and whether to lowercase."""
    if args.counts is None:
        counts, _, counted = counts_for_training(args, lambda _: _WORDS)
        report_counted(counted)
        return counts, bool(args.lowercase)
    if args.sources:
        raise BPEError("give either SOURCES or --counts, not both")
    for name, option in COUNTING_OPTIONS.items():
        if getattr(args, name) is not None:
            raise BPEError(f"{option} applies to counting; {args.counts} is already counted (see its header)")
    counts, header = read_counts(args.counts)
    if (header.mode, header.pretokenizer, header.normalization) != ("word", "whitespace", "none"):
        raise BPEError(
            f"--model wordpiece trains on word-mode counts without normalization; {args.counts} was counted "
            f"in {header.mode} mode, pre-tokenizer {header.pretokenizer}, normalization {header.normalization}"
        )
    return counts, bool(args.lowercase or header.lowercase)


def report(model: WordPieceModel, counts: Counter[str], asked: int, seconds: float, output: str) -> list[str]:
    """The summary of a run: merges, words, the vocabulary with its special tokens."""
    size = len(model)
    done = (f"{len(model.trace):,} merges in {seconds:.2f} s on {words_counted(counts)}; vocabulary {size:,} "
            f"tokens ({len(model.special_tokens)} special)")
    return sized_report(model, done, size=size, asked=asked, why="no pair is left to merge", output=output)
