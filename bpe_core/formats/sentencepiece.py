"""A SentencePiece `.model` file as a tokenizer of parts that encodes as `sentencepiece` does.

`sentencepiece_from_bytes` reads the protobuf (`sentencepiece_proto`), checks the pieces as
sentencepiece does when it loads a model, and builds sentencepiece's own normalizer, model and
decoder (`parts.sp_text`, `parts.sp_models`). Like `SentencePieceProcessor.encode` with its
defaults, no <s> or </s> is added and control pieces written in the text are ordinary text
(`split_added=False`); user-defined pieces are matched in the text by the normalizer and model.
Control pieces are special tokens (decoding drops them), user-defined ones added tokens.

>>> from bpe_core.formats.sentencepiece_proto import _demo_model
>>> tok = sentencepiece_from_bytes(_demo_model(), name="demo.model")
>>> enc = tok.encode("ab  ba")
>>> enc.tokens, enc.spans, tok.decode(enc.ids)
(['▁ab', '▁b', 'a'], [(0, 2), (2, 5), (5, 6)], 'ab ba')
"""
from __future__ import annotations

from pathlib import Path

from ..parts.added import AddedToken
from ..parts.family_parts import table
from ..parts.pipeline import PartsTokenizer
from ..parts.precompiled import CharsMap
from ..parts.sp_bpe import SentencePieceBPE
from ..parts.sp_models import (
    BYTE,
    CONTROL,
    UNUSED,
    USER_DEFINED,
    SentencePieceChar,
    SentencePieceModel,
    SentencePieceWord,
)
from ..parts.sp_text import SentencePieceDecoder, SentencePieceNormalizer
from ..settings import BPEError
from .sentencepiece_proto import (
    BPE,
    CHAR,
    MODEL_TYPES,
    WORD,
    ModelProto,
    NormalizerSpec,
    ProtoError,
    parse_model_proto,
)

# Each model_type's model; a family's own is in its folder (`parts.family_parts`).
_MODELS: dict[int, type[SentencePieceModel]] = {
    BPE: SentencePieceBPE, WORD: SentencePieceWord, CHAR: SentencePieceChar, **table("SENTENCEPIECE_TYPES"),
}
_BYTE_PIECES = {f"<0x{b:02X}>": b for b in range(256)}


def sentencepiece_from_bytes(data: bytes, *, name: str) -> PartsTokenizer:
    """The tokenizer of a `.model` file's bytes; a one-line BPEError naming `name` if they are not one."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise BPEError(f"{name}: a SentencePiece model is bytes, not {type(data).__name__}")
    try:
        proto = parse_model_proto(bytes(data))
    except ProtoError as exc:
        raise BPEError(f"{name}: not a readable SentencePiece model: {exc}") from None
    try:
        return _tokenizer(proto, name)
    except BPEError as exc:
        # A file cut short after its pieces still parses; say what is missing.
        hint = "" if 2 in proto.fields else " (the file has no trainer_spec: is it cut short?)"
        raise BPEError(f"{name}: {exc}{hint}") from None


def load_sentencepiece(path: str | Path) -> PartsTokenizer:
    """The tokenizer of a `.model` file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BPEError(f"cannot read {path}: {exc.strerror or exc}") from None
    return sentencepiece_from_bytes(data, name=path.name)


def _check_pieces(proto: ModelProto) -> None:
    """What sentencepiece checks when it loads the pieces (the model checks the rest)."""
    if not proto.pieces:
        raise BPEError("the model has no pieces")
    byte_fallback = proto.trainer_spec.byte_fallback
    found = set()
    for i, piece in enumerate(proto.pieces):
        if piece.type == BYTE:
            if not byte_fallback:
                raise BPEError(f"piece {i} ({piece.piece!r}) is a byte piece, but byte_fallback is off")
            byte = _BYTE_PIECES.get(piece.piece)
            if byte is None:
                raise BPEError(f"piece {i} ({piece.piece!r}) is a byte piece, but not one of <0x00> to <0xFF>")
            found.add(byte)
    if byte_fallback and len(found) != 256:
        raise BPEError(f"byte_fallback is on, but only {len(found)} of the 256 byte pieces are there")


def _normalizer(spec: NormalizerSpec, *, suffix: bool, user_defined: list[str], what: str) -> SentencePieceNormalizer:
    charsmap = None
    if spec.precompiled_charsmap:
        try:
            charsmap = CharsMap(spec.precompiled_charsmap, strict=True)
        except BPEError as exc:
            raise BPEError(f"{what}: {exc}") from None
    return SentencePieceNormalizer(
        charsmap=charsmap, add_dummy_prefix=spec.add_dummy_prefix,
        remove_extra_whitespaces=spec.remove_extra_whitespaces, escape_whitespaces=spec.escape_whitespaces,
        treat_whitespace_as_suffix=suffix, user_defined=user_defined,
    )


def _tokenizer(proto: ModelProto, name: str) -> PartsTokenizer:
    _check_pieces(proto)
    trainer = proto.trainer_spec
    model_class = _MODELS.get(trainer.model_type)
    if model_class is None:  # pragma: no cover - the parser leaves unknown model types unset
        raise BPEError(f"model type {trainer.model_type} is not one of {', '.join(MODEL_TYPES.values())}")
    # As sentencepiece loads a model: with byte fallback a "\0" piece (some converters add one
    # beside <0x00>) is taken as UNUSED, which leaves it out.
    triples = [(p.piece, p.score, UNUSED if trainer.byte_fallback and p.piece == "\0" else p.type)
               for p in proto.pieces]
    model = model_class(triples, byte_fallback=trainer.byte_fallback)
    normalizer = _normalizer(proto.normalizer_spec, suffix=trainer.treat_whitespace_as_suffix,
                             user_defined=model.user_defined, what="normalizer_spec")
    spec = proto.normalizer_spec
    decoder = SentencePieceDecoder(
        byte_pieces=frozenset(p.piece for p in proto.pieces if p.type == BYTE),
        control_pieces=frozenset(p.piece for p in proto.pieces if p.type == CONTROL),
        unk_piece=model.unk_token,
        unk_surface=trainer.unk_surface,
        strip_leading_space=spec.add_dummy_prefix or spec.remove_extra_whitespaces,
        strip_all_leading=spec.remove_extra_whitespaces,
        denormalizer=_denormalizer(proto),
    )
    added = [
        AddedToken(p.piece, i, special=p.type == CONTROL, normalized=False)
        for i, p in enumerate(proto.pieces) if p.type in (CONTROL, USER_DEFINED)
    ]
    return PartsTokenizer(model=model, normalizer=normalizer, decoder=decoder, added_tokens=added,
                          split_added=False, name=name, source="sentencepiece")


def _denormalizer(proto: ModelProto) -> SentencePieceNormalizer | None:
    """The normalizer sentencepiece runs on decoded text, when the model has a denormalizer."""
    spec = proto.denormalizer_spec
    if spec is None or not spec.precompiled_charsmap:
        return None
    return _normalizer(spec, suffix=False, user_defined=[], what="denormalizer_spec")
