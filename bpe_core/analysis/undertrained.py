"""Under-trained token candidates, from a tokenizer and a reference corpus alone.

Tokens the model behind a tokenizer rarely or never saw in training get poorly trained
embeddings. Two signs point at them without the model:

- *rare*: encoding a reference corpus produces the token at most `threshold` times (never, by
  default). A guess that depends on the corpus: a 200k-token vocabulary has most tokens unused
  by a few megabytes of English.
- *unreachable*: encoding the token's own text alone does not give that token, so the merge
  rules (or the pre-tokenizer) stand in its way. Encoding the text alone is the test:
  * byte-level tokens whose bytes are whole UTF-8 text, and text-mode tokens, are encoded as text
    (normalization, pre-tokenizer and merges, with tiktoken's rule that a piece that is itself a
    token is that token);
  * byte-level tokens whose bytes are not whole UTF-8 text (the first bytes of a character) can
    only come from merges, so the merges alone are applied to their bytes;
  * word-mode tokens: one ending in the end-of-word marker is its word, encoded as a word; one
    without the marker is a piece inside longer words, so the merges alone are applied to its
    characters. (With merge-list BPE a piece inside a longer word is made exactly when the merges
    on its own symbols make it: merges inside it happen in rank order whatever surrounds it.)

One more kind is listed though encoding its text alone does give it: with tiktoken's rule a piece
of text that is itself a token is that token, so a rank-file token its merges cannot build
(Llama 3 has hundreds) appears only when a whole pre-token is exactly its text, never inside a
longer one (`WHOLE`).

A token of one symbol is always reachable; `<unk>` is never listed. The unreachable list depends
on the tokenizer only, so it is computed once per tokenizer (each token's text encoded once) and
kept while the tokenizer lives.
"""
from __future__ import annotations

import threading
import weakref
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ..encoder import encode_ranked
from ..model import Tokenizer
from ..pretokenize import char_to_byte, normalize, require_str, split_words
from ..settings import BPEError
from .segments import token_text

PRETOKENIZER = "pretokenizer"  # the pre-tokenizer cuts its text into several pieces
MERGES = "merges"  # one piece, but the merges stop short of the token
NORMALIZED = "normalized"  # the tokenizer's normalization changes its text
PARTIAL = "partial"  # its bytes are no whole UTF-8 text and the merges on them stop short
INSIDE = "inside"  # a word-mode piece inside words: the merges on its characters stop short
WHOLE = "whole"  # reachable alone only by tiktoken's rule (a piece that is a token is it), not by merges


@dataclass(frozen=True, slots=True)
class Unreachable:
    """A token that encoding its own text does not produce: what is produced instead, and why."""

    token: str
    token_id: int
    pieces: tuple[str, ...]  # the tokens its text (or bytes) encodes as
    kind: str  # PRETOKENIZER, MERGES, NORMALIZED, PARTIAL, INSIDE or WHOLE
    reason: str  # one plain sentence, tokens drawn as the app draws them


@dataclass(frozen=True, slots=True)
class RareToken:
    """A token encoding the reference corpus produces at most the threshold number of times."""

    token: str
    token_id: int
    count: int


@lru_cache(maxsize=1)
def _latin1_of_symbol() -> dict[int, int]:
    return {ord(ch): b for ch, b in char_to_byte().items()}


def _token_bytes(token: str) -> bytes | None:
    """A byte-level token's bytes (None when it holds a character that is no byte symbol)."""
    latin = token.translate(_latin1_of_symbol())
    try:
        return latin.encode("latin-1")
    except UnicodeEncodeError:
        return None


def _shown(pieces: tuple[str, ...] | list[str], byte_level: bool) -> str:
    return ", ".join(f"“{token_text(p, byte_level=byte_level)}”" for p in pieces)


