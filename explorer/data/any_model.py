"""A tokenizer of any family behind one face, wherever it came from. Pure: no Streamlit here.

`family_view` reads the sidebar's `Trained` bundle; the Tokenize, Compare, Unseen words, Vocabulary
and Import/export pages also hold tokenizers that are no bundle (an imported file, a built-in), so
`AnyModel` wraps any of them: a BPE `Tokenizer`; a WordPiece, Unigram or SuperBPE model (SuperBPE
keeps its merge view, a bytes-mode `Tokenizer`, beside it for merge trees and ranks); or a tokenizer
of parts (`bpe_core.parts.pipeline.PartsTokenizer`: any `tokenizer.json`, a SentencePiece model,
Tekken, a rank file with its own pattern), which answers for itself: its `Encoding` flags unknown
and special tokens, and `token_bytes` says what each token stands for. Segments are
`family_view.Piece`s, so a page draws every tokenizer's tokens the same way.
"""
from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from weakref import WeakKeyDictionary

from bpe_core import BPEError, Tokenizer
from bpe_core.analysis import bytes_text, token_bytes_of, token_text
from bpe_core.families import SuperBPEModel, UnigramModel, WordPieceModel
from bpe_core.families.superbpe import is_superword
from bpe_core.hierarchy import MergeNode, merge_tree
from bpe_core.model import Encoding
from bpe_core.parts.added import AddedToken
from bpe_core.parts.pipeline import PartsTokenizer
from bpe_core.pretokenize import bytes_to_symbols, char_to_byte
from explorer.data.family_view import FAMILY_TITLES, Piece, family_of, token_surface
from explorer.data.token_texts import bytes_surface, plain, visible

FamilyModel = WordPieceModel | UnigramModel | SuperBPEModel
PARTS = "parts"  # the family of a tokenizer of parts; its model's `kind` says BPE, WordPiece, Unigram or WordLevel
_CLASSES: dict[type, str] = {WordPieceModel: "wordpiece", UnigramModel: "unigram", SuperBPEModel: "superbpe",
                             PartsTokenizer: PARTS}
SOURCE_TITLES = {"huggingface": "tokenizer.json", "sentencepiece": "SentencePiece", "tekken": "Tekken",
                 "tiktoken": "tiktoken"}  # where a tokenizer of parts was read from, as its title says it


def family_of_model(obj: object) -> str:
    """"bpe", "wordpiece", "unigram", "superbpe" or "parts" for a loaded model object."""
    if isinstance(obj, Tokenizer):
        return "bpe"
    for cls, family in _CLASSES.items():
        if isinstance(obj, cls):
            return family
    raise BPEError(f"not a tokenizer of a known family: {type(obj).__name__}")


# A tokenizer of parts is wrapped once (built-ins are shared by every session): its merge view
# (`birth` of 100,000s of merges) is then derived once, not on every rerun of a page.
_parts_wrapped: WeakKeyDictionary[PartsTokenizer, AnyModel] = WeakKeyDictionary()
_parts_lock = threading.Lock()


