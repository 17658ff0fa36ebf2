"""WordPiece's view of text: optional lowercasing, then BERT's pre-tokenization, with offsets.

Text -> words exactly as Hugging Face `tokenizers` cuts it with the `Lowercase` normalizer (when
asked) and the `BertPreTokenizer`: whitespace separates words and is dropped; every punctuation
character is a word of its own. Whitespace is Unicode's White_Space property. Punctuation is
every ASCII punctuation character (``$+<=>^`|~`` included, though Unicode files them as symbols)
and every character of the Unicode categories P*, as `tokenizers` 0.23.3 classifies them: its
table predates the punctuation added in recent Unicode versions, so the characters in
`_NEWER_PUNCTUATION` are letters of a word there (and here), and U+166D and U+111C9, punctuation
in older Unicode, still split. Measured over every code point against `tokenizers` 0.23.3.

Lowercasing maps each character on its own (`str.lower` per character, as Rust's
`char::to_lowercase`): a final capital sigma becomes "σ", not "ς", and "İ" becomes two characters
that both point back at it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import regex

_NEWER_PUNCTUATION = (
    r"\u061d\u09fd\u0a76\u0c77\u0c84\u1b4e-\u1b4f\u1b7d-\u1b7f\u2e43-\u2e4f\u2e52-\u2e5d\u2e60-\u2e63"
    r"\U00010d6e\U00010ead\U00010ed0\U00010f55-\U00010f59\U00010f86-\U00010f89\U000113d4-\U000113d5"
    r"\U000113d7-\U000113d8\U0001144b-\U0001144f\U0001145a-\U0001145b\U0001145d\U00011660-\U0001166c"
    r"\U000116b9\U0001183b\U00011944-\U00011946\U000119e2\U00011a3f-\U00011a46\U00011a9a-\U00011a9c"
    r"\U00011a9e-\U00011aa2\U00011b00-\U00011b09\U00011be1\U00011c41-\U00011c45\U00011c70-\U00011c71"
    r"\U00011ef7-\U00011ef8\U00011f43-\U00011f4f\U00011fff\U00012ff1-\U00012ff2\U00016d6d-\U00016d6f"
    r"\U00016e97-\U00016e9a\U00016fe2\U0001e5ff\U0001e95e-\U0001e95f"
)
_PUNCT = r"[[\p{P}!-/:-@\[-`{-~\u166d\U000111c9]--[" + _NEWER_PUNCTUATION + "]]"
_WORD = regex.compile(r"(?V1)[^\s" + _PUNCT + "]+|" + _PUNCT)
_PUNCTUATION = regex.compile(r"(?V1)" + _PUNCT)
# `str.split` cuts at U+001C..U+001F too, which BERT keeps inside words.
_SPLIT_ONLY = regex.compile(r"[\x1c-\x1f]")


def is_punctuation(char: str) -> bool:
    """Whether BERT's pre-tokenizer makes `char` a word of its own.

    >>> is_punctuation("$"), is_punctuation("-"), is_punctuation("a")
    (True, True, False)
    """
    return _PUNCTUATION.fullmatch(char) is not None


def lowercase_with_offsets(text: str) -> tuple[str, Sequence[int], Sequence[int]]:
    """Lowercased text; for each of its characters the input offset of the character it came
    from, and the offset just after it.

    >>> lowercase_with_offsets("İx")
    ('i̇x', [0, 0, 1], [1, 1, 2])
    """
    if text.isascii():
        return text.lower(), range(len(text)), range(1, len(text) + 1)
    lowered = [char.lower() for char in text]
    out = "".join(lowered)
    if len(out) == len(text):
        return out, range(len(text)), range(1, len(text) + 1)
    starts: list[int] = []
    ends: list[int] = []
    for i, piece in enumerate(lowered):
        starts.extend([i] * len(piece))
        ends.extend([i + 1] * len(piece))
    return out, starts, ends


def normalize(text: str, *, lowercase: bool) -> str:
    """The text the words are cut from: `text` itself, or lowercased character by character."""
    if not lowercase:
        return text
    return text.lower() if text.isascii() else "".join([char.lower() for char in text])


def split_words(text: str) -> list[str]:
    """BERT's words of already-normalized text, in order.

    >>> split_words("Don't stop-now!")
    ['Don', "'", 't', 'stop', '-', 'now', '!']
    """
    return _WORD.findall(text)


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each BERT word of already-normalized text."""
    return [m.span() for m in _WORD.finditer(text)]


def count_words(texts: Iterable[str], *, lowercase: bool = False) -> Counter[str]:
    """BERT word counts over several texts, in order of first appearance."""
    counts: Counter[str] = Counter()
    for text in texts:
        text = normalize(text, lowercase=lowercase)
        if _SPLIT_ONLY.search(text):
            counts.update(split_words(text))
            continue
        # Faster: count the whitespace chunks in C, then cut each distinct chunk once. Chunks come
        # in order of first appearance, so the pieces do too.
        for chunk, n in Counter(text.split()).items():
            if chunk.isalnum() and chunk.isascii():
                counts[chunk] += n
            else:
                for piece in split_words(chunk):
                    counts[piece] += n
    return counts


def resplit_counts(word_counts: Iterable[tuple[str, int]], *, lowercase: bool = False) -> Counter[str]:
    """Counted words (from any whitespace counting) cut again into BERT words, counts summed.

    Counts made by `bpe_core`'s word mode keep punctuation on its word ("stop-now!"); splitting
    each counted word again gives exactly BERT's words, since BERT also splits at whitespace first.
    """
    counts: Counter[str] = Counter()
    for word, count in word_counts:
        for piece in split_words(normalize(word, lowercase=lowercase)):
            counts[piece] += count
    return counts
