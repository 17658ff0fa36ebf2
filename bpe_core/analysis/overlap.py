"""How two vocabularies differ: the tokens they share, the tokens only one has, by length in bytes.

Tokens are compared by what they stand for, not by how a file spells them, so tokenizers of
different modes and formats can be compared:

- A bytes-mode token is its bytes: GPT-2's `Ġthe` and a text-mode ` the` are both the four
  bytes ` the` and compare equal. (GPT-2's `<|endoftext|>` is spelled in byte characters, so
  it is compared as the 13 bytes of its text, like any other token.)
- A text- or word-mode token is the UTF-8 bytes of its characters: a word-mode `lo` (a piece
  inside a word) equals a byte-level `lo`.
- A token that ends in the end-of-word marker (`low</w>`: `low` at the end of a word) is its
  own kind: it equals only another tokenizer's `low</w>`, never a byte-level `low` or `Ġlow`,
  which stand for other places in a word. Its length is that of `low`; a lone `</w>` has 0 bytes.
- The unknown token (`<unk>`) and special tokens that are no byte sequence are specials: one
  equals only a special of the same text in the other vocabulary, and counts as 0 bytes long
  (it stands for no text of its own).
- A tokenizer of another family, or of parts, has no modes: each token is the bytes it stands for
  in the middle of a text (`token_bytes`: a continuation `##ing` is `ing`, a meta-space `▁the` is
  ` the`), and its family's special tokens (`Family.special_tokens`) are specials.

>>> from bpe_core import Settings, train
>>> a = train("ab ab abc", merges=2)                                      # a b c </w> ab ab</w> <unk>
>>> b = train("ab ab abc", merges=2, settings=Settings(mode="bytes"))     # 256 bytes, ab, Ġab
>>> o = vocabulary_overlap(a, b)
>>> [o.shown(k) for k in o.shared], [o.shown(k) for k in o.only_a]
(['a', 'b', 'c', 'ab'], ['</w>', 'ab</w>', '<unk>'])
>>> len(o.only_b), o.jaccard == 4 / (7 + 258 - 4)
(254, True)
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import filterfalse

from ..families.registry import family_of
from ..model import Tokenizer
from ..pretokenize import byte_to_char
from ..settings import EOW
from ..tokenizer_model import TokenizerModel
from .segments import bytes_text

# What a token stands for: its bytes, for most tokens; (EOW, bytes without the marker) for a
# token at the end of a word; (SPECIAL, its UTF-8 text) for the unknown token or a special token.
# Plain bytes, not a tuple, for the common case: 400k keys are made and hashed per comparison.
SPECIAL = "special"
Key = bytes | tuple[str, bytes]


@dataclass(frozen=True)
class LengthCount:
    """How many shared, A-only and B-only tokens stand for `length` bytes."""

    length: int
    shared: int
    only_a: int
    only_b: int


@dataclass(frozen=True)
class Overlap:
    """Two vocabularies compared by the bytes their tokens stand for.

    `shared` and `only_a` are in A's id order, `only_b` in B's; `spelling_a` / `spelling_b` give
    each key's token as that tokenizer writes it (`Ġthe`, `low</w>`).
    """

    size_a: int
    size_b: int
    shared: tuple[Key, ...]
    only_a: tuple[Key, ...]
    only_b: tuple[Key, ...]
    spelling_a: dict[Key, str]
    spelling_b: dict[Key, str]

    @property
    def jaccard(self) -> float:
        """Shared tokens over the tokens of either vocabulary; 0.0 when both are empty."""
        union = self.size_a + self.size_b - len(self.shared)
        return len(self.shared) / union if union else 0.0

    @cached_property
    def by_length(self) -> list[LengthCount]:
        """Counts by token length in bytes, shortest first (every length that occurs)."""
        shared, only_a, only_b = (Counter(map(key_length, keys)) for keys in (self.shared, self.only_a, self.only_b))
        lengths = sorted(shared.keys() | only_a.keys() | only_b.keys())
        return [LengthCount(n, shared[n], only_a[n], only_b[n]) for n in lengths]

    def shown(self, key: Key) -> str:
        """The token as the app draws it: decoded bytes (`·the`), `</w>` kept, specials as text."""
        return shown_key(key)

    def spelling(self, key: Key) -> str:
        """The token as A writes it, or as B does when A lacks it."""
        found = self.spelling_a.get(key)
        return found if found is not None else self.spelling_b[key]


def key_length(key: Key) -> int:
    """A token's length in bytes: its bytes, without an end-of-word marker; 0 for a special."""
    if isinstance(key, bytes):
        return len(key)
    kind, data = key
    return 0 if kind == SPECIAL else len(data)


