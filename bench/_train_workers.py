"""The training benchmark's workers: one training, by one engine, in a process of its own.

bench_train.py starts `python bench/bench_train.py --worker SPEC OUT` for every run, so each
measurement begins in a fresh interpreter; the worker reads the corpus, trains, and writes its
time, memory and merge list to OUT as JSON.
"""
from __future__ import annotations

import io
import json
import time
from pathlib import Path
from typing import Any

from _common import CASES, no_tqdm, proc_status, read_text

# Python's str.isspace() (our word split) is true for these four separators, Rust's
# char::is_whitespace (HF's WhitespaceSplit) is not: words holding them split differently.
PY_ONLY_SPACES = "\x1c\x1d\x1e\x1f"


def _work_ours(spec: dict[str, Any], text: str) -> dict[str, Any]:
    from bpe_core import Settings, train
    from bpe_core.pretokenize import count_words

    settings = Settings(**spec["settings"])
    merges = spec["merges"]
    # The counting phase alone, for the phase split (its memory is freed before training).
    t0 = time.perf_counter()
    counts = count_words([text], settings)
    count_seconds = time.perf_counter() - t0
    distinct = len(counts)
    del counts
    before = proc_status()
    t0 = time.perf_counter()
    tok = train([text], settings, merges=merges)
    seconds = time.perf_counter() - t0
    after = proc_status()
    return {
        "seconds": seconds,
        "count_seconds": count_seconds,
        "merge_seconds": max(0.0, seconds - count_seconds),
        "rss_before_kib": before["VmRSS"],
        "peak_kib": after["VmHWM"],
        "merges": [list(p) for p in tok.merges],
        "distinct_words": distinct,
        "stop_reason": tok.training.stop_reason if tok.training else "",
    }


def _rust_whitespace(ch: str) -> bool:
    return ch.isspace() and ch not in PY_ONLY_SPACES


def _hf_merges(tokenizer: Any) -> list[list[str]]:
    model = json.loads(tokenizer.to_str())["model"]
    out = []
    for m in model["merges"]:
        out.append(list(m) if isinstance(m, list) else m.split(" ", 1))
    return out


def _work_hf(spec: dict[str, Any], text: str) -> dict[str, Any]:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    merges = spec["merges"]
    tokenizer = Tokenizer(models.BPE())
    extra: dict[str, Any] = {}
    if spec["engine"] == "hf-whitespace":
        tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        alphabet = sum(1 for ch in set(text) if not _rust_whitespace(ch))
    else:
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        extra["initial_alphabet"] = pre_tokenizers.ByteLevel.alphabet()
        alphabet = len(extra["initial_alphabet"])  # 256: every byte, seen or not
    # HF stops when the vocabulary (special tokens + alphabet + merged tokens) reaches
    # vocab_size; with no special tokens that is alphabet + N for N merges (more merges if two
    # merges spell the same token, which adds no vocabulary entry: only the first N are compared).
    vocab_size = alphabet + merges
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=0,  # HF stops at count < 1 anyway; ours uses min_frequency=1: same rule
        show_progress=False,
        special_tokens=[],
        limit_alphabet=1_000_000,  # keep every character (None is refused by the binding)
        **extra,
    )
    before = proc_status()
    t0 = time.perf_counter()
    tokenizer.train_from_iterator([text], trainer)
    seconds = time.perf_counter() - t0
    after = proc_status()
    return {
        "seconds": seconds,
        "rss_before_kib": before["VmRSS"],
        "peak_kib": after["VmHWM"],
        "merges": _hf_merges(tokenizer),
        "alphabet": alphabet,
        "vocab_size": vocab_size,
    }


def _work_subword_nmt(spec: dict[str, Any], text: str) -> dict[str, Any]:
    import subword_nmt.learn_bpe as learn_bpe_module

    from bpe_core import Settings
    from bpe_core.pretokenize import count_words

    learn_bpe_module.tqdm = no_tqdm  # its progress bar would be timed and printed
    settings = Settings(**CASES["suffix"]["ours"])
    counts = count_words([text], settings)
    lines = [f"{word} {n}\n" for word, n in counts.items()]
    del counts
    out = io.StringIO()
    before = proc_status()
    t0 = time.perf_counter()
    learn_bpe_module.learn_bpe(lines, out, spec["merges"], min_frequency=1, is_dict=True)
    seconds = time.perf_counter() - t0
    after = proc_status()
    merges = [line.split(" ") for line in out.getvalue().splitlines()[1:]]  # skip "#version"
    return {
        "seconds": seconds,
        "rss_before_kib": before["VmRSS"],
        "peak_kib": after["VmHWM"],
        "merges": merges,
    }


def worker_main(spec_path: str, out_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    text = read_text(spec["corpus_path"])
    engine = spec["engine"]
    if engine == "ours":
        result = _work_ours(spec, text)
    elif engine.startswith("hf-"):
        result = _work_hf(spec, text)
    elif engine == "subword-nmt":
        result = _work_subword_nmt(spec, text)
    else:
        raise SystemExit(f"unknown engine {engine!r}")
    Path(out_path).write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")
