"""Where users wait: `python -m bpe_core train` end to end against Hugging Face's trainer in-process.

    python bench/bench_cli_train.py [--size-mb 1.5] [--merges 5000] [--cases word bytes] [--repeat 3] [--json PATH]

For each case (the pairings of bench_train.py whose merge lists must be identical: `word` is
--eow none --tie-break hf against BPE + WhitespaceSplit, `bytes` is --mode bytes --pretokenizer
gpt2 --tie-break hf against BPE + ByteLevel), on the same corpus and number of merges:

- CLI s: wall seconds of the whole command, a process of its own (start-up, imports, reading,
  counting, training, saving the model file); its peak MiB is that process's peak resident set.
- HF s: `Tokenizer.train_from_iterator` alone, timed inside a fresh process (bench_train.py's
  worker), its peak MiB that process's VmHWM; ratio = CLI s / HF s (the target: at most 1.5).
- train s, save %: in another fresh process, our `train()` call, then `save_model` (what the CLI
  writes the file with), as a share of that training time (the target: at most 10%).
- load %, CLI load %: in a third fresh process, the saved file read by `load_model` (the library's
  reader, the explorer's too) and by the command line's `_load` (what `encode`, `trace` and the
  rest read it with), each as a share of the same training time (the target: at most 10%).

The merges the CLI saved are compared with HF's. Runs alternate (CLI, HF, save/load) and the
fastest of --repeat is kept; the 1-minute load average is printed before each case, since the
machine's other work slows every run.
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

from _common import ROOT, corpus_path, fmt, machine_info, mb, proc_status, read_text, table, write_json

CASES: dict[str, dict[str, Any]] = {
    "word": {"cli": ["--eow", "none", "--tie-break", "hf"], "peer": "hf-whitespace",
             "settings": {"mode": "word", "eow": "none", "tie_break": "hf"}},
    "bytes": {"cli": ["--mode", "bytes", "--pretokenizer", "gpt2", "--tie-break", "hf"], "peer": "hf-bytelevel",
              "settings": {"mode": "bytes", "pretokenizer": "gpt2", "tie_break": "hf"}},
}


def engine_env(engine: Path) -> dict[str, str]:
    """The environment of a child that imports `bpe_core` from the folder `engine`."""
    return {**os.environ, "PYTHONPATH": str(engine), "TOKENIZERS_PARALLELISM": "false", "PYTHONHASHSEED": "0"}


def run_cli(corpus: Path, case: str, merges: int, output: Path, engine: Path) -> dict[str, Any]:
    """The CLI's wall seconds and peak resident set (from the child's own rusage)."""
    argv = [sys.executable, "-m", "bpe_core", "train", str(corpus), "--merges", str(merges), *CASES[case]["cli"],
            "-o", str(output)]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=engine, env=engine_env(engine), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    stderr = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        return {"error": stderr[-2000:]}
    return {"seconds": seconds, "peak_kib": usage.ru_maxrss, "command": " ".join(argv[1:])}


def run_worker(kind: str, spec: dict[str, Any], tmp: Path, engine: Path) -> dict[str, Any]:
    """One measurement in a fresh process: `hf` by bench_train.py's worker, `save` and `load` by this file's."""
    spec_path, out_path = tmp / f"{kind}.spec.json", tmp / f"{kind}.out.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    script = Path(__file__).with_name("bench_train.py") if kind == "hf" else Path(__file__)
    flag = "--load-worker" if kind == "load" else "--worker"
    proc = subprocess.run([sys.executable, str(script), flag, str(spec_path), str(out_path)],
                          env=engine_env(engine), capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout)[-2000:]}
    result: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
    return result


def save_worker(spec_path: str, out_path: str) -> None:
    """Train as `train()` does, then time `save_model` (what the CLI writes its file with)."""
    from bpe_core import Settings, train
    from bpe_core.formats.ours import save_model

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    text = read_text(spec["corpus_path"])
    t0 = time.perf_counter()
    tok = train([text], Settings(**spec["settings"]), merges=spec["merges"])
    train_seconds = time.perf_counter() - t0
    model = Path(spec["model_path"])
    t0 = time.perf_counter()
    save_model(tok, model)
    save_seconds = time.perf_counter() - t0
    result = {"train_seconds": train_seconds, "save_seconds": save_seconds, "file_bytes": model.stat().st_size,
              "peak_kib": proc_status()["VmHWM"], "merges": len(tok.merges)}
    Path(out_path).write_text(json.dumps(result), encoding="utf-8")


def load_worker(spec_path: str, out_path: str) -> None:
    """In a fresh process, as a command that reads a model finds it: `load_model` (the library's
    reader), then the command line's own `_load` (what `encode`, `trace` and the rest call)."""
    import argparse as _argparse

    from bpe_core import cli_commands
    from bpe_core.formats.detect import load_model

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    path, args = spec["model_path"], _argparse.Namespace(merges_file=None)
    seconds: dict[str, list[float]] = {"load": [], "cli_load": []}
    for _ in range(2):  # twice each, alternating, the faster kept: the first also imports what reading needs
        for name, read in (("load", lambda: load_model(path)), ("cli_load", lambda: cli_commands._load(path, args))):
            t0 = time.perf_counter()
            loaded = read()
            seconds[name].append(time.perf_counter() - t0)
            merges = len(getattr(loaded, "merges", ()))
            del loaded
    result = {"load_seconds": min(seconds["load"]), "cli_load_seconds": min(seconds["cli_load"]), "merges": merges}
    Path(out_path).write_text(json.dumps(result), encoding="utf-8")


