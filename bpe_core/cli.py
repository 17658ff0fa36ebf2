"""The command line: train, trace, encode, decode, export and compare tokenizers (`python -m bpe_core`).

This module parses the arguments and runs a command; each command's arguments are in
`cli_arguments.py`, what it does in `cli_commands.py`. stdout carries only results (JSON lines,
decoded text); progress, summaries and errors go to stderr. Any bad input exits with status 2 and
one `error: ...` line.

Start-up is kept cheap: `--help` lists the commands without loading any engine code, a command's
arguments are added only once it is chosen, and its handler imports what it uses when it runs.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn, cast

from . import cli_arguments


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors, like every other error here (still exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class _Commands(argparse._SubParsersAction):
    """Subcommands whose arguments are added when one is chosen: only its own help needs the
    registry, the settings and the counting options, so `--help` and other commands never load them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, Callable[[argparse.ArgumentParser], None]] = {}

    def add_command(self, name: str, help: str, add_arguments: Callable[[argparse.ArgumentParser], None]) -> None:
        self.add_parser(name, help=help)
        self.pending[name] = add_arguments

    def complete(self, name: str) -> argparse.ArgumentParser:
        """The command's parser with its arguments (added on the first call)."""
        add_arguments = self.pending.pop(name, None)
        if add_arguments is not None:
            add_arguments(self._name_parser_map[name])
        return self._name_parser_map[name]

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        if values and values[0] in self.pending:
            self.complete(values[0])
        super().__call__(parser, namespace, values, option_string)


def build_parser(*, complete: bool = False) -> argparse.ArgumentParser:
    """The argument parser with its subcommands; each one's arguments are added once it is chosen
    (`complete=True`: all of them now)."""
    prog = "python -m bpe_core" if os.path.basename(sys.argv[0]) == "__main__.py" else None
    parser = _Parser(prog=prog, description="Train, inspect, use and convert tokenizers: those of every family "
                     "`train --model` takes (`train --help` names them), and the tokenizer files people ship.")
    commands = cast(_Commands, parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                                     action=_Commands))
    add = commands.add_command
    add("train", "train a tokenizer on text files or on word counts", cli_arguments.add_train)
    add("count", "count the words of text files into counts.tsv", cli_arguments.add_count)
    add("trace", "print the training trace, one JSON object a line", cli_arguments.add_trace)
    add("encode", "encode texts or text files, one JSON object a line", cli_arguments.add_encode)
    add("parts", "show a tokenizer's parts, and what each makes of a text", cli_arguments.add_parts)
    add("decode", "decode token ids to text", cli_arguments.add_decode)
    add("export", "write a tokenizer as Hugging Face or GPT-2 files", cli_arguments.add_export)
    add("stats", "count a text's bytes, characters, words and tokens", cli_arguments.add_stats)
    add("overlap", "compare two vocabularies token by token", cli_arguments.add_overlap)
    add("builtins", "list the built-in tokenizers, one JSON object a line", cli_arguments.add_builtins)
    add("stability", "train on 1%%, 10%%, 50%% of a corpus and compare with 100%%", cli_arguments.add_stability)
    add("report", "the report card of tokenizers: compression, efficiency, fairness, residue, checks",
        cli_arguments.add_report)
    if complete:
        for name in list(commands.pending):
            commands.complete(name)
    return parser


# Options parsed with the default None and given these values after parsing; `args.given` keeps
# which options were on the command line (these too), so one a model family does not take can be refused.
# max_token_length's is the trainer's MAX_TOKEN_LENGTH, read only by the commands that take it.
LATE_DEFAULTS: dict[str, object] = {"tie_break": "count-pair", "eow": "separate", "min_frequency": 1,
                                    "max_token_length": None}


def __getattr__(name: str) -> Any:
    """DEFAULT_MERGES and MAX_TOKEN_LENGTH, the trainer's, loaded on first use (PEP 562)."""
    if name in ("DEFAULT_MERGES", "MAX_TOKEN_LENGTH"):
        from . import trainer

        return getattr(trainer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 2 for any bad input)."""
    _use_utf8(sys.stdout)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help (0) or a usage error (2), already printed
        return exc.code if isinstance(exc.code, int) else 2
    args.given = {name for name, value in vars(args).items() if value is not None and value is not False}
    late = {name: value for name, value in LATE_DEFAULTS.items() if hasattr(args, name) and getattr(args, name) is None}
    if "max_token_length" in late:
        from .trainer import MAX_TOKEN_LENGTH

        late["max_token_length"] = MAX_TOKEN_LENGTH
    for name, value in late.items():
        setattr(args, name, value)
    from .settings import BPEError

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