@dataclass(frozen=True, eq=False)
class AnyModel:
    """One tokenizer of any family: `tokenizer` (BPE; SuperBPE's merge view) and/or `model`."""

    family: str
    tokenizer: Tokenizer | None
    model: Any = None  # WordPieceModel | UnigramModel | SuperBPEModel | PartsTokenizer, None for BPE

    @classmethod
    def of(cls, obj: object) -> AnyModel:
        """Wrap a loaded object: a `Tokenizer`, a family model or a tokenizer of parts."""
        family = family_of_model(obj)
        if isinstance(obj, Tokenizer):
            return cls(family, obj)
        if isinstance(obj, PartsTokenizer):
            with _parts_lock:
                found = _parts_wrapped.get(obj)
                if found is None:
                    found = _parts_wrapped[obj] = cls(family, None, obj)
            return found
        return cls(family, obj.tokenizer if isinstance(obj, SuperBPEModel) else None, obj)

    @classmethod
    def of_trained(cls, trained: Any) -> AnyModel:
        """Wrap a `Trained` bundle of any family (one from before families existed is BPE)."""
        family = family_of(trained)
        if family == "bpe":
            return cls("bpe", trained.tokenizer)
        model = getattr(trained, "model", None)
        if model is None:
            raise BPEError(f"this {FAMILY_TITLES[family]} training has no model")
        return cls.of(model)

    # ---- what it is -------------------------------------------------------------------------

    @property
    def parts(self) -> PartsTokenizer | None:
        """The tokenizer of parts this wraps (None for our own families)."""
        return self.model if isinstance(self.model, PartsTokenizer) else None

    @property
    def title(self) -> str:
        """The family ("WordPiece"), or a tokenizer of parts' model and file kind ("Unigram (tokenizer.json)")."""
        parts = self.parts
        if parts is None:
            return FAMILY_TITLES[self.family]
        return f"{parts.kind} ({SOURCE_TITLES.get(parts.source, parts.source or 'file')})"

    @property
    def kind(self) -> str:
        """The model as files name it: "BPE", "WordPiece", "Unigram", "WordLevel" (SuperBPE for ours)."""
        return self.parts.kind if self.parts is not None else FAMILY_TITLES[self.family]

    @property
    def merge_based(self) -> bool:
        """Ranked merges with the engine's merge views: life stories, merge steps (BPE and SuperBPE)."""
        return self.tokenizer is not None

    @property
    def byte_level(self) -> bool:
        """Tokens of GPT-2's byte symbols ("Ġ" for a space) in our own BPE; see `drawn` for any tokenizer."""
        return self.tokenizer is not None and self.tokenizer.settings.mode == "bytes"

    @property
    def draws_bytes(self) -> bool:
        """Whether tokens are drawn from the bytes they stand for (byte-level BPE, a tokenizer of parts),
        so each also has a hex view of its own bytes."""
        return self.byte_level or self.parts is not None

    @property
    def vocab(self) -> dict[str, int]:
        return self.tokenizer.vocab if self.model is None else self.model.vocab

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @cached_property
    def merges(self) -> Sequence[tuple[str, str]] | None:
        """The ranked merge list: BPE's, SuperBPE's merge view's, a tokenizer of parts' BPE model's
        (a rank table's derived on first use); None without one (WordPiece, Unigram, WordLevel)."""
        if self.tokenizer is not None:
            return self.tokenizer.merges
        parts = self.parts
        merges = getattr(parts.model, "merges", None) if parts is not None else None
        return merges

    @property
    def merge_count(self) -> int | None:
        """Merges in the model (None for WordPiece's training steps and Unigram: no ranked merges)."""
        merges = self.merges
        return None if merges is None else len(merges)

    @property
    def added_tokens(self) -> Sequence[AddedToken]:
        """A tokenizer of parts' added and special tokens (content, id, special); our families have none."""
        return self.parts.added_tokens if self.parts is not None else ()

    @property
    def added_rule(self) -> str:
        """What happens to the added tokens in a text: cut out whole (`tokenizers`), or read as ordinary
        text (sentencepiece and Tekken, which give them ids only when a program asks for them)."""
        if self.parts is not None and not self.parts.split_added:
            return "read as ordinary text when they appear in a text, as the reference library does"
        return "cut out of the text whole, before the model"

    @property
    def scores(self) -> Sequence[float] | None:
        """Each id's log-probability: a Unigram's (ours or a file's); None for a model without scores."""
        return getattr(self.parts.model if self.parts is not None else self.model, "scores", None)

    @property
    def unk_token(self) -> str | None:
        if self.model is None:
            return self.tokenizer.unk_token
        return getattr(self.model, "unk_token", None)

    @cached_property
    def birth(self) -> dict[str, int]:
        """Token -> the 0-based step that made it: a merge's rank (BPE, SuperBPE, a tokenizer of parts'
        BPE), a WordPiece training step that added a token; empty for a model without either."""
        if self.tokenizer is not None:
            return self.tokenizer.birth
        if self.family == "wordpiece":
            return {step.token: step.step - 1 for step in self.model.trace if step.added}
        out: dict[str, int] = {}
        for rank, (left, right) in enumerate(self.merges or ()):
            out.setdefault(left + right, rank)  # a token made twice: its first merge counts
        return out

    # ---- encoding ---------------------------------------------------------------------------

    def encoding(self, text: str) -> Encoding:
        """`text` as the engine's `Encoding`: tokens, ids, spans and, per token, unknown and special."""
        if self.model is not None and self.parts is None:
            return pieces_encoding(self.segment(text))
        if self.parts is not None:
            return _unknown_by_id(self.parts.encode(text), self.vocab.get(self.unk_token or ""))
        encoding = self.tokenizer.encode(text)
        unk = self.tokenizer.unk_id
        return Encoding(encoding.tokens, encoding.ids, encoding.spans, [unk is not None and i == unk
                                                                        for i in encoding.ids])

    def segment(self, text: str) -> list[Piece]:
        """`text` as this tokenizer encodes it, with character spans (as `family_view.segment`)."""
        if self.model is None or self.parts is not None:
            enc = self.encoding(text)
            return [Piece(t, i, s, e, enc.is_unknown(k), False, enc.is_special(k))
                    for k, (t, i, (s, e)) in enumerate(zip(enc.tokens, enc.ids, enc.spans))]
        model, vocab = self.model, self.model.vocab
        out: list[Piece] = []
        for token, start, end in model.encode_with_spans(text):
            token_id = vocab.get(token)
            if self.family == "wordpiece":
                out.append(Piece(token, token_id, start, end, token == model.unk_token, False))
            elif self.family == "unigram":
                unknown = token_id is None or token_id == model.unk_id
                out.append(Piece(token, model.unk_id if token_id is None else token_id, start, end, unknown, False))
            else:
                out.append(Piece(token, token_id, start, end, False, is_superword(token)))
        return out

    def encode_ids(self, text: str) -> list[int]:
        return self.tokenizer.encode(text).ids if self.model is None else self.model.encode_ids(text)

    def encode_tokens(self, text: str) -> list[str]:
        if self.parts is not None:
            return self.parts.encode(text).tokens
        return self.tokenizer.encode(text).tokens if self.model is None else self.model.encode(text)

    # ---- tokens -----------------------------------------------------------------------------

    def token_bytes(self, token: str) -> bytes:
        """The bytes a token stands for in the middle of a text (a special token: its text's)."""
        if self.parts is not None:
            return self.parts.token_bytes(token)
        if self.tokenizer is not None:
            return token_bytes_of(self.tokenizer, token)
        return self.surface(token).encode("utf-8", "surrogatepass")

    def surface(self, token: str) -> str:
        """The text a token stands for, the family's markers read (`family_view.token_surface`); a
        tokenizer of parts' from its bytes, a part of a character as a hex group (`<e6 97>`)."""
        if self.parts is not None:
            return bytes_surface(self.parts.token_bytes(token))
        return token_surface(self.family, token, byte_level=self.byte_level if self.family == "bpe" else None)

    def drawn(self, token: str) -> tuple[str, bool]:
        """A token as `render.chip_html` and `token_text` draw it: its spelling, and whether that is byte symbols.

        A tokenizer of parts' token is drawn from the bytes it stands for, so `▁the`, `Ġthe` and
        `<0xE6>` are drawn `·the`, `·the` and `<e6>`: its spelling here is those bytes' symbols.
        """
        if self.parts is not None:
            return bytes_to_symbols(self.parts.token_bytes(token)), True
        return token, self.byte_level

    def drawn_tree(self, token: str) -> MergeNode:
        """The token's merge tree over `merges` (a leaf without them), each node spelled as `drawn` spells it."""
        if not self.merges:
            return MergeNode(self.drawn(token)[0])
        tree = merge_tree(self, token)  # type: ignore[arg-type]  # it reads only `birth` and `merges`, which this has
        return _respelled(tree, self)

    def spelled(self, token: str) -> str:
        """A token as its model writes it, in the shown form: GPT-2's byte letters read where they are
        what the token stands for (`Ġthe` is `·the`), any other marker kept (`▁the`, `##ing`, `<0xE6>`)."""
        return self.texts(token)[0]

    def texts(self, token: str) -> tuple[str, str]:
        """`spelled` and `surface` at once: a tokenizer of parts reads the token's bytes once (a
        vocabulary of 250,000 tokens is listed whole)."""
        if self.parts is None:
            spelled = token if plain(token) and not self.byte_level else token_text(token, byte_level=self.byte_level)
            return spelled, self.surface(token)
        data = self.model.token_bytes(token)
        table = char_to_byte()
        if all(ch in table for ch in token) and bytes(map(table.__getitem__, token)) == data:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = "\ufffd"
            spelled = bytes_text(data) if "\ufffd" in text else visible(text)  # bytes_text: U+FFFD as its bytes
        else:
            spelled = token if plain(token) else token_text(token)
        return spelled, bytes_surface(data)

    def shown(self, token: str) -> str:
        """A token as plain text in the shown form (`token_text` of `drawn`)."""
        spelling, byte_level = self.drawn(token)
        return token_text(spelling, byte_level=byte_level)

    def is_special(self, token: str) -> bool:
        """An added token marked special (`<s>`, `<|endoftext|>`); our own families have none."""
        return self.parts is not None and self.parts.is_special(token)

    def overlap_key(self, token: str) -> str:
        """A token compared across families: its text without a word-start space or end-of-word marker.

        >>> AnyModel.of(WordPieceModel(["[UNK]", "low", "##er"])).overlap_key("##er")
        'er'
        """
        text = self.surface(token)
        return text[1:] if text.startswith(" ") and len(text) > 1 else text

    def is_continuation(self, token: str) -> bool:
        """A piece that continues a word ("##ing"): WordPiece's, or a file's model with a continuation prefix."""
        if self.parts is not None:
            prefix = getattr(self.parts.model, "continuing_subword_prefix", None)
        else:
            prefix = self.model.prefix if self.family == "wordpiece" else None
        return bool(prefix) and token.startswith(prefix) and len(token) > len(prefix)

    def is_superword(self, token: str) -> bool:
        return self.family == "superbpe" and is_superword(token)


