"""The Tokenize page's pieces: one text through several tokenizers, counted and drawn. Pure.

No Streamlit here, and nothing kept between calls: `tokenized(model, text)` encodes the whole
text once, with any tokenizer (`AnyModel`: a merge list, our families, a tokenizer of parts), and
returns everything the page draws as plain, picklable data (so it can run in another process):
the counts and every id of the whole text, the first `MAX_CHIPS` tokens as escaped chips (the
one chip of `display.compare.token_chip`, so a token looks the same here as on every other page;
as text and as hex bytes), and the text those tokens cover cut into stretches, each with the
tokens it belongs to, which the page colours by token and links with the chips.
"""
from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from bpe_core import Tokenizer
from bpe_core.analysis import ComparedToken
from bpe_core.encoding import Encoding
from explorer.data.any_model import AnyModel
from explorer.display.compare import as_any, token_chip

if TYPE_CHECKING:
    import pandas as pd

MAX_TEXT_BYTES = 1_000_000  # text tokenized; a longer paste is cut here, with a message
MAX_CHIPS = 500  # tokens drawn per tokenizer (1,500 each took the browser 0.7 s more); counts cover the whole text
MAX_DRAWN_CHARS = 20_000  # characters of the coloured text at most (a text-mode token can be long)
MAX_COPY_IDS = 20_000  # ids in the copyable list; a download holds all of them
EXAMPLE_CHARS = 1_200  # an example text is about this long (cut at a paragraph or line end)

Piece = tuple[str, tuple[int, ...]]  # a stretch of the text and the drawn tokens it belongs to ((): none)


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


def size_choices(text: str, sizes: Sequence[float]) -> tuple[tuple[float, ...], bool]:
    """Of `sizes` (megabytes a page may cut `text` to), each that cuts it and then the first that
    takes it whole: the ones that give different texts; and whether the last takes it whole (not
    when `text` is longer than every size).

    >>> size_choices("x" * 109, (0.1, 0.5, 1.0)), size_choices("x" * 700_000, (0.1, 0.5, 1.0, 2.0))
    (((0.1,), True), ((0.1, 0.5, 1.0), True))
    >>> size_choices("x" * 700_000, (0.1, 0.5))
    ((0.1, 0.5), False)
    """
    whole = utf8_size(text) if len(text) * 4 > sizes[0] * 1_000_000 else 0
    cutting = tuple(s for s in sizes if s * 1_000_000 < whole)
    taking = tuple(s for s in sizes if s * 1_000_000 >= whole)[:1]
    return cutting + taking, bool(taking)


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
    """One tokenizer's encoding of a text, as the page draws it: counts and ids over the whole text,
    the first tokens as chips and the text they cover as `pieces`."""

    tokens: tuple[ComparedToken, ...]  # the first MAX_CHIPS tokens (not disputed: nothing compared here)
    count: int  # tokens in the whole text
    characters: int
    bytes: int
    unknown: int  # tokens that stand for text the vocabulary lacks
    special: int  # added and special tokens (`<s>`, `<|endoftext|>`) cut out of the text whole
    unknown_shown: tuple[bool, ...]  # per drawn token: unknown
    special_shown: tuple[bool, ...]  # per drawn token: added or special
    ids: array  # every token's id ("q": 8 bytes each; -1 for a token without one)
    pieces: tuple[Piece, ...] = ()  # the text the drawn tokens cover, stretch by stretch (`text_pieces`)
    drawn_chars: int = 0  # characters of the text in `pieces`
    chips: str = ""  # the drawn tokens as escaped chips with ids
    chips_hex: str = ""  # the same, tokens with bytes of their own as hex bytes

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

    def chips_for(self, *, as_bytes: bool) -> str:
        return self.chips_hex if as_bytes else self.chips

    def kinds(self) -> str:
        """One letter per drawn token: "u" unknown, "s" special, "." any other."""
        return "".join("u" if u else "s" if s else "." for u, s in zip(self.unknown_shown, self.special_shown))


