"""`train --model NAME`: what the training of every family shares on the command line.

`--model` offers the families of the registry that train here (`families(trainable=True)`). Each
says in its `Family` which `train` options it takes (`cli_options`), adds those only it has
(`cli_arguments`) and trains on the parsed arguments (`train_cli`, in its own module
`bpe_core/families/<name>_cli.py`). Here: `--model` and its help, the one-line refusal of an
option the chosen family does not take, and the helpers several families' training uses (the
vocabulary size asked for, each text of the SOURCES as pieces, the counting summary, the closing
lines of a run sized by `--vocab-size`).
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable, Iterator

from .cli_count import DEFAULT_SOURCE_BYTES, Counted, _read_stdin
from .families.registry import Family, families, family_of
from .readers import classify
from .records import jsonl_texts, parquet_row_groups, parquet_texts
from .settings import BPEError, Settings
from .sources import expand_sources, plan_partitions, read_texts

_WORDS = Settings(mode="word")  # where text files are cut into pieces
_WHOLE_FILE = 1 << 62  # a partition size no file reaches: one partition a file


def add_family_options(command: argparse.ArgumentParser) -> None:
    """`--model`, its choices and help from the registry, and each family's own options."""
    trainable = families(trainable=True)
    sizes = "; ".join(f"{one.name} {one.cli_help}" for one in trainable if one.cli_help)
    text = (f"the tokenizer family (default: {trainable[0].name}): {sizes}. Each refuses, in one line, "
            "the options it does not take")
    command.add_argument("--model", choices=[one.name for one in trainable], default=trainable[0].name,
                         help=text.replace("%", "%%"))  # argparse reads % in a help text
    for one in trainable:
        one.cli_arguments(command)


def flag(dest: str) -> str:
    """The command-line flag of an argparse dest.

    >>> flag("max_token_length")
    '--max-token-length'
    """
    return "--" + dest.replace("_", "-")


def check_model_options(args: argparse.Namespace, chosen: Family) -> None:
    """Refuse, in one line, the first option given (`args.given`) that `chosen` does not take:
    an option some other family takes, and this one does not."""
    trainable = families(trainable=True)
    given: set[str] = getattr(args, "given", set())
    for dest in sorted(given - chosen.cli_options, key=flag):
        others = [one.name for one in trainable if dest in one.cli_options]
        if others:
            takes = ", ".join(sorted(map(flag, chosen.cli_options))) or "none of them"
            raise BPEError(f"{flag(dest)} does not apply to --model {chosen.name}; it is for --model "
                           f"{' or '.join(others)} (--model {chosen.name} takes {takes})")


def vocab_size(args: argparse.Namespace) -> int:
    """The `--vocab-size N` a family needs, checked."""
    if args.vocab_size is None:
        raise BPEError(f"--model {args.model} needs --vocab-size N")
    if args.vocab_size < 1:
        raise BPEError(f"--vocab-size must be at least 1, not {args.vocab_size}")
    return int(args.vocab_size)


def report_counted(counted: Counted | None) -> None:
    """Say on stderr where and how fast the words were counted, when it was not in this process."""
    if counted is not None and counted.place != "here":
        print(f"counted {counted.describe()} in {counted.seconds:.2f} s", file=sys.stderr)


def sized_report(model: object, done: str, *, size: int, asked: int, why: str, output: str) -> list[str]:
    """The closing lines of a run sized by --vocab-size: what was made (`done`), and why it
    stopped at `size` when that is short of the `asked` size."""
    lines = [f"trained {family_of(model).title}: {done} -> {output}"]
    if size < asked:
        lines.append(f"stopped at {size:,} of {asked:,} tokens: {why}")
    return lines


def words_counted(counts: Counter[str]) -> str:
    """How many words (and distinct words) the counts hold, in words.

    >>> words_counted(Counter({"a": 2, "b": 1}))
    '3 words (2 distinct)'
    """
    return f"{sum(counts.values()):,} words ({len(counts):,} distinct)"


def text_streams(sources: list[str], *, errors: str, text_field: str | None,
                 max_bytes: int = DEFAULT_SOURCE_BYTES) -> Iterator[Iterable[str]]:
    """Each text of the sources, in order, as pieces whose concatenation is the text: a text file
    (or stdin, '-') is one text, each JSON line or Parquet value another. Only regular files are
    read (and stdin), each up to `max_bytes` bytes (decompressed)."""
    field = text_field or "text"
    group: list[str] = []
    for source in [*sources, None]:  # None: the end
        if source is not None and source != "-":
            group.append(source)
            continue
        for path in expand_sources(group, regular_only=True) if group else []:
            kind, compression = classify(path)
            if kind == "parquet":
                plan_partitions([path], text_field=field, max_bytes=max_bytes)  # its size checked
                for row_group, _ in parquet_row_groups(path, field):
                    yield from ([text] for text in parquet_texts(path, row_group, text_field=field))
                continue
            (whole,) = plan_partitions([path], partition_bytes=_WHOLE_FILE, max_bytes=max_bytes)
            if kind == "jsonl":
                yield from ([text] for text in jsonl_texts(path, compression, start=0, end=None, errors=errors,
                                                          text_field=field, max_bytes=max_bytes))
            else:
                yield read_texts(whole, _WORDS, errors=errors)
        group = []
        if source == "-":
            if text_field is not None:
                raise BPEError("--text-field applies to JSON lines and Parquet files, not to stdin")
            yield [_read_stdin(errors, max_bytes)]
