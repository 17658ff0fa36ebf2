"""A tokenizer of any family behind one face, wherever it came from. Pure: no Streamlit here.

The pages hold tokenizers trained in the sidebar (a `training.Trained` bundle), uploaded, or
built in. Each is an object of the one model interface (`bpe_core.tokenizer_model.TokenizerModel`):
it encodes a text into tokens with spans and unknown (and special) flags, says the bytes each
token stands for, and has its ranked merges or None. `AnyModel` adds what the pages draw from
that: a text's `Piece`s, a token's surface text and drawn spelling, the step that made a token,
merge trees. What is particular to a family (its merge view, the prefix of a piece that continues
a word, the tokens it marks) comes from its folder (`explorer.families.explorer_family`), so
nothing here names a family.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from weakref import WeakKeyDictionary

from bpe_core.analysis import bytes_text, token_text
from bpe_core.encoder import merge_births
from bpe_core.encoding import Encoding
from bpe_core.families.registry import Family, family_of
from bpe_core.hierarchy import MergeNode, merge_tree
from bpe_core.pretokenize import bytes_to_symbols, symbol_bytes
from explorer.data.token_texts import bytes_surface, plain, visible
from explorer.families import ExplorerFamily, Mark, explorer_family


@dataclass(frozen=True)
class Piece:
    """One token of a text: the token as the model writes it, its id (None when it has none), its
    character span in the text, whether it stands for text the model does not know, whether its
    family marks it (`AnyModel.mark`: a superword), whether it is an added or special token cut
    out of the text whole (`<s>`, `<|endoftext|>`)."""

    token: str
    token_id: int | None
    start: int
    end: int
    unknown: bool
    marked: bool
    special: bool = False


# Each model's births, derived once while it lives (built-ins are shared by every session, and a
# file's 100,000s of merges take a while), not on every rerun of a page. The values hold no
# reference to their model, so a model of this cache still goes when nothing else holds it.
_births: WeakKeyDictionary[Any, dict[str, int]] = WeakKeyDictionary()
# Each model as a tokenizer of parts (`pipeline`), made once while it lives, for the same reason.
_pipelines: WeakKeyDictionary[Any, Any] = WeakKeyDictionary()
_lock = threading.Lock()


@dataclass(frozen=True, eq=False)
class AnyModel:
    """One tokenizer of any family: `model`, an object of the model interface."""

    model: Any

    @classmethod
    def of(cls, obj: object) -> AnyModel:
        """Wrap a tokenizer object of any family; a one-line BPEError for anything else."""
        family_of(obj)  # the one-line error for an object that is no tokenizer
        return cls(obj)

    @classmethod
    def of_trained(cls, trained: Any) -> AnyModel:
        """Wrap a `Trained` bundle's model."""
        return cls.of(trained.tokenizer_model)

    # ---- what it is -------------------------------------------------------------------------

    @cached_property
    def entry(self) -> Family:
        """Its family's entry in the engine's registry (title, units, lesson row)."""
        return family_of(self.model)

    @property
    def family(self) -> str:
        """Its family's name ("bpe", "parts", ...): what `explorer.families` finds its folder by."""
        return self.entry.name

    @cached_property
    def shows(self) -> ExplorerFamily:
        """What the explorer shows of its family (`explorer/families/<name>/family.py`)."""
        return explorer_family(self.family)

    @property
    def title(self) -> str:
        """The family ("BPE"), or a file's model and kind ("BPE (tiktoken)")."""
        return self.shows.title(self.model) if self.shows.title is not None else self.entry.title

    @property
    def kind(self) -> str:
        """The model as files name it ("BPE", "WordLevel", ...; a family's title for ours)."""
        return self.shows.kind(self.model) if self.shows.kind is not None else self.entry.title

    @cached_property
    def tokenizer(self) -> Any:
        """The engine's merge-list `Tokenizer` over its merges (merge trees, ranks, life stories), or None."""
        return self.shows.merge_view(self.model)

    @property
    def merge_based(self) -> bool:
        """Whether it has the engine's merge views: life stories, merge steps, a timeline of merges."""
        return self.tokenizer is not None

    @property
    def byte_level(self) -> bool:
        """Tokens spelled in GPT-2's byte symbols ("Ġ" for a space): a bytes-mode merge view's."""
        return self.tokenizer is not None and self.tokenizer.settings.mode == "bytes"

    @property
    def draws_bytes(self) -> bool:
        """Whether tokens are drawn from the bytes they stand for, so each also has a hex view of its bytes."""
        return self.byte_level or self.shows.draws_bytes

    @property
    def vocab(self) -> dict[str, int]:
        return self.model.vocab

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def merges(self) -> Sequence[tuple[str, str]] | None:
        """The ranked merge list; None for a model without one."""
        return self.model.merges

    @property
    def merge_count(self) -> int | None:
        merges = self.merges
        return None if merges is None else len(merges)

    @property
    def added_tokens(self) -> Sequence[Any]:
        """A file's added and special tokens (`AddedToken`: content, id, special); our families have none."""
        return self.shows.added_tokens(self.model)

    @property
    def added_rule(self) -> str:
        """What happens to the added tokens in a text, as a clause."""
        return self.shows.added_rule(self.model)

    @property
    def scores(self) -> Sequence[float] | None:
        """Each id's log-probability; None for a model without scores."""
        return self.shows.scores(self.model)

    @property
    def unk_token(self) -> str | None:
        return self.model.unk_token

    @property
    def mark(self) -> Mark | None:
        """The tokens its family marks (superwords), or None."""
        return self.shows.mark

    @cached_property
    def birth(self) -> dict[str, int]:
        """Token -> the 0-based step that made it: its merge view's, its family's (a training step that
        added it), else its first merge's rank; empty for a model with none of them."""
        if self.tokenizer is not None:
            return self.tokenizer.birth
        with _lock:
            found = _births.get(self.model)
        if found is None:
            own = self.shows.birth
            found = own(self.model) if own is not None else merge_births(self.merges or (), self.vocab)
            with _lock:
                _births[self.model] = found
        return found

    @property
    def pipeline(self) -> Any:
        """The model as a tokenizer of parts that encodes as it does (`Family.as_parts`): what each
        part (normalizer, pre-tokenizer, model, decoder) makes of a text, stage by stage."""
        with _lock:
            found = _pipelines.get(self.model)
        if found is None:
            found = self.entry.as_parts(self.model)
            with _lock:
                _pipelines[self.model] = found
        return found

    @cached_property
    def step_scores(self) -> Sequence[float]:
        """The score of each training step (by its 0-based index, as `birth` counts), empty when unscored."""
        scored = self.shows.step_scores
        return scored(self.model) if scored is not None else ()

    @property
    def phase_one(self) -> int | None:
        """How many of its merges are phase one (within words); None for a model of one phase."""
        return self.shows.phase_one(self.model)

    @cached_property
    def _special(self) -> frozenset[str]:
        return self.shows.special(self.model)

    # ---- encoding ---------------------------------------------------------------------------

    def encoding(self, text: str) -> Encoding:
        """`text` as the engine's `Encoding`: tokens, ids, spans and, per token, unknown and special."""
        return self.model.encode(text)

    def segment(self, text: str) -> list[Piece]:
        """`text` as this tokenizer encodes it, one `Piece` a token, spans in the text's characters."""
        enc = self.encoding(text)
        test = self.mark.test if self.mark is not None else None
        return [Piece(t, i if i >= 0 else None, s, e, enc.is_unknown(k), test is not None and test(t),
                      enc.is_special(k))
                for k, (t, i, (s, e)) in enumerate(zip(enc.tokens, enc.ids, enc.spans))]

    def encode_ids(self, text: str) -> list[int]:
        return self.model.encode_ids(text)

    def count_unknown(self, text: str) -> int:
        """How many of `text`'s tokens are unknown (as `encoding` flags them), without their spans."""
        return self.model.count_unknown(text)

    def encode_tokens(self, text: str) -> list[str]:
        return self.model.encode_tokens(text)

    # ---- tokens -----------------------------------------------------------------------------

    def token_bytes(self, token: str) -> bytes:
        """The bytes a token stands for in the middle of a text (a special token: its text's)."""
        return self.model.token_bytes(token)

    def surface(self, token: str) -> str:
        """The text a token stands for, its markers read (`##`, `▁`, byte letters, `</w>`); bytes of no
        whole character as a hex group (`<e6 97>`)."""
        return bytes_surface(self.token_bytes(token))

    def drawn(self, token: str) -> tuple[str, bool]:
        """A token as `render.chip_html` and `token_text` draw it: its spelling, and whether that is byte symbols.

        A family that draws bytes draws a token from the bytes it stands for, so a file's `▁the`,
        `Ġthe` and `<0xE6>` are drawn `·the`, `·the` and `<e6>`: its spelling here is those bytes' symbols.
        """
        if self.shows.draws_bytes:
            return bytes_to_symbols(self.token_bytes(token)), True
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
        """`spelled` and `surface` at once, the token's bytes read once (a vocabulary of 250,000 tokens
        is listed whole)."""
        spelled, surface, _ = self.row_texts(token)
        return spelled, surface

    def row_texts(self, token: str) -> tuple[str, str, int]:
        """`spelled`, `surface` and the number of bytes the token stands for."""
        data = self.token_bytes(token)
        if symbol_bytes(token) == data:  # GPT-2's byte letters, read: the spelling is what it stands for
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = "\ufffd"
            spelled = bytes_text(data) if "\ufffd" in text else visible(text)  # bytes_text: U+FFFD as its bytes
        else:
            spelled = token if plain(token) else token_text(token)
        return spelled, bytes_surface(data), len(data)

    def shown(self, token: str) -> str:
        """A token as plain text in the shown form (`token_text` of `drawn`)."""
        spelling, byte_level = self.drawn(token)
        return token_text(spelling, byte_level=byte_level)

    def is_special(self, token: str) -> bool:
        """A special token of the model (`[CLS]`, `<s>`, `<|endoftext|>`)."""
        return token in self._special

    def is_marked(self, token: str) -> bool:
        """Whether its family marks the token (`mark`: a superword)."""
        return self.mark is not None and self.mark.test(token)

    def overlap_key(self, token: str) -> str:
        """A token compared across families: the text it stands for without the space that marks a
        word's start or end (`Ġ`, `▁`, a word's first piece without `##`; `</w>`), unless that is all of it.

        >>> from bpe_core import Settings, train
        >>> word_mode, byte_level = (AnyModel.of(train(["low"], Settings(mode=m), merges=0)) for m in ("word", "bytes"))
        >>> word_mode.overlap_key("low</w>"), byte_level.overlap_key("Ġlow"), byte_level.overlap_key("Ġ")
        ('low', 'low', ' ')
        """
        text = self.surface(token)
        if text.startswith(" ") and len(text) > 1:
            text = text[1:]
        return text[:-1] if text.endswith(" ") and len(text) > 1 else text

    def is_continuation(self, token: str) -> bool:
        """A piece that continues a word ("##ing"): one with its model's continuation prefix."""
        prefix = self._continuation
        return bool(prefix) and token.startswith(prefix) and len(token) > len(prefix)

    @cached_property
    def _continuation(self) -> str | None:
        return self.shows.continuation(self.model)


