"""Vocabulary overlap of the built-in tokenizers: time, and agreement with the slow obvious way.

    python bench/bench_overlap.py [--quick] [--repeat 3] [--json PATH]

For each pair of installed built-ins (gpt2, cl100k_base, o200k_base, llama3, qwen3; --quick:
gpt2 x cl100k_base and o200k_base x qwen3), `vocabulary_overlap` is timed (best of --repeat,
tokenizers already loaded) beside the peer: building each vocabulary's set of token bytes with
`analysis.token_bytes_of`, one token at a time, and intersecting the sets. The shared count must
be the same both ways (AGREEMENT); the ratio is ours / peer in seconds.
"""
from __future__ import annotations

import argparse
import itertools
import time
from typing import Any

from _common import fmt, machine_info, table, write_json

from bpe_core import BPEError
from bpe_core.analysis import token_bytes_of
from bpe_core.analysis.overlap import vocabulary_overlap
from bpe_core.builtin import builtin_names, load_builtin

QUICK_PAIRS = (("gpt2", "cl100k_base"), ("o200k_base", "qwen3"))


def best(repeat: int, run: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two pairs only")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args()

    loaded = {}
    for name in builtin_names():
        try:
            loaded[name] = load_builtin(name)
        except BPEError as exc:
            print(f"skipped {name}: {exc}")
    pairs = [p for p in (QUICK_PAIRS if args.quick else itertools.combinations(loaded, 2))
             if p[0] in loaded and p[1] in loaded]
    rows, results, agree = [], [], True
    for name_a, name_b in pairs:
        a, b = loaded[name_a], loaded[name_b]
        ours, found = best(args.repeat, lambda: vocabulary_overlap(a, b))  # noqa: B023 - called at once

        def peer(a=a, b=b) -> int:
            bytes_a = {token_bytes_of(a, t) for t in a.vocab}
            return len(bytes_a & {token_bytes_of(b, t) for t in b.vocab})

        theirs, shared = best(args.repeat, peer)
        same = shared == len(found.shared)
        agree &= same
        results.append({"a": name_a, "b": name_b, "sizes": [found.size_a, found.size_b],
                        "shared": len(found.shared), "jaccard": found.jaccard, "ours_s": ours, "peer_s": theirs,
                        "agree": same})
        rows.append([f"{name_a} x {name_b}", f"{found.size_a:,} x {found.size_b:,}", f"{len(found.shared):,}",
                     fmt(found.jaccard, 3), fmt(ours, 3), fmt(theirs, 3), fmt(ours / theirs), "yes" if same else "NO"])
    print(table(["pair", "sizes", "shared", "jaccard", "ours s", "peer s", "ratio", "same"], rows))
    print(f"AGREEMENT: {'all shared counts equal the peer' if agree else 'MISMATCH'}")
    out = write_json("overlap", {"machine": machine_info(), "pairs": results}, args.json)
    print(f"results: {out}")
    if not agree:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