def _check(tokenizer: Tokenizer, token: str, token_id: int) -> Unreachable | None:
    """None when encoding the token's own text alone gives the token; what it gives instead otherwise."""
    settings = tokenizer.settings
    byte_level = settings.mode == "bytes"
    table = tokenizer.table
    if byte_level:
        data = _token_bytes(token)
        if data is None:
            return None  # not a byte string (a special token spelled otherwise): nothing to test
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            pieces = tuple(encode_ranked(list(token), table))
            if pieces == (token,):
                return None
            return Unreachable(token, token_id, pieces, PARTIAL,
                               f"its bytes are no whole UTF-8 text, and merging them gives {_shown(pieces, True)}")
    elif settings.mode == "word":
        marker = settings.marker
        if token == marker:
            return None  # a base symbol
        if not (marker and token.endswith(marker) and len(token) > len(marker)):
            pieces = tuple(encode_ranked(list(token), table))
            if pieces == (token,):
                return None
            return Unreachable(token, token_id, pieces, INSIDE,
                               f"inside a word, its characters merge into {_shown(pieces, False)}")
        text = token[: -len(marker)]
    else:
        text = token
    norm = normalize(text, settings)
    if norm != text:
        pieces = tuple(tokenizer.encode(text).tokens)
        return Unreachable(token, token_id, pieces, NORMALIZED,
                           f"the tokenizer normalizes its text to “{norm}”, which encodes as "
                           f"{_shown(pieces, byte_level)}")
    words = split_words(norm, settings)
    if len(words) == 1:
        pieces = tuple(tokenizer.encode_word(words[0]))
        if pieces == (token,):
            if not (byte_level and table.concat):
                return None
            merged = tuple(encode_ranked(list(token), table))
            if merged == (token,):
                return None
            return Unreachable(token, token_id, merged, WHOLE,
                               f"its merges give {_shown(merged, True)}: it is made only when a whole piece of "
                               "text is exactly it, never inside a longer one")
        return Unreachable(token, token_id, pieces, MERGES, f"its own text encodes as {_shown(pieces, byte_level)}")
    pieces = tuple(p for w in words for p in tokenizer.encode_word(w))
    cut = ", ".join(f"“{token_text(w, byte_level=False)}”" for w in words)
    reason = f"the pre-tokenizer cuts its text into {cut}, which encode as {_shown(pieces, byte_level)}"
    if encode_ranked(tokenizer.initial_symbols(text), table) == [token]:
        # Merges inside a piece happen in rank order whatever surrounds it: a longer piece can hold it.
        reason += "; its merges alone do make it, so it may still come up inside a longer piece"
    return Unreachable(token, token_id, pieces, PRETOKENIZER, reason)


_FOUND: weakref.WeakKeyDictionary[Tokenizer, tuple[Unreachable, ...]] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def unreachable_tokens(tokenizer: Tokenizer) -> tuple[Unreachable, ...]:
    """Every token that encoding its own text alone does not produce, by token id (and the WHOLE kind).

    Computed once per tokenizer (a few seconds for 200k tokens) and kept while it lives.

    >>> from bpe_core import train
    >>> unreachable_tokens(train("low low lower", merges=3))
    ()
    """
    with _LOCK:
        found = _FOUND.get(tokenizer)
    if found is not None:
        return found
    out = []
    unk = tokenizer.unk_token
    for token, token_id in sorted(tokenizer.vocab.items(), key=lambda item: item[1]):
        if token == unk or len(token) < 2:
            continue
        miss = _check(tokenizer, token, token_id)
        if miss is not None:
            out.append(miss)
    result = tuple(out)
    with _LOCK:
        _FOUND[tokenizer] = result
    return result


def token_counts(tokenizer: Tokenizer, text: str) -> Counter[int]:
    """How many times encoding `text` produces each token id (ids never produced are absent)."""
    require_str(text)
    settings = tokenizer.settings
    words = Counter(split_words(normalize(text, settings), settings))
    counts: Counter[int] = Counter()
    vocab, unk_id = tokenizer.vocab, tokenizer.unk_id
    for word, n in words.items():
        for token in tokenizer.encode_word(word):
            token_id = vocab.get(token, unk_id)
            if token_id is not None:
                counts[token_id] += n
    return counts


def rare_tokens(tokenizer: Tokenizer, text: str, *, threshold: int = 0) -> tuple[RareToken, ...]:
    """Tokens that encoding `text` produces at most `threshold` times, fewest first, then by id.

    >>> from bpe_core import train
    >>> tok = train("low low lower", merges=3)
    >>> [(r.token, r.count) for r in rare_tokens(tok, "low lower lower", threshold=1)]
    [('l', 0), ('o', 0), ('w', 0), ('ow', 0), ('low</w>', 1)]
    """
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
        raise BPEError(f"the threshold is a whole number of times, 0 or more; not {threshold!r}")
    counts = token_counts(tokenizer, text)
    unk = tokenizer.unk_token
    rows = [RareToken(t, i, counts.get(i, 0)) for t, i in tokenizer.vocab.items()
            if t != unk and counts.get(i, 0) <= threshold]
    rows.sort(key=lambda r: (r.count, r.token_id))
    return tuple(rows)
