"""End to end training on a large corpus: `python -m bpe_core train` beside Hugging Face `tokenizers`.

On the generated corpus of bench/_big_corpus.py (several files, every third gzipped):

* ours: `python -m bpe_core train DIR --merges N` in word mode without an end-of-word marker and
  with HF's tie-break, the settings under which our merges equal `BpeTrainer`'s (README,
  "Tie-breaking"). Counting runs on the default Dask LocalCluster (one worker per core), the
  merge loop in the command's own process.
* HF: `BpeTrainer` with `WhitespaceSplit` (the same words), trained with `train_from_iterator`
  over the same files read in Python (gzip included), its vocabulary set to our alphabet + N.

Each runs in its own process; wall time and the peak resident memory of the process and of all
its descendants (the Dask workers) are sampled with psutil. The first merges of both are
compared. Then one partition of each kind (plain, gzipped) is counted alone in this process:
the per-partition throughput, MB of text a second for one worker, that the README's estimate
for a cluster starts from.

    nice -n 10 python bench/bench_train_large.py --size 1GB
    python bench/bench_train_large.py --quick      # a tiny corpus and 200 merges: a smoke run
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _big_corpus import corpus_dir, corpus_files, manifest, parse_size, size_label
from _common import fmt, machine_info, table, write_json
from _process_memory import TreeSampler

QUICK_SIZE, QUICK_FILE_BYTES, QUICK_MERGES = 3_000_000, 1_000_000, 200
OURS_FLAGS = ["--mode", "word", "--eow", "none", "--tie-break", "hf"]
LINES_PER_BATCH = 10_000


# ---- Hugging Face, in a process of its own ----------------------------------------------------------


def _batches(paths: list[Path]) -> Iterator[list[str]]:
    """The files' lines in batches; WhitespaceSplit sees the same words as our word mode."""
    for path in paths:
        opener = gzip.open if path.name.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", newline="") as fh:
            batch: list[str] = []
            for line in fh:
                batch.append(line)
                if len(batch) == LINES_PER_BATCH:
                    yield batch
                    batch = []
            if batch:
                yield batch


def child_hf(corpus: str, vocab_size: int, out: str) -> dict[str, Any]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    started = time.perf_counter()
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=0, show_progress=False,
                                  special_tokens=[], limit_alphabet=1_000_000)
    tokenizer.train_from_iterator(_batches(corpus_files(Path(corpus))), trainer)
    seconds = time.perf_counter() - started
    model = json.loads(tokenizer.to_str())["model"]
    merges = [m if isinstance(m, list) else m.split(" ", 1) for m in model["merges"]]
    Path(out).write_text(json.dumps(merges, ensure_ascii=False), encoding="utf-8")
    return {"seconds": seconds, "merges": len(merges), "vocab": len(model["vocab"])}


# ---- the measured runs -------------------------------------------------------------------------------


