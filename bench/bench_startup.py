"""Start-up: what `import bpe_core`, the core names and `python -m bpe_core --help` cost, beside `import tiktoken`.

    python bench/bench_startup.py [--repeat 21] [--quick] [--json PATH]

Each case is a fresh interpreter (`python -c ...`), run `--repeat` times in turn with the others
(so a busy moment hits every case alike); the figure is the median wall time less the median of
`python -c pass` (the interpreter's own start), in milliseconds, and its ratio to `import
tiktoken` measured the same way in the same run. Targets (issue 18): `import bpe_core` at most
1.5x, `--help` at most 3x.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from _common import ROOT, machine_info, table, write_json

CASES = {
    "python -c pass": ["-c", "pass"],
    "import tiktoken": ["-c", "import tiktoken"],
    "import bpe_core": ["-c", "import bpe_core"],
    "from bpe_core import train, Tokenizer": ["-c", "from bpe_core import train, Tokenizer"],
    "python -m bpe_core --help": ["-m", "bpe_core", "--help"],
}
TARGETS = {"import bpe_core": 1.5, "python -m bpe_core --help": 3.0}


def _once(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--quick", action="store_true", help="5 runs a case")
    parser.add_argument("--json", help="where to write the results")
    args = parser.parse_args()
    repeat = 5 if args.quick else args.repeat
    for argv in CASES.values():  # warm the file cache and the byte-code of every case
        _once(argv)
    times: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(repeat):
        for name, argv in CASES.items():
            times[name].append(_once(argv))
    base = statistics.median(times["python -c pass"])
    cost = {name: max(0.0, statistics.median(t) - base) * 1000 for name, t in times.items()}
    peer = cost["import tiktoken"] or 1e-9
    rows = []
    results = []
    for name in CASES:
        ratio = cost[name] / peer if name not in ("python -c pass", "import tiktoken") else None
        target = TARGETS.get(name)
        met = None if target is None or ratio is None else ratio <= target
        rows.append([name, f"{cost[name]:.1f}", "-" if ratio is None else f"{ratio:.2f}x",
                     "-" if target is None else f"<= {target}x", "-" if met is None else ("yes" if met else "NO")])
        results.append({"case": name, "ms": round(cost[name], 2), "ratio_to_tiktoken": ratio, "target": target,
                        "met": met})
    info = machine_info()
    print(info)
    print(f"python -c pass itself: {base * 1000:.1f} ms (subtracted from every case); {repeat} runs a case")
    print(table(["case", "ms", "vs import tiktoken", "target", "met"], rows))
    print("AGREEMENT: True")  # nothing to agree on: every case ran and exited 0
    write_json("startup", {"machine": info, "repeat": repeat, "baseline_ms": base * 1000, "cases": results}, args.json)


if __name__ == "__main__":
    main()
