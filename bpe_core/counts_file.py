"""Word counts as a file (counts.tsv): count once, train many times.

The first line is `#bpe-explorer-counts 1<TAB>{JSON}`, the JSON naming the settings that produced
the counts (mode, pretokenizer, lowercase, normalization, max_distinct, min_count), the sources, the
number of distinct words and the total count. Then one `word<TAB>count` line per word, in first-
appearance order (the `first` tie-break needs that order). Words are escaped so that any word
round-trips: `\\\\` for a backslash, `\\t`, `\\n`, `\\r`, and `\\uXXXX` for every other control
character and line or paragraph separator. The file is UTF-8 with "\\n" line ends.
"""
from __future__ import annotations

import json
import os
import unicodedata
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from .atomic import replacing
from .json_limits import load_json
from .readers import refuse_special
from .settings import BPEError, Settings

MAGIC = "#bpe-explorer-counts"
VERSION = 1
SETTING_KEYS = ("mode", "pretokenizer", "lowercase", "normalization")
_SHORT = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNSHORT = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
# No count reaches 10^20 (that many words would fill every disk there is): longer is no count.
MAX_COUNT_DIGITS = 20


@dataclass(frozen=True)
class CountsHeader:
    """What a counts file says about itself."""

    version: int
    mode: str
    pretokenizer: str
    lowercase: bool
    normalization: str
    max_distinct: int | None
    min_count: int
    sources: tuple[str, ...]
    words: int
    total: int


def _needs_escape(ch: str) -> bool:
    return ch in _SHORT or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def escape_word(word: str) -> str:
    r"""A word as it is written in a counts file.

    >>> escape_word("a\tb\\c\u2028")
    'a\\tb\\\\c\\u2028'
    """
    if word.isprintable() and "\\" not in word:
        return word
    out = []
    for ch in word:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif _needs_escape(ch):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def unescape_word(text: str) -> str:
    """The inverse of `escape_word`; raises ValueError on a bad escape."""
    if "\\" not in text:
        return text
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError("a backslash at the end of the word")
        code = text[i + 1]
        if code in _UNSHORT:
            out.append(_UNSHORT[code])
            i += 2
        elif code == "u":
            digits = text[i + 2 : i + 6]
            if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise ValueError(f"bad escape \\u{digits}")
            out.append(chr(int(digits, 16)))
            i += 6
        else:
            raise ValueError(f"unknown escape \\{code}")
    return "".join(out)


def write_counts(path_or_stream: str | os.PathLike[str] | IO[str], counts: Mapping[str, int],
                 settings: Settings, *, meta: dict[str, Any]) -> None:
    """Write `counts` (in their order) with a header naming `settings` and `meta` (max_distinct,
    min_count, sources; other keys are kept as they are)."""
    header: dict[str, Any] = {key: getattr(settings, key) for key in SETTING_KEYS}
    header["max_distinct"] = meta.get("max_distinct")
    header["min_count"] = meta.get("min_count", 1)
    header["sources"] = [str(s) for s in meta.get("sources", [])]
    header["words"] = len(counts)
    header["total"] = sum(counts.values())
    for key, value in meta.items():
        header.setdefault(key, value)
    first = f"{MAGIC} {VERSION}\t{json.dumps(header, ensure_ascii=False)}\n"
    if isinstance(path_or_stream, (str, os.PathLike)):
        _write_file(os.fspath(path_or_stream), first, counts)
    else:
        _write(path_or_stream, first, counts)


def _write_file(target: str, first: str, counts: Mapping[str, int]) -> None:
    """Write atomically (`bpe_core.atomic.replacing`): a failure or Ctrl-C midway leaves `target`
    as it was, never half written, and no temporary file beside it. A target that is no regular
    file (a pipe, /dev/stdout) is written directly. An OSError is a one-line BPEError."""
    check_writable(target)
    try:
        with replacing(target) as stream:
            _write(stream, first, counts)
    except OSError as exc:
        raise BPEError(f"{target}: cannot be written ({exc.strerror or exc})") from None


def check_writable(target: str) -> None:
    """Refuse, before any counting, an output whose folder is missing or not writable."""
    if os.path.isdir(target):
        raise BPEError(f"{target}: is a directory; give a file name for the counts")
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise BPEError(f"{target}: cannot be written (no folder {folder})")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise BPEError(f"{target}: cannot be written (permission denied in {folder})")


def _write(stream: IO[str], first: str, counts: Mapping[str, int]) -> None:
    stream.write(first)
    batch: list[str] = []
    for word, count in counts.items():
        batch.append(f"{escape_word(word)}\t{count}\n")
        if len(batch) >= 10_000:
            stream.write("".join(batch))
            batch.clear()
    stream.write("".join(batch))


