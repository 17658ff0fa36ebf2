"""Word counting for the command line: `count SOURCES -o counts.tsv`, and the counts `train` trains on.

Where the counting runs (`counting_place`):
1. `--workers 1`: in this process.
2. a scheduler (`--scheduler ADDRESS`, else the BPE_DASK_SCHEDULER variable): on that Dask cluster.
3. sources that form one partition, or fit in one partition's size (`--partition-size`), or a
   machine with one core: in this process, since a cluster would only add its start-up time;
   also without the dask[distributed] package (a scheduler asked for then fails with a line).
4. otherwise: a Dask LocalCluster of `--workers` processes (default: this machine's cores, at
   most one per partition), started and shut down by the command.
Stdin ('-', for `train`) is always counted in this process. Every place gives the same counts.
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .cli_progress import CountBar, bars_wanted
from .counting import CountProgress, apply_min_count, count_sources, prune_counts, reduce_counts
from .counts_file import (
    SETTING_KEYS,
    CountsHeader,
    check_compatible,
    check_writable,
    read_counts,
    write_counts,
)
from .dask_counting import SCHEDULER_ENV, count_on_dask, default_workers, max_workers, scheduler_address
from .pretokenize import bytes_to_symbols, check_text, count_words, normalize, split_words
from .readers import read_limited
from .settings import BPEError, Settings
from .sources import DEFAULT_PARTITION_BYTES, ERRORS, expand_sources, plan_partitions, stream_pieces
from .trainer import DEFAULT_MERGES, check_target

# Options that shape counting; with `train --counts` they are refused (the file is already counted).
COUNTING_OPTIONS = {
    "text_field": "--text-field",
    "errors": "--errors",
    "scheduler": "--scheduler",
    "workers": "--workers",
    "max_distinct": "--max-distinct",
    "min_count": "--min-count",
    "partition_size": "--partition-size",
    "max_bytes": "--max-bytes",
}
_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 2**10, "mib": 2**20, "gib": 2**30,
          "tb": 10**12, "tib": 2**40}
# The largest size an option takes (a partition, --max-bytes): a pebibyte, more than any disk holds.
MAX_SIZE = 2**50
# What one source (a file, decompressed; stdin) may hold: `count` and `train` stream it, so this
# only stops what never ends (a device, a decompression bomb) well before memory or disk would.
DEFAULT_SOURCE_BYTES = 2_000_000_000
# What `stats` and `stability` read of one text: they hold it whole, as the report does.
DEFAULT_TEXT_BYTES = 100_000_000


SOURCE = (
    "a file, directory (read recursively) or glob: UTF-8 text (.txt, or compressed .gz, .bz2, .zst), "
    "JSON lines (.jsonl, one record a line) or Parquet (.parquet)"
)
WHERE = (
    "Where counting runs: with --workers 1, in this process; else with --scheduler ADDRESS (or $"
    + SCHEDULER_ENV + "), on that Dask cluster; else, when the sources fit in one partition "
    "(--partition-size), this machine has one core or Dask is not installed, in this process (a "
    "cluster would only add its start-up time); else on a Dask LocalCluster of --workers processes "
    "started for the run and shut down after it. Every way gives the same counts."
)


def add_counting_options(command: argparse.ArgumentParser) -> None:
    """The options of `count` and `train SOURCES` that say how to read and where to count."""
    option = command.add_argument
    option("--text-field", metavar="NAME", help="the text's field in JSON lines and column in Parquet (default: text)")
    option("--errors", choices=ERRORS, help="undecodable bytes: stop with an error (strict, the default) "
           "or read them as U+FFFD (replace)")
    option("--scheduler", metavar="ADDRESS", help=f"count on the Dask cluster at ADDRESS (tcp://host:8786; "
           f"default: ${SCHEDULER_ENV}); its workers need this package and the files at the same paths")
    option("--workers", type=int, metavar="N", help="worker processes of the local cluster (default: this "
           "machine's cores, at most one per partition); 1 counts in this process")
    option("--max-distinct", type=int, metavar="N", help="keep only the N most frequent words after each "
           "partition and each merge of partial counts (approximate, deterministic; bounds memory)")
    option("--min-count", type=int, metavar="N", help="drop words seen fewer than N times in all (exact)")
    option("--partition-size", metavar="SIZE", help="bytes of text a task counts, e.g. 64MB or 1GiB "
           "(default: 64MiB; compressed files are one partition each)")
    add_max_bytes(command, DEFAULT_SOURCE_BYTES, "a source (a file, decompressed; stdin)")
    option("--progress", action="store_true", help="draw progress bars on stderr even when it is not a terminal")


def add_max_bytes(command: argparse.ArgumentParser, default: int, what: str) -> None:
    """`--max-bytes SIZE`: refuse `what` over SIZE bytes (parsed late: None means `default`)."""
    command.add_argument("--max-bytes", metavar="SIZE", help=f"refuse {what} over SIZE bytes, e.g. 500MB "
                         f"(default: {default:,}); FIFOs and devices are refused whatever the size")


def max_bytes(args: argparse.Namespace, default: int = DEFAULT_SOURCE_BYTES) -> int:
    """The `--max-bytes` given, or `default`."""
    given = getattr(args, "max_bytes", None)
    return default if given is None else parse_size(given, option="--max-bytes")


def parse_size(text: str, *, option: str = "--partition-size") -> int:
    """A size in bytes from "64MB", "64MiB", "1.5GB" or "4096" (MB = 10^6 bytes, MiB = 2^20),
    from 1 byte to MAX_SIZE; errors name `option`.

    >>> parse_size("64MiB"), parse_size("1.5 kb"), parse_size("4096")
    (67108864, 1500, 4096)
    """
    match = re.fullmatch(r"\s*(\d+)(?:\.(\d+))?\s*([a-zA-Z]*)\s*", text)
    unit = match.group(3).lower() if match else ""
    if match is None or unit not in _UNITS:
        raise BPEError(f"{option} takes a size such as 64MB, 64MiB or 1000000, not {_shown(text)}")
    whole, fraction = match.group(1).lstrip("0"), (match.group(2) or "")[:20]
    # Exact, in whole numbers: a float of many digits would be infinity, an int of 5,000 refused.
    size = int("0" + whole + fraction) * _UNITS[unit] // 10 ** len(fraction) if len(whole) <= 20 else MAX_SIZE + 1
    if size < 1:
        raise BPEError(f"{option} must be at least 1 byte, not {_shown(text)}")
    if size > MAX_SIZE:
        raise BPEError(f"{option} must be at most 1PiB ({MAX_SIZE:,} bytes), not {_shown(text)}")
    return size


def _shown(text: str) -> str:
    """An option's value for a message: quoted, and cut short past 40 characters."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + f"... ({len(text):,} characters)"


