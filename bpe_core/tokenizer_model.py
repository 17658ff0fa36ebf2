"""What every tokenizer here answers, whatever its family or file: one model interface.

A BPE `Tokenizer`, the models of the other families (`bpe_core.families`) and a
tokenizer of parts read from a file (`bpe_core.parts.pipeline.PartsTokenizer`) all have these
names, so a page or a command holds any of them the same way; `bpe_core.families.registry`
says which family an object is and what is particular to it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol, runtime_checkable

from .encoding import Encoding


@runtime_checkable
class TokenizerModel(Protocol):
    """A tokenizer of any family.

    `encode` gives tokens, ids, character spans and which tokens are unknown (or special), and
    `count_unknown` how many are unknown (for most models, from the ids alone);
    `token_bytes` the bytes a token stands for in the middle of a text (its markers read: `##`,
    `▁`, GPT-2's byte letters, `</w>`); `merges` the ranked merge list, or None for a model that
    has none (longest match, scored pieces, WordLevel). Writing one to a file is its family's
    (`bpe_core.families.registry`): a BPE `Tokenizer` leaves that to `bpe_core.formats`.
    """

    # Read-only properties, so a class may keep either as a plain attribute or a property.
    @property
    def vocab(self) -> Mapping[str, int]: ...

    @property
    def unk_token(self) -> str | None: ...

    def encode(self, text: str) -> Encoding: ...

    def encode_ids(self, text: str) -> list[int]: ...

    def count_unknown(self, text: str) -> int:
        """How many of `text`'s tokens `encode` flags unknown, by the model's fastest way to know."""
        ...

    def encode_tokens(self, text: str) -> list[str]: ...

    def decode(self, ids: Iterable[int]) -> str: ...

    def token_bytes(self, token: str) -> bytes: ...

    @property
    def merges(self) -> Sequence[tuple[str, str]] | None: ...


def spans_encoding(spans: Sequence[tuple[str, int, int]], vocab: Mapping[str, int],
                   unknown_id: int | None) -> Encoding:
    """An `Encoding` of (token, start, end) triples: ids from the vocabulary, a token it lacks
    given `unknown_id` (-1 without one) and flagged unknown, as is every token of that id.

    >>> spans_encoding([("a", 0, 1), ("zz", 1, 3)], {"<unk>": 0, "a": 1}, 0).ids
    [1, 0]
    """
    tokens, ids, where, unknown = [], [], [], []
    missing = -1 if unknown_id is None else unknown_id
    for token, start, end in spans:
        token_id = vocab.get(token, missing)
        tokens.append(token)
        ids.append(token_id)
        where.append((start, end))
        unknown.append(token_id == missing)
    return Encoding(tokens, ids, where, unknown)
