"""Safe cuts: places where a text can be split so that counting the parts gives the whole's counts.

A cut before character i is *safe* when, for the settings' normalization, lowercasing and word
splitting, `count_words([text[:i]]) + count_words([text[i:]]) == count_words([text])`, word order
included. Streaming and sharding rely on it: a reader hands out pieces cut only there, and a
byte-range partition that starts mid-file finds, from a few bytes around its start, the same cut the
partition before it ends on.

The rules are local (the two characters before the cut and the one after), and each is chosen so
that (1) the cut is a grapheme-cluster boundary whatever surrounds it, so the per-cluster
normalization and lowercasing of `pretokenize.normalize` give the same characters piecewise, and
(2) no word of the splitting can hold the characters on both sides, and no lookahead or `$` in the
split pattern sees past the cut differently:

- word mode (`str.split`): after "\\n"; or between an ASCII letter/digit and a space.
- text mode, whitespace pre-tokenizer (`\\s*\\S+|\\s+`, whitespace stays on the following piece):
  between a printable ASCII character and a space or tab; or before "\\n" when the character
  before is not whitespace (so not the CR of a CRLF).
- the gpt2, gpt4, o200k and qwen patterns: between an ASCII letter/digit and a space; between
  a letter (one that normalizes to end in a letter) and a space or a CJK punctuation mark of
  `CJK_STOPS` (no word of these patterns holds a letter followed by either); or after a
  "\\n" that follows a non-whitespace character and precedes a letter. ("a \\n" + "b" is not safe
  for gpt2: `\\s+(?!\\S)` keeps " \\n" together only at the end of a text; "。\\n" + "/" is not
  safe for o200k, whose punctuation run takes the "/" after the newline.)
- pre-tokenizer "none": never (a whole text is one word).

Characters near a cut are also checked after normalization: NFKC turns a few letters into a space
and a mark (U+FE70 ARABIC FATHATAN ISOLATED FORM -> " \\u064b"). The property tests in
tests/core/test_sources.py check every rule against `count_words` on random texts.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import regex

from .pretokenize import normalize
from .settings import Settings

_WS = regex.compile(r"\s")
_LETTER = regex.compile(r"\p{L}")
_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_PRINTABLE = frozenset(chr(c) for c in range(0x21, 0x7F))

# Where a cut may be (the predicate below decides): at a newline, or before a space (or tab).
# Plain `re` character classes: the scan for a partition's first cut runs over raw bytes.
# CJK punctuation (ideographic and fullwidth forms) before which the regex pre-tokenizers always
# cut after a letter: Chinese, Japanese and Thai text may go on for megabytes without an ASCII
# space, and without a cut a stretch is held whole.
CJK_STOPS = "\u3001\u3002\u300a\u300b\u300c\u300d\u300e\u300f\u3010\u3011\uff01\uff08\uff09\uff0c\uff1a\uff1b\uff1f"
_TRIGGERS = {
    "word": re.compile(r"[\n ]"),
    "space": re.compile(r"[\n \t]"),
    "regex": re.compile(f"[\n {CJK_STOPS}]"),
}
_BYTE_TRIGGERS = {
    "word": re.compile(rb"[\n ]"),
    "space": re.compile(rb"[\n \t]"),
    "regex": re.compile(b"[\n ]|" + b"|".join(re.escape(c.encode("utf-8")) for c in CJK_STOPS)),
}


def cut_kind(settings: Settings) -> str:
    """Which rule set applies: "word", "space", "regex" or "none" (never cut)."""
    if settings.pretokenizer == "none":
        return "none"
    if settings.mode == "word":
        return "word"
    if settings.pretokenizer == "whitespace":
        return "space"
    return "regex"


def _is_ws(ch: str) -> bool:
    return ch.isspace() or _WS.match(ch) is not None


def _ends_solid(ch: str, settings: Settings) -> bool:
    """`ch` is no whitespace, and neither is the last character it normalizes to."""
    if not ch or _is_ws(ch):
        return False
    out = normalize(ch, settings)
    return bool(out) and not _is_ws(out[-1])


def _starts_letter(ch: str, settings: Settings) -> bool:
    """`ch` is a letter, and so is the first character it normalizes to."""
    if not ch or _LETTER.match(ch) is None:
        return False
    out = normalize(ch, settings)
    return bool(out) and _LETTER.match(out[0]) is not None


def _ends_letter(ch: str, settings: Settings) -> bool:
    """`ch` is a letter, and so is the last character it normalizes to (a word of every regex
    pre-tokenizer ends at a letter followed by a space or by punctuation that is no apostrophe)."""
    if ch in _ALNUM:
        return True
    if _LETTER.match(ch) is None:
        return False
    out = normalize(ch, settings)
    return bool(out) and _LETTER.match(out[-1]) is not None


def cut_ok(kind: str, prev2: str, prev1: str, cur: str, settings: Settings) -> bool:
    """Whether a cut between `prev1` and `cur` (with `prev2` before them) is safe for `kind`.

    A missing character is "" (start or end of the data), which never allows a cut.

    >>> cut_ok("regex", "a", "\\n", "b", Settings(mode="bytes"))
    True
    >>> cut_ok("regex", " ", "\\n", "b", Settings(mode="bytes"))
    False
    """
    if not prev1 or not cur or kind == "none":
        return False
    if kind == "word":
        return prev1 == "\n" or (prev1 in _ALNUM and cur == " ")
    if kind == "space":
        if prev1 in _PRINTABLE and cur in " \t":
            return True
        return cur == "\n" and _ends_solid(prev1, settings)
    if prev1 in _ALNUM and cur == " ":
        return True
    if prev1 == "\n":
        return _ends_solid(prev2, settings) and _starts_letter(cur, settings)
    return (cur == " " or cur in CJK_STOPS) and _ends_letter(prev1, settings)


def _trigger_cut(kind: str, at: int, char: int | str) -> int:
    """The cut a trigger character at `at` proposes: after a newline (before it for the
    whitespace pre-tokenizer of text mode), before a space or tab."""
    if char in ("\n", 10) and kind != "space":
        return at + 1
    return at


def text_cuts(text: str, settings: Settings, *, start: int = 0) -> Iterator[int]:
    """Safe cut positions in `text` at or after `start`, strictly inside the text, in order."""
    kind = cut_kind(settings)
    if kind == "none":
        return
    n = len(text)
    for match in _TRIGGERS[kind].finditer(text, max(0, start - 1)):
        at = match.start()
        cut = _trigger_cut(kind, at, text[at])
        if cut < start or cut <= 0 or cut >= n:
            continue
        prev2 = text[cut - 2] if cut >= 2 else ""
        if cut_ok(kind, prev2, text[cut - 1], text[cut], settings):
            yield cut


def last_text_cut(text: str, settings: Settings, *, start: int = 0) -> int | None:
    """The last safe cut in `text` at or after `start`, or None (looked for from the end, in
    widening windows, so a long text with many cuts is not scanned whole)."""
    window = 1024
    while True:
        lo = max(start, len(text) - window)
        last = None
        for cut in text_cuts(text, settings, start=lo):
            last = cut
        if last is not None or lo == start:
            return last
        window *= 8


def _is_cont(byte: int) -> bool:
    return 0x80 <= byte < 0xC0


def _seq_len(lead: int) -> int:
    if lead < 0x80:
        return 1
    if 0xC2 <= lead < 0xE0:
        return 2
    if 0xE0 <= lead < 0xF0:
        return 3
    if 0xF0 <= lead < 0xF5:
        return 4
    return 1


def char_before(data: bytes, pos: int) -> str:
    """The character that ends at byte `pos` as a UTF-8 decoder reading the whole stream sees it
    ("\\ufffd" for an undecodable byte, "" at the start).

    A lead byte always starts a fresh sequence, so the sequence from the last lead byte decodes
    the same here as in the whole stream; if it does not decode, the stream has U+FFFD there too.
    """
    if pos <= 0:
        return ""
    k = pos - 1
    while k > 0 and pos - k < 4 and _is_cont(data[k]):
        k -= 1
    try:
        text = data[k:pos].decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd"
    return text if len(text) == 1 else "\ufffd"


def char_at(data: bytes, pos: int) -> str:
    """The character starting at byte `pos` (a non-continuation byte), "\\ufffd" if undecodable,
    "" at the end of the data (or if the data stops inside it)."""
    if pos >= len(data):
        return ""
    lead = data[pos]
    size = _seq_len(lead)
    if pos + size > len(data):
        return ""
    try:
        return data[pos : pos + size].decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd"


def byte_cuts(data: bytes, settings: Settings, *, start: int, final: bool) -> Iterator[int]:
    """Safe cut positions (byte offsets into `data`) at or after `start`, in order.

    `data` must hold at least 5 bytes before `start` when there are any (the context the rules
    read). A cut whose next character is not wholly in `data` is left out unless `final` (then the
    data ends there, and the end of the data is no cut either: the caller knows it is one).
    """
    kind = cut_kind(settings)
    if kind == "none":
        return
    n = len(data)
    for match in _BYTE_TRIGGERS[kind].finditer(data, max(0, start - 1)):
        at = match.start()
        cut = _trigger_cut(kind, at, data[at])
        if cut < start or cut <= 0 or cut >= n:
            continue
        cur = char_at(data, cut)
        if not cur:
            if final:
                continue
            return
        prev1 = char_before(data, cut)
        prev2 = char_before(data, cut - len(prev1.encode("utf-8"))) if prev1 == "\n" else ""
        if cut_ok(kind, prev2, prev1, cur, settings):
            yield cut
