"""What each `python -m bpe_core` command does, once `cli.py` has parsed its arguments.

Each `run_*` takes the parsed arguments and returns the exit status; results go to stdout (JSON
lines, decoded text), everything else to stderr. Bad input raises BPEError, which `cli.main`
turns into one `error: ...` line and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import cli_families
from .analysis.overlap import vocabulary_overlap
from .analysis.stability import stability
from .analysis.stats import text_stats
from .cli_count import counts_for_training
from .cli_progress import MergeBar, bars_wanted
from .formats import save_gpt2, save_hf, save_tokenizer
from .formats._common import dump_json, write_text
from .formats.builtin import builtin_info, builtin_names
from .formats.detect import load_model
from .model import Encoding, Tokenizer
from .parts.pipeline import PartsTokenizer
from .pretokenize import check_text
from .settings import BPEError, Settings
from .trainer import DEFAULT_MERGES, check_target
from .training import train_from_counts

# ---- train ----------------------------------------------------------------------------------


def run_train(args: argparse.Namespace) -> int:
    cli_families.check_model_options(args)
    if args.model != "bpe":
        return cli_families.run_train_family(args)
    merges, vocab_size = _target(args)
    if args.min_frequency < 1:
        raise BPEError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    if args.max_token_length < 0:
        raise BPEError(f"--max-token-length must be 0 (no limit) or more, not {args.max_token_length}")
    counts, settings, counted = counts_for_training(args, _settings)
    if counted is not None and counted.place != "here":
        print(f"counted {counted.describe()} in {counted.seconds:.2f} s", file=sys.stderr)
    bar = MergeBar() if bars_wanted(args.progress) else None
    started = time.perf_counter()
    try:
        tok = train_from_counts(
            counts,
            settings,
            merges=merges,
            vocab_size=vocab_size,
            max_token_length=args.max_token_length or None,
            progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()
    save_tokenizer(tok, args.output)
    _report_training(tok, time.perf_counter() - started, args.output)
    return 0


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(
        mode=args.mode or "word",
        eow=args.eow,
        pretokenizer=args.pretokenizer or "",
        tie_break=args.tie_break,
        lowercase=args.lowercase,
        normalization=args.normalization or "none",
        min_frequency=args.min_frequency,
    )


def _target(args: argparse.Namespace) -> tuple[int | None, int | None]:
    """(merges, vocab size): exactly one is set; the default is DEFAULT_MERGES merges.

    Checked before the corpus is read, so a bad number fails at once.
    """
    if args.vocab_size is not None:
        check_target(vocab_size=args.vocab_size, vocab_name="--vocab-size")
        return None, args.vocab_size
    merges = DEFAULT_MERGES if args.merges is None else args.merges
    check_target(merges=merges, merges_name="--merges")
    return merges, None


def read_corpus(name: str) -> str:
    """A training file's text ('-' is stdin); unreadable, binary or non-UTF-8 input is a BPEError."""
    if name == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = stream.read() if stream is not None else sys.stdin.read().encode("utf-8")
        return check_text(data, name="stdin")
    path = Path(name)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise BPEError(f"{name} does not exist") from None
    except IsADirectoryError:
        raise BPEError(f"{name} is a directory, not a text file") from None
    except OSError as exc:
        raise BPEError(f"cannot read {name}: {exc.strerror or exc}") from None
    return check_text(data, name=name)


def _report_training(tok: Tokenizer, seconds: float, output: str) -> None:
    result = tok.training
    assert result is not None  # train() always records its result
    learned = len(result.trace)
    words = "word" if result.word_count == 1 else "words"
    unk = f" + {tok.unk_token}" if tok.unk_token else ""
    print(
        f"trained {learned} merges in {seconds:.2f} s on {result.word_count:,} {words} "
        f"({result.distinct_words:,} distinct); vocabulary {tok.vocab_size - bool(tok.unk_token):,} "
        f"tokens{unk} -> {output}",
        file=sys.stderr,
    )
    if learned < result.requested_merges:
        why = f"stopped after {learned} of {result.requested_merges} merges: {result.stop_reason}"
        print(why, file=sys.stderr)


# ---- trace, encode, decode, export ----------------------------------------------------------


def _load(name: str, args: argparse.Namespace) -> Tokenizer | PartsTokenizer | cli_families.FamilyModel:
    return load_model(name, merges=args.merges_file, pattern=getattr(args, "pattern", None))


def run_trace(args: argparse.Namespace) -> int:
    tok = _load(args.model, args)
    if isinstance(tok, PartsTokenizer):
        _print_lines(_merge_rows(tok))
        return 0
    if not isinstance(tok, Tokenizer):
        _print_lines(cli_families.trace_rows(tok))
        return 0
    rows: list[tuple[int, str, str, str, int | None]]
    if tok.trace:
        rows = [(m.rank, m.left, m.right, m.token, m.count) for m in tok.trace]
    else:
        rows = [(rank, a, b, a + b, None) for rank, (a, b) in enumerate(tok.merges)]
    _print_lines(dict(zip(("rank", "left", "right", "token", "count"), row)) for row in rows)
    return 0


def _merge_rows(tok: PartsTokenizer) -> Iterable[dict[str, Any]]:
    """A file's merge list as trace rows (a model read from a file keeps no counts)."""
    merges = getattr(tok.model, "merges", None)
    if merges is None:
        raise BPEError(f"{tok.name or 'this tokenizer'} has a {tok.model.kind} model: it has no merges or trace")
    for rank, (left, right) in enumerate(merges):
        yield {"rank": rank, "left": left, "right": right, "token": None, "count": None}