def measure_case(case: str, corpus: Path, merges: int, repeat: int, tmp: Path, engine: Path) -> dict[str, Any]:
    """The fastest of `repeat` runs of each: the CLI, HF, our save and load."""
    cli_runs, hf_runs, save_runs, load_runs = [], [], [], []
    output = tmp / f"cli-{case}.json"
    spec = {"corpus": corpus.stem, "corpus_path": str(corpus), "merges": merges, "case": case,
            "engine": CASES[case]["peer"], "settings": CASES[case]["settings"],
            "model_path": str(tmp / f"saved-{case}.json")}
    for _ in range(repeat):
        cli_runs.append(run_cli(corpus, case, merges, output, engine))
        hf_runs.append(run_worker("hf", spec, tmp, engine))
        save_runs.append(run_worker("save", spec, tmp, engine))
        load_runs.append(run_worker("load", spec, tmp, engine))
    failed = [r for r in cli_runs + hf_runs + save_runs + load_runs if "error" in r]
    if failed:
        return {"case": case, "error": failed[0]["error"]}
    cli = min(cli_runs, key=lambda r: r["seconds"])
    hf = min(hf_runs, key=lambda r: r["seconds"])
    saved = min(save_runs, key=lambda r: r["train_seconds"])
    ours_merges = [list(m) for m in json.loads(output.read_text(encoding="utf-8"))["merges"]]
    compared = min(merges, len(ours_merges), len(hf["merges"]))
    return {
        "case": case,
        "cli_seconds": cli["seconds"],
        "cli_all_seconds": [r["seconds"] for r in cli_runs],
        "cli_peak_mib": max(r["peak_kib"] for r in cli_runs) / 1024,
        "hf_seconds": hf["seconds"],
        "hf_all_seconds": [r["seconds"] for r in hf_runs],
        "hf_peak_mib": max(r["peak_kib"] for r in hf_runs) / 1024,
        "ratio": cli["seconds"] / max(hf["seconds"], 1e-9),
        "paired_ratios": [c["seconds"] / max(h["seconds"], 1e-9) for c, h in zip(cli_runs, hf_runs)],
        "train_seconds": saved["train_seconds"],
        "save_seconds": min(r["save_seconds"] for r in save_runs),
        "load_seconds": min(r["load_seconds"] for r in load_runs),
        "cli_load_seconds": min(r["cli_load_seconds"] for r in load_runs),
        "save_percent": 100 * min(r["save_seconds"] for r in save_runs) / saved["train_seconds"],
        "load_percent": 100 * min(r["load_seconds"] for r in load_runs) / saved["train_seconds"],
        "cli_load_percent": 100 * min(r["cli_load_seconds"] for r in load_runs) / saved["train_seconds"],
        "file_mb": mb(saved["file_bytes"]),
        "merges_agree": ours_merges[:compared] == hf["merges"][:compared] and compared == merges,
        "compared": compared,
        "command": cli["command"],
    }


