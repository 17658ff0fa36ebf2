"""Counting words of a large corpus: one process (`count_sources`) against Dask (`count_on_dask`).

For each corpus size (the generated corpus of bench/_big_corpus.py: several files, every third
gzipped), in fresh processes one after the other:

* single: `counting.count_sources` in one process: seconds, peak RSS (VmHWM), and each
  partition's throughput;
* dask: a `LocalCluster` of 2 worker processes (1 thread each) is started (its start-up timed
  on its own), then `dask_counting.count_on_dask` sends it the job (a few blocks of partitions
  per worker, each counted into one Counter, then a few merges); each worker's peak RSS
  (`ru_maxrss`, read on the worker) and the client process's (VmHWM), plus a psutil sample of
  the whole process tree; and, from the scheduler's task stream, where the time went: counting,
  merging, transfers between workers, and the tail after the last block (final merges and the
  result's trip to the client).

The counts must be identical, order included (a SHA-256 of the word/count lines is compared).
Run 250 MB and 1 GB side by side to see that no process's memory grows with the corpus: each
holds one partition's text at a time and the counts (which grow with the distinct words only).
The distinct words at two sizes give a Heaps' law fit, for the README's estimate at 100 GB.

    python bench/bench_counting.py --sizes 250MB,1GB
    python bench/bench_counting.py --sizes 250MB,1GB --repeat 2   # on a shared machine: best of 2
    python bench/bench_counting.py --quick          # a tiny corpus, for the smoke test
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
import time
from collections import Counter
from typing import Any

from _big_corpus import corpus_dir, manifest, parse_size, size_label
from _common import fmt, machine_info, proc_status, table, write_json

QUICK_SIZE, QUICK_FILE_BYTES, QUICK_PARTITION = 3_000_000, 1_000_000, 400_000


def counts_digest(counts: Counter[str]) -> str:
    """SHA-256 of the word<TAB>count lines in the Counter's order: equal digests, equal counts and order."""
    h = hashlib.sha256()
    for word, n in counts.items():
        h.update(word.encode("utf-8", "surrogatepass") + b"\t" + str(n).encode() + b"\n")
    return h.hexdigest()


def _settings(mode: str) -> Any:
    from bpe_core import Settings

    return Settings(mode=mode)


# ---- the two measured runs, each in a process of its own -------------------------------------------


def child_single(corpus: str, mode: str, partition_bytes: int) -> dict[str, Any]:
    from bpe_core.counting import count_sources

    marks: list[tuple[float, int]] = []
    started = time.perf_counter()

    def progress(state: Any) -> None:
        marks.append((time.perf_counter(), state.bytes_done))

    counts = count_sources([corpus], _settings(mode), partition_bytes=partition_bytes, progress=progress)
    seconds = time.perf_counter() - started
    rates, last_t, last_b = [], started, 0
    for t, b in marks:  # input bytes of each partition over the time since the previous one
        if t > last_t and b > last_b:
            rates.append((b - last_b) / (t - last_t) / 1e6)
        last_t, last_b = t, b
    return {
        "seconds": seconds,
        "peak_mib": proc_status()["VmHWM"] / 1024,
        "distinct": len(counts),
        "words": sum(counts.values()),
        "digest": counts_digest(counts),
        "partitions": len(marks),
        "partition_mb_per_s": sorted(round(r, 2) for r in rates),
    }


def _worker_peak_kib() -> int:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child_dask(corpus: str, mode: str, partition_bytes: int, workers: int) -> dict[str, Any]:
    import logging

    from _process_memory import TreeSampler
    from distributed import Client, LocalCluster, get_task_stream

    from bpe_core.dask_counting import count_on_dask

    with TreeSampler(interval=0.2) as sampler:
        started = time.perf_counter()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        client.wait_for_workers(workers)
        startup = time.perf_counter() - started
        try:
            with get_task_stream(client) as stream:
                started, wall_started = time.perf_counter(), time.time()
                counts = count_on_dask([corpus], _settings(mode), scheduler=cluster.scheduler_address,
                                       partition_bytes=partition_bytes)
                seconds = time.perf_counter() - started
                wall_ended = time.time()
            worker_peaks = client.run(_worker_peak_kib)
        finally:
            client.close()
            cluster.close()
    return {
        "startup_seconds": startup,
        "seconds": seconds,
        "client_peak_mib": proc_status()["VmHWM"] / 1024,
        "worker_peaks_mib": [round(kib / 1024, 1) for _, kib in sorted(worker_peaks.items())],
        "sampled": sampler.summary(),
        "tasks": task_phases(stream.data, wall_started, wall_ended),
        "distinct": len(counts),
        "words": sum(counts.values()),
        "digest": counts_digest(counts),
    }


