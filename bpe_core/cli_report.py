"""`python -m bpe_core report`: the report card of each tokenizer, one JSON object a line.

One line per tokenizer and reference text: the measures (`bpe_core.report.measures`), the
sanity checks, the digit grouping and the residue, and, with --parallel DIR, the parallel
texts' languages with their premiums (the same for every text of one tokenizer). A parallel set
is a folder of `<language code>.txt` files holding the same content, `en.txt` the reference
(`python -m sample_corpora parallel DIR` writes the explorer's fifteen languages so). Without
--corpus the reference text is the parallel set itself, its languages one after another.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from .analysis.language_tax import language_stats
from .analysis.stats import TextStats
from .cli_commands import _load, _print_lines, read_corpus
from .readers import refuse_special
from .report import checks, report_card, values
from .report.card import ReportCard
from .settings import BPEError

PARALLEL = "parallel set"
REFERENCE = "en"  # the parallel set's language every premium is over
MAX_LANGUAGES = 500
RESIDUE_SHOWN = 20  # residue tokens a line lists, most made first
MAX_TOKENIZERS = 16


def run_report(args: argparse.Namespace) -> int:
    """Check every option and read every file first, so a bad one fails before any measuring."""
    if len(args.tokenizers) > MAX_TOKENIZERS:
        raise BPEError(f"at most {MAX_TOKENIZERS} tokenizers at once, not {len(args.tokenizers)}")
    _check_options(args)
    texts = {name: _read_limited(name, args.max_bytes) for name in args.corpus or ()}
    if args.parallel is None and not texts:
        raise BPEError("give reference texts with --corpus FILE, a parallel set with --parallel DIR, or both")
    parallel = _parallel_texts(args.parallel, args.max_bytes) if args.parallel is not None else None
    if not texts and parallel is not None:
        texts = {PARALLEL: "\n".join(parallel.values())}
    for name in args.tokenizers:
        tok = _load(name, args)
        stats = None if parallel is None else language_stats(tok, parallel)  # type: ignore[arg-type]
        for corpus, text in texts.items():
            card = report_card(tok, text, parallel=stats, alpha=args.alpha, min_made=args.min_made,
                               residue_share=args.residue_share)
            _print_lines([_row(name, corpus, card)])
            sys.stdout.flush()
    return 0


def _check_options(args: argparse.Namespace) -> None:
    if not args.alpha >= 0 or args.alpha > 100:
        raise BPEError(f"--alpha is between 0 and 100, not {args.alpha}")
    if not 0 < args.residue_share <= 1:
        raise BPEError(f"--residue-share is above 0 and at most 1, not {args.residue_share}")
    if not 1 <= args.min_made <= 10**9:
        raise BPEError(f"--min-made is between 1 and 1,000,000,000, not {args.min_made}")
    if args.max_bytes < 1:
        raise BPEError(f"--max-bytes is at least 1, not {args.max_bytes}")


def _read_limited(name: str, max_bytes: int) -> str:
    """A reference text, refused above `max_bytes` by its size before it is read; `read_corpus`
    refuses pipes and devices unopened, missing files and directories, and caps standard input."""
    if name != "-":
        refuse_special(name, hint="; give a text file")
        size = os.path.getsize(name) if os.path.isfile(name) else 0
        if size > max_bytes:
            raise BPEError(f"{name} has {size:,} bytes, over --max-bytes {max_bytes:,}")
    return read_corpus(name, max_bytes=max_bytes)


def _parallel_texts(folder: str, max_bytes: int) -> dict[str, str]:
    """{language code: text} of a folder's `*.txt` files, by code; `en.txt` must be among them."""
    path = Path(folder)
    if not path.is_dir():
        raise BPEError(f"--parallel {folder} is not a directory of <language>.txt files")
    files = sorted(p for p in path.glob("*.txt") if not p.name.startswith("."))[:MAX_LANGUAGES + 1]
    if len(files) > MAX_LANGUAGES:
        raise BPEError(f"--parallel {folder} holds more than {MAX_LANGUAGES} .txt files")
    texts = {p.stem: _read_limited(str(p), max_bytes) for p in files}
    if REFERENCE not in texts:
        raise BPEError(f"--parallel {folder} has no {REFERENCE}.txt, the English text the premiums are over")
    return {REFERENCE: texts.pop(REFERENCE), **texts}


def _row(name: str, corpus: str, card: ReportCard) -> dict[str, Any]:
    row: dict[str, Any] = {"tokenizer": name, "corpus": corpus, "vocabulary_size": card.vocabulary_size,
                           "bytes": card.text.bytes, "tokens": card.text.tokens, "alpha": card.alpha}
    row["measures"] = values(card)
    row["checks"] = [{"name": c.name, "status": c.status, "reason": c.reason} for c in checks(card)]
    row["digits"] = {"rule": card.digits.describe(), "groups": card.digits.groups}
    if card.residue is not None:
        row["residue"] = {"min_made": card.residue.min_made, "threshold": card.residue.threshold,
                          "tokens": [{"token": t.token, "emitted": t.emitted, "inside": t.inside}
                                     for t in card.residue.residue[:RESIDUE_SHOWN]]}
    if card.fairness is not None:
        row["languages"] = dict(_languages(card.fairness.languages))
    return row


def _languages(rows: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for one in rows:
        stats: TextStats = one.stats
        yield one.code, {"bytes": stats.bytes, "characters": stats.characters, "tokens": stats.tokens,
                         "tokens_per_byte": stats.tokens_per_byte, "premium": one.premium}

