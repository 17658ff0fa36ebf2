"""`train --model superbpe`: SuperBPE on the SOURCES, each text counted whole for both phases.

Phase two has pieces that cross spaces and lines, so each text is read whole (one text in memory
at a time) and counted for both phases; the counts then train. Its own option is `--transition`;
`--merges N` asks for a vocabulary of 256 + N, as byte-level BPE counts it.
"""
from __future__ import annotations

import argparse
import time
from collections import Counter

from ..cli_count import max_bytes
from ..cli_families import sized_report, text_streams, vocab_size, words_counted
from ..cli_progress import MergeBar, bars_wanted
from ..settings import BPEError
from .registry import Trained
from .superbpe import count_both
from .superbpe_model import SuperBPEModel
from .superbpe_training import train_superbpe_from_counts

# `--pretokenizer` names for phase one (the CLI's own choices; the paper's pattern is the default).
PHASE_ONE = ("gpt2", "gpt4", "o200k", "qwen")
BYTES = 256  # the byte symbols every vocabulary starts with


def add_arguments(command: argparse.ArgumentParser) -> None:
    """`--transition`, the option only SuperBPE has."""
    command.add_argument("--transition", type=int, metavar="N", help="superbpe: the vocabulary size where phase "
                         "two (merges across spaces) starts (default: 90%% of --vocab-size)")


def train(args: argparse.Namespace) -> Trained:
    """Train on the parsed `train` arguments."""
    if args.pretokenizer is not None and args.pretokenizer not in PHASE_ONE:
        raise BPEError(f"--pretokenizer {args.pretokenizer} does not apply to --model superbpe (phase one splits "
                       f"with the paper's pattern, or {', '.join(PHASE_ONE)})")
    asked = _size(args)
    if not args.sources:
        raise BPEError("give the SOURCES to train on")
    pretokenizer = args.pretokenizer or "superbpe"
    one: Counter[str] = Counter()
    two: Counter[str] = Counter()
    for pieces in text_streams(args.sources, errors=args.errors or "strict", text_field=args.text_field,
                               max_bytes=max_bytes(args)):
        first, second = count_both(["".join(pieces)], pretokenizer)
        one.update(first)
        two.update(second)
    bar = MergeBar() if bars_wanted(args.progress) else None
    started = time.perf_counter()
    try:
        model = train_superbpe_from_counts(
            one, two, vocab_size=asked, transition=args.transition, pretokenizer=pretokenizer,
            tie_break=args.tie_break, min_frequency=args.min_frequency,
            max_token_length=args.max_token_length or None, progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()
    return Trained(model, report(model, one, asked, time.perf_counter() - started, args.output))


def _size(args: argparse.Namespace) -> int:
    """The vocabulary size asked for: --vocab-size N, or --merges N meaning 256 + N."""
    if args.merges is None:
        return vocab_size(args)
    if args.vocab_size is not None:
        raise BPEError("give either --merges or --vocab-size, not both")
    if args.merges < 0:
        raise BPEError(f"--merges must be 0 or more, not {args.merges}")
    return BYTES + int(args.merges)


def report(model: SuperBPEModel, counts: Counter[str], asked: int, seconds: float, output: str) -> list[str]:
    """The summary of a run: merges by phase, superwords, phase one's words, the vocabulary."""
    size = model.vocab_size
    supers = sum(1 for step in model.steps if step[5])
    done = (f"{len(model.merges):,} merges ({model.transition:,} in phase one, {supers:,} superwords) in "
            f"{seconds:.2f} s on {words_counted(counts)} of phase one; vocabulary {size:,} tokens")
    why = model.training.stop_reason if model.training else ""
    return sized_report(model, done, size=size, asked=asked, why=why, output=output)