@dataclass(frozen=True)
class Counted:
    """Word counts and where they were counted, for the summary line."""

    counts: Counter[str]
    place: str  # "here", "local" (a LocalCluster) or "remote"
    workers: int
    partitions: int
    seconds: float

    def describe(self) -> str:
        """"3 partitions on a local Dask cluster of 2 workers" and the like."""
        parts = "1 partition" if self.partitions == 1 else f"{self.partitions:,} partitions"
        return f"{parts} {self.where()}"

    def where(self) -> str:
        if self.place == "local":
            return f"on a local Dask cluster of {self.workers} workers"
        if self.place == "remote":
            return "on the Dask cluster"
        return "in this process"


def counting_place(
    partitions: int, total_bytes: int, *, workers: int | None, scheduler: str | None, partition_bytes: int
) -> tuple[str, int]:
    """("here" | "local" | "remote", workers of a local cluster): the rule in this module's docstring.

    >>> counting_place(1, 10, workers=None, scheduler=None, partition_bytes=100)
    ('here', 1)
    >>> counting_place(8, 10**9, workers=4, scheduler=None, partition_bytes=2**26)
    ('local', 4)
    """
    if workers == 1:
        return "here", 1
    if scheduler is not None:
        return "remote", 0
    n_workers = min(workers or default_workers(), partitions)
    if partitions <= 1 or total_bytes <= partition_bytes or n_workers <= 1:
        return "here", 1
    return "local", n_workers