def tokenized(tok: Tokenizer | AnyModel, text: str, *, max_chips: int = MAX_CHIPS,
              max_drawn_chars: int = MAX_DRAWN_CHARS) -> Tokenized:
    """Encode `text` with `tok` and draw its first tokens (BPEError when it cannot: say so to the user)."""
    model = as_any(tok)
    ids, head, unknown, special = _encode(model, text, max_chips)
    n = min(max_chips, len(ids))
    shown = tuple(ComparedToken(t, i, s, e, False) for t, i, (s, e) in zip(head.tokens[:n], ids[:n], head.spans[:n]))
    base = Tokenized(shown, len(ids), len(text), utf8_size(text), unknown, special,
                     tuple(map(bool, head.unknown[:n])) if head.unknown else (False,) * n,
                     tuple(map(bool, head.special[:n])) if head.special else (False,) * n,
                     array("q", ids))
    pieces = text_pieces(text, head.spans[:n], limit=max_drawn_chars)
    chips = chips_html(model, text, base)
    chips_hex = chips_html(model, text, base, as_bytes=True) if model.draws_bytes else chips
    return replace(base, pieces=pieces, drawn_chars=sum(len(p[0]) for p in pieces), chips=chips, chips_hex=chips_hex)


def tokenized_in_worker(texts: list[str], ref: tuple[str, object], report: object) -> Tokenized:
    """`tokenized` in a worker process (`explorer.data.tasks.tokenize_task`): the tokenizer `ref` names."""
    from explorer.data.tasks import resolve_model

    return tokenized(resolve_model(ref), texts[0])  # type: ignore[arg-type]  # any family's model


# A little of each kind of text a page meets (words, digits, punctuation, accents, another script, an
# emoji): encoding and drawing it once loads what a tokenizer needs for any text.
WARM_UP_TEXT = "Hello, world! 12345 naïve café — 東京 ☕ def f(x): return x\n"


