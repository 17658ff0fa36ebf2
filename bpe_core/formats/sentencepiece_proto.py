"""SentencePiece's `.model` file: a protobuf `ModelProto`, read by a minimal wire-format parser.

Only what encoding and decoding need is kept (sentencepiece_model.proto numbers the fields):
the pieces, parts of the trainer spec, the normalizer and denormalizer specs. The parser keeps
protobuf's rules where a file could tell: unknown fields are skipped, a scalar given twice keeps
its last value, a message given twice is the merge of both, a field with an unexpected wire type
is an unknown field, and an enum value outside the enum leaves the field unset (proto2).

>>> piece = b"\\x0a\\x05<unk>\\x15\\x00\\x00\\x00\\x00\\x18\\x02"
>>> model = parse_model_proto(b"\\x0a" + bytes([len(piece)]) + piece)
>>> model.pieces[0], model.trainer_spec.model_type
(Piece(piece='<unk>', score=0.0, type=2), 1)
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from ..parts.sp_models import NORMAL, PIECE_TYPES

# Model types, as the .proto numbers them (piece types are in parts.sp_models).
UNIGRAM, BPE, WORD, CHAR = 1, 2, 3, 4
MODEL_TYPES = {UNIGRAM: "UNIGRAM", BPE: "BPE", WORD: "WORD", CHAR: "CHAR"}

_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5


class ProtoError(ValueError):
    """The bytes are not a well-formed message (the reader names the file)."""


@dataclass(frozen=True)
class Piece:
    piece: str = ""
    score: float = 0.0
    type: int = NORMAL


@dataclass(frozen=True)
class TrainerSpec:
    model_type: int = UNIGRAM
    vocab_size: int = 8000
    byte_fallback: bool = False
    treat_whitespace_as_suffix: bool = False
    allow_whitespace_only_pieces: bool = False
    split_digits: bool = False
    split_by_whitespace: bool = True
    unk_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    pad_id: int = -1
    unk_piece: str = "<unk>"
    bos_piece: str = "<s>"
    eos_piece: str = "</s>"
    pad_piece: str = "<pad>"
    unk_surface: str = " \u2047 "
    control_symbols: tuple[str, ...] = ()
    user_defined_symbols: tuple[str, ...] = ()


@dataclass(frozen=True)
class NormalizerSpec:
    name: str = ""
    precompiled_charsmap: bytes = b""
    add_dummy_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True


@dataclass(frozen=True)
class ModelProto:
    pieces: tuple[Piece, ...] = ()
    trainer_spec: TrainerSpec = field(default_factory=TrainerSpec)
    normalizer_spec: NormalizerSpec = field(default_factory=NormalizerSpec)
    denormalizer_spec: NormalizerSpec | None = None
    fields: frozenset[int] = frozenset()  # the numbers of the fields the file has (2: trainer_spec, ...)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    end = len(data)
    while True:
        if pos >= end:
            raise ProtoError(f"a number runs past the end at byte {pos:,} (is the file cut short?)")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift >= 70:
            raise ProtoError(f"a number longer than 10 bytes ends at byte {pos:,}")


def _fields(data: bytes, what: str) -> list[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) of each field of one message, in order.

    `what` names the message in messages ("" for the file itself); offsets count in it.
    """
    where = f" in {what}" if what else ""
    out: list[tuple[int, int, int | bytes]] = []
    pos, end = 0, len(data)
    while pos < end:
        start = pos
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise ProtoError(f"a field numbered 0 at byte {start:,}{where}")
        value: int | bytes
        if wire == _VARINT:
            value, pos = _varint(data, pos)
        elif wire == _BYTES:
            length, pos = _varint(data, pos)
            if length > end - pos:
                raise ProtoError(f"field {number} at byte {start:,}{where} needs {length:,} bytes, but only "
                                 f"{end - pos:,} are left (is the file cut short?)")
            value, pos = data[pos:pos + length], pos + length
        elif wire in (_FIXED32, _FIXED64):
            size = 4 if wire == _FIXED32 else 8
            if size > end - pos:
                raise ProtoError(f"field {number} at byte {start:,}{where} runs past the end (is the file cut short?)")
            value, pos = data[pos:pos + size], pos + size
        else:
            # Groups (3, 4) are long deprecated and no sentencepiece file has them.
            raise ProtoError(f"field {number} at byte {start:,}{where} has wire type {wire}, which a model file "
                             "never uses")
        out.append((number, wire, value))
    return out


