"""What each `python -m bpe_core` command does, once `cli.py` has parsed its arguments.

Each `run_*` takes the parsed arguments and returns the exit status; results go to stdout (JSON
lines, decoded text), everything else to stderr. Bad input raises BPEError, which `cli.main`
turns into one `error: ...` line and exit status 2.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cli_count import DEFAULT_TEXT_BYTES, max_bytes
from .json_limits import load_json
from .pretokenize import check_text
from .readers import read_limited, refuse_special
from .settings import BPEError

if TYPE_CHECKING:
    from .tokenizer_model import TokenizerModel

# Each command imports the modules only it uses when it runs: `train` waits for none of the
# readers, analyses and pipelines the other commands need (a tenth of a second or more).

# ---- train ----------------------------------------------------------------------------------


def run_train(args: argparse.Namespace) -> int:
    """Train the family `--model` names by its own hook, save our JSON, then print its summary."""
    from . import cli_families
    from .families.registry import family
    from .formats.ours import save_model

    chosen = family(args.model)
    cli_families.check_model_options(args, chosen)
    assert chosen.train_cli is not None  # --model offers only the families that train
    trained = chosen.train_cli(args)
    save_model(trained.model, args.output)
    for line in trained.report:
        print(line, file=sys.stderr)
    return 0


def read_corpus(name: str, *, max_bytes: int = DEFAULT_TEXT_BYTES) -> str:
    """A text file's text ('-' is stdin); unreadable, binary or non-UTF-8 input is a BPEError, and
    so is a FIFO or device (refused unopened) or a text over `max_bytes` bytes."""
    if name == "-":
        stream = getattr(sys.stdin, "buffer", None)
        data = read_limited(stream, "stdin", max_bytes) if stream is not None else sys.stdin.read().encode("utf-8")
        return check_text(data, name="stdin")
    path = Path(name)
    refuse_special(name, hint="; to read a pipe, give '-' and pipe it to stdin")
    try:
        with path.open("rb") as stream:
            data = read_limited(stream, name, max_bytes)
    except FileNotFoundError:
        raise BPEError(f"{name} does not exist") from None
    except IsADirectoryError:
        raise BPEError(f"{name} is a directory, not a text file") from None
    except OSError as exc:
        raise BPEError(f"cannot read {name}: {exc.strerror or exc}") from None
    return check_text(data, name=name)


# ---- trace, encode, decode, export ----------------------------------------------------------


def _load(name: str, args: argparse.Namespace) -> TokenizerModel:
    from .collector import collector_paused
    from .formats.detect import load_model

    with collector_paused():  # a model file's rows and lists, none of them garbage: half the time
        return load_model(name, merges=args.merges_file, pattern=getattr(args, "pattern", None))


def run_trace(args: argparse.Namespace) -> int:
    from .families.registry import family_of

    tok = _load(args.model, args)
    _print_lines(family_of(tok).trace_rows(tok))
    return 0


def run_encode(args: argparse.Namespace) -> int:
    """Each TEXT's tokens; with --file each TEXT names a file, read as `stats` reads its FILEs."""
    tok = _load(args.tokenizer, args)
    texts = _read_inputs(args.texts, args)
    for number, text in enumerate(texts, start=1):
        _check_encodable(text, number)
    rows = (_encoded(tok, text, offsets=args.offsets) for text in texts)
    _print_lines(({"file": name, **row} for name, row in zip(args.texts, rows)) if args.file else rows)
    return 0


def _read_inputs(values: list[str], args: argparse.Namespace) -> list[str]:
    """The texts `values` stand for: with --file each is a file read by `read_corpus`, else only '-'
    (standard input) is read; every one is read and checked first, so a bad one fails before any output."""
    if values.count("-") > 1:
        raise BPEError("'-' (standard input) can be given once")
    limit = max_bytes(args, DEFAULT_TEXT_BYTES)
    return [read_corpus(value, max_bytes=limit) if args.file or value == "-" else value for value in values]


def run_parts(args: argparse.Namespace) -> int:
    """The tokenizer's parts, a line each; with TEXTs, what each part made of each text."""
    from .families.registry import family_of
    from .presets import describe

    tok = _load(args.tokenizer, args)
    parts = family_of(tok).as_parts(tok)
    for number, text in enumerate(args.texts, start=1):
        _check_encodable(text, number)
    if not args.texts:
        _print_lines({"stage": stage, "part": name} for stage, name in describe(parts))
        return 0
    _print_lines(_stage_row(parts, text) for text in args.texts)
    return 0


def _stage_row(parts: Any, text: str) -> dict[str, Any]:
    from .parts.stages import stages

    seen = stages(parts, text)

    def stretches(found: Iterable[Any]) -> list[dict[str, Any]]:
        return [{"text": s.text, "span": [s.start, s.end], **({"added": True} if s.added else {})} for s in found]

    return {"text": text, "normalized": stretches(seen.normalized), "pieces": stretches(seen.pieces),
            "tokens": seen.encoding.tokens, "ids": seen.encoding.ids,
            "offsets": [list(span) for span in seen.encoding.spans]}


def _encoded(tok: TokenizerModel, text: str, *, offsets: bool) -> dict[str, Any]:
    encoding = tok.encode(text)
    row: dict[str, Any] = {"text": text, "tokens": encoding.tokens, "ids": encoding.ids}
    if offsets:
        row["offsets"] = [list(span) for span in encoding.spans]
    return row


