"""Text -> words for Unigram: SentencePiece's meta-space, exactly as Hugging Face's `Metaspace`.

The rule, in order:

1. Every occurrence of the unknown token's text (``<unk>``) is cut out first, leftmost first,
   and stands for the unknown token (it is a special "added token" in the exported
   ``tokenizer.json``, so `tokenizers` does the same).
2. In each remaining stretch of text every space U+0020 (only that character: tabs and newlines
   stay as they are) becomes "▁" (U+2581), and "▁" is put in front unless the stretch already
   starts with one.
3. The stretch is cut before every "▁": each word is "▁" followed by what comes up to the
   next "▁" ("a  b" -> "▁a", "▁", "▁b").

No normalization is applied. Character spans: each character of a word maps to the input
character it came from; the "▁" put in front maps to the stretch's first character, as there.

Training counts its words one step further (`training_words`): a word is cut at each line break
(CR or LF, each a word of its own) and then into runs of at most `MAX_TRAINING_WORD` characters.
No piece learned that way holds a line break with other characters, so encoding a whole word
cuts it at its line breaks just as training did ("▁end.↵↵Next" is "▁end.", "↵", "↵", "Next").
Without it a text's lines were one word wherever no space parted them ("↵↵Begin" was a piece),
and a text without spaces (Chinese, Japanese) was ONE word, each round of EM redoing it in log
space: 100,000 characters took 10 s, where its lines take 0.3 s. SentencePiece trains on lines
(of at most 4,192 bytes) for the same reasons. Text without line breaks or long words trains as
`tokenizers`' UnigramTrainer does with this pre-tokenizer.

>>> [w for w, _ in text_words("Hello  world\\n!")]
['▁Hello', '▁', '▁world\\n!']
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

META = "\u2581"
MAX_TRAINING_WORD = 1_000  # characters: a longer word is trained on as runs of this many
_LINE_BREAK = re.compile(r"([\r\n])")  # a line break, kept by `split` as a part of its own

# A word: its text and, per character, the index of the input character it stands for.
Word = tuple[str, list[int]]
# An item of a text: a word, or None for the unknown token's text at (start, end).
Item = tuple[Word | None, int, int]


def stretches(text: str, unk_token: str) -> list[tuple[int, int, bool]]:
    """``(start, end, is_unknown_token)`` covering the text, the unknown token's text cut out."""
    out: list[tuple[int, int, bool]] = []
    pos = 0
    while unk_token:
        found = text.find(unk_token, pos)
        if found < 0:
            break
        if found > pos:
            out.append((pos, found, False))
        out.append((found, found + len(unk_token), True))
        pos = found + len(unk_token)
    if pos < len(text):
        out.append((pos, len(text), False))
    return out


def stretch_words(stretch: str) -> list[str]:
    """The words of one stretch (rules 2 and 3)."""
    if not stretch:
        return []
    meta = stretch.replace(" ", META)
    if not meta.startswith(META):
        meta = META + meta
    words = meta.split(META)
    return [META + w for w in words[1:]]


def text_items(text: str, unk_token: str) -> list[Item]:
    """Words with their character indices, and the unknown token's occurrences, in text order."""
    items: list[Item] = []
    for start, end, is_unk in stretches(text, unk_token):
        if is_unk:
            items.append((None, start, end))
            continue
        pos = start
        for i, word in enumerate(stretch_words(text[start:end])):
            if i == 0 and text[start] not in (" ", META):  # the "▁" put in front
                index = [start] + list(range(start, start + len(word) - 1))
                pos = start + len(word) - 1
            else:
                index = list(range(pos, pos + len(word)))
                pos += len(word)
            items.append(((word, index), index[0], index[-1] + 1))
    return items


def text_words(text: str, unk_token: str = "<unk>") -> list[Word]:
    """The words of a text with their character indices (the unknown token's text left out)."""
    return [item[0] for item in text_items(text, unk_token) if item[0] is not None]


def training_words(stretch: str) -> list[str]:
    """The words of one stretch as training counts them: cut at line breaks, then into runs of at
    most `MAX_TRAINING_WORD` characters.

    >>> training_words("end.\\n\\nNext  step")
    ['▁end.', '\\n', '\\n', 'Next', '▁', '▁step']
    """
    out: list[str] = []
    for word in stretch_words(stretch):
        if len(word) <= MAX_TRAINING_WORD and "\n" not in word and "\r" not in word:
            out.append(word)
            continue
        for part in _LINE_BREAK.split(word):
            out.extend(part[i:i + MAX_TRAINING_WORD] for i in range(0, len(part), MAX_TRAINING_WORD))
    return out


def count_words(texts: Iterable[str], unk_token: str) -> Counter[str]:
    """Training's word counts over texts (`training_words`), in first-appearance order (the unknown
    token's text left out)."""
    counts: Counter[str] = Counter()
    for text in texts:
        if unk_token in text:
            parts = [text[s:e] for s, e, is_unk in stretches(text, unk_token) if not is_unk]
        else:
            parts = [text]
        for part in parts:
            counts.update(training_words(part))
    return counts
