"""Each `python -m bpe_core` command's arguments and help, added only once the command is chosen
(`cli.build_parser`), so each one imports just what its help needs: the registry, the settings, the
counting options. Its handler is named, not imported: `handler` loads it when the command runs.
"""
from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


def handler(module: str, name: str) -> Handler:
    """The function `name` of `bpe_core.<module>`, imported when the command runs."""

    def run(args: argparse.Namespace) -> int:
        found: Handler = getattr(importlib.import_module(f"{__package__}.{module}"), name)
        return found(args)

    return run


def add_trace(trace: argparse.ArgumentParser) -> None:
    from .families.registry import families

    trace.description = "Print the training trace of a model, one JSON object a line. " + "; ".join(
        f"{one.title}: {one.trace_help}" for one in families() if one.trace_help
    ) + "."
    trace.add_argument("model", metavar="MODEL.json", help="a model file (any format `encode` reads)")
    _add_merges_file(trace)
    trace.set_defaults(run=handler("cli_commands", "run_trace"))


def add_encode(encode: argparse.ArgumentParser) -> None:
    encode.description = (
        'Print {"text", "tokens", "ids"} for each TEXT (with --offsets also "offsets": each token\'s '
        "[start, end] in the text's characters). With --file each TEXT is a file whose UTF-8 text is encoded "
        'whole, as `stats` reads its FILEs, and its line starts with "file": the name given.'
    )
    encode.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    encode.add_argument("texts", metavar="TEXT", nargs="+", help="text to encode ('-': read standard input as "
                        "one text, as `stats` does); with --file, a UTF-8 text file")
    encode.add_argument("--file", action="store_true", help="read each TEXT as a file name ('-': standard input)")
    encode.add_argument("--offsets", action="store_true", help="also print each token's character span")
    _add_max_bytes(encode, "a file or standard input")
    _add_merges_file(encode)
    encode.set_defaults(run=handler("cli_commands", "run_encode"))


def add_parts(parts: argparse.ArgumentParser) -> None:
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
    parts.set_defaults(run=handler("cli_commands", "run_parts"))


def add_decode(decode: argparse.ArgumentParser) -> None:
    decode.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    decode.description = (
        "Print the text of the IDs. '-' reads ids from standard input instead, and --file from the files the "
        "IDs name: numbers separated by spaces or commas, a JSON list, or the JSON lines `encode` prints (each "
        'line\'s "ids" decoded to a line of its own).'
    )
    decode.add_argument("ids", metavar="ID", nargs="+", help="a token id, or '-' for standard input; with --file, "
                        "a file of ids")
    decode.add_argument("--file", action="store_true", help="read ids from each ID as a file name ('-': standard "
                        "input)")
    _add_max_bytes(decode, "a file or standard input")
    _add_merges_file(decode)
    decode.set_defaults(run=handler("cli_commands", "run_decode"))


def add_export(export: argparse.ArgumentParser) -> None:
    from .families.registry import families

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
    export.set_defaults(run=handler("cli_commands", "run_export"))


def _who_exports() -> str:
    """Which families write which formats, from the registry: "Every model exports with --format
    hf; with --format gpt2 only a BPE one." """
    from .families.registry import families

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


def _add_max_bytes(command: argparse.ArgumentParser, what: str) -> None:
    from . import cli_count

    cli_count.add_max_bytes(command, cli_count.DEFAULT_TEXT_BYTES, what)


def add_train(train_cmd: argparse.ArgumentParser) -> None:
    from . import cli_count, cli_families
    from .families.registry import families
    from .trainer import DEFAULT_MERGES, MAX_TOKEN_LENGTH

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
    train_cmd.set_defaults(run=handler("cli_commands", "run_train"))


def add_count(count: argparse.ArgumentParser) -> None:
    from . import cli_count

    count.description = (
        "Count the words (pre-tokens) of the SOURCEs and write word<TAB>count lines, in order of first "
        "appearance, under a header naming the settings; `train --counts` trains on them. "
        + cli_count.WHERE
    )
    count.add_argument("sources", metavar="SOURCE", nargs="+", help=cli_count.SOURCE)
    count.add_argument("-o", "--output", required=True, metavar="COUNTS.tsv", help="where to write ('-': stdout)")
    _add_counting_settings(count)
    cli_count.add_counting_options(count)
    count.set_defaults(run=handler("cli_count", "run_count"))


def _add_settings(command: argparse.ArgumentParser) -> None:
    """The training settings and target options `train` and `stability` share."""
    from .settings import EOW_STYLES, TIE_BREAKS
    from .trainer import DEFAULT_MERGES

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
    from .settings import MODES, NORMALIZATIONS, PRETOKENIZERS

    option = command.add_argument
    option("--mode", choices=MODES, help="what BPE starts from (default: word)")
    option(
        "--pretokenizer",
        choices=PRETOKENIZERS,
        help="how text is split before merging (default: whitespace for word, none for text, gpt2 for bytes)",
    )
    option("--lowercase", action="store_true", help="lowercase the text first")
    option("--normalization", choices=NORMALIZATIONS, help="Unicode form (default: none)")


def add_stats(stats: argparse.ArgumentParser) -> None:
    stats.description = (
        'Print {"file", "bytes", "characters", "words", "tokens", "tokens_per_byte", '
        '"tokens_per_character"} for each FILE (UTF-8 text; \'-\' reads stdin). Bytes are UTF-8 '
        "bytes, characters are code points, words are separated by whitespace."
    )
    stats.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    stats.add_argument("files", metavar="FILE", nargs="+", help="a UTF-8 text file, or '-' for stdin")
    _add_max_bytes(stats, "a FILE")
    _add_merges_file(stats)
    stats.set_defaults(run=handler("cli_commands", "run_stats"))


def add_overlap(overlap: argparse.ArgumentParser) -> None:
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
    overlap.set_defaults(run=handler("cli_commands", "run_overlap"))


def add_builtins(builtins: argparse.ArgumentParser) -> None:
    builtins.description = (
        'Print {"name", "title", "package", "terms"} for each built-in tokenizer: the name any command '
        "takes as TOKENIZER, the pip package that ships its files, and the terms of its vocabulary."
    )
    builtins.set_defaults(run=handler("cli_commands", "run_builtins"))


def add_stability(stability: argparse.ArgumentParser) -> None:
    stability.description = (
        'Print {"fraction", "characters", "merges", "vocabulary_share", "first_merges", "agreement", '
        '"divergence"} for each fraction: the share of the full run\'s merged tokens it has, the share of '
        "its first N merges, how many of the first k merges agree as sets, and the first step (from 1) "
        "where the merge lists differ, with both merges. Prefixes are cut at a word boundary."
    )
    stability.add_argument("files", metavar="FILE", nargs="+", help="a UTF-8 text file, or '-' for stdin")
    _add_max_bytes(stability, "a FILE")
    _add_settings(stability)
    stability.set_defaults(run=handler("cli_commands", "run_stability"))


def add_report(report: argparse.ArgumentParser) -> None:
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
    report.set_defaults(run=handler("cli_report", "run_report"))


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