def check_counting_options(args: argparse.Namespace) -> None:
    """Refuse numbers that make no sense before anything is read."""
    for name in ("workers", "max_distinct", "min_count"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise BPEError(f"{COUNTING_OPTIONS[name]} must be at least 1, not {value}")
    if args.workers is not None and args.workers > max_workers():
        raise BPEError(f"--workers must be at most {max_workers()} (4 per core of this machine's "
                       f"{default_workers()}, 256 at most), not {args.workers}")
    address = scheduler_address(args.scheduler)
    if address is not None and args.workers is not None and args.workers > 1:
        origin = "--scheduler" if args.scheduler else SCHEDULER_ENV
        raise BPEError(
            f"--workers sets the size of a local cluster; the cluster at {address} (from {origin}) has its own workers"
        )


def count_corpus(args: argparse.Namespace, settings: Settings) -> Counted:
    """Count `args.sources` as the options say, with a progress bar when wanted."""
    check_counting_options(args)
    partition_bytes = parse_size(args.partition_size) if args.partition_size else DEFAULT_PARTITION_BYTES
    limit = max_bytes(args)
    errors = args.errors or "strict"
    text_field = args.text_field
    max_distinct, min_count = args.max_distinct, args.min_count or 1
    started = time.perf_counter()
    named = expand_sources([s for s in args.sources if s != "-"], regular_only=True)  # no FIFO, no device
    if "-" in args.sources:
        counts = _count_with_stdin(args.sources, settings, errors=errors, text_field=text_field,
                                   partition_bytes=partition_bytes, max_distinct=max_distinct, min_count=min_count,
                                   max_bytes=limit)
        return Counted(counts, "here", 1, len(args.sources), time.perf_counter() - started)
    partitions = plan_partitions(named, partition_bytes=partition_bytes, text_field=text_field, max_bytes=limit)
    address = scheduler_address(args.scheduler)
    place, n_workers = counting_place(
        len(partitions), sum(p.size for p in partitions), workers=args.workers, scheduler=address,
        partition_bytes=partition_bytes,
    )
    if place == "local" and importlib.util.find_spec("distributed") is None:
        place, n_workers = "here", 1  # Dask is optional: without it, count here (an asked-for scheduler fails)
    bar = CountBar() if bars_wanted(args.progress) else None
    progress: Callable[[CountProgress], None] | None = bar
    try:
        if place == "here":
            counts = count_sources(args.sources, settings, errors=errors, text_field=text_field,
                                   partition_bytes=partition_bytes, max_distinct=max_distinct,
                                   min_count=min_count, progress=progress, max_bytes=limit)
        else:
            counts = count_on_dask(args.sources, settings, scheduler=address, workers=n_workers or None,
                                   errors=errors, text_field=text_field, partition_bytes=partition_bytes,
                                   max_distinct=max_distinct, min_count=min_count, progress=progress,
                                   max_bytes=limit)
    finally:
        if bar is not None:
            bar.close()
    return Counted(counts, place, n_workers, len(partitions), time.perf_counter() - started)


def _count_with_stdin(
    sources: list[str],
    settings: Settings,
    *,
    errors: str,
    text_field: str | None,
    partition_bytes: int,
    max_distinct: int | None,
    min_count: int,
    max_bytes: int,
) -> Counter[str]:
    """Sources with '-' among them, in this process: stdin is one text, as `train -` always read it."""
    if sources.count("-") > 1:
        raise BPEError("'-' (stdin) can be given only once")
    if text_field is not None:
        raise BPEError("--text-field applies to JSON lines and Parquet files, not to stdin")
    # Runs of files are counted as usual, stdin as one text; the tree merges them in order.
    parts: list[Counter[str]] = []
    files: list[str] = []
    for source in sources:
        if source != "-":
            files.append(source)
            continue
        if files:
            parts.append(count_sources(files, settings, errors=errors, partition_bytes=partition_bytes,
                                       max_distinct=max_distinct, max_bytes=max_bytes))
            files = []
        parts.append(prune_counts(_count_stdin(settings, errors, max_bytes), max_distinct))
    if files:
        parts.append(count_sources(files, settings, errors=errors, partition_bytes=partition_bytes,
                                   max_distinct=max_distinct, max_bytes=max_bytes))
    return apply_min_count(reduce_counts(parts, max_distinct=max_distinct), min_count)


def _count_stdin(settings: Settings, errors: str, max_bytes: int) -> Counter[str]:
    """Stdin's words as one text, read in pieces: a pipe of gigabytes is never held whole."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return count_words([_read_stdin(errors, max_bytes)], settings)
    counts: Counter[str] = Counter()
    for piece in stream_pieces(stream, "stdin", settings, errors=errors, max_bytes=max_bytes):
        counts.update(split_words(normalize(piece, settings), settings))
    if settings.mode == "bytes":
        counts = Counter({bytes_to_symbols(w.encode("utf-8")): n for w, n in counts.items()})
    return counts


def _read_stdin(errors: str, max_bytes: int) -> str:
    """Stdin's text, whole (up to `max_bytes` bytes)."""
    stream = getattr(sys.stdin, "buffer", None)
    data = read_limited(stream, "stdin", max_bytes) if stream is not None else sys.stdin.read().encode("utf-8")
    if errors == "replace":
        if b"\x00" in data:
            return check_text(data, name="stdin")  # binary: refused, as without --errors
        return data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return check_text(data, name="stdin")


def counts_for_training(
    args: argparse.Namespace, settings_of: Callable[[argparse.Namespace], Settings]
) -> tuple[Counter[str], Settings, Counted | None]:
    """`train`'s word counts and settings: counted from SOURCES with `settings_of(args)`, or read
    from --counts, whose header gives the counting settings (the options may only agree with it)."""
    if args.counts is None:
        if not args.sources:
            raise BPEError("give the SOURCES to train on, or --counts counts.tsv")
        settings = settings_of(args)
        counted = count_corpus(args, settings)
        return counted.counts, settings, counted
    if args.sources:
        raise BPEError("give either SOURCES or --counts, not both")
    for name, flag in COUNTING_OPTIONS.items():
        if getattr(args, name) is not None:
            raise BPEError(f"{flag} applies to counting; {args.counts} is already counted (see its header)")
    counts, header = read_counts(args.counts)
    return counts, settings_from_header(header, args), None


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The BPE settings `train` and `stability` were given (None options take their defaults)."""
    return Settings(
        mode=args.mode or "word",
        eow=args.eow,
        pretokenizer=args.pretokenizer or "",
        tie_break=args.tie_break,
        lowercase=args.lowercase,
        normalization=args.normalization or "none",
        min_frequency=args.min_frequency,
    )


def merge_target(args: argparse.Namespace) -> tuple[int | None, int | None]:
    """(merges, vocab size) of `train` and `stability`: exactly one is set; the default is
    DEFAULT_MERGES merges. Checked before the corpus is read, so a bad number fails at once."""
    if args.vocab_size is not None:
        check_target(vocab_size=args.vocab_size, vocab_name="--vocab-size")
        return None, args.vocab_size
    merges = DEFAULT_MERGES if args.merges is None else args.merges
    check_target(merges=merges, merges_name="--merges")
    return merges, None


def settings_from_header(header: CountsHeader, args: argparse.Namespace) -> Settings:
    """The counts file's counting settings with this run's training options; a contradiction is refused."""
    counted = {name: getattr(header, name) for name in SETTING_KEYS}
    asked = {name: getattr(args, name) for name in ("mode", "pretokenizer", "normalization") if getattr(args, name)}
    if args.lowercase:
        asked["lowercase"] = True
    training = {"eow": args.eow, "tie_break": args.tie_break, "min_frequency": args.min_frequency}
    try:
        wanted = Settings(**{**counted, **asked}, **training)
    except BPEError:
        differs = [name for name in SETTING_KEYS if name in asked and asked[name] != counted[name]]
        if not differs:
            raise
        # What was asked cannot even go with the file's other settings: name the first difference.
        name = differs[0]
        raise BPEError(
            f"the counts were made with {name} {counted[name]!r} but training asks for {asked[name]!r}; "
            "count again with the same settings"
        ) from None
    check_compatible(header, wanted)
    return wanted


def run_count(args: argparse.Namespace) -> int:
    settings = Settings(
        mode=args.mode or "word",
        pretokenizer=args.pretokenizer or "",
        lowercase=args.lowercase,
        normalization=args.normalization or "none",
    )
    if args.output != "-":
        check_writable(args.output)  # before counting, which may take hours
    counted = count_corpus(args, settings)
    meta = {"sources": list(args.sources), "max_distinct": args.max_distinct, "min_count": args.min_count or 1}
    output = sys.stdout if args.output == "-" else args.output
    write_counts(output, counted.counts, settings, meta=meta)
    total = sum(counted.counts.values())
    where = "stdout" if args.output == "-" else args.output
    print(
        f"counted {total:,} words ({len(counted.counts):,} distinct) from {counted.describe()} "
        f"in {counted.seconds:.2f} s -> {where}",
        file=sys.stderr,
    )
    return 0
