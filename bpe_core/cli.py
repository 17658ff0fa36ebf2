"""The command line: train, trace, encode, decode and export tokenizers (`python -m bpe_core`).

stdout carries only results (JSON lines, decoded text); progress, summaries and errors go to
stderr. Any bad input exits with status 2 and one `error: ...` line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any, NoReturn

from .formats import load_any, save_gpt2, save_hf, save_tokenizer
from .model import Tokenizer
from .pretokenize import check_text
from .settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS, BPEError, Settings
from .trainer import DEFAULT_MERGES, MAX_TOKEN_LENGTH, check_target
from .training import train


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors, like every other error here (still exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with its five subcommands."""
    prog = "python -m bpe_core" if Path(sys.argv[0]).name == "__main__.py" else None
    parser = _Parser(prog=prog, description="Train, inspect, use and convert byte pair encoding tokenizers.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_train(commands)

    trace = commands.add_parser("trace", help="print the training trace, one JSON object a line")
    trace.description = (
        'Print each merge as {"rank", "left", "right", "token", "count"}. A tokenizer that was '
        "imported rather than trained has no counts: its merges print with \"count\": null."
    )
    trace.add_argument("model", metavar="MODEL.json", help="a model file (any format `encode` reads)")
    _add_merges_file(trace)
    trace.set_defaults(run=_run_trace)

    encode = commands.add_parser("encode", help="encode texts, one JSON object a line")
    encode.description = 'Print {"text", "tokens", "ids"} for each TEXT.'
    encode.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    encode.add_argument("texts", metavar="TEXT", nargs="+", help="text to encode")
    _add_merges_file(encode)
    encode.set_defaults(run=_run_encode)

    decode = commands.add_parser("decode", help="decode token ids to text")
    decode.add_argument("tokenizer", metavar="TOKENIZER", help=_TOKENIZER_HELP)
    decode.add_argument("ids", metavar="ID", nargs="+", type=int, help="a token id")
    _add_merges_file(decode)
    decode.set_defaults(run=_run_decode)

    export = commands.add_parser("export", help="write a tokenizer as Hugging Face or GPT-2 files")
    export.description = (
        "--format hf writes one tokenizer.json to PATH. --format gpt2 treats PATH as a directory "
        "(created if missing) and writes vocab.json and merges.txt into it; only bytes-mode "
        "tokenizers with the gpt2 pre-tokenizer and no normalization fit that format."
    )
    export.add_argument("model", metavar="MODEL.json", help="a model file (any format `encode` reads)")
    export.add_argument("--format", required=True, choices=("hf", "gpt2"), help="the file format to write")
    export.add_argument(
        "-o", "--output", required=True, metavar="PATH", help="tokenizer.json file (hf) or directory (gpt2)"
    )
    _add_merges_file(export)
    export.set_defaults(run=_run_export)
    return parser


_TOKENIZER_HELP = (
    "our model JSON, a Hugging Face tokenizer.json, a GPT-2 vocabulary (vocab.json or encoder.json, "
    "its merges file beside it or given with --merges-file), a .tiktoken file, or a directory "
    "holding tokenizer.json, vocab.json or encoder.json; the format is detected from the content"
)


def _add_merges_file(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--merges-file",
        metavar="PATH",
        help="a GPT-2 vocabulary's merges file, when it is not beside it as merges.txt or vocab.bpe "
        "(NAME-vocab.json also finds NAME-merges.txt, encoder.json finds vocab.bpe)",
    )


def _add_train(commands: Any) -> None:
    train_cmd = commands.add_parser("train", help="train a tokenizer on text files")
    train_cmd.description = (
        "Train on the FILEs (UTF-8 text; '-' reads stdin) and save our model JSON. The defaults "
        "reproduce the lessons: word mode, a separate </w> marker, ties broken by count then pair. "
        f"Without --merges or --vocab-size, {DEFAULT_MERGES} merges are learned."
    )
    train_cmd.add_argument("files", metavar="FILE", nargs="+", help="a UTF-8 text file, or '-' for stdin")
    option = train_cmd.add_argument
    option("--mode", choices=MODES, default="word", help="what BPE starts from (default: word)")
    target = train_cmd.add_mutually_exclusive_group()
    target.add_argument("--merges", type=int, metavar="N", help=f"learn N merges (default: {DEFAULT_MERGES})")
    target.add_argument("--vocab-size", type=int, metavar="N", help="learn merges until there are N tokens")
    option("--tie-break", choices=TIE_BREAKS, default="count-pair", help="ties (default: count-pair)")
    option("--eow", choices=EOW_STYLES, default="separate", help="the </w> marker (default: separate)")
    option(
        "--pretokenizer",
        choices=PRETOKENIZERS,
        help="how text is split before merging (default: whitespace for word, none for text, gpt2 for bytes)",
    )
    option("--lowercase", action="store_true", help="lowercase the text first")
    option("--normalization", choices=NORMALIZATIONS, default="none", help="Unicode form (default: none)")
    option("--min-frequency", type=int, default=1, metavar="N", help="stop below N occurrences (default: 1)")
    option(
        "--max-token-length",
        type=int,
        default=MAX_TOKEN_LENGTH,
        metavar="N",
        help=f"never make a token longer than N characters (default: {MAX_TOKEN_LENGTH}; 0: no limit)",
    )
    option("-o", "--output", required=True, metavar="MODEL.json", help="where to save the model")
    train_cmd.set_defaults(run=_run_train)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 2 for any bad input)."""
    _use_utf8(sys.stdout)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed
        return exc.code if isinstance(exc.code, int) else 2
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


# ---- train ----------------------------------------------------------------------------------


def _run_train(args: argparse.Namespace) -> int:
    merges, vocab_size = _target(args)
    if args.min_frequency < 1:
        raise BPEError(f"--min-frequency must be at least 1, not {args.min_frequency}")
    if args.max_token_length < 0:
        raise BPEError(f"--max-token-length must be 0 (no limit) or more, not {args.max_token_length}")
    settings = Settings(
        mode=args.mode,
        eow=args.eow,
        pretokenizer=args.pretokenizer or "",
        tie_break=args.tie_break,
        lowercase=args.lowercase,
        normalization=args.normalization,
        min_frequency=args.min_frequency,
    )
    texts = [_read_corpus(name) for name in args.files]
    bar = _ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    started = time.perf_counter()
    try:
        tok = train(
            texts,
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


def _read_corpus(name: str) -> str:
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


class _ProgressBar:
    """A one-line progress bar on a terminal, redrawn by the trainer's progress callback."""

    WIDTH = 30

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.drawn = False

    def __call__(self, done: int, total: int) -> None:
        filled = self.WIDTH * done // total if total else self.WIDTH
        bar = "#" * filled + "." * (self.WIDTH - filled)
        self.stream.write(f"\rtraining [{bar}] {done:,}/{total:,} merges")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


