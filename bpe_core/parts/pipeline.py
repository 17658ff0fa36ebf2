"""A tokenizer built of parts: added tokens cut out, then normalizer -> pre-tokenizer -> model.

`encode` keeps every character's original span through every part, so each token maps back to
its span of the input; `encode_ids` skips that bookkeeping and caches each piece's ids.

>>> from bpe_core.parts.wordlevel import WordLevel
>>> tok = PartsTokenizer(model=WordLevel({"hi": 0, "[UNK]": 1}, unk_token="[UNK]"))
>>> tok.encode("hi").tokens, tok.encode_ids("hey")
(['hi'], [1])
"""
from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from functools import cached_property
from itertools import chain
from typing import Any

from ..model import Encoding
from ..pretokenize import require_str, type_name
from ..settings import BPEError
from .added import AddedToken, AddedVocabulary
from .base import Decoder, ModelPart, Normalizer, PostProcessor, PreTokenizer
from .cache import PieceCache
from .decoders import token_bytes as decoder_token_bytes
from .normalized import Normalized
from .pretokenizers import text_stages
from .pretokenizers_split import TextStage


class PartsTokenizer:
    """Normalizer, pre-tokenizer, model, decoder and post-processor, with added tokens.

    `split_added=False` leaves added tokens in the text as ordinary text (sentencepiece and
    Tekken do so by default); they still have ids, and decode.

    One tokenizer may serve many threads: nothing changes after construction but the ids cache,
    which is replaced whole when full, never emptied in place (the plan `encode_ids` follows is
    derived on first use from parts that never change, and assigned whole).
    """

    def __init__(
        self,
        *,
        model: ModelPart,
        normalizer: Normalizer | None = None,
        pre_tokenizer: PreTokenizer | None = None,
        decoder: Decoder | None = None,
        post_processor: PostProcessor | None = None,
        added_tokens: Sequence[AddedToken] = (),
        split_added: bool = True,
        name: str = "",
        source: str = "",
    ) -> None:
        self.model = model
        self.normalizer = normalizer
        self.pre_tokenizer = pre_tokenizer
        self.decoder = decoder
        self.post_processor = post_processor
        self.added_tokens = list(added_tokens)
        self.split_added = split_added
        self.name = name
        self.source = source
        self.added = AddedVocabulary(self.added_tokens if split_added else [], self._normalize_str)
        self._ids: PieceCache[tuple[int, ...]] = PieceCache()
        # `encode_ids` keeps no offsets unless a pre-tokenizer reads them after a normalizer that
        # may move the text's first character (Metaspace's "first" after Strip or Replace).
        self._track_ids = normalizer is not None and bool(getattr(pre_tokenizer, "needs_offsets", False))

    # ---- vocabulary -------------------------------------------------------------------------

    @cached_property
    def vocab(self) -> dict[str, int]:
        """Every token with its id: the model's, then the added tokens'. The model's own table (read
        only, as every tokenizer's) when the added tokens add nothing to it."""
        vocab = self.model.vocab
        if all(vocab.get(token.content) is not None for token in self.added_tokens):  # setdefault keeps these
            return vocab
        vocab = dict(vocab)
        for token in self.added_tokens:
            vocab.setdefault(token.content, token.id)
        return vocab

    @cached_property
    def id_to_token(self) -> dict[int, str]:
        out = {i: t for t, i in self.model.vocab.items()}
        out.update((token.id, token.content) for token in self.added_tokens)
        return out

    @property
    def vocab_size(self) -> int:
        return len(self.id_to_token)

    @property
    def unk_token(self) -> str | None:
        return self.model.unk_token

    @cached_property
    def special_ids(self) -> frozenset[int]:
        return frozenset(t.id for t in self.added_tokens if t.special)

    @property
    def kind(self) -> str:
        """The model's kind as files name it (its serialized "type": "BPE", "WordLevel", ...)."""
        return self.model.kind

    @cached_property
    def _added_by_content(self) -> dict[str, AddedToken]:
        return {t.content: t for t in self.added_tokens}

    def token_bytes(self, token: str) -> bytes:
        """The bytes a token stands for in the middle of a text: byte-level and byte-fallback
        tokens their bytes, a word-start marker ("▁", a word's first piece where others carry "##") a space,
        an added token its content. A token that is part of a character gives that part."""
        if token in self._added_by_content:
            return token.encode("utf-8")
        return decoder_token_bytes(self.decoder, token)

    def is_special(self, token: str) -> bool:
        """Whether the token is an added token marked special (`<s>`, `<|endoftext|>`)."""
        found = self._added_by_content.get(token)
        return found is not None and found.special

    # ---- encoding ---------------------------------------------------------------------------

    def _normalize_str(self, text: str) -> str:
        if self.normalizer is None:
            return text
        return self.normalizer.normalize(Normalized.of(text, track=False)).text

    def _normalize(self, piece: Normalized) -> Normalized:
        return self.normalizer.normalize(piece) if self.normalizer is not None else piece

    def _pieces(self, piece: Normalized) -> list[Normalized]:
        return self.pre_tokenizer.pre_tokenize([piece]) if self.pre_tokenizer is not None else [piece]

    def encode(self, text: str) -> Encoding:
        """Tokens, ids, original character spans, and which tokens are unknown or special."""
        require_str(text)
        unk = self.model.unk_id
        tokens: list[str] = []
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        unknown: list[bool] = []
        special: list[bool] = []
        # What `tokenizers` holds as an added token's text, for the post-processor's trimming: the
        # stretch matched, with any whitespace its lstrip or rstrip took (the token shown is its content).
        held: dict[int, str] = {}
        for segment, added in self.added.segments(Normalized.of(text), self._normalize):
            if added is not None:
                if segment.text != added.content:
                    held[len(tokens)] = segment.text
                tokens.append(added.content)
                ids.append(added.id)
                spans.append(segment.offsets(0, len(segment)))
                unknown.append(False)
                special.append(True)
                continue
            for piece in self._pieces(segment):
                for token, token_id, start, end in self.model.tokenize(piece.text):
                    tokens.append(token)
                    ids.append(token_id)
                    spans.append(piece.offsets(start, end))
                    unknown.append(unk is not None and token_id == unk)
                    special.append(False)
        if self.post_processor is not None:
            seen = [held.get(i, token) for i, token in enumerate(tokens)] if held else tokens
            spans = self.post_processor.process_offsets(seen, spans)
        return Encoding(tokens, ids, spans, unknown, special)

    def encode_tokens(self, text: str) -> list[str]:
        """Only the tokens of `text`."""
        return self.encode(text).tokens

    def count_unknown(self, text: str) -> int:
        """How many of `text`'s tokens the model could not spell: from the ids, unless an added token
        has the unknown token's id (a text holding it as written is that added token, not unknown)."""
        unk = self.model.unk_id
        if unk is None:
            self.encode_ids(text)  # what `encode` refuses, this refuses too
            return 0
        if unk in self.added.by_id:
            return sum(self.encode(text).unknown or ())
        return self.encode_ids(text).count(unk)

    @property
    def merges(self) -> Sequence[tuple[str, str]] | None:
        """The model's ranked merges (a BPE model's; a rank table's derived on first use), None without."""
        return getattr(self.model, "merges", None)

    def encode_ids(self, text: str) -> list[int]:
        """Only the ids: no offsets kept, each piece's ids cached.

        Where the pre-tokenizer can cut plain strings (`text_stages`) no `Normalized` piece is
        made: each stretch between added tokens is cut into strings, and the cache is keyed by a
        piece before the steps that only rewrite it (ByteLevel's byte characters), so a piece
        seen before costs one lookup.
        """
        require_str(text)
        plan = self._ids_plan
        if plan is None:
            return self._encode_ids_of_pieces(text)
        steps, rewrites = plan
        out: list[int] = []
        for segment, added in self.added.segments(Normalized.of(text, track=False), self._normalize):
            if added is not None:
                out.append(added.id)
                continue
            # Every part with steps drops an empty stretch; with none, the model sees it, as `encode` does.
            pieces = [segment.text] if segment.text or not (steps or rewrites) else []
            for stage in steps:
                if stage.cut is None:
                    pieces = list(map(stage.change, pieces))  # type: ignore[arg-type]
                elif len(pieces) == 1:
                    pieces = stage.cut(pieces[0])
                else:
                    pieces = [p for piece in pieces for p in stage.cut(piece)]
            out += self._ids_of(pieces, rewrites)
        return out

    @cached_property
    def _ids_plan(self) -> tuple[list[TextStage], list[TextStage]] | None:
        """The pre-tokenizer's steps on plain strings for `encode_ids`: those up to its last cut,
        then the rewrites after it (run only on pieces not cached); None when it has none, or
        when its pieces need their offsets."""
        if self._track_ids:
            return None
        stages = text_stages(self.pre_tokenizer) if self.pre_tokenizer is not None else []
        if stages is None:
            return None
        last = max((k + 1 for k, stage in enumerate(stages) if stage.cut is not None), default=0)
        return stages[:last], stages[last:]

    def _ids_of(self, pieces: list[str], rewrites: list[TextStage]) -> list[int]:
        """The ids of pieces cut from one stretch, from the cache where it has them."""
        known = self._ids.table  # this call's view: other threads may replace it, never empty it
        try:
            # Every piece seen before (text like the texts before it): one pass in C.
            return list(chain.from_iterable(map(known.__getitem__, pieces)))
        except KeyError:
            pass
        piece_ids = self._piece_ids
        in_use: dict[str, tuple[int, ...]] = {}
        fresh: dict[str, tuple[int, ...]] = {}
        for piece in set(pieces):
            found = known.get(piece)
            if found is None:
                model_piece = piece
                for stage in rewrites:
                    model_piece = stage.change(model_piece)  # type: ignore[misc]
                found = fresh[piece] = piece_ids(model_piece)
            in_use[piece] = found
        self._ids.put_all(fresh, in_use=in_use)
        return list(chain.from_iterable(map(in_use.__getitem__, pieces)))

    @cached_property
    def _piece_ids(self) -> Any:
        """piece -> its ids: the model's own ids-only path (`piece_ids`) when it has one."""
        found = getattr(self.model, "piece_ids", None)
        if found is not None:
            return found
        tokenize = self.model.tokenize
        return lambda piece: tuple(t[1] for t in tokenize(piece))

    def _encode_ids_of_pieces(self, text: str) -> list[int]:
        """`encode_ids` through `Normalized` pieces, for pre-tokenizers that cut only those."""
        cache = self._ids
        piece_ids = self._piece_ids
        out: list[int] = []
        for segment, added in self.added.segments(Normalized.of(text, track=self._track_ids), self._normalize):
            if added is not None:
                out.append(added.id)
                continue
            for piece in self._pieces(segment):
                key = piece.text
                found = cache.get(key)
                if found is None:
                    found = piece_ids(key)
                    cache.put(key, found)
                out.extend(found)
        return out

    def clear_cache(self) -> None:
        """Forget every piece encoded so far, the model's own cache too (for timing a cold start)."""
        self._ids.clear()
        self.model.clear_cache()

    # ---- decoding ---------------------------------------------------------------------------

    def decode(self, ids: Iterable[int], *, skip_special_tokens: bool = True) -> str:
        """Ids -> text through the decoder (without one, tokens joined by spaces, as `tokenizers` does)."""
        from .decoders import decode_tokens

        return decode_tokens(self.decoder, self.tokens_of(ids, skip_special_tokens=skip_special_tokens))

    def tokens_of(self, ids: Iterable[int], *, skip_special_tokens: bool = False) -> list[str]:
        """The token of each id; an id outside the vocabulary is a BPEError."""
        if isinstance(ids, (str, bytes, bytearray)) or not isinstance(ids, Iterable):
            raise BPEError(f"decode takes a list of token ids (whole numbers), not {type_name(ids)}")
        table = self.id_to_token
        special = self.special_ids if skip_special_tokens else frozenset()
        out = []
        for value in ids:
            token_id = _token_id(value)
            if token_id in special:
                continue
            token = table.get(token_id)
            if token is None:
                raise BPEError(f"token id {token_id} is not in this tokenizer's vocabulary")
            out.append(token)
        return out

    # ---- files ------------------------------------------------------------------------------

    @property
    def hf_caveats(self) -> list[str]:
        """Where the `tokenizer.json` of `to_hf_dict` may encode differently from this tokenizer
        (empty when it encodes alike): parts with no `tokenizers` equivalent say so themselves."""
        out = []
        if not self.split_added and self.added_tokens:
            out.append(f"tokenizers cuts added tokens such as {self.added_tokens[0].content!r} out of the text, "
                       "which this tokenizer reads as ordinary text")
        for part in (self.normalizer, self.pre_tokenizer, self.model, self.decoder):
            caveat = getattr(part, "hf_caveat", "")
            if caveat:
                out.append(caveat)
        return out

    def to_hf_dict(self) -> dict[str, Any]:
        """A `tokenizer.json` that `tokenizers` loads and encodes to the same ids."""
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [t.to_hf() for t in self.added_tokens],
            "normalizer": self.normalizer.to_hf() if self.normalizer is not None else None,
            "pre_tokenizer": self.pre_tokenizer.to_hf() if self.pre_tokenizer is not None else None,
            "post_processor": self.post_processor.to_hf() if self.post_processor is not None else None,
            "decoder": self.decoder.to_hf() if self.decoder is not None else None,
            "model": self.model.to_hf(),
        }


def _token_id(value: object) -> int:
    if not isinstance(value, bool):
        try:
            return operator.index(value)  # type: ignore[arg-type]  # ints and NumPy integers
        except TypeError:
            pass
    raise BPEError(f"token ids are whole numbers; {value!r} ({type_name(value)}) is not a token id")
