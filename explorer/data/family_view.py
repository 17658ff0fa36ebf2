"""Any trained family seen the same way: its text segmented, its vocabulary, its tokens' surfaces.

The pages that work for every family (Unseen words, Compare, Vocabulary, Import/export, Watch)
read a `Trained` bundle through these functions, so they need not know which engine made it:
BPE encodes through `bpe_core.Tokenizer`, WordPiece, Unigram and SuperBPE through their models'
`encode_with_spans` and `vocab`. Pure: no Streamlit here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bpe_core import BPEError
from bpe_core.families.superbpe import is_superword
from bpe_core.pretokenize import char_to_byte
from bpe_core.settings import EOW

FAMILIES = ("bpe", "wordpiece", "unigram", "superbpe")
FAMILY_TITLES = {"bpe": "BPE", "wordpiece": "WordPiece", "unigram": "Unigram", "superbpe": "SuperBPE"}
CONTINUATION = "##"  # WordPiece's continuation prefix (the engine's default, which the app trains with)
META_SPACE = "\u2581"  # Unigram's "▁": the space before a word


@dataclass(frozen=True)
class Piece:
    """One token of a text: the token as the model writes it, its id, its character span in the
    text, whether it stands for text the model does not know, whether it is a SuperBPE superword,
    whether it is an added or special token cut out of the text whole (`<s>`, `<|endoftext|>`)."""

    token: str
    token_id: int | None
    start: int
    end: int
    unknown: bool
    superword: bool
    special: bool = False


def family_of(trained: Any) -> str:
    """The bundle's family ("bpe" for a bundle from before families existed)."""
    request = getattr(trained, "request", None)
    family = getattr(request, "family", "bpe")
    return family if family in FAMILIES else "bpe"


def merge_based(trained: Any) -> bool:
    """Whether the model is a ranked merge list with a merge hierarchy (BPE and SuperBPE).

    WordPiece trains by merging too but encodes by longest match, so its merges are no ranks;
    Unigram has no merges at all.
    """
    return family_of(trained) in ("bpe", "superbpe")


def segment(trained: Any, text: str) -> list[Piece]:
    """`text` as the trained model of any family encodes it, with spans in the text's characters."""
    family = family_of(trained)
    if family == "bpe":
        tokenizer = trained.tokenizer
        encoding = tokenizer.encode(text)
        unk = tokenizer.unk_id
        return [
            Piece(token, token_id, start, end, unk is not None and token_id == unk, False)
            for token, token_id, (start, end) in zip(encoding.tokens, encoding.ids, encoding.spans)
        ]
    model = trained.model
    if model is None:
        raise BPEError(f"this {FAMILY_TITLES[family]} bundle has no model")
    vocab = model.vocab
    pieces: list[Piece] = []
    if family == "wordpiece":
        for token, start, end in model.encode_with_spans(text):
            pieces.append(Piece(token, vocab.get(token), start, end, token == model.unk_token, False))
    elif family == "unigram":
        for token, start, end in model.encode_with_spans(text):
            token_id = vocab.get(token)
            pieces.append(Piece(token, token_id if token_id is not None else model.unk_id, start, end,
                                token_id is None or token_id == model.unk_id, False))
    else:  # superbpe: byte level, nothing is unknown
        for token, start, end in model.encode_with_spans(text):
            pieces.append(Piece(token, vocab.get(token), start, end, False, is_superword(token)))
    return pieces


def vocabulary(trained: Any) -> list[tuple[int, str]]:
    """(id, token as the model writes it) of every vocabulary entry, in id order."""
    family = family_of(trained)
    if family == "bpe":
        vocab = trained.tokenizer.vocab
    else:
        vocab = trained.model.vocab
    return sorted((token_id, token) for token, token_id in vocab.items())


def _byte_text(token: str) -> str | None:
    """The text of a token of byte symbols, or None when some character is no byte symbol."""
    table = char_to_byte()
    try:
        data = bytes(table[ch] for ch in token)
    except KeyError:
        return None
    return data.decode("utf-8", errors="replace")


def token_surface(family: str, token: str, *, byte_level: bool | None = None) -> str:
    """The text a token stands for, the family's markers read: WordPiece's "##" continuation
    dropped, Unigram's meta-space "▁" a space, byte symbols ("Ġ" ...) their bytes as UTF-8 (a cut
    character shows as U+FFFD), BPE's end-of-word "</w>" dropped.

    `byte_level` says whether a BPE token is of byte symbols (bytes mode); None: SuperBPE's are,
    BPE's are not (a character-mode token may hold a character such as "Ġ" itself).

    >>> token_surface("wordpiece", "##ing"), token_surface("unigram", "\u2581the"), token_surface("superbpe", "ĠofĠthe")
    ('ing', ' the', ' of the')
    >>> token_surface("bpe", "low</w>"), token_surface("bpe", "Ġlow", byte_level=True)
    ('low', ' low')
    """
    if family == "wordpiece":
        return token[len(CONTINUATION):] if token.startswith(CONTINUATION) and len(token) > len(CONTINUATION) else token
    if family == "unigram":
        return token.replace(META_SPACE, " ")
    if byte_level is None:
        byte_level = family == "superbpe"
    if byte_level:
        text = _byte_text(token)
        if text is not None:
            return text
    if token.endswith(EOW) and len(token) > len(EOW):
        return token[: -len(EOW)]
    return token
