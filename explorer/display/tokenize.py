"""The Tokenize page's pieces: one text through several tokenizers, counted and drawn. Pure.

No Streamlit here. `tokenized` encodes the whole text once, with any tokenizer (`AnyModel`: a
merge list, our families, a tokenizer of parts), and keeps the counts of the whole text and the
first `MAX_CHIPS` tokens to draw; `chips_html` draws them with the one chip of
`display.compare.token_chip` (ids, unknown and special tokens, hex bytes on request), so a token
looks the same here as on every other page.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from bpe_core import Tokenizer
from bpe_core.analysis import ComparedToken
from explorer.data.any_model import AnyModel
from explorer.display.compare import as_any, token_chip

MAX_TEXT_BYTES = 1_000_000  # text tokenized; a longer paste is cut here, with a message
MAX_CHIPS = 1_500  # tokens drawn per tokenizer; the counts are always over the whole text
EXAMPLE_CHARS = 1_200  # an example text is about this long (cut at a paragraph or line end)


def cap_text(text: str, limit: int = MAX_TEXT_BYTES) -> tuple[str, bool]:
    """The text cut to at most `limit` UTF-8 bytes (at a character boundary), and whether it was cut.

    >>> cap_text("aé日", 4)
    ('aé', True)
    """
    if len(text) * 4 <= limit:  # cheap check first: a character is at most four bytes
        return text, False
    data = text.encode("utf-8", errors="surrogatepass")
    if len(data) <= limit:
        return text, False
    return data[:limit].decode("utf-8", errors="ignore"), True


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def excerpt(text: str, limit: int = EXAMPLE_CHARS) -> str:
    """The start of a text, about `limit` characters, ending at a paragraph or line end when one is near.

    >>> excerpt("one two.\\n\\nthree four five", 12)
    'one two.'
    """
    if len(text) <= limit:
        return text
    head = text[:limit]
    for end in ("\n\n", "\n", ". ", " "):
        cut = head.rfind(end)
        if cut >= limit // 2:
            return head[:cut + (1 if end == ". " else 0)].rstrip()
    return head


@dataclass(frozen=True)
class Tokenized:
    """One tokenizer's encoding of a text: counts over the whole text, the first tokens to draw."""

    tokens: tuple[ComparedToken, ...]  # the first MAX_CHIPS tokens (not disputed: nothing compared here)
    count: int  # tokens in the whole text
    characters: int
    bytes: int
    unknown: int  # tokens that stand for text the vocabulary lacks
    special: int  # added and special tokens (`<s>`, `<|endoftext|>`) cut out of the text whole
    unknown_shown: tuple[bool, ...]  # per drawn token: unknown
    special_shown: tuple[bool, ...]  # per drawn token: added or special

    @property
    def characters_per_token(self) -> float:
        return self.characters / self.count if self.count else 0.0

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.count if self.count else 0.0

    @property
    def cut(self) -> bool:
        """Whether only the first tokens are drawn."""
        return self.count > len(self.tokens)


def tokenized(tok: Tokenizer | AnyModel, text: str, *, max_chips: int = MAX_CHIPS) -> Tokenized:
    """Encode `text` with `tok` (BPEError when it cannot: say so to the user)."""
    enc = as_any(tok).encoding(text)
    n = min(max_chips, len(enc.ids))
    shown = tuple(ComparedToken(t, i, s, e, False) for t, i, (s, e) in zip(enc.tokens[:n], enc.ids[:n], enc.spans[:n]))
    unknown, special = enc.unknown or [], enc.special or []
    return Tokenized(shown, len(enc.ids), len(text), utf8_size(text), sum(unknown), sum(special),
                     tuple(map(bool, unknown[:n])) if unknown else (False,) * n,
                     tuple(map(bool, special[:n])) if special else (False,) * n)


def chips_html(tok: Tokenizer | AnyModel, text: str, result: Tokenized, *, as_bytes: bool = False) -> str:
    """The drawn tokens as escaped chips with ids (`as_bytes`: tokens with bytes of their own as hex bytes)."""
    model = as_any(tok)
    inner = "".join(token_chip(model, text, item, as_hex=as_bytes, unknown=unknown, special=special)
                    for item, unknown, special in zip(result.tokens, result.unknown_shown, result.special_shown))
    more = (f'<span class="bpe-more" title="only the first tokens are drawn">… {result.count - len(result.tokens):,} '
            "more tokens</span>") if result.cut else ""
    return f'<span class="bpe-chips">{inner or "<em>no tokens</em>"}{more}</span>'


def shown_note(result: Tokenized) -> str:
    """A sentence when only the first tokens are drawn ("" when all are)."""
    if not result.cut:
        return ""
    return (f"Showing the first {len(result.tokens):,} of {result.count:,} tokens; "
            "the counts are over the whole text.")


def counts_frame(labels: Sequence[str], results: Sequence[Tokenized], vocab_sizes: Sequence[int]) -> pd.DataFrame:
    """One row per tokenizer: tokens, characters and bytes per token, vocabulary size, unknown tokens."""
    return pd.DataFrame(
        {
            "tokenizer": list(labels),
            "tokens": [r.count for r in results],
            "characters per token": [round(r.characters_per_token, 2) for r in results],
            "bytes per token": [round(r.bytes_per_token, 2) for r in results],
            "vocabulary": list(vocab_sizes),
            "unknown tokens": [r.unknown for r in results],
        }
    )
