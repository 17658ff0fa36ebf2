"""Text -> pieces ("words") with character offsets, word counts, and each word's first symbols.

A *word* is whatever BPE merges inside: a whitespace-separated word (word mode), a pre-token
piece (text and bytes modes with a pre-tokenizer), or a whole text (text and bytes modes
without one). Merges never cross from one word into the next.
"""
from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache

import regex

from .fast_pattern import FastPattern
from .settings import BPEError, Settings

# The published split patterns of GPT-2, cl100k (GPT-4, also Llama 3's), o200k (GPT-4o) and Qwen.
# They are facts of those formats.
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# GPT-4o's (o200k_base): letters split at case changes, contractions stay on their word, digits
# in threes, and a run of punctuation keeps the newlines and slashes after it.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# Qwen2's and Qwen3's: cl100k's shape with every digit on its own (Qwen also NFC-normalizes first).
QWEN_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
# Text mode's own pre-tokenizer: split before each run of whitespace, which stays on the
# following piece ("like liker" -> "like", " liker"), so merges stay inside pieces.
LEADING_SPACE_PATTERN = r"""\s*\S+|\s+"""

_PATTERNS = {
    # str.split() also breaks on the separators U+001C..U+001F, which \s does not match.
    "whitespace": regex.compile(r"[^\s\x1c-\x1f]+"),
    "gpt2": regex.compile(GPT2_PATTERN),
    "gpt4": regex.compile(GPT4_PATTERN),
    "o200k": regex.compile(O200K_PATTERN),
    "qwen": regex.compile(QWEN_PATTERN),
}
_TEXT_WHITESPACE = regex.compile(LEADING_SPACE_PATTERN)
# Each pattern with its faster twin in `re`, which splitting uses where the text allows it.
_FAST = {name: FastPattern(rx) for name, rx in _PATTERNS.items()}
_FAST_TEXT_WHITESPACE = FastPattern(_TEXT_WHITESPACE)
_SURROGATE = regex.compile(r"[\ud800-\udfff]")
_GRAPHEME = regex.compile(r"\X")