def _parse_header(line: str, name: str) -> CountsHeader:
    magic, _, rest = line.partition("\t")
    if not magic.startswith(MAGIC + " "):
        raise BPEError(f"{name}: not a counts file (the first line should start with {MAGIC!r})")
    version = magic[len(MAGIC) + 1 :].strip()
    if version != str(VERSION):
        raise BPEError(f"{name}: counts file version {version!r} is not supported (this reads version {VERSION})")
    try:
        data = load_json(rest, where=f"{name}: line 1")
    except json.JSONDecodeError as exc:
        raise BPEError(f"{name}: line 1: the header is not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise BPEError(f"{name}: line 1: the header must be a JSON object")
    try:
        header = CountsHeader(
            version=VERSION,
            mode=_typed(data, "mode", str),
            pretokenizer=_typed(data, "pretokenizer", str),
            lowercase=_typed(data, "lowercase", bool),
            normalization=_typed(data, "normalization", str),
            max_distinct=None if data.get("max_distinct") is None else _typed(data, "max_distinct", int),
            min_count=_typed(data, "min_count", int),
            sources=tuple(str(s) for s in _typed(data, "sources", list)),
            words=_typed(data, "words", int),
            total=_typed(data, "total", int),
        )
    except KeyError as exc:
        raise BPEError(f"{name}: line 1: the header has no {exc.args[0]!r}") from None
    except TypeError as exc:
        raise BPEError(f"{name}: line 1: {exc.args[0]}") from None
    return header


def _typed(data: dict[str, Any], key: str, kind: type) -> Any:
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"the header's {key!r} should be {kind.__name__}, not {type(value).__name__}")
    if isinstance(value, int) and abs(value) >= 10**MAX_COUNT_DIGITS:
        raise TypeError(f"the header's {key!r} has more than {MAX_COUNT_DIGITS} digits")
    return value


def read_counts(path: str | os.PathLike[str]) -> tuple[Counter[str], CountsHeader]:
    """Read a counts file, streaming it, checking the header and every line (errors name the line);
    the words keep the file's order."""
    name = os.fspath(path)
    counts: Counter[str] = Counter()
    refuse_special(name)  # a FIFO would wait for a writer, a device never end
    try:
        stream = open(path, "rb")  # noqa: SIM115  # closed by the `with` below
    except FileNotFoundError:
        raise BPEError(f"{name}: no such file") from None
    except OSError as exc:
        raise BPEError(f"{name}: cannot be read ({exc.strerror})") from None
    with stream:
        header: CountsHeader | None = None
        for number, raw in enumerate(stream, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BPEError(f"{name}: line {number}: not UTF-8 (invalid byte 0x{raw[exc.start]:02x})") from None
            line = line.removesuffix("\n").removesuffix("\r")
            if header is None:
                header = _parse_header(line.removeprefix("\ufeff"), name)
                continue
            if not line:
                continue  # a blank line (an editor's extra newline at the end): no word is empty
            word_text, tab, count_text = line.partition("\t")
            if not tab or "\t" in count_text:
                raise BPEError(f"{name}: line {number}: expected word<TAB>count")
            if len(count_text) > MAX_COUNT_DIGITS and count_text.isascii() and count_text.isdigit():
                raise BPEError(f"{name}: line {number}: the count has {len(count_text):,} digits; a count has at "
                               f"most {MAX_COUNT_DIGITS}")
            if not count_text.isascii() or not count_text.isdigit() or int(count_text) < 1:
                raise BPEError(f"{name}: line {number}: the count must be a whole number of 1 or more, "
                               f"not {count_text!r}")
            try:
                word = unescape_word(word_text)
            except ValueError as exc:
                raise BPEError(f"{name}: line {number}: {exc}") from None
            if not word:
                raise BPEError(f"{name}: line {number}: empty word")
            if word in counts:
                raise BPEError(f"{name}: line {number}: the word {word_text!r} is listed twice")
            counts[word] = int(count_text)
    if header is None:
        raise BPEError(f"{name}: empty file, not a counts file")
    if header.words != len(counts) or header.total != sum(counts.values()):
        raise BPEError(
            f"{name}: the header says {header.words:,} words ({header.total:,} in all) but the file has "
            f"{len(counts):,} ({sum(counts.values()):,}); is it cut short?"
        )
    return counts, header


def check_compatible(header: CountsHeader, settings: Settings) -> None:
    """Refuse to train with settings that count differently from those that made the counts."""
    for key in SETTING_KEYS:
        made, wanted = getattr(header, key), getattr(settings, key)
        if made != wanted:
            raise BPEError(
                f"the counts were made with {key} {made!r} but training asks for {wanted!r}; "
                "count again with the same settings"
            )