def run_encode(args: argparse.Namespace) -> int:
    tok = _load(args.tokenizer, args)
    for number, text in enumerate(args.texts, start=1):
        _check_encodable(text, number)
    _print_lines(_encoded(tok, text, offsets=args.offsets) for text in args.texts)
    return 0


def _encoded(tok: Tokenizer | PartsTokenizer | cli_families.FamilyModel, text: str, *, offsets: bool) -> dict[str, Any]:
    encoding = tok.encode(text)
    if not isinstance(encoding, Encoding):  # a family model of ours gives its tokens
        row = cli_families.encoded(tok, text)  # type: ignore[arg-type]
        if offsets:
            row["offsets"] = [[s, e] for _, s, e in tok.encode_with_spans(text)]  # type: ignore[union-attr]
        return row
    row = {"text": text, "tokens": encoding.tokens, "ids": encoding.ids}
    if offsets:
        row["offsets"] = [list(span) for span in encoding.spans]
    return row


def _check_encodable(text: str, number: int) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BPEError(f"TEXT {number} is not valid UTF-8") from None


def run_decode(args: argparse.Namespace) -> int:
    tok = _load(args.tokenizer, args)
    text = tok.decode(args.ids)
    sys.stdout.write(text + "\n")
    return 0


def run_export(args: argparse.Namespace) -> int:
    tok = _load(args.model, args)
    if isinstance(tok, PartsTokenizer):
        if args.format != "hf":
            raise BPEError(f"{tok.name or args.model} is a tokenizer of parts; it exports with --format hf only")
        write_text(args.output, dump_json(tok.to_hf_dict()) + "\n")
        written = [args.output]
        for caveat in tok.hf_caveats:
            print(f"note: {caveat}", file=sys.stderr)
    elif not isinstance(tok, Tokenizer):
        cli_families.export(tok, args.format, args.output)
        written = [args.output]
    elif args.format == "hf":
        save_hf(tok, args.output)
        written = [args.output]
    else:
        written = [str(p) for p in save_gpt2(tok, args.output)]
    print(f"wrote {' and '.join(written)}", file=sys.stderr)
    return 0


# ---- stats, overlap -------------------------------------------------------------------------


def run_stats(args: argparse.Namespace) -> int:
    tok = _load(args.tokenizer, args)
    # Every file is read and checked first, so a bad one fails before any counting.
    texts = [(name, read_corpus(name)) for name in args.files]
    _print_lines(_stats_row(tok, name, text) for name, text in texts)
    return 0


def _stats_row(tok: Tokenizer | PartsTokenizer | cli_families.FamilyModel, name: str, text: str) -> dict[str, Any]:
    # text_stats needs only `encode_ids`, which every family's model has too.
    stats = text_stats(tok, text)  # type: ignore[arg-type]
    return {
        "file": name,
        "bytes": stats.bytes,
        "characters": stats.characters,
        "words": stats.words,
        "tokens": stats.tokens,
        "tokens_per_byte": stats.tokens_per_byte,
        "tokens_per_character": stats.tokens_per_character,
    }


def run_overlap(args: argparse.Namespace) -> int:
    overlap = vocabulary_overlap(_bpe(args.a), _bpe(args.b))
    if args.list is not None:
        keys = {"shared": overlap.shared, "only-a": overlap.only_a, "only-b": overlap.only_b}[args.list]
        spelling = overlap.spelling_b if args.list == "only-b" else overlap.spelling_a
        write = sys.stdout.write
        for key in keys:
            write(json.dumps(spelling[key], ensure_ascii=False) + "\n")
        return 0
    summary = {
        "a": args.a,
        "b": args.b,
        "sizes": {"a": overlap.size_a, "b": overlap.size_b},
        "shared": len(overlap.shared),
        "only_a": len(overlap.only_a),
        "only_b": len(overlap.only_b),
        "jaccard": overlap.jaccard,
        "by_length": [
            {"bytes": row.length, "shared": row.shared, "only_a": row.only_a, "only_b": row.only_b}
            for row in overlap.by_length
        ],
    }
    _print_lines([summary])
    return 0


def _bpe(name: str) -> Tokenizer:
    """A BPE tokenizer to compare (SuperBPE's merges count as one); another family is refused."""
    tok = load_model(name)
    if isinstance(tok, PartsTokenizer):
        raise BPEError(f"{name}: overlap compares merge-list tokenizers; this file is read as a tokenizer of parts")
    return tok if isinstance(tok, Tokenizer) else cli_families.bpe_view(tok, "overlap")


def run_builtins(args: argparse.Namespace) -> int:
    _print_lines(
        {"name": info.name, "title": info.title, "package": info.package, "terms": info.terms}
        for info in map(builtin_info, builtin_names(parts=True))
    )
    return 0


def run_stability(args: argparse.Namespace) -> int:
    merges, vocab_size = _target(args)
    if args.min_frequency < 1:
        raise BPEError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    settings = _settings(args)
    found = stability([read_corpus(name) for name in args.files], settings, merges=merges, vocab_size=vocab_size)
    _print_lines({
        "fraction": one.fraction,
        "characters": one.characters,
        "merges": len(one.merges),
        "vocabulary_share": one.vocabulary_share,
        "first_merges": {str(n): share for n, share in one.first_shares},
        "agreement": {str(k): agree for k, agree in one.agreement},
        "divergence": None if one.divergence is None else {
            "step": one.divergence.step, "merge": one.divergence.merge, "full_merge": one.divergence.full_merge},
    } for one in found.fractions)
    return 0


def _print_lines(rows: Iterable[dict[str, Any]]) -> None:
    """One compact JSON object a line on stdout."""
    write: Callable[[str], Any] = sys.stdout.write
    for row in rows:
        write(json.dumps(row, ensure_ascii=False) + "\n")