def _respelled(node: MergeNode, model: AnyModel) -> MergeNode:
    left = _respelled(node.left, model) if node.left is not None else None
    right = _respelled(node.right, model) if node.right is not None else None
    return MergeNode(model.drawn(node.token)[0], node.rank, left, right)


def pieces_by_word(text: str, pieces: Sequence[Piece]) -> list[tuple[str, list[Piece]]]:
    """The text's words (runs of non-space) with the pieces of the whole text's encoding that spell each.

    A piece belongs to the first word that ends after it starts, so a space a token carries in
    front (`Ġthe`, `▁the`) goes with the word it precedes; trailing space goes with the last word.

    >>> [(w, [p.token for p in ps]) for w, ps in pieces_by_word("a bc", [Piece("a", 0, 0, 1, False, False),
    ...     Piece("Ġb", 1, 1, 3, False, False), Piece("c", 2, 3, 4, False, False)])]
    [('a', ['a']), ('bc', ['Ġb', 'c'])]
    """
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if not words:
        return []
    out: list[tuple[str, list[Piece]]] = [(text[start:end], []) for start, end in words]
    at = 0
    for piece in pieces:
        while at < len(words) - 1 and words[at][1] <= piece.start:
            at += 1
        out[at][1].append(piece)
    return [(word, found) for word, found in out if found]


def pieces_encoding(pieces: Sequence[Piece]) -> Encoding:
    """Pieces as the engine's `Encoding` (an id the vocabulary lacks is -1), unknown and special kept."""
    return Encoding([p.token for p in pieces], [-1 if p.token_id is None else p.token_id for p in pieces],
                    [(p.start, p.end) for p in pieces], [p.unknown for p in pieces], [p.special for p in pieces])


def overlap_keys(model: AnyModel) -> frozenset[str]:
    """The distinct `overlap_key`s of a vocabulary, its unknown token left out."""
    unk = model.unk_token
    return frozenset(model.overlap_key(t) for t in model.vocab if t != unk)
