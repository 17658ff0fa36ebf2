"""WordPiece benchmark: our trainer and encoder beside Hugging Face `tokenizers`, in one run.

    python bench/bench_wordpiece.py [--size-mb 5] [--vocab-size 8000] [--repeat 2] [--quick] [--json PATH]

Training: `train_wordpiece(text, vocab_size=N)` (counting included) against `tokenizers`'
`WordPieceTrainer` with the BertPreTokenizer and the same five special tokens, fed the same text.
The two do NOT learn the same vocabulary: `tokenizers`' WordPiece trainer is its BPE trainer
(merges by pair count) with the continuation prefix; ours merges by the WordPiece score
count(ab) / (count(a) * count(b)). So it is a speed peer only; the vocabularies' overlap is
printed for interest.

Encoding: our trained model, and the same model exported with `to_hf_dict()` and loaded in
`tokenizers`, on the corpus cut into lines; the token ids must be identical (AGREEMENT). `tokenizers`
runs single-threaded (TOKENIZERS_PARALLELISM=false), as ours uses one core. Its `encode_batch`
always builds offsets too, so the fair row to read beside it is ours "with spans"; our ids-only
path skips the offsets. Times are the fastest
of --repeat runs, each in this process, one after the other.

The agreement line also covers our fast trainer against the slow reference trainer on the
corpus's first 20,000 characters (same vocabulary in the same order, same trace).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ["TOKENIZERS_PARALLELISM"] = "false"  # before tokenizers is imported
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _common import corpus_path, fmt, machine_info, mb, read_text, table, write_json  # noqa: E402

from bpe_core.families import train_wordpiece  # noqa: E402
from bpe_core.families.wordpiece import DEFAULT_SPECIALS  # noqa: E402
from bpe_core.families.wordpiece_reference import reference_train  # noqa: E402
from bpe_core.families.wordpiece_text import count_words  # noqa: E402
from bpe_core.families.wordpiece_train import train_merges  # noqa: E402

QUICK_BYTES = 100_000
QUICK_VOCAB = 1_000


def best_of(repeat: int, run: Any) -> tuple[float, Any]:
    """The fastest time of `repeat` calls and the last call's result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=5.0, help="English corpus size in MB (default 5)")
    parser.add_argument("--vocab-size", type=int, default=8_000, help="vocabulary size (default 8000)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement; the fastest counts")
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_BYTES:,} bytes, vocabulary {QUICK_VOCAB}")
    parser.add_argument("--json", help="write the results here (default bench/results/wordpiece-*.json)")
    args = parser.parse_args()
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    size = QUICK_BYTES if args.quick else int(args.size_mb * 1_000_000)
    vocab_size = QUICK_VOCAB if args.quick else args.vocab_size
    repeat = 1 if args.quick else args.repeat
    text = read_text(corpus_path("english", size))
    lines = text.splitlines()
    print(f"English sample: {mb(len(text.encode('utf-8'))):.2f} MB, {len(lines):,} lines; vocabulary {vocab_size:,}; "
          f"best of {repeat}")

    ours_train, model = best_of(repeat, lambda: train_wordpiece(text, vocab_size=vocab_size))

    def hf_train() -> Any:
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=list(DEFAULT_SPECIALS),
                                            show_progress=False)
        tok.train_from_iterator([text], trainer)
        return tok

    hf_train_s, hf_tok = best_of(repeat, hf_train)
    ours_vocab, hf_vocab = set(model.vocab), set(hf_tok.get_vocab())

    exported = Tokenizer.from_str(json.dumps(model.to_hf_dict()))
    ours_encode, ours_ids = best_of(repeat, lambda: [model.encode_ids(line) for line in lines])
    # A fresh model each run would empty our word cache; the fair peer to a warm cache is a
    # second run, so the fastest of `repeat` runs is what both sides report.
    hf_encode, hf_encodings = best_of(repeat, lambda: exported.encode_batch(lines, add_special_tokens=False))
    ours_spans, _ = best_of(repeat, lambda: [model.encode_with_spans(line) for line in lines])
    hf_ids = [e.ids for e in hf_encodings]
    tokens = sum(len(ids) for ids in ours_ids)
    ids_identical = ours_ids == hf_ids

    slice_counts = count_words([text[:20_000]])
    fast = train_merges(slice_counts, vocab_size=600, specials=list(DEFAULT_SPECIALS), prefix="##")
    slow = reference_train(slice_counts, vocab_size=600, specials=list(DEFAULT_SPECIALS), prefix="##")
    reference_agrees = fast == slow

    print()
    print(table(
        ["", "ours s", "tokenizers s", "ours / tokenizers"],
        [
            ["train (count + merges)", fmt(ours_train), fmt(hf_train_s), fmt(ours_train / hf_train_s)],
            ["encode ids (lines)", fmt(ours_encode), fmt(hf_encode), fmt(ours_encode / hf_encode)],
            ["encode with spans", fmt(ours_spans), fmt(hf_encode), fmt(ours_spans / hf_encode)],
        ],
    ))
    print(f"\nours: {len(model.vocab):,} tokens ({len(model.trace):,} merges); tokenizers: {len(hf_vocab):,} tokens; "
          f"shared {len(ours_vocab & hf_vocab):,} (a different algorithm: speed peer only)")
    print(f"encode: {tokens:,} tokens; ours {tokens / ours_encode / 1e6:.2f} M tokens/s, "
          f"tokenizers {tokens / hf_encode / 1e6:.2f} M tokens/s (one thread)")
    print(f"AGREEMENT: export ids identical on every line: {ids_identical}; "
          f"fast trainer == reference on 20,000 characters: {reference_agrees}")
    data = {
        "machine": machine_info(),
        "size_bytes": len(text.encode("utf-8")),
        "vocab_size": vocab_size,
        "repeat": repeat,
        "train_seconds": {"ours": ours_train, "tokenizers": hf_train_s},
        "train_ratio": ours_train / hf_train_s,
        "encode_seconds": {"ours": ours_encode, "tokenizers": hf_encode},
        "encode_ratio": ours_encode / hf_encode,
        "encode_spans_seconds": ours_spans,
        "tokens": tokens,
        "vocab": {"ours": len(ours_vocab), "tokenizers": len(hf_vocab), "shared": len(ours_vocab & hf_vocab)},
        "ids_identical": ids_identical,
        "reference_agrees": reference_agrees,
    }
    out = write_json("wordpiece", data, args.json)
    print(f"results: {out}")
    return 0 if ids_identical and reference_agrees else 1


if __name__ == "__main__":
    sys.exit(main())