def print_results(rows: list[dict[str, Any]]) -> None:
    lines = []
    for r in rows:
        if "error" in r:
            lines.append([r["case"], "ERROR"] + [""] * 11)
            continue
        lines.append([r["case"], fmt(r["cli_seconds"]), fmt(r["hf_seconds"]), fmt(r["ratio"]),
                      " ".join(f"{x:.2f}" for x in r["paired_ratios"]), fmt(r["train_seconds"]),
                      f"{fmt(r['save_seconds'], 3)} ({r['save_percent']:.0f}%)",
                      f"{fmt(r['load_seconds'], 3)} ({r['load_percent']:.0f}%)",
                      f"{fmt(r['cli_load_seconds'], 3)} ({r['cli_load_percent']:.0f}%)", fmt(r["file_mb"]),
                      f"{r['cli_peak_mib']:.0f}/{r['hf_peak_mib']:.0f}", fmt(r["load_before"], 1),
                      "yes" if r["merges_agree"] else "NO"])
    headers = ["case", "CLI s", "HF s", "CLI/HF", "each repeat", "train s", "save s (% train)",
               "load s (% train)", "CLI load s", "file MB", "peak MiB CLI/HF", "load avg", "merges agree"]
    print(table(headers, lines, align="lrrrlrrrrrrrl"))
    for r in rows:
        if "error" in r:
            print(f"  {r['case']}: FAILED\n{r['error']}", file=sys.stderr)
            continue
        print(f"  {r['case']}: {r['command']}")
        misses = [what for what, bad in (("CLI/HF <= 1.5", r["ratio"] > 1.5), ("save <= 10%", r["save_percent"] > 10),
                                         ("load <= 10%", r["load_percent"] > 10),
                                         ("CLI load <= 10%", r["cli_load_percent"] > 10)) if bad]
        if misses:
            print(f"    not met: {', '.join(misses)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=1.5, help="English corpus size in MB (default 1.5)")
    parser.add_argument("--merges", type=int, default=5000)
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, fastest kept (default 3)")
    parser.add_argument("--json", help="write the JSON results here (default: bench/results/)")
    parser.add_argument("--engine-dir", type=Path, default=ROOT,
                        help="the folder `bpe_core` is imported from (default: this work tree), to measure a copy")
    parser.add_argument("--worker", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--load-worker", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        save_worker(*args.worker)
        return 0
    if args.load_worker:
        load_worker(*args.load_worker)
        return 0
    corpus = corpus_path("english", int(args.size_mb * 1_000_000))
    size = len(read_text(corpus).encode("utf-8"))
    print(f"CLI train against HF in-process: English prose, {mb(size):.2f} MB, {args.merges} merges, "
          f"fastest of {max(1, args.repeat)}; HF on one thread; load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores; bpe_core from {args.engine_dir}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-cli-train-") as tmpdir:
        for case in args.cases:
            load_before = os.getloadavg()[0]
            row = measure_case(case, corpus, args.merges, max(1, args.repeat), Path(tmpdir), args.engine_dir.resolve())
            row["load_before"] = load_before
            rows.append(row)
            print(f"  done: {case} (load average {load_before:.2f})", flush=True)
    print()
    print_results(rows)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    out = write_json("cli-train", {"machine": machine_info(), "corpus": str(corpus), "bytes": size,
                                   "merges": args.merges, "results": rows}, args.json)
    print(f"results: {out}")
    return 0 if all("error" not in r for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