@lru_cache(maxsize=1)
def byte_to_char() -> tuple[str, ...]:
    """GPT-2's printable stand-in for each byte value, indexed by the byte.

    Bytes that print as themselves keep their own code point; the others (controls, space,
    soft hyphen, ...) are moved, in byte order, to code points from 256 on.
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAC + 1), *range(0xAE, 0xFF + 1)]
    kept = set(keep)
    table: list[str] = []
    moved = 0
    for byte in range(256):
        if byte in kept:
            table.append(chr(byte))
        else:
            table.append(chr(256 + moved))
            moved += 1
    return tuple(table)


@lru_cache(maxsize=1)
def char_to_byte() -> dict[str, int]:
    return {ch: b for b, ch in enumerate(byte_to_char())}


@lru_cache(maxsize=1)
def _latin1_to_symbol() -> dict[int, str]:
    return dict(enumerate(byte_to_char()))


def bytes_to_symbols(data: bytes) -> str:
    """Bytes -> their printable stand-in characters, one character per byte."""
    # Latin-1 maps each byte to the code point of the same value; translate does the rest in C.
    return data.decode("latin-1").translate(_latin1_to_symbol())


_JOIN = "\uffff"  # a noncharacter: joins words for one pass over all of them when none holds it


def words_to_symbols(words: Sequence[str]) -> list[str]:
    """`bytes_to_symbols` of each word's UTF-8, in one pass over all of them (not a call a word).

    >>> words_to_symbols(["é", " a"])
    ['Ã©', 'Ġa']
    """
    joined = _JOIN.join(words)
    if not words or joined.count(_JOIN) != len(words) - 1:  # none, or a word holds the joiner
        return [bytes_to_symbols(w.encode("utf-8")) for w in words]
    # The joiner's three bytes occur in UTF-8 only as the joiner itself, so they cut the symbols back into words.
    return bytes_to_symbols(joined.encode("utf-8")).split(bytes_to_symbols(_JOIN.encode("utf-8")))


@lru_cache(maxsize=1)
def _symbol_set() -> frozenset[str]:
    return frozenset(byte_to_char())


@lru_cache(maxsize=1)
def _symbol_to_latin1() -> dict[int, int]:
    return {ord(ch): b for b, ch in enumerate(byte_to_char())}


def symbol_bytes(token: str) -> bytes | None:
    """The bytes a string of byte symbols stands for, or None when a character is no byte symbol
    (the fast test of a whole vocabulary: both steps run in C).

    >>> symbol_bytes("Ġcaf"), symbol_bytes("<|end|>"), symbol_bytes("a b")
    (b' caf', b'<|end|>', None)
    """
    if not _symbol_set().issuperset(token):
        return None
    return token.translate(_symbol_to_latin1()).encode("latin-1")


def symbols_to_bytes(symbols: str) -> bytes:
    """The inverse of `bytes_to_symbols`; raises BPEError for a character that is no byte."""
    table = char_to_byte()
    try:
        return bytes(table[ch] for ch in symbols)
    except KeyError as exc:
        raise BPEError(f"{exc.args[0]!r} is not a byte-level symbol") from None


def _normalize_piece(piece: str, settings: Settings) -> str:
    if settings.normalization != "none":
        piece = unicodedata.normalize(settings.normalization, piece)  # type: ignore[arg-type]  # checked by Settings
    if settings.lowercase:
        piece = piece.lower()
    return piece


def normalize(text: str, settings: Settings) -> str:
    """Apply Unicode normalization and lowercasing, one grapheme cluster at a time.

    Working per cluster (rather than on the whole text) lets `normalize_with_offsets` map every
    normalized character back to the input, and training and encoding use the same function.
    """
    if settings.normalization == "none" and not settings.lowercase:
        return text
    if text.isascii():
        return text.lower() if settings.lowercase else text
    if settings.lowercase:
        return _normalize_clusters(text, settings)
    # Most text is already in its form (NFC above all), and so is every cluster of it: a piece
    # of a normalized string is normalized. So only the lines that are not (a line ends a
    # cluster) go cluster by cluster.
    form = settings.normalization
    if unicodedata.is_normalized(form, text):  # type: ignore[arg-type]
        return text
    return "".join(
        line if unicodedata.is_normalized(form, line) else _normalize_clusters(line, settings)  # type: ignore[arg-type]
        for line in text.splitlines(keepends=True)
    )


def _normalize_clusters(text: str, settings: Settings) -> str:
    return "".join(_normalize_piece(g, settings) for g in _GRAPHEME.findall(text))


def normalize_with_offsets(text: str, settings: Settings) -> tuple[str, Sequence[int], Sequence[int]]:
    """Normalized text; for each of its characters (plus one past the end) the input offset where
    its grapheme cluster starts; and for each character the offset where that cluster ends.

    A cluster that normalizes to several characters (the ligature "ﬁ" -> "fi" under NFKC) gives
    each of them the whole cluster, so a token holding any part of it spans the input character.

    >>> normalize_with_offsets("ﬁx", Settings(normalization="NFKC"))
    ('fix', [0, 0, 1, 2], [1, 1, 2])
    """
    if settings.normalization == "none" and not settings.lowercase or text.isascii():
        return normalize(text, settings), range(len(text) + 1), range(1, len(text) + 1)
    parts: list[str] = []
    origin: list[int] = []
    ends: list[int] = []
    for match in _GRAPHEME.finditer(text):
        out = _normalize_piece(match.group(), settings)
        parts.append(out)
        origin.extend([match.start()] * len(out))
        ends.extend([match.end()] * len(out))
    origin.append(len(text))
    return "".join(parts), origin, ends


def split_spans(text: str, settings: Settings) -> Iterator[tuple[int, int]]:
    """(start, end) of each word of already-normalized text, in order."""
    name = settings.pretokenizer
    if name == "none":
        if text:
            yield 0, len(text)
        return
    for match in _fast_pattern(settings).for_text(text).finditer(text):
        yield match.span()


def split_words(text: str, settings: Settings) -> list[str]:
    """The words of already-normalized text, in order."""
    name = settings.pretokenizer
    if name == "none":
        return [text] if text else []
    if settings.mode == "word":
        return text.split()
    return _fast_pattern(settings).findall(text)


def _fast_pattern(settings: Settings) -> FastPattern:
    """The split pattern of a pre-tokenizer other than "none"."""
    name = settings.pretokenizer
    return _FAST_TEXT_WHITESPACE if settings.mode == "text" and name == "whitespace" else _FAST[name]


def count_words(texts: Iterable[str], settings: Settings) -> Counter[str]:
    """Word counts over several texts, ordered by first appearance (the order `first` relies on).

    In bytes mode the words are already written in byte symbols. Each text is split on its own,
    so no word spans two texts.
    """
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(split_words(normalize(text, settings), settings))
    if settings.mode == "bytes":
        # Distinct words are far fewer than words: convert each once.
        return Counter({bytes_to_symbols(w.encode("utf-8")): n for w, n in counts.items()})
    return counts


def counted_word_text(word: str, settings: Settings) -> str:
    """A word of `count_words` back as text: bytes-mode words are byte symbols there.

    Counted words were cut from text, so their bytes are whole UTF-8 characters.

    >>> counted_word_text("ĠhÃ©", Settings(mode="bytes")), counted_word_text("low", Settings())
    (' hé', 'low')
    """
    if settings.mode == "bytes":
        return symbols_to_bytes(word).decode("utf-8", errors="replace")
    return word


def word_symbols(word: str, settings: Settings) -> list[str]:
    """A word's symbols before any merge: characters (bytes mode: byte symbols) and the marker.

    >>> word_symbols("low", Settings())
    ['l', 'o', 'w', '</w>']
    >>> word_symbols("low", Settings(eow="suffix"))
    ['l', 'o', 'w</w>']
    """
    symbols = list(word)
    marker = settings.marker
    if marker and symbols:
        if settings.eow == "separate":
            symbols.append(marker)
        else:
            symbols[-1] += marker
    return symbols


def check_text(data: bytes, *, name: str = "input") -> str:
    """Decode an upload or file as UTF-8 text, refusing binary data with a clear message.

    A NUL byte anywhere in the data (not only near the start) marks it as binary.
    """
    if b"\x00" in data:
        raise BPEError(f"{name} looks like a binary file (it contains NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BPEError(
            f"{name} is not UTF-8 text (invalid byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None
    return text.removeprefix("\ufeff")


def type_name(value: object) -> str:
    """How a message names the type of a wrong argument ("int", "NoneType", "list")."""
    return type(value).__name__


def require_str(value: object, *, what: str = "the text") -> str:
    """`value` if it is a str of Unicode characters; a BPEError naming what is wrong otherwise.

    A lone surrogate (U+D800 to U+DFFF on its own, as a broken decode can leave) is no character:
    it has no UTF-8 bytes, so no mode could encode or decode it faithfully.

    >>> require_str("\\ud800x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bpe_core.settings.BPEError: the text holds a lone surrogate, U+D800 at character 0, which is not ...
    """
    if not isinstance(value, str):
        if isinstance(value, (bytes, bytearray)):
            raise BPEError(f"{what} must be a str, not {type_name(value)}: decode it first (UTF-8)")
        raise BPEError(f"{what} must be a str, not {type_name(value)}")
    if not value.isascii():
        found = _SURROGATE.search(value)
        if found is not None:
            raise BPEError(
                f"{what} holds a lone surrogate, U+{ord(found.group()):04X} at character {found.start():,}, "
                "which is not a Unicode character (a broken decode leaves these); remove it or decode "
                'the input with errors="replace"'
            )
    return value
