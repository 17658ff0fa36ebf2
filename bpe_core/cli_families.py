"""`train --model wordpiece|unigram|superbpe` and what the other commands do with those models.

How each family reads the SOURCES (each file, JSON line or Parquet value is one text, as for BPE):

- WordPiece counts whitespace words exactly as `train` does for BPE in word mode (issue 12's
  counting: in this process or on Dask, `--counts` files of word mode too); the trainer cuts each
  counted word again with BERT's pre-tokenizer and lowercases it when asked.
- Unigram keeps tabs and newlines inside its words (only U+0020 separates them), so it reads the
  texts itself, in this process, streaming: the pieces of each text are cut again only before a
  space, where its meta-space words always part, and counted one by one (exact, bounded memory).
- SuperBPE's phase two has pieces that cross spaces and lines, so each text is read whole (one
  text in memory at a time) and counted for both phases; the counts then train.

Options a family does not use are refused with one line naming the option and the model.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from .cli_count import COUNTING_OPTIONS, _read_stdin, counts_for_training
from .cli_progress import MergeBar, bars_wanted
from .counting import apply_min_count
from .counts_file import read_counts
from .families import SuperBPEModel, UnigramModel, WordPieceModel
from .families.superbpe import count_both
from .families.superbpe_training import train_superbpe_from_counts
from .families.unigram import train_unigram_from_counts, word_counts
from .families.wordpiece import train_wordpiece_from_counts
from .formats.families import FamilyModel, family_name, save_family, save_family_hf
from .model import Tokenizer
from .readers import classify
from .records import jsonl_texts, parquet_row_groups, parquet_texts
from .settings import BPEError, Settings
from .sources import expand_sources, plan_partitions, read_texts

FAMILIES = ("wordpiece", "unigram", "superbpe")
MODELS = ("bpe", *FAMILIES)
_WORDS = Settings(mode="word")  # WordPiece's counting, and where text files are cut into pieces
_WHOLE_FILE = 1 << 62  # a partition size no file reaches: one partition a file

# Every option of `train` that only some models use: its dest -> its flag.
_FLAGS = {
    "mode": "--mode", "pretokenizer": "--pretokenizer", "lowercase": "--lowercase",
    "normalization": "--normalization", "merges": "--merges", "tie_break": "--tie-break", "eow": "--eow",
    "min_frequency": "--min-frequency", "max_token_length": "--max-token-length", "transition": "--transition",
    "counts": "--counts", **COUNTING_OPTIONS,
}
_TAKES = {
    "bpe": set(_FLAGS) - {"transition"},
    "wordpiece": {"lowercase", "counts", *COUNTING_OPTIONS},
    "unigram": {"text_field", "errors", "min_count"},
    "superbpe": {"pretokenizer", "merges", "tie_break", "min_frequency", "max_token_length", "transition",
                 "text_field", "errors"},
}
_LATE = ("tie_break", "eow", "min_frequency", "max_token_length")  # see cli.LATE_DEFAULTS
# `--pretokenizer` names for SuperBPE's phase one (the CLI's own choices; the paper's is the default).
_PHASE_ONE = ("gpt2", "gpt4", "o200k", "qwen")


def add_family_options(command: argparse.ArgumentParser) -> None:
    option = command.add_argument
    option("--model", choices=MODELS, default="bpe", help="the tokenizer family (default: bpe). wordpiece, "
           "unigram and superbpe need --vocab-size N (the vocabulary's size, special tokens included; "
           "superbpe also takes --merges N, meaning 256 + N) and refuse the options they do not use")
    option("--transition", type=int, metavar="N", help="superbpe: the vocabulary size where phase two (merges "
           "across spaces) starts (default: 90%% of --vocab-size)")


def check_model_options(args: argparse.Namespace) -> None:
    """Refuse, in one line, the first option given that `args.model` does not use."""
    model = args.model
    given: set[str] = getattr(args, "given", set())
    for dest, flag in _FLAGS.items():
        value = getattr(args, dest, None)
        on = dest in given if dest in _LATE else value is not None and value is not False
        if on and dest not in _TAKES[model]:
            takes = sorted(_FLAGS[d] for d in _TAKES[model]) or ["no other option"]
            if model == "bpe":
                raise BPEError(f"{flag} does not apply to --model bpe; it is for --model superbpe")
            raise BPEError(f"{flag} does not apply to --model {model} (it takes --vocab-size, {', '.join(takes)})")
    if model == "superbpe" and args.pretokenizer is not None and args.pretokenizer not in _PHASE_ONE:
        raise BPEError(f"--pretokenizer {args.pretokenizer} does not apply to --model superbpe (phase one splits "
                       f"with the paper's pattern, or {', '.join(_PHASE_ONE)})")


# ---- train ----------------------------------------------------------------------------------


def run_train_family(args: argparse.Namespace) -> int:
    """Train a WordPiece, Unigram or SuperBPE model on the SOURCES (or WordPiece on --counts)."""
    vocab_size = _vocab_size(args)
    if args.model == "wordpiece":
        counts, lowercase = _wordpiece_counts(args)
        started = time.perf_counter()
        model: FamilyModel = train_wordpiece_from_counts(counts, vocab_size=vocab_size, lowercase=lowercase)
    elif args.model == "unigram":
        counts = apply_min_count(_unigram_counts(args), args.min_count or 1)
        started = time.perf_counter()
        model = train_unigram_from_counts(counts, vocab_size=vocab_size)
    else:
        counts, model, started = _train_superbpe(args, vocab_size)
    save_family(model, args.output)
    _report(model, counts, vocab_size, time.perf_counter() - started, args.output)
    return 0


def _vocab_size(args: argparse.Namespace) -> int:
    if args.merges is not None:  # only SuperBPE gets here with --merges
        if args.vocab_size is not None:
            raise BPEError("give either --merges or --vocab-size, not both")
        if args.merges < 0:
            raise BPEError(f"--merges must be 0 or more, not {args.merges}")
        return 256 + args.merges
    if args.vocab_size is None:
        raise BPEError(f"--model {args.model} needs --vocab-size N")
    if args.vocab_size < 1:
        raise BPEError(f"--vocab-size must be at least 1, not {args.vocab_size}")
    return int(args.vocab_size)


def _wordpiece_counts(args: argparse.Namespace) -> tuple[Counter[str], bool]:
    """Whitespace word counts (from SOURCES or --counts) and whether to lowercase."""
    if args.counts is None:
        counts, _, counted = counts_for_training(args, lambda _: _WORDS)
        if counted is not None and counted.place != "here":
            print(f"counted {counted.describe()} in {counted.seconds:.2f} s", file=sys.stderr)
        return counts, bool(args.lowercase)
    if args.sources:
        raise BPEError("give either SOURCES or --counts, not both")
    for name, flag in COUNTING_OPTIONS.items():
        if getattr(args, name) is not None:
            raise BPEError(f"{flag} applies to counting; {args.counts} is already counted (see its header)")
    counts, header = read_counts(args.counts)
    if (header.mode, header.pretokenizer, header.normalization) != ("word", "whitespace", "none"):
        raise BPEError(
            f"--model wordpiece trains on word-mode counts without normalization; {args.counts} was counted "
            f"in {header.mode} mode, pre-tokenizer {header.pretokenizer}, normalization {header.normalization}"
        )
    return counts, bool(args.lowercase or header.lowercase)


def text_streams(sources: list[str], *, errors: str, text_field: str | None) -> Iterator[Iterable[str]]:
    """Each text of the sources, in order, as pieces whose concatenation is the text: a text file
    (or stdin, '-') is one text, each JSON line or Parquet value another."""
    field = text_field or "text"
    group: list[str] = []
    for source in [*sources, None]:  # None: the end
        if source is not None and source != "-":
            group.append(source)
            continue
        for path in expand_sources(group) if group else []:
            kind, compression = classify(path)
            if kind == "jsonl":
                yield from ([text] for text in jsonl_texts(path, compression, start=0, end=None, errors=errors,
                                                          text_field=field))
            elif kind == "parquet":
                for row_group, _ in parquet_row_groups(path, field):
                    yield from ([text] for text in parquet_texts(path, row_group, text_field=field))
            else:
                (whole,) = plan_partitions([path], partition_bytes=_WHOLE_FILE)
                yield read_texts(whole, _WORDS, errors=errors)
        group = []
        if source == "-":
            if text_field is not None:
                raise BPEError("--text-field applies to JSON lines and Parquet files, not to stdin")
            yield [_read_stdin(errors)]


def _unigram_counts(args: argparse.Namespace) -> Counter[str]:
    """Unigram's meta-space word counts of the SOURCES, in order of first appearance.

    A cut just before a space is safe: the space becomes the "▁" that starts the next word either
    way, and no word (nor the unknown token's text) holds a space inside it.
    """
    if not args.sources:
        raise BPEError("give the SOURCES to train on")
    counts: Counter[str] = Counter()
    for pieces in text_streams(args.sources, errors=args.errors or "strict", text_field=args.text_field):
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


def _train_superbpe(args: argparse.Namespace, vocab_size: int) -> tuple[Counter[str], SuperBPEModel, float]:
    if not args.sources:
        raise BPEError("give the SOURCES to train on")
    pretokenizer = args.pretokenizer or "superbpe"
    one: Counter[str] = Counter()
    two: Counter[str] = Counter()
    for pieces in text_streams(args.sources, errors=args.errors or "strict", text_field=args.text_field):
        first, second = count_both(["".join(pieces)], pretokenizer)
        one.update(first)
        two.update(second)
    bar = MergeBar() if bars_wanted(args.progress) else None
    started = time.perf_counter()
    try:
        model = train_superbpe_from_counts(
            one, two, vocab_size=vocab_size, transition=args.transition, pretokenizer=pretokenizer,
            tie_break=args.tie_break, min_frequency=args.min_frequency,
            max_token_length=args.max_token_length or None, progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()
    return one, model, started


def _report(model: FamilyModel, counts: Counter[str], asked: int, seconds: float, output: str) -> None:
    words = f"{sum(counts.values()):,} words ({len(counts):,} distinct)"
    if isinstance(model, WordPieceModel):
        size = len(model)
        done = f"{len(model.trace):,} merges in {seconds:.2f} s on {words}; vocabulary {size:,} tokens " \
               f"({len(model.special_tokens)} special)"
    elif isinstance(model, UnigramModel):
        size = len(model.pieces)
        rounds = "1 round" if len(model.trace) == 1 else f"{len(model.trace):,} rounds"
        done = f"{rounds} in {seconds:.2f} s on {words}; vocabulary {size - 1:,} pieces + {model.unk_token}"
    else:
        size = model.vocab_size
        supers = sum(1 for step in model.steps if step[5])
        done = f"{len(model.merges):,} merges ({model.transition:,} in phase one, {supers:,} superwords) in " \
               f"{seconds:.2f} s on {words} of phase one; vocabulary {size:,} tokens"
    print(f"trained {family_name(model)}: {done} -> {output}", file=sys.stderr)
    if size < asked:
        if isinstance(model, SuperBPEModel):
            why = model.training.stop_reason if model.training else ""
        elif isinstance(model, UnigramModel):
            why = "the corpus's substrings make no more pieces"
        else:
            why = "no pair is left to merge"
        print(f"stopped at {size:,} of {asked:,} tokens: {why}", file=sys.stderr)


# ---- the other commands ---------------------------------------------------------------------


def trace_rows(model: FamilyModel) -> Iterator[dict[str, Any]]:
    """One JSON-ready row per training step (WordPiece), round (Unigram) or merge (SuperBPE)."""
    if isinstance(model, WordPieceModel):
        for step in model.trace:
            yield {"step": step.step, "left": step.left, "right": step.right, "token": step.token,
                   "score": step.score, "pair_count": step.pair_count, "left_count": step.left_count,
                   "right_count": step.right_count, "added": step.added}
    elif isinstance(model, UnigramModel):
        for one in model.trace:
            yield one.to_dict()
    else:
        counts = [step.count for step in model.trace] if len(model.trace) == len(model.merges) else None
        for rank, left, right, token, phase, superword in model.steps:
            yield {"rank": rank, "left": left, "right": right, "token": token,
                   "count": counts[rank] if counts else None, "phase": phase, "superword": superword}


def encoded(model: FamilyModel, text: str) -> dict[str, Any]:
    return {"text": text, "tokens": model.encode(text), "ids": model.encode_ids(text)}


def export(model: FamilyModel, fmt: str, output: str) -> None:
    if fmt != "hf":
        raise BPEError(f"--format {fmt} holds only byte-level BPE; a {family_name(model)} model exports "
                       "with --format hf")
    save_family_hf(model, output)


def bpe_view(model: FamilyModel, command: str) -> Tokenizer:
    """The BPE tokenizer `overlap` compares: SuperBPE's merges as a bytes-mode tokenizer."""
    if isinstance(model, SuperBPEModel):
        return model.tokenizer
    raise BPEError(f"{command} compares BPE vocabularies; a {family_name(model)} model is not one")