def warm_up_in_worker(texts: list[str], refs: Sequence[tuple[str, object]], report: object) -> None:
    """Load each tokenizer `refs` names and draw a text with it, in a worker process kept for
    Tokenize's next long text (`explorer.data.tasks.tokenize_warm_up_task`).

    The text is long enough for a split pattern to make its faster twin (`bpe_core.fast_pattern`,
    made on the first text of TWIN_FROM characters: 0.1-0.2 s a pattern), which the long text then finds made.
    """
    from bpe_core.fast_pattern import TWIN_FROM
    from explorer.data.tasks import resolve_model

    text = WARM_UP_TEXT * (TWIN_FROM // len(WARM_UP_TEXT) + 1)
    for ref in refs:
        tokenized(resolve_model(ref), text)  # type: ignore[arg-type]  # any family's model


# Drawing needs the spans of the first tokens only, and the spans of a whole text cost several times
# its ids. So the whole text is encoded to ids, and only a start of it with spans; that start is
# trusted when its first tokens, and MARGIN more, are the whole text's (a cut can change only the
# tokens near it). The counts need each token's flags: a token is special only when cut out as an
# added token (it has an added token's id), and unknown when it has the unknown token's id (or -1,
# a token the vocabulary lacks in a model without an unknown token). So when the ids hold no added
# token's id and no -1, nothing is special and the unknown tokens are those of the unknown id;
# otherwise the whole text is encoded with its flags, as it is when no start is trusted.
MARGIN = 64


def _encode(model: AnyModel, text: str, n: int) -> tuple[list[int], Encoding, int, int]:
    """The text's ids, an encoding of (at least) its first `n` tokens, its unknown and special counts."""
    ids = model.encode_ids(text)
    if frozenset({-1, *(t.id for t in model.added_tokens)}).isdisjoint(ids):
        head = _head(model, text, ids, n)
        if head is not None:
            unk = model.vocab.get(model.unk_token) if model.unk_token is not None else None
            return ids, head, ids.count(unk) if unk is not None else 0, 0
    enc = model.encoding(text)
    return enc.ids, enc, sum(enc.unknown or ()), sum(enc.special or ())


def _head(model: AnyModel, text: str, ids: Sequence[int], n: int) -> Encoding | None:
    """An encoding of a start of `text` whose first n + MARGIN tokens are the whole text's (None: none found)."""
    need = n + MARGIN
    if len(ids) <= need:
        return None
    cut = int(need * 1.5 * len(text) / len(ids)) + 256  # characters: half again what the average token needs
    for _ in range(4):
        if cut >= len(text):
            return None
        head = model.encoding(text[:_cut_at_space(text, cut)])
        if len(head.ids) >= need:
            return head if head.ids[:need] == list(ids[:need]) else None
        cut *= 2
    return None


def _cut_at_space(text: str, cut: int) -> int:
    """Where to end a start of `text` of about `cut` characters: after a line end or space when one is near.

    >>> _cut_at_space("one two three", 9)
    8
    """
    for mark in ("\n", " "):
        at = text.rfind(mark, cut // 2, cut)
        if at >= 0:
            return at + 1
    return cut


def text_pieces(text: str, spans: Sequence[tuple[int, int]], *, limit: int = MAX_DRAWN_CHARS) -> tuple[Piece, ...]:
    """The text from its start to the end of the last span (at most `limit` characters), cut at every
    span's ends, each stretch with the tokens whose spans hold it. A character split between tokens
    (bytes of one character) belongs to all of them; text no token holds (the spaces word mode
    drops) to none; a token of no text (a separate `</w>`) has no stretch.

    >>> text_pieces("ab c", [(0, 2), (3, 4)])
    (('ab', (0,)), (' ', ()), ('c', (1,)))
    >>> text_pieces(" 語", [(0, 2), (1, 2), (1, 2)])
    ((' ', (0,)), ('語', (0, 1, 2)))
    """
    end = min(max((e for _, e in spans), default=0), limit, len(text))
    cuts = sorted({0, end, *(s for s, _ in spans if s < end), *(e for _, e in spans if e < end)})
    order = sorted(range(len(spans)), key=lambda k: spans[k][0])
    out: list[Piece] = []
    active: list[int] = []
    j = 0
    for a, b in zip(cuts, cuts[1:]):
        while j < len(order) and spans[order[j]][0] <= a:
            active.append(order[j])
            j += 1
        active = [k for k in active if spans[k][1] > a]  # a span ends at a cut, so each holds all of [a, b)
        owners = tuple(sorted(active))
        if out and out[-1][1] == owners:
            out[-1] = (out[-1][0] + text[a:b], owners)
        else:
            out.append((text[a:b], owners))
    return tuple(out)


def chips_html(tok: Tokenizer | AnyModel, text: str, result: Tokenized, *, as_bytes: bool = False) -> str:
    """The drawn tokens as escaped chips with ids (`as_bytes`: tokens with bytes of their own as hex bytes).

    Each chip sits in a box that names its token's place (`data-i`), so Tokenize can link a chip with its
    stretch of the text; the box (`tk-c`) is an inline span, of no layout of its own (`display: contents`)
    where Tokenize's styles are loaded (`ui/live_text/token_text.css`).
    """
    model = as_any(tok)
    inner = "".join(f'<span class="tk-c" data-i="{k}">'
                    f"{token_chip(model, text, item, as_hex=as_bytes, unknown=unknown, special=special)}</span>"
                    for k, (item, unknown, special)
                    in enumerate(zip(result.tokens, result.unknown_shown, result.special_shown)))
    more = (f'<span class="bpe-more" title="only the first tokens are drawn">… {result.count - len(result.tokens):,} '
            "more tokens</span>") if result.cut else ""
    return f'<span class="bpe-chips">{inner or "<em>no tokens</em>"}{more}</span>'


def ids_text(ids: Sequence[int], limit: int | None = None) -> str:
    """Token ids as a list to copy (JSON, and what `python -m bpe_core decode` reads).

    >>> ids_text([464, 2068, 7586], 2)
    '[464, 2068]'
    """
    return "[" + ", ".join(map(str, ids[:limit] if limit is not None else ids)) + "]"


def shown_note(result: Tokenized) -> str:
    """A sentence when only the first tokens are drawn ("" when all are)."""
    if not result.cut:
        return ""
    return (f"Showing the first {len(result.tokens):,} of {result.count:,} tokens; "
            "the counts are over the whole text.")


def text_more(result: Tokenized) -> str:
    """What follows the coloured text when it stops before the text does ("" when it is all drawn)."""
    left = result.characters - result.drawn_chars
    return f" … {left:,} more characters, not coloured" if left > 0 and result.count else ""


def ids_note(result: Tokenized, limit: int = MAX_COPY_IDS) -> str:
    """A sentence when the copyable list holds only the first ids ("" when it holds them all)."""
    if result.count <= limit:
        return ""
    return f"The list holds the first {limit:,} of {result.count:,} ids; the download holds them all."


def counts_frame(labels: Sequence[str], results: Sequence[Tokenized], vocab_sizes: Sequence[int]) -> pd.DataFrame:
    """One row per tokenizer: tokens, characters and bytes per token, vocabulary size, unknown tokens."""
    import pandas as pd  # here: a worker that tokenizes draws no table

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
