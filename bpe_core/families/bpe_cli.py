"""`train --model bpe`: byte-pair encoding on the SOURCES, or on word counts made by `count`.

The words are counted by `cli_count` (in this process or on Dask, or read from `--counts`), then
trained on with a progress bar; the summary names the merges learned, the words, the vocabulary,
and why training stopped before the merges asked for.
"""
from __future__ import annotations

import argparse
import time

from ..cli_count import counts_for_training, merge_target, settings_from_args
from ..cli_families import report_counted
from ..cli_progress import MergeBar, bars_wanted
from ..model import Tokenizer
from ..settings import BPEError
from ..training import train_from_counts
from .registry import Trained


def train(args: argparse.Namespace) -> Trained:
    """Train on the parsed `train` arguments."""
    merges, vocab_size = merge_target(args)
    if args.min_frequency < 1:
        raise BPEError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    if args.max_token_length < 0:
        raise BPEError(f"--max-token-length must be 0 (no limit) or more, not {args.max_token_length}")
    counts, settings, counted = counts_for_training(args, settings_from_args)
    report_counted(counted)
    bar = MergeBar() if bars_wanted(args.progress) else None
    started = time.perf_counter()
    try:
        tok = train_from_counts(
            counts,
            settings,
            merges=merges,
            vocab_size=vocab_size,
            max_token_length=args.max_token_length or None,
            progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()
    return Trained(tok, report(tok, time.perf_counter() - started, args.output))


def report(tok: Tokenizer, seconds: float, output: str) -> list[str]:
    """The summary of a run: merges, words, vocabulary, and why it stopped short, if it did."""
    result = tok.training
    assert result is not None  # train() always records its result
    learned = len(result.trace)
    words = "word" if result.word_count == 1 else "words"
    unk = f" + {tok.unk_token}" if tok.unk_token else ""
    lines = [
        f"trained {learned} merges in {seconds:.2f} s on {result.word_count:,} {words} "
        f"({result.distinct_words:,} distinct); vocabulary {tok.vocab_size - bool(tok.unk_token):,} "
        f"tokens{unk} -> {output}"
    ]
    if learned < result.requested_merges:
        lines.append(f"stopped after {learned} of {result.requested_merges} merges: {result.stop_reason}")
    return lines
