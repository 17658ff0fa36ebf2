"""Smoke test of the benchmarks: both scripts run in --quick mode and report agreement.

A correctness check only: timings are never asserted (the machine is shared and noisy).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import require, require_cl100k

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"


def _run(script: str, out: Path) -> dict:
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), "--quick", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, f"{script} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert "AGREEMENT:" in proc.stdout, proc.stdout[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def test_train_benchmark_quick(tmp_path: Path) -> None:
    require("tokenizers")
    require("subword_nmt")
    data = _run("bench_train.py", tmp_path / "train.json")
    comparisons = data["comparisons"]
    assert {(c["case"], c["corpus"]) for c in comparisons} == {
        (case, corpus) for case in ("word", "bytes", "suffix") for corpus in ("english", "python")
    }
    for c in comparisons:
        assert "error" not in c, c
        assert c["agree"], c  # identical merge lists where the settings match
        assert c["compared"] == 500
    assert data["all_agree"] is True
    demo = data["tab_demo"]
    # subword-nmt's regex merges across a tab inside a symbol; ours merges the pair.
    assert demo["minimal"]["subword_nmt"] == ["\t\t\t\t", "\t", "if</w>"]
    assert demo["minimal"]["correct"] == ["\t\t", "\t\t\t", "if</w>"]


def test_encode_benchmark_quick(tmp_path: Path) -> None:
    require("tiktoken")
    require_cl100k()
    data = _run("bench_encode.py", tmp_path / "encode.json")
    assert [t["text"] for t in data["texts"]] == ["english", "python", "multilingual"]
    for t in data["texts"]:
        assert t["ids_identical"], t.get("mismatch_context", t["first_mismatch"])
        assert t["tokens"] > 0
    assert data["all_identical"] is True
