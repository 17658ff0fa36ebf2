"""SuperBPE (Liu et al., 2025, "SuperBPE: Space Travel for Language Models"): the pre-tokenizers of
its two phases, word counting for each, and the rules that bound a superword.

Byte-level BPE in two phases, one merge list:

- **Phase one** learns subwords: ordinary BPE inside the pre-tokens of the paper's stage-1 split
  (`STAGE1_PATTERN`: GPT-4o's o200k pattern without its English contraction suffixes, as the
  authors' `scripts/train_tokenizer.sh` has it), up to the *transition* vocabulary size.
- **Phase two** lifts the whitespace pre-tokenization and goes on merging. What it still keeps is
  the authors' stage-2 split (`STAGE2_PATTERN`, `scripts/extend_tokenizer.sh`), a Hugging Face
  `Split` with the `Isolated` behaviour: digits in groups of one to three, runs of two or more
  punctuation marks (with an optional leading space and the newlines or slashes after them), and
  runs of spaces that end at other whitespace or the end of the text are pieces of their own; all
  text between those matches (letters, single spaces, single punctuation marks, newlines) is one
  piece, so merges may cross spaces and newlines there.
- Phase two's merges also obey the two rules of the authors' `tokenizers` fork (`do_train_extend`):
  no token holding a colon followed by a space (`:Ġ`), and no token of more than four words, a
  word being a non-empty run between spaces (`len([w for w in token.split("Ġ") if w])`). A pair
  that breaks a rule is never merged.

Phase two starts from the phase-two pieces as the phase-one merges leave them (the fork replays
the inherited merges on them first). Encoding splits text with the phase-two split and applies
all merges by rank, which is what `tokenizers` does with the exported `tokenizer.json` (that
split, then `ByteLevel` without its regex).

A *superword* token is one whose bytes hold a non-whitespace byte, then one or more ASCII
whitespace bytes (space, tab, LF, VT, FF, CR), then a non-whitespace byte: it bridges a word
boundary. A leading or trailing space alone does not make one (`Ġthe` is a subword).
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator

import regex

from ..pretokenize import bytes_to_symbols, char_to_byte, count_words, require_str
from ..settings import BPEError, Settings

# The authors' two split patterns (facts of their released scripts).
STAGE1_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
STAGE2_PATTERN = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"

# Phase one's pre-tokenizer: the paper's own, or one of the engine's bytes-mode patterns.
PHASE_ONE_PRETOKENIZERS = ("superbpe", "gpt2", "gpt4", "o200k", "qwen")
MAX_WORDS = 4  # the fork's limit on words in one phase-two token
SPACE = bytes_to_symbols(b" ")  # "Ġ"
COLON_SPACE = bytes_to_symbols(b": ")  # ":Ġ"

_STAGE1 = regex.compile(STAGE1_PATTERN)
_STAGE2 = regex.compile(STAGE2_PATTERN)
WHITESPACE_SYMBOLS = frozenset(bytes_to_symbols(b" \t\n\x0b\x0c\r"))


def phase_two_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each phase-two piece: every match of STAGE2_PATTERN and every gap between.

    >>> t = "By the way, 12345 apples... ok  "
    >>> [t[s:e] for s, e in phase_two_spans(t)]
    ['By the way, ', '123', '45', ' apples', '...', ' ok', '  ']
    """
    pos = 0
    for match in _STAGE2.finditer(text):
        start, end = match.span()
        if start > pos:
            yield pos, start
        yield start, end
        pos = end
    if pos < len(text):
        yield pos, len(text)


def phase_two_pieces(text: str) -> list[str]:
    """The phase-two pieces of a text, in order (their concatenation is the text)."""
    return [text[s:e] for s, e in phase_two_spans(text)]


def phase_one_pieces(text: str, pretokenizer: str = "superbpe") -> list[str]:
    """The phase-one pre-tokens of a text (the paper's stage-1 split by default)."""
    if pretokenizer == "superbpe":
        return _STAGE1.findall(text)
    from ..pretokenize import split_words

    return split_words(text, Settings(mode="bytes", pretokenizer=pretokenizer))


def check_pretokenizer(name: object) -> str:
    if name not in PHASE_ONE_PRETOKENIZERS:
        raise BPEError(f"unknown phase-one pre-tokenizer {name!r}; choose one of: {', '.join(PHASE_ONE_PRETOKENIZERS)}")
    return str(name)