def shown_key(key: Key) -> str:
    """A key drawn as the app draws tokens (`bytes_text`), the marker kept, a special as its text.

    >>> shown_key(" the".encode()), shown_key((EOW, b"low")), shown_key((SPECIAL, b"<unk>"))
    ('·the', 'low</w>', '<unk>')
    """
    if isinstance(key, bytes):
        return bytes_text(key)
    kind, data = key
    if kind == SPECIAL:
        return data.decode("utf-8", "replace")
    return bytes_text(data) + (EOW if kind == EOW else "")


def key_text(key: Key) -> str:
    """A key's plain text for searching: its bytes decoded (invalid bytes as U+FFFD), marker kept."""
    if isinstance(key, bytes):
        return key.decode("utf-8", "replace")
    kind, data = key
    return data.decode("utf-8", "replace") + (EOW if kind == EOW else "")


def vocabulary_keys(tokenizer: TokenizerModel) -> dict[Key, str]:
    """Each token's key -> the token, in id order; of tokens with one key the lowest id wins."""
    vocab = tokenizer.vocab
    tokens = list(vocab)
    if list(vocab.values()) != list(range(len(tokens))):  # most files list their tokens in id order
        tokens.sort(key=vocab.__getitem__)
    special = {tokenizer.unk_token} if tokenizer.unk_token is not None else set()
    special.add("")
    keys: list[Key]
    if not isinstance(tokenizer, Tokenizer):  # no modes or markers: the bytes it stands for
        special.update(family_of(tokenizer).special_tokens(tokenizer))
        keys = [_special(token) if token in special else tokenizer.token_bytes(token) for token in tokens]
    elif tokenizer.settings.mode == "bytes":
        keys = _byte_level_keys(tokens, special)
    else:
        keys = [_text_key(token, special, tokenizer.settings.marker) for token in tokens]
    found = dict(zip(keys, tokens))
    if len(found) < len(tokens):  # a key twice (rare): keep the first token, not the last
        found = {}
        for key, token in zip(keys, tokens):
            found.setdefault(key, token)
    return found


def vocabulary_overlap(a: TokenizerModel, b: TokenizerModel) -> Overlap:
    """Compare two vocabularies by the bytes their tokens stand for (see the module's notes)."""
    keys_a = vocabulary_keys(a)
    keys_b = keys_a if b is a else vocabulary_keys(b)
    in_a, in_b = keys_a.__contains__, keys_b.__contains__
    return Overlap(
        size_a=len(keys_a),
        size_b=len(keys_b),
        shared=tuple(filter(in_b, keys_a)),
        only_a=tuple(filterfalse(in_b, keys_a)),
        only_b=tuple(filterfalse(in_a, keys_b)),
        spelling_a=keys_a,
        spelling_b=keys_b,
    )


def _byte_level_keys(tokens: list[str], special: set[str]) -> list[Key]:
    # Each byte symbol becomes the Latin-1 character of its byte, anything else U+FFFF (which
    # Latin-1 cannot encode); all in C, one pass over the vocabulary, when no token is special.
    translated = [token.translate(_symbols_to_latin1()) for token in tokens]
    if not special.intersection(tokens):
        try:
            return [text.encode("latin-1") for text in translated]
        except UnicodeEncodeError:
            pass
    keys: list[Key] = []
    for token, text in zip(tokens, translated):
        try:
            keys.append(text.encode("latin-1") if token not in special else _special(token))
        except UnicodeEncodeError:
            keys.append(_special(token))
    return keys


def _text_key(token: str, special: set[str], marker: str) -> Key:
    if token in special:
        return _special(token)
    if marker and token.endswith(marker):
        return EOW, token[: -len(marker)].encode("utf-8", "surrogatepass")
    return token.encode("utf-8", "surrogatepass")


def _special(token: str) -> Key:
    return SPECIAL, token.encode("utf-8", "surrogatepass")


@lru_cache(maxsize=1)
def _symbols_to_latin1() -> dict[int, str]:
    """str.translate table: byte symbol -> the Latin-1 character of its byte; other Latin-1 -> U+FFFF."""
    table: dict[int, str] = {code: "\uffff" for code in range(256)}
    for byte, symbol in enumerate(byte_to_char()):
        table[ord(symbol)] = chr(byte)
    return table