# ---- trace, encode, decode, export ----------------------------------------------------------


def _run_trace(args: argparse.Namespace) -> int:
    tok = load_any(args.model, merges=args.merges_file)
    rows: list[tuple[int, str, str, str, int | None]]
    if tok.trace:
        rows = [(m.rank, m.left, m.right, m.token, m.count) for m in tok.trace]
    else:
        rows = [(rank, a, b, a + b, None) for rank, (a, b) in enumerate(tok.merges)]
    _print_lines(dict(zip(("rank", "left", "right", "token", "count"), row)) for row in rows)
    return 0


def _run_encode(args: argparse.Namespace) -> int:
    tok = load_any(args.tokenizer, merges=args.merges_file)
    for number, text in enumerate(args.texts, start=1):
        _check_encodable(text, number)
    _print_lines(_encoded(tok, text) for text in args.texts)
    return 0


def _encoded(tok: Tokenizer, text: str) -> dict[str, Any]:
    encoding = tok.encode(text)
    return {"text": text, "tokens": encoding.tokens, "ids": encoding.ids}


def _check_encodable(text: str, number: int) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BPEError(f"TEXT {number} is not valid UTF-8") from None


def _run_decode(args: argparse.Namespace) -> int:
    tok = load_any(args.tokenizer, merges=args.merges_file)
    text = tok.decode(args.ids)
    sys.stdout.write(text + "\n")
    return 0


def _run_export(args: argparse.Namespace) -> int:
    tok = load_any(args.model, merges=args.merges_file)
    if args.format == "hf":
        save_hf(tok, args.output)
        written = [args.output]
    else:
        written = [str(p) for p in save_gpt2(tok, args.output)]
    print(f"wrote {' and '.join(written)}", file=sys.stderr)
    return 0


def _print_lines(rows: Iterable[dict[str, Any]]) -> None:
    """One compact JSON object a line on stdout."""
    write: Callable[[str], Any] = sys.stdout.write
    for row in rows:
        write(json.dumps(row, ensure_ascii=False) + "\n")