def _measured(cmd: list[str]) -> tuple[subprocess.CompletedProcess, float, dict[str, Any]]:
    """Run `cmd`, sampling its process tree's memory; (completed process, wall seconds, memory summary)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        with TreeSampler(root=proc.pid, interval=0.2) as sampler:
            proc.wait()
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read())
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-4000:]}")
    return done, seconds, sampler.summary()


def run_ours(directory: Path, merges: int, work: Path) -> dict[str, Any]:
    model_path = work / "model.json"
    cmd = [sys.executable, "-m", "bpe_core", "train", str(directory), *OURS_FLAGS,
           "--merges", str(merges), "-o", str(model_path)]
    done, seconds, memory = _measured(cmd)
    model = json.loads(model_path.read_text(encoding="utf-8"))
    phases = {}  # from the command's summary lines: "counted ... in X s", "trained ... in Y s"
    for line in done.stderr.splitlines():
        found = re.match(r"(counted|trained) .* in ([\d.]+) s\b", line)
        if found:
            phases[f"{found.group(1)}_seconds"] = float(found.group(2))
    return {"command": " ".join(["python", *cmd[1:]]), "seconds": seconds, "memory": memory, **phases,
            "summary": done.stderr.strip().splitlines()[-6:], "alphabet": len(model["base"]),
            "merges": model["merges"]}


def run_hf(directory: Path, vocab_size: int, work: Path) -> dict[str, Any]:
    out = work / "hf-merges.json"
    cmd = [sys.executable, __file__, "--child", str(directory), str(vocab_size), str(out)]
    done, seconds, memory = _measured(cmd)
    info = json.loads(done.stdout.strip().splitlines()[-1])
    return {"seconds": seconds, "train_seconds": info["seconds"], "memory": memory, "vocab_size": vocab_size,
            "merges": json.loads(out.read_text(encoding="utf-8"))}


def partition_throughput(directory: Path) -> list[dict[str, Any]]:
    """One plain and one gzipped partition counted alone in this process: MB of text a second."""
    from bpe_core import Settings
    from bpe_core.counting import count_partition
    from bpe_core.sources import expand_sources, plan_partitions

    text_bytes = {f["name"]: f["text_bytes"] for f in manifest(directory)["files"]}
    parts = plan_partitions(expand_sources([str(directory)]))
    rows = []
    for kind in ("plain", "gz"):
        part = next((p for p in parts if (p.compression == "gz") == (kind == "gz")), None)
        if part is None:
            continue
        size = text_bytes[Path(part.path).name] if part.end is None else part.end - part.start
        started = time.perf_counter()
        count_partition(part, Settings(**{"mode": "word", "eow": "none", "tie_break": "hf"}))
        seconds = time.perf_counter() - started
        rows.append({"kind": kind, "file": Path(part.path).name, "text_bytes": size, "seconds": seconds,
                     "mb_per_s": size / 1e6 / seconds})
    return rows


def same_prefix(a: list[list[str]], b: list[list[str]]) -> int:
    n = 0
    for x, y in zip(a, b):
        if list(x) != list(y):
            break
        n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1GB", help="corpus size in text bytes: 50MB, 250MB, 1GB ...")
    parser.add_argument("--merges", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true", help="a 3 MB corpus and 200 merges: a smoke run")
    parser.add_argument("--json", default=None, help="write results here (default bench/results/train_large-*.json)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child_hf(args.child[0], int(args.child[1]), args.child[2])))
        return 0
    size = QUICK_SIZE if args.quick else parse_size(args.size)
    merges = QUICK_MERGES if args.quick else args.merges
    directory = corpus_dir(size, **({"file_bytes": QUICK_FILE_BYTES} if args.quick else {}))
    info = manifest(directory)
    with tempfile.TemporaryDirectory(prefix="bpe-bench-train-") as tmp:
        ours = run_ours(directory, merges, Path(tmp))
        hf = run_hf(directory, ours["alphabet"] + merges, Path(tmp))
    throughput = partition_throughput(directory)
    agree = same_prefix(ours["merges"], hf["merges"])
    compared = min(len(ours["merges"]), len(hf["merges"]))
    report(info, merges, ours, hf, throughput, agree, compared)
    data = {
        "machine": machine_info(), "corpus": str(directory), "size": size_label(size),
        "text_bytes": info["text_bytes"], "files": len(info["files"]), "merges": merges,
        "ours": {k: v for k, v in ours.items() if k != "merges"} | {"merges_made": len(ours["merges"])},
        "hf": {k: v for k, v in hf.items() if k != "merges"} | {"merges_made": len(hf["merges"])},
        "same_first_merges": agree, "compared": compared, "partition_throughput": throughput,
        "time_ratio": ours["seconds"] / hf["seconds"],
        "memory_ratio": ours["memory"]["peak_total_mib"] / max(1e-9, hf["memory"]["peak_total_mib"]),
    }
    print(f"\nresults: {write_json('train_large', data, args.json)}")
    return 0


def report(info: dict[str, Any], merges: int, ours: dict[str, Any], hf: dict[str, Any],
           throughput: list[dict[str, Any]], agree: int, compared: int) -> None:
    gz = sum(f["name"].endswith(".gz") for f in info["files"])
    print(f"Training {merges:,} merges on {info['text_bytes'] / 1e6:,.0f} MB of text "
          f"({len(info['files'])} files, {gz} gzipped)")
    print(f"ours: {ours['command']}")
    for line in ours["summary"]:
        print(f"      {line}")
    rows = []
    for name, run in (("ours: python -m bpe_core train", ours), ("HF tokenizers BpeTrainer", hf)):
        mem = run["memory"]
        biggest = max((p["peak_mib"] for p in mem["processes"]), default=0.0)
        rows.append([name, fmt(run["seconds"], 1), fmt(mem["peak_total_mib"], 0), fmt(biggest, 0),
                     len(mem["processes"])])
    print(table(["trainer", "wall s", "peak MiB, all processes", "largest process MiB", "processes"], rows))
    if "trained_seconds" in ours:
        counted = f"counting {ours['counted_seconds']:.1f} s, " if "counted_seconds" in ours else ""
        print(f"ours by phase: {counted}merge loop (and saving) {ours['trained_seconds']:.1f} s")
    print(f"ratio ours / HF: time {ours['seconds'] / hf['seconds']:.1f}x, memory "
          f"{ours['memory']['peak_total_mib'] / max(1e-9, hf['memory']['peak_total_mib']):.1f}x")
    print("\nPer-partition throughput (one partition counted alone, one process = one worker)")
    print(table(["partition", "file", "text MB", "s", "MB/s per worker"],
                [[t["kind"], t["file"], fmt(t["text_bytes"] / 1e6, 1), fmt(t["seconds"], 2), fmt(t["mb_per_s"], 1)]
                 for t in throughput]))
    print(f"\nAGREEMENT: first {agree:,} of {compared:,} merges identical to HF's "
          f"({'all' if agree == compared else 'they part at merge ' + str(agree + 1)})")


if __name__ == "__main__":
    sys.exit(main())