def _check_encodable(text: str, number: int) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BPEError(f"TEXT {number} is not valid UTF-8") from None


def run_decode(args: argparse.Namespace) -> int:
    """The text of the ids; with '-' (or --file), of each list of ids read from standard input (or
    the files the IDs name), a line each."""
    if args.file or args.ids == ["-"]:
        texts = _read_inputs(args.ids, args)
        names = ["stdin" if name == "-" else name for name in args.ids]
        lists = [ids for name, text in zip(names, texts) for ids in ids_from_stdin(text, name=name)]
    elif "-" in args.ids:
        raise BPEError("'-' reads every id from standard input: give it alone")
    else:
        lists = [[_whole_number(value, f"ID {number}") for number, value in enumerate(args.ids, start=1)]]
    tok = _load(args.tokenizer, args)
    for ids in lists:
        sys.stdout.write(tok.decode(ids) + "\n")
    return 0


def ids_from_stdin(text: str, *, name: str = "stdin") -> list[list[int]]:
    """Lists of token ids: `encode`'s JSON lines (each line's "ids"), one JSON list, or numbers
    separated by spaces or commas (one list); errors name the input `name`.

    >>> ids_from_stdin("1, 2 3"), ids_from_stdin("[4, 5]"), ids_from_stdin('{"ids": [6]}\\n{"ids": []}\\n')
    ([[1, 2, 3]], [[4, 5]], [[6], []])
    """
    body = text.strip()
    if body.startswith(("{", "[")):
        lines = body.splitlines() if body.startswith("{") else [body]
        out = []
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{name}: line {number}"
            try:
                value = load_json(line, where=where)
            except ValueError:
                raise BPEError(f"{where} is not JSON") from None
            ids = value.get("ids") if isinstance(value, dict) else value
            if not isinstance(ids, list):
                raise BPEError(f'{where}: expected a list of ids or an object with "ids", not {type(value).__name__}')
            out.append([_whole_number(v, where) for v in ids])
        return out
    return [[_whole_number(v, name) for v in body.replace(",", " ").split()]]


def _whole_number(value: object, where: str) -> int:
    """A token id: a whole number (an int, or the text of one, of at most 20 digits)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value.strip().lstrip("+-")) <= 20 and value.strip().lstrip("+-").isdigit():
        return int(value)
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:40] + "…"
    raise BPEError(f"{where}: a token id is a whole number, not {shown}")


def run_export(args: argparse.Namespace) -> int:
    """Every family writes a model's `tokenizer.json` (`to_hf_dict`), and its own formats beside it."""
    from .families.registry import family_of
    from .formats._common import dump_json, write_text

    tok = _load(args.model, args)
    chosen = family_of(tok)
    if args.format not in chosen.export_formats:
        formats = " or ".join(f"--format {fmt}" for fmt in chosen.export_formats)
        raise BPEError(f"--format {args.format} does not hold {args.model} ({chosen.title}); it exports with {formats}")
    if args.format in chosen.exports:
        written = chosen.exports[args.format](tok, args.output)
    else:
        write_text(args.output, dump_json(chosen.to_hf_dict(tok)) + "\n")
        written = [args.output]
        for note in chosen.hf_notes(tok):
            print(f"note: {note}", file=sys.stderr)
    print(f"wrote {' and '.join(written)}", file=sys.stderr)
    return 0


# ---- stats, overlap -------------------------------------------------------------------------


def run_stats(args: argparse.Namespace) -> int:
    tok = _load(args.tokenizer, args)
    # Every file is read and checked first, so a bad one fails before any counting.
    limit = max_bytes(args, DEFAULT_TEXT_BYTES)
    texts = [(name, read_corpus(name, max_bytes=limit)) for name in args.files]
    _print_lines(_stats_row(tok, name, text) for name, text in texts)
    return 0


def _stats_row(tok: TokenizerModel, name: str, text: str) -> dict[str, Any]:
    from .analysis.stats import text_stats

    stats = text_stats(tok, text)
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
    from .analysis.overlap import vocabulary_overlap
    from .formats.detect import load_model

    overlap = vocabulary_overlap(load_model(args.a), load_model(args.b))
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


def run_builtins(args: argparse.Namespace) -> int:
    from .formats.builtin import builtin_info, builtin_names

    _print_lines(
        {"name": info.name, "title": info.title, "package": info.package, "terms": info.terms}
        for info in map(builtin_info, builtin_names(parts=True))
    )
    return 0


def run_stability(args: argparse.Namespace) -> int:
    from .analysis.stability import stability
    from .cli_count import merge_target, settings_from_args

    merges, vocab_size = merge_target(args)
    if args.min_frequency < 1:
        raise BPEError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    settings = settings_from_args(args)
    limit = max_bytes(args, DEFAULT_TEXT_BYTES)
    texts = [read_corpus(name, max_bytes=limit) for name in args.files]
    found = stability(texts, settings, merges=merges, vocab_size=vocab_size)
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


def _print_lines(rows: Iterable[Mapping[str, Any]]) -> None:
    """One compact JSON object a line on stdout."""
    write: Callable[[str], Any] = sys.stdout.write
    for row in rows:
        write(json.dumps(row, ensure_ascii=False) + "\n")