def _unknown_by_id(encoding: Encoding, unk_id: int | None) -> Encoding:
    """The encoding with every token of the unknown token's id flagged unknown: a Unigram model's
    unknown token is spelled as the text it stands for (`日本`), not as `<unk>`, so its spelling alone
    does not tell."""
    if unk_id is None or unk_id not in encoding.ids:
        return encoding
    flags = encoding.unknown or [False] * len(encoding.ids)
    unknown = [flag or token_id == unk_id for flag, token_id in zip(flags, encoding.ids)]
    return Encoding(encoding.tokens, encoding.ids, encoding.spans, unknown, encoding.special)


def _respelled(node: MergeNode, model: AnyModel) -> MergeNode:
    left = _respelled(node.left, model) if node.left is not None else None
    right = _respelled(node.right, model) if node.right is not None else None
    return MergeNode(model.drawn(node.token)[0], node.rank, left, right)


def pieces_encoding(pieces: Sequence[Piece]) -> Encoding:
    """Pieces as the engine's `Encoding` (an id the vocabulary lacks is -1), unknown and special kept."""
    return Encoding([p.token for p in pieces], [-1 if p.token_id is None else p.token_id for p in pieces],
                    [(p.start, p.end) for p in pieces], [p.unknown for p in pieces], [p.special for p in pieces])


def overlap_keys(model: AnyModel) -> frozenset[str]:
    """The distinct `overlap_key`s of a vocabulary, its unknown token left out."""
    unk = model.unk_token
    return frozenset(model.overlap_key(t) for t in model.vocab if t != unk)