def _count(texts: Iterable[str], split: Callable[[str], list[str]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(split(text))
    return Counter({bytes_to_symbols(w.encode("utf-8")): n for w, n in counts.items()})


def count_phase_one(texts: Iterable[str], pretokenizer: str = "superbpe") -> Counter[str]:
    """Phase-one word counts in byte symbols, in order of first appearance (each text split alone)."""
    if check_pretokenizer(pretokenizer) == "superbpe":
        return _count(texts, _STAGE1.findall)
    return count_words(texts, Settings(mode="bytes", pretokenizer=pretokenizer))


def count_phase_two(texts: Iterable[str]) -> Counter[str]:
    """Phase-two word counts (pieces of `phase_two_spans`) in byte symbols, by first appearance.

    >>> count_phase_two(["see 42 cats", "see 42"])
    Counter({'seeĠ': 2, '42': 2, 'Ġcats': 1})
    """
    return _count(texts, phase_two_pieces)


def count_both(texts: str | Iterable[str], pretokenizer: str = "superbpe") -> tuple[Counter[str], Counter[str]]:
    """(phase-one counts, phase-two counts) of one text or several, after checking them."""
    if isinstance(texts, str):
        texts = [require_str(texts)]
    elif isinstance(texts, (bytes, bytearray)) or not isinstance(texts, Iterable):
        raise BPEError(f"train_superbpe takes a text (str) or a list of texts, not {type(texts).__name__}")
    else:
        texts = list(texts)
        for n, text in enumerate(texts, 1):
            require_str(text, what=f"text {n:,} of {len(texts):,}")
    return count_phase_one(texts, pretokenizer), count_phase_two(texts)


def words_in(token: str) -> int:
    """The fork's word count of a token in byte symbols: non-empty runs between spaces.

    >>> words_in("ĠofĠtheĠ"), words_in("ĠĠ")
    (2, 0)
    """
    return sum(1 for part in token.split(SPACE) if part)


def phase_two_allows(token: str, *, max_words: int | None = MAX_WORDS, colon_rule: bool = True) -> bool:
    """Whether phase two may make this token (byte symbols): the fork's two rules.

    >>> phase_two_allows("ĠaĠbĠcĠdĠe"), phase_two_allows("ĠaĠbĠcĠd"), phase_two_allows("x:Ġy")
    (False, True, False)
    """
    if colon_rule and COLON_SPACE in token:
        return False
    return max_words is None or token.count(SPACE) < max_words or words_in(token) <= max_words


def is_superword(token: str) -> bool:
    """Whether a token (byte symbols) bridges whitespace: non-space, whitespace, non-space bytes.

    >>> is_superword("ĠofĠthe"), is_superword("Ġthe"), is_superword("theĠ"), is_superword(".ĊĊThe")
    (True, False, False, True)
    """
    seen_text = gap = False
    for symbol in token:
        if symbol in WHITESPACE_SYMBOLS:
            gap = seen_text
        elif gap:
            return True
        else:
            seen_text = True
    return False


def word_cut(tokens: Iterable[str]) -> re.Pattern[str]:
    """A pattern that splits a string of byte symbols wherever no merge making one of `tokens`
    can join its two sides: between a non-whitespace symbol x and a whitespace symbol w after it,
    unless some token holds x followed by w. Merging by these tokens never crosses a cut.

    >>> word_cut(["Ġthe", ".Ċ"]).split("aĠtheĠend.ĊĊ")
    ['a', 'Ġthe', 'Ġend.ĊĊ']
    """
    joined = {t[i - 1: i + 1] for t in tokens for i in range(1, len(t)) if t[i] in WHITESPACE_SYMBOLS}
    spaces = sorted(WHITESPACE_SYMBOLS)
    # A whitespace symbol is looked for first; stdlib `re` runs this split several times faster
    # than `regex` does on phrases.
    after = {w: "".join(sorted(WHITESPACE_SYMBOLS | {p[0] for p in joined if p[1] == w})) for w in spaces}
    return re.compile(f"(?=[{_escaped(''.join(spaces))}])(?:" + "|".join(
        f"(?={_escaped(w)})(?<=[^{_escaped(after[w])}])" for w in spaces
    ) + ")")


def _escaped(chars: str) -> str:
    """Characters written to stand for themselves inside a regex character class."""
    return "".join(c if c.isalnum() else "\\" + c for c in chars)


def check_symbols(token: object, what: str) -> str:
    """A token written in byte symbols, or a one-line BPEError."""
    if not isinstance(token, str) or not token:
        raise BPEError(f"{what} must be a non-empty string of byte symbols, not {token!r}")
    table = char_to_byte()
    for ch in token:
        if ch not in table:
            raise BPEError(f"{what} {token!r} holds {ch!r}, which is not a byte-level symbol")
    return token
