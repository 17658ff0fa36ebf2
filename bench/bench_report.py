"""The report card of every built-in tokenizer and one trained here, with how long each card takes.

    python bench/bench_report.py            # the 5 MB English sample, bytes mode, 10,000 merges trained on it
    python bench/bench_report.py --quick    # 500 KB, 2,000 merges, three built-ins (a smoke run)

Prints the card (measures down, tokenizers across), each tokenizer's sanity checks, then per
tokenizer the seconds of its first card (with the checks made once per tokenizer) and of a
second one, beside the seconds the reference library (tiktoken, `tokenizers`, sentencepiece)
takes to encode the same text once, single-threaded: the ratio is what grading costs over the
least any measure needs (one encoding).
"""
from __future__ import annotations

import argparse
import os
import time

from _common import QUICK_BYTES, corpus_path, read_text
from bench_encode import reference

from bpe_core import BPEError, Settings, train
from bpe_core.analysis.language_tax import language_stats
from bpe_core.builtin import builtin_names, load_builtin
from bpe_core.report import MEASURES, checks, report_card
from bpe_core.report.measures import COUNT, RATIO, SHARE
from sample_corpora import load_parallel


def shown(kind: str, value: object) -> str:
    if value is None:
        return "-"
    if kind == SHARE:
        return f"{float(value):.2%}"  # type: ignore[arg-type]
    if kind == RATIO:
        return f"{float(value):.3f}"  # type: ignore[arg-type]
    if kind == COUNT:
        return f"{int(value):,}"  # type: ignore[call-overload]
    return str(value).replace(" | ", "·")


def reference_seconds(name: str, tok: object, text: str) -> tuple[str, float] | None:
    """The reference library of a built-in (bench_encode's choice) and the seconds of one encode of `text`."""
    if name not in builtin_names(parts=True):
        return None
    library, encode = reference(name, tok)
    start = time.perf_counter()
    encode(text)
    return library, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500 KB, 2,000 merges, three built-ins")
    args = parser.parse_args()
    size = QUICK_BYTES if args.quick else 5_000_000
    text = read_text(corpus_path("english", size))
    names = ["gpt2", "cl100k_base", "o200k_base"] if args.quick else builtin_names(parts=True)
    started = time.perf_counter()
    trained = train(text, Settings(mode="bytes"), merges=2_000 if args.quick else 10_000)
    print(f"trained {len(trained.merges):,} merges (bytes mode) in {time.perf_counter() - started:.1f} s")
    parallel = load_parallel()
    tokenizers = {f"trained {len(trained.merges):,}": trained}
    for name in names:
        try:
            tokenizers[name] = load_builtin(name)
        except BPEError as exc:
            print(f"{name}: skipped ({exc})")
    cards, seconds, again = {}, {}, {}
    for label, tok in tokenizers.items():
        start = time.perf_counter()
        cards[label] = report_card(tok, text, parallel=language_stats(tok, parallel))
        seconds[label] = time.perf_counter() - start
        start = time.perf_counter()  # again: the per-tokenizer parts (unreachable, partial tokens) are kept
        report_card(tok, text, parallel=language_stats(tok, parallel))
        again[label] = time.perf_counter() - start
    cells = [shown(one.kind, one.value(c)) for one in MEASURES for c in cards.values()]
    width = max(12, *(len(k) for k in cards), *map(len, cells)) + 2
    print(f"\n{len(text.encode('utf-8')):,} bytes of English prose; load average {os.getloadavg()[0]:.2f}\n")
    print(f"{'measure':<30}" + "".join(f"{k:>{width}}" for k in cards))
    for one in MEASURES:
        print(f"{one.title[:29]:<30}" + "".join(f"{shown(one.kind, one.value(c)):>{width}}" for c in cards.values()))
    print()
    for label, card in cards.items():
        print(f"{label}: " + "; ".join(f"{c.name} {c.status}" for c in checks(card)))
    print("\nfirst card: with the per-tokenizer checks (unreachable tokens, partial tokens); again: a second text")
    print(f"{'tokenizer':<20}{'first s':>9}{'again s':>9}{'reference':>16}{'encode s':>10}{'again/encode':>14}")
    for label in cards:
        peer = reference_seconds(label, tokenizers[label], text)
        library, spent = peer if peer is not None else ("-", None)
        ratio = f"{again[label] / spent:.1f}x" if spent else "-"
        print(f"{label:<20}{seconds[label]:>9.2f}{again[label]:>9.2f}{library:>16}"
              f"{(f'{spent:.2f}' if spent else '-'):>10}{ratio:>14}")


if __name__ == "__main__":
    main()