def task_phases(records: list[dict[str, Any]], started: float, ended: float) -> dict[str, Any]:
    """Where the Dask run's time went, from the scheduler's task stream: the counting tasks
    (blocks of partitions) and the merges, their compute and transfer seconds, and the wall time
    from the last counting task's end to the result in this process (the reduction's tail)."""
    sums: dict[str, float] = {}
    last_count = started
    n_blocks = 0
    for rec in records:
        kind = "count" if rec["key"].startswith("bpe-count-") else "merge"
        n_blocks += kind == "count" and any(ss["action"] == "compute" for ss in rec["startstops"])
        for ss in rec["startstops"]:
            name = f"{kind}_{ss['action'].replace('-', '_')}_s"
            sums[name] = sums.get(name, 0.0) + ss["stop"] - ss["start"]
            if kind == "count" and ss["action"] == "compute":
                last_count = max(last_count, ss["stop"])
    return {"blocks": n_blocks, **{k: round(v, 2) for k, v in sorted(sums.items())},
            "first_count_start_s": round(min((ss["start"] for r in records for ss in r["startstops"]),
                                             default=started) - started, 2),
            "tail_after_last_count_s": round(ended - last_count, 2)}


def _run_child(args: list[str]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"child {args[0]} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---- the report -------------------------------------------------------------------------------------


def heaps_fit(points: list[tuple[int, int]]) -> dict[str, float] | None:
    """distinct = K * words**beta through the first and last (words, distinct) points."""
    if len(points) < 2 or points[0][0] == points[-1][0]:
        return None
    (n1, v1), (n2, v2) = points[0], points[-1]
    beta = math.log(v2 / v1) / math.log(n2 / n1)
    return {"beta": beta, "k": v1 / n1**beta}


def measure(size: int, args: argparse.Namespace) -> dict[str, Any]:
    file_bytes = QUICK_FILE_BYTES if args.quick else None
    directory = corpus_dir(size, **({"file_bytes": file_bytes} if file_bytes else {}))
    info = manifest(directory)
    text_bytes = info["text_bytes"]
    file_bytes_on_disk = sum(f["file_bytes"] for f in info["files"])
    part = str(args.partition_bytes)
    # Interleaved (single, dask, single, dask, ...) on a machine shared with other jobs, whose load
    # comes and goes; each side's fastest run is kept, the others' times are listed beside it.
    singles, dasks = [], []
    for _ in range(args.repeat):
        singles.append(_run_child(["single", str(directory), args.mode, part]))
        dasks.append(_run_child(["dask", str(directory), args.mode, part, str(args.workers)]))
    single = min(singles, key=lambda run: run["seconds"])
    dask = min(dasks, key=lambda run: run["seconds"])
    single["all_seconds"] = [round(run["seconds"], 1) for run in singles]
    dask["all_seconds"] = [round(run["seconds"], 1) for run in dasks]
    return {
        "size": size_label(size),
        "corpus": str(directory),
        "files": len(info["files"]),
        "gzipped": sum(f["name"].endswith(".gz") for f in info["files"]),
        "text_bytes": text_bytes,
        "bytes_on_disk": file_bytes_on_disk,
        "single": single,
        "dask": dask,
        "identical": all(run["digest"] == single["digest"] for run in [*singles, *dasks]),
        "speedup": single["seconds"] / dask["seconds"],
        "speedup_with_startup": single["seconds"] / (dask["seconds"] + dask["startup_seconds"]),
        "single_text_mb_per_s": text_bytes / 1e6 / single["seconds"],
        "dask_text_mb_per_s_per_worker": text_bytes / 1e6 / dask["seconds"] / args.workers,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="250MB,1GB", help="comma-separated corpus sizes (text bytes)")
    parser.add_argument("--mode", default="word", choices=("word", "text", "bytes"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, interleaved; the fastest is kept")
    parser.add_argument("--partition-bytes", type=int, default=None, help="default: the engine's (64 MiB)")
    parser.add_argument("--quick", action="store_true", help="a 3 MB corpus in 1 MB files: a smoke run")
    parser.add_argument("--json", default=None, help="write results here (default bench/results/counting-*.json)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, corpus, mode, part, *rest = args.child
        out = (child_single(corpus, mode, int(part)) if kind == "single"
               else child_dask(corpus, mode, int(part), int(rest[0])))
        print(json.dumps(out))
        return 0
    if args.partition_bytes is None:
        from bpe_core.sources import DEFAULT_PARTITION_BYTES

        args.partition_bytes = QUICK_PARTITION if args.quick else DEFAULT_PARTITION_BYTES
    sizes = [QUICK_SIZE] if args.quick else [parse_size(s) for s in args.sizes.split(",")]
    runs = []
    for size in sizes:
        print(f"corpus {size_label(size)}: building or reading the cached copy, then counting...", file=sys.stderr)
        runs.append(measure(size, args))
    fit = heaps_fit([(r["single"]["words"], r["single"]["distinct"]) for r in runs])
    report(runs, fit, args)
    data = {"machine": machine_info(), "mode": args.mode, "workers": args.workers, "repeat": args.repeat,
            "partition_bytes": args.partition_bytes, "runs": runs, "heaps": fit,
            "all_identical": all(r["identical"] for r in runs)}
    print(f"\nresults: {write_json('counting', data, args.json)}")
    return 0 if data["all_identical"] else 1


def report(runs: list[dict[str, Any]], fit: dict[str, float] | None, args: argparse.Namespace) -> None:
    rows = []
    for r in runs:
        s, d = r["single"], r["dask"]
        rows.append([
            r["size"], f"{r['files']} ({r['gzipped']} gz)", f"{s['words']:,}", f"{s['distinct']:,}",
            fmt(s["seconds"], 1), fmt(d["seconds"], 1), fmt(d["startup_seconds"], 1),
            f"{r['speedup']:.2f}x", f"{r['speedup_with_startup']:.2f}x", "yes" if r["identical"] else "NO",
        ])
    print(f"Counting words ({args.mode} mode): one process vs a Dask LocalCluster of {args.workers} workers"
          + (f"; the fastest of {args.repeat} interleaved runs each" if args.repeat > 1 else ""))
    if args.repeat > 1:
        for r in runs:
            print(f"  {r['size']}: single {r['single']['all_seconds']} s, dask {r['dask']['all_seconds']} s")
    print(table(["corpus", "files", "words", "distinct", "single s", "dask s", "start-up s",
                 "speed-up", "incl. start-up", "identical"], rows))
    print("\nPeak resident memory of every process (MiB)")
    mem = []
    for r in runs:
        s, d = r["single"], r["dask"]
        mem.append([r["size"], fmt(s["peak_mib"], 0), fmt(d["client_peak_mib"], 0),
                    " / ".join(fmt(w, 0) for w in d["worker_peaks_mib"]), fmt(d["sampled"]["peak_total_mib"], 0)])
    print(table(["corpus", "single process", "dask client", "dask workers (each)", "dask tree, sampled sum"], mem))
    print("\nThroughput of the counting (text MB per second)")
    thr = []
    for r in runs:
        rates = r["single"]["partition_mb_per_s"]
        median = rates[len(rates) // 2] if rates else None
        thr.append([r["size"], fmt(r["single_text_mb_per_s"], 1), fmt(median, 1),
                    fmt(r["dask_text_mb_per_s_per_worker"], 1)])
    print(table(["corpus", "single process", "median partition (input MB/s)", "dask, per worker"], thr))
    print("\nWhere the Dask run's time went (task stream; compute and transfer summed over both workers)")
    ph = []
    for r in runs:
        t = r["dask"]["tasks"]
        ph.append([r["size"], str(t["blocks"]), fmt(t.get("count_compute_s"), 1), fmt(t.get("merge_compute_s"), 1),
                   fmt(t.get("merge_transfer_s", 0.0) + t.get("count_transfer_s", 0.0), 1),
                   fmt(t["first_count_start_s"], 1), fmt(t["tail_after_last_count_s"], 1)])
    print(table(["corpus", "blocks", "counting s", "merging s", "transfers s", "until the first task s",
                 "after the last block s"], ph))
    if fit:
        at_100gb = fit["k"] * (runs[-1]["single"]["words"] * 100e9 / runs[-1]["text_bytes"]) ** fit["beta"]
        print(f"\nHeaps' law through the runs: distinct = {fit['k']:.1f} * words^{fit['beta']:.3f}; "
              f"at 100 GB of this text: about {at_100gb / 1e6:.1f} million distinct words")
    print(f"\nAGREEMENT: counts identical (order included) in every run: {all(r['identical'] for r in runs)}")


if __name__ == "__main__":
    sys.exit(main())
