"""The command line: train, trace, encode, decode, export and compare tokenizers (`python -m bpe_core`).

This module parses the arguments and runs a command; what each command does is in
`cli_commands.py`. stdout carries only results (JSON lines, decoded text); progress, summaries
and errors go to stderr. Any bad input exits with status 2 and one `error: ...` line.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO, Any, NoReturn

from . import cli_commands, cli_count, cli_families
from .families.registry import families
from .settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS, BPEError
from .trainer import DEFAULT_MERGES, MAX_TOKEN_LENGTH


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors, like every other error here (still exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its subcommands."""
    prog = "python -m bpe_core" if Path(sys.argv[0]).name == "__main__.py" else None
    trained = ", ".join(one.title for one in families(trainable=True))
    parser = _Parser(prog=prog, description=f"Train, inspect, use and convert tokenizers: {trained}, and the "
                     "tokenizer files people ship.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_train(commands)
    _add_count(commands)

    trace = commands.add_parser("trace", help="print the training trace, one JSON object a line")
    trace.description = "Print the training trace of a model, one JSON object a line. " + "; ".join(
        f"{one.title}: {one.trace_help}" for one in families() if one.trace_help
    ) + "."
    trace.add_argument("model", metavar="MODEL.json", help="a model file (any format `encode` reads)")
    _add_merges_file(trace)
    trace.set_defaults(run=cli_commands.run_trace)

    encode = commands.add_parser("encode", help="encode texts, one JSON object a line")
    encode.description = (
        'Print {"text", "tokens", "ids"} for each TEXT (with --offsets also "offsets": each token\'s '
        "[start, end] in the text's characters)."
    )
    encode.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    encode.add_argument("texts", metavar="TEXT", nargs="+", help="text to encode ('-': read standard input as "
                        "one text, as `stats` does)")
    encode.add_argument("--offsets", action="store_true", help="also print each token's character span")
    _add_merges_file(encode)
    encode.set_defaults(run=cli_commands.run_encode)

    parts = commands.add_parser("parts", help="show a tokenizer's parts, and what each makes of a text")
    parts.description = (
        'Print {"stage", "part"} for each part of the tokenizer, in the order text meets them (normalizer, '
        'pre-tokenizer, model, decoder, post-processor). With TEXTs, print for each one {"text", "normalized", '
        '"pieces", "tokens", "ids", "offsets"}: the stretches the normalizer gave, the pieces the pre-tokenizer '
        'cut, each {"text", "span"} with its [start, end] in the text ("added": true for an added token cut out '
        "whole), then the model's tokens. A tokenizer trained here shows the parts its settings make."
    )
    parts.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    parts.add_argument("texts", metavar="TEXT", nargs="*", help="text to follow through the parts")
    _add_merges_file(parts)
    parts.set_defaults(run=cli_commands.run_parts)

    decode = commands.add_parser("decode", help="decode token ids to text")
    decode.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    decode.description = (
        "Print the text of the IDs. '-' reads ids from standard input instead: numbers separated by spaces or "
        'commas, a JSON list, or the JSON lines `encode` prints (each line\'s "ids" decoded to a line of its own).'
    )
    decode.add_argument("ids", metavar="ID", nargs="+", help="a token id, or '-' for standard input")
    _add_merges_file(decode)
    decode.set_defaults(run=cli_commands.run_decode)

    export = commands.add_parser("export", help="write a tokenizer as Hugging Face or GPT-2 files")
    export.description = (
        "--format hf writes one tokenizer.json to PATH. --format gpt2 treats PATH as a directory "
        "(created if missing) and writes vocab.json and merges.txt into it; only bytes-mode "
        "tokenizers with the gpt2 pre-tokenizer and no normalization fit that format. " + _who_exports()
    )
    export.add_argument("model", metavar="MODEL.json", help="a model file (any format `encode` reads)")
    formats = dict.fromkeys(fmt for one in families() for fmt in one.export_formats)
    export.add_argument("--format", required=True, choices=tuple(formats), help="the file format to write")
    export.add_argument(
        "-o", "--output", required=True, metavar="PATH", help="tokenizer.json file (hf) or directory (gpt2)"
    )
    _add_merges_file(export)
    export.set_defaults(run=cli_commands.run_export)
    _add_reports(commands)
    return parser


def _who_exports() -> str:
    """Which families write which formats, from the registry: "Every model exports with --format
    hf; with --format gpt2 only a BPE one." """
    extra = dict.fromkeys(fmt for one in families() for fmt in one.exports)
    only = [f"with --format {fmt} only a {' or '.join(o.title for o in families() if fmt in o.exports)} one"
            for fmt in extra]
    return "; ".join(["Every model exports with --format hf", *only]) + "."


_TOKENIZER_HELP = (
    "our model JSON (of any family), a Hugging Face tokenizer.json (whatever its model), "
    "a GPT-2 vocabulary (vocab.json or encoder.json, its merges file beside it or given with "
    "--merges-file), a .tiktoken file, a SentencePiece .model, a Tekken JSON, or a directory "
    "holding tokenizer.json, vocab.json or encoder.json; the format is detected from the content; "
    "or a built-in tokenizer's name (see `python -m bpe_core builtins`)"
)


def _add_merges_file(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--merges-file",
        metavar="PATH",
        help="a GPT-2 vocabulary's merges file, when it is not beside it as merges.txt or vocab.bpe "
        "(NAME-vocab.json also finds NAME-merges.txt, encoder.json finds vocab.bpe)",
    )
    command.add_argument(
        "--pattern",
        metavar="REGEX",
        help="the split pattern for a .tiktoken file, which holds none (default: GPT-4's cl100k pattern)",
    )


def _add_train(commands: Any) -> None:
    train_cmd = commands.add_parser("train", help="train a tokenizer on text files or on word counts")
    trainable = families(trainable=True)
    train_cmd.description = (
        f"Train a tokenizer of the family --model names ({', '.join(one.title for one in trainable)}; default: "
        f"{trainable[0].name}) on the SOURCEs (or on word counts made by `count`, with --counts) and save our "
        "model JSON. Each file is one text ('-' reads stdin); JSON lines and Parquet records are texts of "
        "their own. The settings' defaults reproduce the lessons: word mode, a separate </w> marker, ties "
        f"broken by count then pair; without --merges or --vocab-size, {DEFAULT_MERGES} merges are learned. "
        + cli_count.WHERE
    )
    train_cmd.add_argument("sources", metavar="SOURCE", nargs="*", help=cli_count.SOURCE + "; '-' for stdin")
    train_cmd.add_argument(
        "--counts",
        metavar="COUNTS.tsv",
        help="train on word counts written by `count` (its settings come from the file's header)",
    )
    _add_settings(train_cmd)
    option = train_cmd.add_argument
    cli_families.add_family_options(train_cmd)
    option(
        "--max-token-length",
        type=int,
        metavar="N",
        help=f"never make a token longer than N characters (default: {MAX_TOKEN_LENGTH}; 0: no limit)",
    )
    option("-o", "--output", required=True, metavar="MODEL.json", help="where to save the model")
    cli_count.add_counting_options(train_cmd)
    train_cmd.set_defaults(run=cli_commands.run_train)


def _add_count(commands: Any) -> None:
    count = commands.add_parser("count", help="count the words of text files into counts.tsv")
    count.description = (
        "Count the words (pre-tokens) of the SOURCEs and write word<TAB>count lines, in order of first "
        "appearance, under a header naming the settings; `train --counts` trains on them. "
        + cli_count.WHERE
    )
    count.add_argument("sources", metavar="SOURCE", nargs="+", help=cli_count.SOURCE)
    count.add_argument("-o", "--output", required=True, metavar="COUNTS.tsv", help="where to write ('-': stdout)")
    _add_counting_settings(count)
    cli_count.add_counting_options(count)
    count.set_defaults(run=cli_count.run_count)


def _add_settings(command: argparse.ArgumentParser) -> None:
    """The training settings and target options `train` and `stability` share."""
    _add_counting_settings(command)
    option = command.add_argument
    target = command.add_mutually_exclusive_group()
    target.add_argument("--merges", type=int, metavar="N", help=f"learn N merges (default: {DEFAULT_MERGES})")
    target.add_argument("--vocab-size", type=int, metavar="N", help="learn merges until there are N tokens")
    # Defaults None, filled in by `main` (LATE_DEFAULTS), so `train --model` sees what was given.
    option("--tie-break", choices=TIE_BREAKS, help="ties (default: count-pair)")
    option("--eow", choices=EOW_STYLES, help="the </w> marker (default: separate)")
    option("--min-frequency", type=int, metavar="N", help="stop below N occurrences (default: 1)")


def _add_counting_settings(command: argparse.ArgumentParser) -> None:
    """The settings that decide the words; their defaults are None so `train --counts` sees what was given."""
    option = command.add_argument
    option("--mode", choices=MODES, help="what BPE starts from (default: word)")
    option(
        "--pretokenizer",
        choices=PRETOKENIZERS,
        help="how text is split before merging (default: whitespace for word, none for text, gpt2 for bytes)",
    )
    option("--lowercase", action="store_true", help="lowercase the text first")
    option("--normalization", choices=NORMALIZATIONS, help="Unicode form (default: none)")


def _add_reports(commands: Any) -> None:
    stats = commands.add_parser("stats", help="count a text's bytes, characters, words and tokens")
    stats.description = (
        'Print {"file", "bytes", "characters", "words", "tokens", "tokens_per_byte", '
        '"tokens_per_character"} for each FILE (UTF-8 text; \'-\' reads stdin). Bytes are UTF-8 '
        "bytes, characters are code points, words are separated by whitespace."
    )
    stats.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    stats.add_argument("files", metavar="FILE", nargs="+", help="a UTF-8 text file, or '-' for stdin")
    cli_count.add_max_bytes(stats, cli_count.DEFAULT_TEXT_BYTES, "a FILE")
    _add_merges_file(stats)
    stats.set_defaults(run=cli_commands.run_stats)

    overlap = commands.add_parser("overlap", help="compare two vocabularies token by token")
    overlap.description = (
        'Print {"a", "b", "sizes", "shared", "only_a", "only_b", "jaccard", "by_length"}. Tokens '
        "are compared by the bytes they stand for, so GPT-2's \"Ġthe\" equals a text-mode \" the\"; "
        "a token ending in </w> equals only another such token, and <unk> only <unk>. by_length "
        "counts tokens by their length in bytes (</w> not counted; <unk> and special tokens: 0)."
    )
    overlap.add_argument("a", metavar="A", help="the first tokenizer (as TOKENIZER for encode)")
    overlap.add_argument("b", metavar="B", help="the second tokenizer")
    overlap.add_argument(
        "--list",
        choices=("shared", "only-a", "only-b"),
        help="print those tokens instead, one JSON string a line, as their tokenizer writes them "
        "(A's spelling for shared and only-a, B's for only-b), in that tokenizer's id order",
    )
    overlap.set_defaults(run=cli_commands.run_overlap)

    builtins = commands.add_parser("builtins", help="list the built-in tokenizers, one JSON object a line")
    builtins.description = (
        'Print {"name", "title", "package", "terms"} for each built-in tokenizer: the name any command '
        "takes as TOKENIZER, the pip package that ships its files, and the terms of its vocabulary."
    )
    builtins.set_defaults(run=cli_commands.run_builtins)

    stability = commands.add_parser("stability", help="train on 1%%, 10%%, 50%% of a corpus and compare with 100%%")
    stability.description = (
        'Print {"fraction", "characters", "merges", "vocabulary_share", "first_merges", "agreement", '
        '"divergence"} for each fraction: the share of the full run\'s merged tokens it has, the share of '
        "its first N merges, how many of the first k merges agree as sets, and the first step (from 1) "
        "where the merge lists differ, with both merges. Prefixes are cut at a word boundary."
    )
    stability.add_argument("files", metavar="FILE", nargs="+", help="a UTF-8 text file, or '-' for stdin")
    cli_count.add_max_bytes(stability, cli_count.DEFAULT_TEXT_BYTES, "a FILE")
    _add_settings(stability)
    stability.set_defaults(run=cli_commands.run_stability)
    _add_report(commands)


def _add_report(commands: Any) -> None:
    report = commands.add_parser("report", help="the report card of tokenizers: compression, efficiency, "
                                 "fairness, residue, checks")
    report.description = _REPORT_DESCRIPTION
    report.add_argument("tokenizers", metavar="TOKENIZER", nargs="+", help=_TOKENIZER_HELP)
    report.add_argument("--corpus", metavar="FILE", nargs="+", help="reference texts (UTF-8; '-' reads stdin)")
    report.add_argument("--parallel", metavar="DIR",
                        help="a parallel set: a directory of <language>.txt files holding the same content, en.txt "
                        "among them (`python -m sample_corpora parallel DIR` writes fifteen languages); gives each "
                        "language's premium over English and their Gini coefficient")
    report.add_argument("--alpha", type=float, default=2.5, metavar="A",
                        help="the order of the Rényi efficiency (default: 2.5)")
    report.add_argument("--min-made", type=int, default=10, metavar="N",
                        help="judge a merged token for residue once it is made N times on the text (default: 10)")
    report.add_argument("--residue-share", type=float, default=0.9, metavar="S",
                        help="residue: consumed by a later merge at least this share of the times it is made "
                        "(default: 0.9)")
    report.add_argument("--max-bytes", type=int, default=100_000_000, metavar="N",
                        help="refuse a reference text over N bytes (default: 100,000,000)")
    _add_merges_file(report)
    report.set_defaults(run=_run_report)


def _run_report(args: argparse.Namespace) -> int:
    from .cli_report import run_report

    return run_report(args)


_REPORT_DESCRIPTION = (
    'Print, for each TOKENIZER and each --corpus FILE, one line {"tokenizer", "corpus", "vocabulary_size", '
    '"bytes", "tokens", "alpha", "measures", "checks", "digits", "residue", "languages"}: compression (bytes, '
    "characters per token, tokens per word and per character, continued and single-token words), Rényi and "
    "Shannon efficiency, vocabulary use, residue (merged tokens a later merge nearly always consumes), digit "
    "grouping, partial characters, the round trip, unknown tokens, and with --parallel each language's premium "
    'over English and their Gini coefficient; "checks" are sanity checks, each pass, warn, fail or "not '
    'checked" with its reason. Without --corpus the reference text is the parallel set\'s languages one after '
    "another."
)


# Options parsed with the default None and given these values after parsing; `args.given` keeps
# which options were on the command line (these too), so one a model family does not take can be refused.
LATE_DEFAULTS = {"tie_break": "count-pair", "eow": "separate", "min_frequency": 1, "max_token_length": MAX_TOKEN_LENGTH}


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 2 for any bad input)."""
    _use_utf8(sys.stdout)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed
        return exc.code if isinstance(exc.code, int) else 2
    args.given = {name for name, value in vars(args).items() if value is not None and value is not False}
    for name, value in LATE_DEFAULTS.items():
        if hasattr(args, name) and getattr(args, name) is None:
            setattr(args, name, value)
    try:
        return args.run(args)
    except BPEError as exc:
        return _error(str(exc))
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):
            return _reader_gone()
        return _error(f"{exc.filename or 'I/O'}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        print("\nerror: interrupted", file=sys.stderr)
        return 130


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _reader_gone() -> int:
    """stdout's reader left (`| head`): stop quietly, without a second error at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 0


def _use_utf8(stream: IO[str]) -> None:
    """Write UTF-8 whatever the locale says, so tokens in any script can be printed."""
    encoding = (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "")
    if encoding != "utf8" and hasattr(stream, "reconfigure"):
        stream.reconfigure(encoding="utf-8")
