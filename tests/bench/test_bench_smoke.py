"""Smoke test of the benchmarks: each script runs in --quick mode and reports agreement.

A correctness check only: timings are never asserted (the machine is shared and noisy).
"""
from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from collections import Counter
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


def test_wordpiece_benchmark_quick(tmp_path: Path) -> None:
    """Our WordPiece export encodes the sample exactly as `tokenizers` does; fast == reference."""
    require("tokenizers")
    data = _run("bench_wordpiece.py", tmp_path / "wordpiece.json")
    assert data["ids_identical"] is True and data["reference_agrees"] is True
    assert data["vocab"]["ours"] == data["vocab_size"] == 1_000 and data["tokens"] > 0


def test_encode_benchmark_quick(tmp_path: Path) -> None:
    require("tiktoken")
    require_cl100k()
    data = _run("bench_encode.py", tmp_path / "encode.json")
    rows = data["rows"]
    assert sorted({r["text"] for r in rows}) == ["english", "multilingual", "python"]
    assert {r["tokenizer"] for r in rows} >= {"gpt2", "cl100k_base", "deepseek_v4", "mistral_v1", "tekken"}
    for r in rows:
        assert r["ids_identical"], (r["tokenizer"], r["text"], r["first_mismatch"])
        assert r["tokens"] > 0


def test_builtin_benchmark_quick(tmp_path: Path) -> None:
    """Every built-in's ids agree with its production encoder's, and the Vocabulary page's pieces run."""
    require("quicktok")
    require("tiktoken")
    require_cl100k()
    data = _run("bench_builtin.py", tmp_path / "builtin.json")
    rows = {row["name"]: row for row in data["builtins"]}
    assert list(rows) == ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen3"]
    assert all(row["agree"] and row["tokens"] > 0 for row in rows.values()), rows
    assert rows["cl100k_base"]["same_ids"] == {"quicktok": True, "tiktoken": True}
    assert rows["llama3"]["same_ids"]["tiktoken"] is True  # Meta's reference (quicktok departs from it)
    page = data["vocabulary_page_o200k"]
    assert page["rows"] == 199_998 and set(page["first"]) > set(page["cached"])


def test_overlap_benchmark_quick(tmp_path: Path) -> None:
    require("quicktok")
    require_cl100k()
    data = _run("bench_overlap.py", tmp_path / "overlap.json")
    pairs = {(p["a"], p["b"]): p for p in data["pairs"]}
    assert set(pairs) == {("gpt2", "cl100k_base"), ("o200k_base", "qwen3")}
    assert all(p["agree"] for p in pairs.values())
    assert pairs[("gpt2", "cl100k_base")]["sizes"] == [50_257, 100_256]


