"""The language tax table: tokens per character and premium over English, for every built-in
tokenizer and one trained here, on the multilingual parallel sample set (sample_corpora.languages).

    python bench/bench_language_tax.py                  # + bytes mode, 10,000 merges on the 5 MB English sample
    python bench/bench_language_tax.py --quick          # trained on 500 KB, 2,000 merges (a smoke run)

Prints two tables (languages down, tokenizers across), then how long each step took: building the
sample set, loading each built-in, training, and counting the tokens of every language per
tokenizer (what the Language tax page computes on its first visit, then caches).
"""
from __future__ import annotations

import argparse
import time

from _common import QUICK_BYTES, corpus_path, read_text

from bpe_core import BPEError, Settings, train
from bpe_core.analysis.language_tax import TaxRow, language_stats, tax_rows
from bpe_core.builtin import builtin_info, builtin_names, load_builtin
from sample_corpora import PARALLEL_NOTE, list_languages, load_parallel


def table(rows: list[TaxRow], names: dict[str, str], languages: dict[str, str], *, premium: bool) -> str:
    """Languages down, tokenizers across, as fixed-width text."""
    width = max(10, *(len(n) for n in names.values()))
    lines = [f"{'language':<30}" + "".join(f"{names[k]:>{width + 2}}" for k in names)]
    for code, name in languages.items():
        cells = []
        for key in names:
            row = next(r for r in rows if r.tokenizer == key and r.language == code)
            number = row.premium if premium else row.stats.tokens_per_character
            cells.append(f"{number:>{width + 2}.{2 if premium else 3}f}" if number is not None else " " * (width + 2))
        lines.append(f"{name:<30}" + "".join(cells))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-bytes", type=int, default=5_000_000, help="bytes of the English sample to train on")
    parser.add_argument("--merges", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help=f"train on {QUICK_BYTES:,} bytes with 2,000 merges")
    args = parser.parse_args()
    if args.quick:
        args.train_bytes, args.merges = QUICK_BYTES, 2_000

    timings: list[tuple[str, float]] = []
    start = time.perf_counter()
    texts = load_parallel()
    timings.append(("sample set (built or read from the cache)", time.perf_counter() - start))
    languages = {lang.code: f"{lang.name} ({lang.script})" for lang in list_languages()}

    tokenizers = {}
    for name in builtin_names():
        start = time.perf_counter()
        try:
            tokenizers[name] = load_builtin(name)
        except BPEError as exc:
            print(f"skipped {name}: {exc}")
            continue
        timings.append((f"load {name}", time.perf_counter() - start))
    english = read_text(corpus_path("english", args.train_bytes))
    start = time.perf_counter()
    trained_name = f"ours-bytes-{args.merges // 1000}k"
    tokenizers[trained_name] = train(english, Settings(mode="bytes"), merges=args.merges)
    timings.append((f"train {trained_name} on {len(english.encode('utf-8')):,} bytes of English",
                    time.perf_counter() - start))

    rows: list[TaxRow] = []
    for key, tok in tokenizers.items():
        start = time.perf_counter()
        stats = language_stats(tok, texts)
        timings.append((f"count tokens of {len(texts)} languages with {key}", time.perf_counter() - start))
        rows.extend(tax_rows(key, stats))
    names = {key: key for key in tokenizers}

    sizes = {code: len(text.encode("utf-8")) for code, text in texts.items()}
    print(f"Sample set: {len(texts)} languages, {min(sizes.values()):,} to {max(sizes.values()):,} bytes each.")
    print(PARALLEL_NOTE)
    print("Built-ins: " + "; ".join(f"{n} = {builtin_info(n).title}" for n in builtin_names() if n in tokenizers))
    print(f"{trained_name}: trained here, bytes mode, {args.merges:,} merges, on the English sample.\n")
    print("Tokens per character")
    print(table(rows, names, languages, premium=False))
    print("\nPremium over English (tokens for the same messages / English's tokens)")
    print(table(rows, names, languages, premium=True))
    print("\nTimings")
    for what, seconds in timings:
        print(f"  {what:<70} {seconds:7.2f} s")


if __name__ == "__main__":
    main()
