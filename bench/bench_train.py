"""Training benchmark: our trainer against Hugging Face `tokenizers` and `subword-nmt`.

    python bench/bench_train.py [--size-mb 5] [--merges 2000 10000] [--repeat 2] [--quick] [--json PATH]
    python bench/bench_train.py --profile [--merges 10000]     # cProfile of our trainer only

Three pairings, each with settings chosen so that the merge lists must be identical:

  (i)   word   ours: mode=word, eow=none, tie_break=hf
               HF:   BPE + pre_tokenizers.WhitespaceSplit(), no end-of-word suffix
  (ii)  bytes  ours: mode=bytes, pretokenizer=gpt2, tie_break=hf
               HF:   BPE + ByteLevel(add_prefix_space=False), initial_alphabet=ByteLevel.alphabet()
  (iii) suffix ours: mode=word, eow=suffix (`</w>` glued to the last character), tie_break=count-pair
               subword-nmt: learn_bpe(..., is_dict=True, min_frequency=1), in-process, fed our
               word counts as "word count" lines, so its time is its merge loop only

Every run is a fresh Python process (this file with --worker); its peak memory is the
process's VmHWM (peak resident set, Rust allocations included) and its baseline is VmRSS
just before training, after the corpus was read. HF runs single-threaded
(TOKENIZERS_PARALLELISM=false) unless --hf-parallel is given, since our trainer uses one core.

Our time is the public `train()` call (word counting + merge loop). The counting alone is
timed in the same process beforehand, so `merge s` = total - count; subword-nmt is compared
with that merge phase, because it is handed ready-made counts.

A last section shows, on a tab-indented copy of the code corpus, how subword-nmt mis-merges
symbols that contain a tab (see `tab_demo`).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _agreement import compare, explain
from _common import CASES, CORPORA, QUICK_BYTES, corpus_path, fmt, machine_info, mb, read_text, table, write_json
from _profile import profile_ours
from _tab_demo import print_tab_demo, tab_demo
from _train_workers import PY_ONLY_SPACES, worker_main

PEER_NAMES = {"hf-whitespace": "HF", "hf-bytelevel": "HF", "subword-nmt": "subword-nmt"}


def paired_ratios(ours_runs: list[dict[str, Any]], peer_runs: list[dict[str, Any]], peer: str) -> list[float]:
    """The ratio of each repeat's two runs, made one after the other. The machine's speed drifts
    over minutes, so neighbours in time compare more fairly than the two fastest runs do."""
    out = []
    for ours, other in zip(ours_runs, peer_runs):
        if "error" in ours or "error" in other:
            continue
        if peer == "subword-nmt":
            out.append(other["seconds"] / max(ours["merge_seconds"], 1e-9))
        else:
            out.append(ours["seconds"] / max(other["seconds"], 1e-9))
    return out


def fastest(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest of repeated runs (an error if any failed), with every run's seconds."""
    failed = [r for r in runs if "error" in r]
    if failed:
        return failed[0]
    best = dict(min(runs, key=lambda r: r["seconds"]))
    best["all_seconds"] = [r["seconds"] for r in runs]
    best["max_peak_kib"] = max(r["peak_kib"] for r in runs)
    return best


