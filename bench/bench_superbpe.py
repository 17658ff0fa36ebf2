"""SuperBPE benchmark: training time of each phase, and held-out token counts of BPE against
SuperBPE at the same vocabulary size, beside Hugging Face `tokenizers` in the same run.

    python bench/bench_superbpe.py [--size-mb 5] [--vocab 8000] [--transition 6000] [--held-out 0.1]
    python bench/bench_superbpe.py --quick          # 500 KB, vocab 2000, transition 1500

The English sample is cut in two: the first part (1 - held-out) trains, the rest is held out.
Rows, all byte level:
  ours BPE        phase one alone (SuperBPE with transition = vocabulary size): BPE inside the
                  paper's stage-1 pre-tokens, encoded with that split
  ours SuperBPE   phase one to the transition, then phase two; encoded with the phase-two split
  HF BPE          `tokenizers` BpeTrainer with the same stage-1 Split + ByteLevel, every byte in
                  the initial alphabet, one thread (TOKENIZERS_PARALLELISM=false)
  HF SuperBPE     our SuperBPE export loaded in `tokenizers`: its held-out ids must equal ours
                  (vanilla `tokenizers` cannot continue training from merges, so there is no HF
                  phase two to time; the authors use a fork for that)
Our training time is counting + phase one + phase two, each shown; HF's is its `train_from_iterator`.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from _common import RESULTS_DIR, corpus_path, fmt, machine_info, read_text, table, write_json  # noqa: E402

from bpe_core.families import train_superbpe_from_counts  # noqa: E402
from bpe_core.families.superbpe import STAGE1_PATTERN, count_phase_one, count_phase_two, phase_one_pieces  # noqa: E402


def ours(train_text: str, held: str, *, vocab: int, transition: int) -> dict[str, Any]:
    started = time.perf_counter()
    one = count_phase_one([train_text])
    two = count_phase_two([train_text])
    counted = time.perf_counter()
    sup = train_superbpe_from_counts(one, two, vocab_size=vocab, transition=transition)
    trained = time.perf_counter()
    bpe = train_superbpe_from_counts(one, two, vocab_size=vocab, transition=vocab)  # phase one alone
    bpe_done = time.perf_counter()
    sup_ids = sup.encode_ids(held)
    encoded = time.perf_counter()
    bpe_tokens = sum(len(bpe.tokenizer.encode_word(piece)) for piece in phase_one_pieces(held))
    assert sup.training is not None and bpe.training is not None
    return {
        "model": sup,
        "count_s": counted - started,
        "phase_one_s": sup.training.stats["phase_one_seconds"],
        "phase_two_s": sup.training.stats["phase_two_seconds"],
        "superbpe_train_s": trained - started,
        "bpe_train_s": (counted - started) + (bpe_done - trained),
        "encode_s": encoded - bpe_done,
        "superbpe_tokens": len(sup_ids),
        "superbpe_ids": sup_ids,
        "bpe_tokens": bpe_tokens,
        "vocab": (len(sup.vocab), len(bpe.vocab)),
        "superwords": len(sup.superwords),
        "phase_two_merges": len(sup.merges) - sup.transition,
        "examples": [s.token for s in sup.trace if s.superword][:12],
    }


def reference_check(text: str) -> bool:
    """The fast trainer against the slow reference on a small slice (the reference recounts
    every pair at every step): 60 merges, 30 in each phase."""
    from bpe_core.families import train_superbpe
    from bpe_core.families.superbpe import phase_two_allows
    from bpe_core.families.superbpe_reference import reference_superbpe
    from bpe_core.settings import Settings

    fast = train_superbpe(text, vocab_size=316, transition=286)
    slow = reference_superbpe(
        count_phase_one([text]), count_phase_two([text]), Settings(mode="bytes", pretokenizer="none"),
        phase_one_merges=30, merges=60, allows=phase_two_allows, max_token_length=1000,
    )
    return [(s.left, s.right, s.count, s.phase) for s in fast.trace] == slow


def hugging_face(train_text: str, held: str, *, vocab: int, export: dict[str, Any]) -> dict[str, Any]:
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(STAGE1_PATTERN), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    trainer = trainers.BpeTrainer(
        vocab_size=vocab, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    started = time.perf_counter()
    tok.train_from_iterator([train_text], trainer=trainer)
    trained = time.perf_counter()
    bpe_tokens = len(tok.encode(held).ids)
    sup = Tokenizer.from_str(json.dumps(export))
    before = time.perf_counter()
    sup_ids = sup.encode(held).ids
    encoded = time.perf_counter()
    return {
        "bpe_train_s": trained - started, "bpe_tokens": bpe_tokens, "vocab": tok.get_vocab_size(),
        "superbpe_ids": sup_ids, "encode_s": encoded - before,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=5.0)
    parser.add_argument("--vocab", type=int, default=8000)
    parser.add_argument("--transition", type=int, default=6000)
    parser.add_argument("--held-out", type=float, default=0.1, help="the fraction of the sample held out")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.quick:
        args.size_mb, args.vocab, args.transition = 0.5, 2000, 1500
    text = read_text(corpus_path("english", 5_000_000))[: int(args.size_mb * 1_000_000)]
    cut = int(len(text) * (1 - args.held_out))
    train_text, held = text[:cut], text[cut:]
    print(f"English sample: {len(text):,} characters; training on {len(train_text):,}, holding out {len(held):,}")
    print(f"vocabulary {args.vocab:,}, transition {args.transition:,}\n")

    mine = ours(train_text, held, vocab=args.vocab, transition=args.transition)
    hf = hugging_face(train_text, held, vocab=args.vocab, export=mine["model"].to_hf_dict())
    same = hf["superbpe_ids"] == mine["superbpe_ids"]
    reference = reference_check(train_text[:5_000])

    def fewer(n: int, than: int) -> str:
        return f"{100 * (than - n) / than:.1f}%"

    rows = [
        ["ours BPE (phase one alone)", fmt(mine["bpe_train_s"]), f"{mine['bpe_tokens']:,}", "", mine["vocab"][1]],
        ["ours SuperBPE", fmt(mine["superbpe_train_s"]), f"{mine['superbpe_tokens']:,}",
         fewer(mine["superbpe_tokens"], mine["bpe_tokens"]), mine["vocab"][0]],
        ["HF BPE (same split)", fmt(hf["bpe_train_s"]), f"{hf['bpe_tokens']:,}", "", hf["vocab"]],
        ["HF, our SuperBPE export", "", f"{len(hf['superbpe_ids']):,}",
         fewer(len(hf["superbpe_ids"]), hf["bpe_tokens"]), ""],
    ]
    print(table(["tokenizer", "train s", "held-out tokens", "fewer than its BPE", "vocab"], rows))
    print(f"\nours: counting {fmt(mine['count_s'])} s, phase one {fmt(mine['phase_one_s'])} s, "
          f"phase two {fmt(mine['phase_two_s'])} s ({mine['phase_two_merges']:,} merges, "
          f"{mine['superwords']:,} superword tokens)")
    print(f"ratios: ours BPE / HF BPE training time = {mine['bpe_train_s'] / hf['bpe_train_s']:.2f}x; "
          f"ours SuperBPE (both phases) / HF BPE = {mine['superbpe_train_s'] / hf['bpe_train_s']:.2f}x")
    print(f"SuperBPE vs our BPE: {fewer(mine['superbpe_tokens'], mine['bpe_tokens'])} fewer tokens; "
          f"vs HF BPE: {fewer(mine['superbpe_tokens'], hf['bpe_tokens'])} fewer")
    print(f"encoding the held-out text with SuperBPE: ours {fmt(mine['encode_s'])} s, HF {fmt(hf['encode_s'])} s; "
          f"ids identical: {same}")
    print("first superwords:", ", ".join(repr(t.replace("Ġ", " ").replace("Ċ", "\\n")) for t in mine["examples"]))
    print(f"AGREEMENT: tokenizers encodes the held-out text with our export to our ids: {same}; "
          f"fast trainer == reference on 5,000 characters (60 merges): {reference}")
    data = {
        "machine": machine_info(), "args": vars(args), "same_ids": same, "reference_agrees": reference,
        "fewer_than_bpe_percent": 100 * (mine["bpe_tokens"] - mine["superbpe_tokens"]) / mine["bpe_tokens"],
        "ours": {k: v for k, v in mine.items() if k not in ("model", "superbpe_ids")},
        "hf": {k: v for k, v in hf.items() if k != "superbpe_ids"},
    }
    out = write_json("superbpe", data, args.json)
    print(f"\nresults: {out.relative_to(RESULTS_DIR.parent.parent) if out.is_relative_to(RESULTS_DIR) else out}")
    if not (same and reference):
        sys.exit(1)


if __name__ == "__main__":
    main()