def test_language_tax_benchmark_quick() -> None:
    """The printed tables agree with the engine: English pays no premium, and o200k's tokens per
    character for English are `text_stats`'s own."""
    require("quicktok")
    require_cl100k()
    proc = subprocess.run([sys.executable, str(BENCH / "bench_language_tax.py"), "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    per_char, premium = proc.stdout.split("Tokens per character\n")[1].split("\n\nPremium over English")
    header, *lines = per_char.splitlines()
    columns = header.split()[1:]
    assert columns == ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen3", "ours-bytes-2k"]
    assert len(lines) >= 12
    english = next(line for line in premium.splitlines() if line.startswith("English"))
    assert english.split()[-len(columns):] == ["1.00"] * len(columns)

    from bpe_core.analysis import text_stats
    from bpe_core.builtin import load_builtin
    from sample_corpora import load_parallel

    english_per_char = next(line for line in lines if line.startswith("English")).split()[-len(columns):]
    stats = text_stats(load_builtin("o200k_base"), load_parallel()["en"])
    assert english_per_char[columns.index("o200k_base")] == f"{stats.tokens_per_character:.3f}"


def test_report_benchmark_quick() -> None:
    """The printed card is the engine's: cl100k's fertility on the same text, and a time for every tokenizer."""
    proc = subprocess.run([sys.executable, str(BENCH / "bench_report.py"), "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    header = next(line for line in proc.stdout.splitlines() if line.startswith("measure"))
    columns = header.split("  ")[1:]
    columns = [c.strip() for c in columns if c.strip()]
    assert columns == ["trained 2,000", "gpt2", "cl100k_base", "o200k_base"]
    fertility = next(line for line in proc.stdout.splitlines() if line.startswith("Tokens per word"))

    from bench._common import QUICK_BYTES, corpus_path, read_text
    from bpe_core.builtin import load_builtin
    from bpe_core.report import measure, report_card

    card = report_card(load_builtin("cl100k_base"), read_text(corpus_path("english", QUICK_BYTES)))
    assert fertility.split()[-2] == f"{measure('tokens_per_word').value(card):.3f}"
    times = proc.stdout.split("again/encode\n")[1].splitlines()
    assert [line.split()[0] for line in times[1:]] == ["gpt2", "cl100k_base", "o200k_base"]
    assert all(line.split()[-1].endswith("x") for line in times[1:])


def _big_corpus(cache: Path, size: str, file_bytes: str) -> Path:
    env = {**os.environ, "BPE_EXPLORER_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, str(BENCH / "_big_corpus.py"), "--size", size, "--file-bytes", file_bytes],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return Path(proc.stdout.strip())


def test_generated_large_corpus_is_deterministic_text_files(tmp_path: Path) -> None:
    """The benchmark corpus: the same bytes from the same seed, several files (every third gzipped),
    only text in the directory given to `count`, kept under $BPE_EXPLORER_CACHE (never the repository)."""
    first = _big_corpus(tmp_path / "a", "300KB", "100KB")
    second = _big_corpus(tmp_path / "b", "300KB", "100KB")
    assert first.is_relative_to(tmp_path / "a" / "bench")
    names = sorted(p.name for p in first.iterdir())
    assert names == ["part-000.txt", "part-001.txt.gz", "part-002.txt"]
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes()
    text = "".join(
        (gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()).decode("utf-8")
        for p in sorted(first.iterdir())
    )
    assert 290_000 <= len(text.encode("utf-8")) <= 300_000
    words = Counter(text.split())
    top = [w for w, _ in words.most_common(3)]
    assert top == ["the", "of", "and"]  # a Zipfian head of function words
    assert len(words) > 10_000 and "\n\n" in text  # a long tail, and paragraphs


def test_counting_benchmark_quick(tmp_path: Path, monkeypatch) -> None:
    """Dask's counts equal one process's, order included, on the generated corpus (3 files, one gzipped)."""
    require("distributed")
    require("psutil")
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(tmp_path / "cache"))
    data = _run("bench_counting.py", tmp_path / "counting.json")
    (run,) = data["runs"]
    assert (run["files"], run["gzipped"]) == (3, 1)
    assert run["single"]["partitions"] >= 6  # 400 KB partitions: the plain files are split
    assert run["identical"] and data["all_identical"] is True
    assert run["single"]["words"] == run["dask"]["words"] > 400_000
    assert len(run["dask"]["worker_peaks_mib"]) == 2


def test_large_training_benchmark_quick(tmp_path: Path, monkeypatch) -> None:
    """`python -m bpe_core train` on the generated corpus learns HF BpeTrainer's merges (same settings)."""
    require("tokenizers")
    require("psutil")
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(tmp_path / "cache"))
    data = _run("bench_train_large.py", tmp_path / "train_large.json")
    assert data["merges"] == 200 and data["ours"]["merges_made"] == 200
    assert data["same_first_merges"] == data["compared"] == 200
    assert {t["kind"] for t in data["partition_throughput"]} == {"plain", "gz"}


def test_unigram_benchmark_quick(tmp_path: Path) -> None:
    """Our Unigram export encodes identically in `tokenizers`; token counts are near both peers'."""
    require("tokenizers")
    require("sentencepiece")
    data = _run("bench_unigram.py", tmp_path / "unigram.json")
    assert data["hf_parity"] is True
    engines = data["engines"]
    assert set(engines) == {"ours", "tokenizers", "sentencepiece"}
    for name in ("tokenizers", "sentencepiece"):  # 2% is pinned in tests/core/test_unigram.py
        assert abs(engines["ours"]["tokens"] / engines[name]["tokens"] - 1) <= 0.05, engines
    assert all(0 < v < 1 for v in data["overlap"].values())


def test_superbpe_benchmark_quick(tmp_path: Path) -> None:
    """Our SuperBPE export encodes the held-out text identically in `tokenizers`; fast == reference."""
    require("tokenizers")
    data = _run("bench_superbpe.py", tmp_path / "superbpe.json")
    assert data["same_ids"] is True and data["reference_agrees"] is True
    assert data["fewer_than_bpe_percent"] > 0 and data["ours"]["vocab"] == [2000, 2000]


def test_text_mode_benchmark_quick(tmp_path: Path) -> None:
    """Fresh processes train the text as the app's worker does, and report a time and a peak memory."""
    data = _run("bench_text_mode.py", tmp_path / "text_mode.json")
    assert data["same"] is True
    (run,) = data["runs"]
    assert run["merges"] == 200 and run["peak_mb"] >= run["before_mb"] > 0 and run["seconds"] > 0


def test_frame_benchmark_runs_on_every_mode() -> None:
    """The player's windows, built by each family's `player.window`, for word, text and bytes mode."""
    proc = subprocess.run([sys.executable, str(BENCH / "bench_frame.py"), "--mb", "0.2", "--merges", "150",
                           "--repeats", "1"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [line.split(",")[0] for line in proc.stdout.splitlines() if " mode, " in line] == [
        "word mode", "text mode", "bytes mode"]
    assert "far scrub to step 75" in proc.stdout