def run_worker(spec: dict[str, Any], *, hf_parallel: bool, tmp: Path) -> dict[str, Any]:
    """Run one training in a fresh process and return its measurements."""
    tag = f"{spec['corpus']}-{spec['case']}-{spec['engine']}-{spec['merges']}"
    spec_path, out_path = tmp / f"{tag}.spec.json", tmp / f"{tag}.out.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    env = dict(os.environ)
    env["TOKENIZERS_PARALLELISM"] = "true" if hf_parallel else "false"
    env["PYTHONHASHSEED"] = "0"
    load_before = os.getloadavg()[0]
    wall0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", str(spec_path), str(out_path)],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - wall0
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout)[-2000:], "process_seconds": wall}
    result = json.loads(out_path.read_text(encoding="utf-8"))
    result["process_seconds"] = wall
    result["loadavg_1min_before"] = load_before
    return result


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=5.0, help="target corpus size in MB (default 5)")
    parser.add_argument("--merges", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--quick", action="store_true", help="smoke test: ~0.5 MB, 500 merges")
    parser.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument(
        "--repeat", type=int, default=2, help="runs per engine and setting, fastest kept (default 2; --quick: 1)"
    )
    parser.add_argument("--hf-parallel", action="store_true", help="let HF use every core")
    parser.add_argument("--no-tab-demo", action="store_true")
    parser.add_argument(
        "--profile", action="store_true", help="only cProfile our trainer (first corpus, largest --merges)"
    )
    parser.add_argument("--profile-case", choices=list(CASES), default="word")
    parser.add_argument("--json", help="write the JSON results here (default: bench/results/)")
    parser.add_argument("--worker", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def describe_corpora(texts: dict[str, str], paths: dict[str, Path], target: int) -> dict[str, Any]:
    """Each corpus's path and size, with a note printed where its builder came up short."""
    out = {}
    for name, text in texts.items():
        size = len(text.encode("utf-8"))
        out[name] = {
            "path": str(paths[name]),
            "bytes": size,
            "short_of_target": size < 0.9 * target,
            "python_only_whitespace_chars": sum(text.count(c) for c in PY_ONLY_SPACES),
        }
        if size < 0.9 * target:
            print(
                f"note: the {name} corpus builder returned {mb(size):.2f} MB of the {mb(target):.2f} MB asked "
                "for (it ran out of source material); the benchmark uses what it got."
            )
    return out


def compare_runs(spec: dict[str, Any], ours_runs: list[dict[str, Any]], peer_runs: list[dict[str, Any]],
                 text: str, explanations: list[str]) -> dict[str, Any]:
    """One comparison: do the merge lists agree, and the time and memory ratios of the fastest runs."""
    name, merges, case, peer_engine = spec["corpus"], spec["merges"], spec["case"], CASES[spec["case"]]["peer"]
    ours, peer = fastest(ours_runs), fastest(peer_runs)
    comp: dict[str, Any] = {"corpus": name, "merges": merges, "case": case, "peer": peer_engine}
    if "error" in ours or "error" in peer:
        comp["error"] = ours.get("error") or peer.get("error")
        print(f"  {name} {merges} {case}: FAILED\n{comp['error']}", file=sys.stderr)
        return comp
    comp.update(compare(ours["merges"], peer["merges"], merges))
    if comp["first_disagreement"]:
        explanations.append(f"{name}, {merges} merges, {CASES[case]['label']}: "
                            + explain(text, case, comp, ours["merges"]))
    comp["ours_seconds"] = ours["seconds"]
    comp["peer_seconds"] = peer["seconds"]
    comp["ours_merge_seconds"] = ours["merge_seconds"]
    if peer_engine == "subword-nmt":
        comp["ratio_name"] = "subword-nmt/ours (merge phase)"
        comp["ratio"] = peer["seconds"] / max(ours["merge_seconds"], 1e-9)
    else:
        comp["ratio_name"] = "ours/HF"
        comp["ratio"] = ours["seconds"] / max(peer["seconds"], 1e-9)
    comp["paired_ratios"] = paired_ratios(ours_runs, peer_runs, peer_engine)
    comp["ours_peak_mib"] = ours["peak_kib"] / 1024
    comp["peer_peak_mib"] = peer["peak_kib"] / 1024
    return comp


def run_all(args: argparse.Namespace, paths: dict[str, Path], texts: dict[str, str], merges_list: list[int],
            repeat: int, results: dict[str, Any]) -> list[str]:
    """Every corpus x merges x case: ours and its peer, alternating; runs and comparisons go to `results`."""
    explanations: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-train-") as tmpdir:
        tmp = Path(tmpdir)
        for name in args.corpora:
            for merges in merges_list:
                for case in args.cases:
                    spec = {"corpus": name, "corpus_path": str(paths[name]), "merges": merges, "case": case}
                    peer_engine = CASES[case]["peer"]
                    ours_runs, peer_runs = [], []
                    for _ in range(repeat):  # alternate ours and the peer, keep each one's fastest
                        ours_spec = {**spec, "engine": "ours", "settings": CASES[case]["ours"]}
                        ours_runs.append(run_worker(ours_spec, hf_parallel=args.hf_parallel, tmp=tmp))
                        peer_spec = {**spec, "engine": peer_engine}
                        peer_runs.append(run_worker(peer_spec, hf_parallel=args.hf_parallel, tmp=tmp))
                    for engine, res in (("ours", fastest(ours_runs)), (peer_engine, fastest(peer_runs))):
                        row = {k: v for k, v in res.items() if k != "merges"}
                        row.update(corpus=name, merges_requested=merges, case=case, engine=engine)
                        row["merges_made"] = len(res.get("merges", []))
                        results["runs"].append(row)
                    comp = compare_runs(spec, ours_runs, peer_runs, texts[name], explanations)
                    results["comparisons"].append(comp)
                    status = "ok" if comp.get("agree") else ("FAILED" if "error" in comp else "DIFFER")
                    print(f"  done: {name:8s} {merges:>6} merges  {case:7s} {status}", flush=True)
    return explanations


def print_runs(runs: list[dict[str, Any]]) -> None:
    rows = []
    for r in runs:
        if "error" in r:
            rows.append([r["corpus"], r["merges_requested"], r["case"], r["engine"], "ERROR", "", "", "", "", ""])
            continue
        phase = f"{r['count_seconds']:.2f}+{r['merge_seconds']:.2f}" if r["engine"] == "ours" else ""
        rows.append([r["corpus"], r["merges_requested"], r["case"], r["engine"], fmt(r["seconds"]), phase,
                     fmt(r["peak_kib"] / 1024, 0), fmt((r["peak_kib"] - r["rss_before_kib"]) / 1024, 0),
                     r["merges_made"], fmt(r.get("loadavg_1min_before"), 1)])
    print("\nRuns (wall seconds of the training call; MiB = peak RSS of the process / growth over")
    print("RSS just before training; ours 'count+merge' = word counting + merge loop)")
    headers = ["corpus", "merges", "case", "engine", "seconds", "count+merge", "peak MiB", "+MiB", "made", "load"]
    print(table(headers, rows, align="lrllrrrrrr"))


def print_comparisons(comparisons: list[dict[str, Any]], explanations: list[str]) -> None:
    rows = []
    for c in comparisons:
        if "error" in c:
            rows.append([c["corpus"], c["merges"], CASES[c["case"]]["label"], "-", "-", "-", "-", "-", "ERROR"])
            continue
        if c["agree"]:
            agree = f"yes ({c['compared']})"
        elif c["first_disagreement"]:
            agree = f"NO, first at #{c['first_disagreement']['rank']}"
        else:
            agree = f"NO ({c.get('note', '')})"
        ours_s = c["ours_merge_seconds"] if c["peer"] == "subword-nmt" else c["ours_seconds"]
        rows.append([c["corpus"], c["merges"], CASES[c["case"]]["label"], PEER_NAMES[c["peer"]], fmt(ours_s),
                     fmt(c["peer_seconds"]), f"{c['ratio_name']} = {c['ratio']:.2f}",
                     " ".join(f"{r:.2f}" for r in c["paired_ratios"]),
                     f"{c['ours_peak_mib']:.0f}/{c['peer_peak_mib']:.0f}", agree])
    print("\nComparisons (ours s = whole train() against HF, merge loop only against subword-nmt;")
    print("ratio from the fastest runs; 'each repeat': the ratio of every ours/peer pair of runs)")
    headers = ["corpus", "merges", "case", "peer", "ours s", "peer s", "ratio", "each repeat", "peak MiB ours/peer",
               "merges agree"]
    print(table(headers, rows, align="lrllrrllrl"))
    nmt = [c for c in comparisons if c.get("ratio_name", "").startswith("subword-nmt")]
    if nmt:
        met = sum(1 for c in nmt if c["ratio"] >= 6)
        print(f"  target subword-nmt/ours >= 6: met in {met}/{len(nmt)} comparisons "
              f"(lowest {min(c['ratio'] for c in nmt):.2f})")
    for c in comparisons:
        if c.get("ratio_name") == "ours/HF" and c["ratio"] > 3:
            print(f"  slower than 3x HF: {c['corpus']} {c['merges']} {c['case']}: {c['ratio']:.1f}x "
                  f"({c['ratio'] / 3:.1f}x over the 3x budget)")
    for c in comparisons:
        if c.get("note"):
            print(f"  note: {c['corpus']} {c['merges']} {c['case']}: {c['note']}")
    for line in explanations:
        print("  " + line)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        worker_main(*args.worker)
        return 0

    if args.quick:
        target = QUICK_BYTES
        merges_list = [500] if args.merges == [2000, 10000] else args.merges
        repeat = 1
    else:
        target = int(args.size_mb * 1_000_000)
        merges_list = args.merges
        repeat = max(1, args.repeat)

    paths = {name: corpus_path(name, target) for name in args.corpora}
    texts = {name: read_text(p) for name, p in paths.items()}

    if args.profile:
        name = args.corpora[0]
        report = profile_ours(texts[name], args.profile_case, max(merges_list))
        print(
            f"cProfile: our trainer, {name} ({mb(len(texts[name].encode())):.2f} MB), "
            f"case {CASES[args.profile_case]['label']}, {max(merges_list)} merges\n"
        )
        print(report)
        out = write_json("profile", {"machine": machine_info(), "report": report}, args.json)
        print(f"results: {out}")
        return 0

    results: dict[str, Any] = {
        "machine": machine_info(),
        "target_bytes": target,
        "merges": merges_list,
        "hf_threads": "all" if args.hf_parallel else 1,
        "repeat": repeat,
        "subword_nmt_mode": "in-process learn_bpe(is_dict=True, min_frequency=1) on our word counts",
        "corpora": describe_corpora(texts, paths, target),
        "runs": [],
        "comparisons": [],
    }
    print(f"Training benchmark  (HF threads: {results['hf_threads']}; one fresh process per run; fastest of {repeat})")
    explanations = run_all(args, paths, texts, merges_list, repeat, results)
    print_runs(results["runs"])
    print_comparisons(results["comparisons"], explanations)

    if not args.no_tab_demo and "python" in texts:
        demo_merges = min(min(merges_list), 1000)
        results["tab_demo"] = tab_demo(texts["python"], demo_merges)
        print_tab_demo(results["tab_demo"])

    comps = results["comparisons"]
    results["all_agree"] = bool(comps) and all(c.get("agree") for c in comps)
    agreeing = sum(1 for c in comps if c.get("agree"))
    print(
        f"\nAGREEMENT: {agreeing}/{len(comps)} comparisons give identical merge lists"
        + (" (all agree)" if results["all_agree"] else "")
    )
    out = write_json("train", results, args.json)
    print(f"results: {out}")
    return 0 if all("error" not in c for c in comps) else 1


if __name__ == "__main__":
    sys.exit(main())