def _int32(value: int) -> int:
    """A varint read as protobuf's int32: its low 32 bits, signed."""
    return ((value & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


def _text(value: bytes, what: str) -> str:
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtoError(f"{what} is not UTF-8 text (byte {exc.start:,} of it)") from None


# Each message's kept fields: number -> (attribute, kind). Kinds: "str", "bytes", "bool",
# "int32", "float", "enum:<Type>", "strs" (repeated string).
_TRAINER_FIELDS = {
    3: ("model_type", "enum:model"), 4: ("vocab_size", "int32"), 35: ("byte_fallback", "bool"),
    24: ("treat_whitespace_as_suffix", "bool"), 26: ("allow_whitespace_only_pieces", "bool"),
    25: ("split_digits", "bool"), 22: ("split_by_whitespace", "bool"),
    40: ("unk_id", "int32"), 41: ("bos_id", "int32"), 42: ("eos_id", "int32"), 43: ("pad_id", "int32"),
    45: ("unk_piece", "str"), 46: ("bos_piece", "str"), 47: ("eos_piece", "str"), 48: ("pad_piece", "str"),
    44: ("unk_surface", "str"), 30: ("control_symbols", "strs"), 31: ("user_defined_symbols", "strs"),
}
_NORMALIZER_FIELDS = {
    1: ("name", "str"), 2: ("precompiled_charsmap", "bytes"), 3: ("add_dummy_prefix", "bool"),
    4: ("remove_extra_whitespaces", "bool"), 5: ("escape_whitespaces", "bool"),
}
_PIECE_FIELDS = {1: ("piece", "str"), 2: ("score", "float"), 3: ("type", "enum:piece")}
_ENUMS = {"enum:model": MODEL_TYPES, "enum:piece": PIECE_TYPES}
_WIRE = {"str": _BYTES, "bytes": _BYTES, "strs": _BYTES, "bool": _VARINT, "int32": _VARINT, "float": _FIXED32,
         "enum:model": _VARINT, "enum:piece": _VARINT}


def _message(data: bytes, table: dict[int, tuple[str, str]], what: str) -> dict[str, object]:
    """The kept fields of one message, by attribute name (absent fields left out)."""
    values: dict[str, object] = {}
    for number, wire, raw in _fields(data, what):
        spec = table.get(number)
        if spec is None or _WIRE[spec[1]] != wire:
            continue  # unknown to us, or not what the schema says: protobuf keeps it as unknown
        name, kind = spec
        if kind in ("str", "strs"):
            assert isinstance(raw, bytes)
            text = _text(raw, f"{what}'s {name}")
            if kind == "strs":
                previous = values.get(name, ())
                assert isinstance(previous, tuple)
                values[name] = (*previous, text)
            else:
                values[name] = text
        elif kind == "bytes":
            values[name] = raw
        elif kind == "float":
            assert isinstance(raw, bytes)
            values[name] = struct.unpack("<f", raw)[0]
        else:
            assert isinstance(raw, int)
            if kind == "bool":
                values[name] = raw != 0
            elif kind == "int32" or _int32(raw) in _ENUMS[kind]:
                values[name] = _int32(raw)
    return values


def _piece(raw: bytes, index: int) -> Piece:
    return Piece(**_message(raw, _PIECE_FIELDS, f"piece {index}"))  # type: ignore[arg-type]


def _usual_piece(raw: bytes) -> Piece | None:
    """A piece laid out as sentencepiece writes it (piece, score, then maybe a small type), read
    fast; None for any other layout, which the general reader then takes."""
    size = len(raw)
    if size < 2 or raw[0] != 0x0A or raw[1] >= 0x80:
        return None
    end = 2 + raw[1]
    if end + 5 > size or raw[end] != 0x15:
        return None
    try:
        text = raw[2:end].decode("utf-8")
    except UnicodeDecodeError:
        return None
    score = struct.unpack_from("<f", raw, end + 1)[0]
    end += 5
    if end == size:
        return Piece(text, score)
    if end + 2 == size and raw[end] == 0x18 and raw[end + 1] in PIECE_TYPES:
        return Piece(text, score, raw[end + 1])
    return None


def parse_model_proto(data: bytes) -> ModelProto:
    """The ModelProto in `data`; ProtoError (one line) when the bytes are not one.

    An empty message is a valid protobuf: what makes it no usable model is for the caller to say.
    """
    pieces: list[Piece] = []
    trainer = bytearray()
    normalizer = bytearray()
    denormalizer: bytearray | None = None
    present = set()
    for number, wire, raw in _fields(data, ""):
        if wire != _BYTES:
            continue
        assert isinstance(raw, bytes)
        present.add(number)
        if number == 1:
            pieces.append(_usual_piece(raw) or _piece(raw, len(pieces)))
        elif number == 2:
            trainer += raw  # a message given twice is merged: its bytes concatenated
        elif number == 3:
            normalizer += raw
        elif number == 5:
            denormalizer = (denormalizer or bytearray()) + raw
    return ModelProto(
        pieces=tuple(pieces),
        trainer_spec=TrainerSpec(**_message(bytes(trainer), _TRAINER_FIELDS, "trainer_spec")),  # type: ignore[arg-type]
        normalizer_spec=NormalizerSpec(**_message(bytes(normalizer), _NORMALIZER_FIELDS, "normalizer_spec")),  # type: ignore[arg-type]
        denormalizer_spec=(
            None if denormalizer is None
            else NormalizerSpec(**_message(bytes(denormalizer), _NORMALIZER_FIELDS, "denormalizer_spec"))  # type: ignore[arg-type]
        ),
        fields=frozenset(present),
    )


# ---- writing ---------------------------------------------------------------------------------

def _key(number: int, wire: int) -> bytes:
    return _varint_bytes(number << 3 | wire)


def _varint_bytes(value: int) -> bytes:
    value &= 0xFFFFFFFFFFFFFFFF  # negative int32s are written as ten-byte varints
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _write_fields(message: object, table: dict[int, tuple[str, str]]) -> bytes:
    """The kept fields of a spec that differ from their defaults, in field-number order."""
    default = type(message)()
    out = bytearray()
    for number, (name, kind) in sorted(table.items()):
        value = getattr(message, name)
        if value == getattr(default, name):
            continue
        if kind == "strs":
            for item in value:
                data = item.encode("utf-8")
                out += _key(number, _BYTES) + _varint_bytes(len(data)) + data
        elif kind in ("str", "bytes"):
            data = value.encode("utf-8") if kind == "str" else value
            out += _key(number, _BYTES) + _varint_bytes(len(data)) + data
        elif kind == "float":
            out += _key(number, _FIXED32) + struct.pack("<f", value)
        else:
            out += _key(number, _VARINT) + _varint_bytes(int(value))
    return bytes(out)


def dumps_model_proto(model: ModelProto) -> bytes:
    """`model` as a `.model` file's bytes (only the fields this module keeps), which sentencepiece
    loads; `parse_model_proto` reads them back equal."""
    out = bytearray()
    for piece in model.pieces:
        data = _key(1, _BYTES) + _varint_bytes(len(piece.piece.encode("utf-8"))) + piece.piece.encode("utf-8")
        data += _key(2, _FIXED32) + struct.pack("<f", piece.score)
        if piece.type != NORMAL:
            data += _key(3, _VARINT) + _varint_bytes(piece.type)
        out += _key(1, _BYTES) + _varint_bytes(len(data)) + data
    specs = [(2, model.trainer_spec, _TRAINER_FIELDS), (3, model.normalizer_spec, _NORMALIZER_FIELDS)]
    if model.denormalizer_spec is not None:
        specs.append((5, model.denormalizer_spec, _NORMALIZER_FIELDS))
    for number, spec, table in specs:
        data = _write_fields(spec, table)
        out += _key(number, _BYTES) + _varint_bytes(len(data)) + data
    return bytes(out)


def _demo_model() -> bytes:
    """A tiny BPE model for examples: <unk>, <s>, </s>, then "▁", "a", "b" and merges of them."""
    pieces = [Piece("<unk>", 0.0, 2), Piece("<s>", 0.0, 3), Piece("</s>", 0.0, 3)]
    pieces += [Piece(p, -float(i)) for i, p in enumerate(["▁a", "▁b", "ab", "▁ab", "▁", "a", "b"])]
    return dumps_model_proto(ModelProto(pieces=tuple(pieces), trainer_spec=TrainerSpec(model_type=BPE)))
