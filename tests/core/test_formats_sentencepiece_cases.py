"""SentencePiece models built by hand, each for one rule, checked against `sentencepiece`, and
broken files: every one is a one-line BPEError naming the file (and sentencepiece refuses it too)."""
from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.families.unigram_part import Unigram
from bpe_core.formats.sentencepiece import load_sentencepiece, sentencepiece_from_bytes
from bpe_core.formats.sentencepiece_proto import (
    BPE,
    CHAR,
    UNIGRAM,
    ModelProto,
    NormalizerSpec,
    Piece,
    TrainerSpec,
    _demo_model,
    dumps_model_proto,
    parse_model_proto,
)
from bpe_core.parts.precompiled import tiny_charsmap
from bpe_core.settings import BPEError
from tests.conftest import require
from tests.core.sentencepiece_helpers import EDGES, MISTRAL, assert_same, spm, trained

pb = require("sentencepiece.sentencepiece_model_pb2")
UNK, CTRL, USER, UNUSED, BYTE = 2, 3, 4, 5, 6
BYTES = tuple(Piece(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256))


def model(pieces, *, model_type=BPE, dummy=False, extra=False, charsmap=b"", **trainer) -> bytes:
    return dumps_model_proto(ModelProto(
        pieces=tuple(p if isinstance(p, Piece) else Piece(*p) for p in pieces),
        trainer_spec=TrainerSpec(model_type=model_type, **trainer),
        normalizer_spec=NormalizerSpec(add_dummy_prefix=dummy, remove_extra_whitespaces=extra,
                                       precompiled_charsmap=charsmap),
    ))


def ids(data: bytes, text: str) -> list[int]:
    """Our ids, after checking everything against sentencepiece."""
    tokenizer = sentencepiece_from_bytes(data, name="hand.model")
    assert_same(tokenizer, data, [text])
    return tokenizer.encode_ids(text)


def test_the_demo_model():
    for text in ["ab  ba", "", "  ", "aab bba ab", "abc", "b a"]:
        assert_same(sentencepiece_from_bytes(_demo_model(), name="demo.model"), _demo_model(), [text])


def test_bpe_merges_the_highest_score_first_and_the_leftmost_on_a_tie():
    pieces = [("<unk>", 0, UNK), ("a", -1), ("b", -1), ("c", -1), ("ab", -0.5), ("bc", -0.5)]
    assert ids(model(pieces), "abc") == [4, 3]
    pieces[5] = ("bc", -0.25)
    assert ids(model(pieces), "abc") == [1, 5]


def test_bpe_compares_scores_by_their_bits_so_minus_zero_is_lower():
    pieces = [("<unk>", 0, UNK), ("a", -1), ("b", -1), ("c", -1), ("ab", -0.0), ("bc", 0.0)]
    assert ids(model(pieces), "abc") == [1, 5]  # as floats the two tie and "ab", leftmost, would win


def test_an_unused_piece_is_formed_then_split_back():
    pieces = [("<unk>", 0, UNK), ("a", -1), ("b", -1), ("c", -1), ("d", -1), ("ab", -0.1, UNUSED), ("abc", -0.2)]
    assert ids(model(pieces), "abc") == [6]
    assert ids(model(pieces), "abd") == [1, 2, 4]


def test_unknown_characters_fuse_without_byte_fallback_and_become_bytes_with_it():
    plain = model([("<unk>", 0, UNK), ("a", -1)])
    tokenizer = sentencepiece_from_bytes(plain, name="u.model")
    encoding = tokenizer.encode("aŧŧa")
    assert (encoding.tokens, encoding.ids, encoding.spans) == (["a", "ŧŧ", "a"], [1, 0, 1], [(0, 1), (1, 3), (3, 4)])
    bytes_model = model([("<unk>", 0, UNK), ("a", -1), *BYTES], byte_fallback=True)
    encoding = sentencepiece_from_bytes(bytes_model, name="b.model").encode("aŧ乾")
    assert encoding.tokens == ["a", "<0xC5>", "<0xA7>", "<0xE4>", "<0xB9>", "<0xBE>"]
    # Only the last byte of a character carries its span, as in sentencepiece's offsets.
    assert encoding.spans == [(0, 1), (1, 1), (1, 2), (2, 2), (2, 2), (2, 3)]
    assert ids(bytes_model, "aŧ乾") == encoding.ids


def test_byte_fallback_without_an_unknown_piece():
    data = model([("a", -1), *BYTES], byte_fallback=True)
    assert ids(data, "ab") == [0, 1 + 0x62]
    assert sentencepiece_from_bytes(data, name="x.model").unk_token is None


def test_a_nul_piece_beside_the_byte_pieces_is_left_out():
    data = model([("<unk>", 0, UNK), ("a", -1), ("\0", -2), *BYTES], byte_fallback=True)
    assert ids(data, "a\0a") == [1, 3, 1]  # "\0" by its byte piece
    refused(model([("<unk>", 0, UNK), ("\0", -2)]), "piece 1 ('\\x00') holds a NUL character")


def test_user_defined_pieces_never_merge_and_are_not_normalized():
    charsmap = tiny_charsmap({"ﬁ": "fi", "X": "x"})
    pieces = [("<unk>", 0, UNK), ("▁", -1), ("f", -1), ("i", -1), ("x", -1), ("fi", -0.5), ("Xfi", 0, USER),
              ("▁fi", -0.1)]
    for model_type in (BPE, UNIGRAM, CHAR):
        data = model(pieces, model_type=model_type, dummy=True, extra=True, charsmap=charsmap)
        for text in ["Xfi ﬁX xfi", "XﬁXfi", " Xfi  ", "fiXfifi"]:
            ids(data, text)


def test_unigram_keeps_sentencepieces_float_arithmetic():
    """sentencepiece sums path scores in 32-bit floats and rebases them past 100,000. After
    60,000 "x" the two readings of "ab" tie in float (the first found, "ab", wins) though "a b"
    is better by 0.001; past the rebase they no longer tie. A Unigram in 64-bit floats, as
    `tokenizers` has it (bpe_core.families.unigram_part), picks "a b" every time: this is why
    sentencepiece models have their own Unigram here."""
    pieces = [("<unk>", 0, UNK), ("x", -1.0), ("a", -1.5), ("b", -1.5), ("ab", -3.001)]
    data = model(pieces, model_type=UNIGRAM)
    tokenizer = sentencepiece_from_bytes(data, name="f32.model")
    hf_style = Unigram([(p, float(s)) for p, s, *_ in pieces], unk_id=0)
    sp = spm.SentencePieceProcessor(model_proto=data)
    for count, tail in [(10, [2, 3]), (60_000, [4]), (99_990, [4]), (100_010, [2, 3]), (160_000, [4])]:
        text = "x" * count + "ab"
        assert sp.encode(text)[count:] == tokenizer.encode_ids(text)[count:] == tail
        assert [t[1] for t in hf_style.tokenize(text)][count:] == [2, 3]


def test_unigram_user_defined_pieces_score_by_their_length():
    pieces = [("<unk>", 0, UNK), ("a", -0.05), ("b", -0.05), ("c", -0.05), ("ab", -0.01), ("abc", 0, USER),
              ("abcab", 0, USER)]
    data = model(pieces, model_type=UNIGRAM)
    for text in ["abc", "abcab", "abcabc", "ababc", "cabcab"]:
        ids(data, text)


def test_word_and_char_models():
    pieces = [("<unk>", 0, UNK), ("▁a", -1), ("▁b", -1), ("b", -1), ("▁", -1), ("a", -1), ("ab", -1, UNUSED)]
    for model_type in (3, CHAR):
        data = model(pieces, model_type=model_type, dummy=True, extra=True)
        for text in ["a b", "ab  ba", "ccc a", " b"]:
            ids(data, text)


# ---- what the parser keeps of protobuf's rules ---------------------------------------------

def test_unknown_fields_are_skipped_and_a_message_given_twice_is_merged():
    data = _demo_model()
    data += b"\x98\x06\x01"  # field 99, which ModelProto has not
    data += b"\x1a\x02\x18\x00"  # normalizer_spec again: add_dummy_prefix (3) off
    data += b"\x12\x03\x98\x02\x01"  # trainer_spec again: byte_fallback (35) on
    theirs = pb.ModelProto()
    theirs.ParseFromString(data)
    ours = parse_model_proto(data)
    assert ours.trainer_spec.byte_fallback is theirs.trainer_spec.byte_fallback is True
    assert ours.trainer_spec.model_type == theirs.trainer_spec.model_type == BPE  # kept from the first
    assert ours.normalizer_spec.add_dummy_prefix is theirs.normalizer_spec.add_dummy_prefix is False


def test_an_enum_outside_the_enum_leaves_the_default_and_int32_reads_negative():
    piece = b"\x0a\x01a\x15\x00\x00\x80\xbf\x18\x09"  # type 9: no such type
    spec = b"\x20" + b"\xff" * 9 + b"\x01"  # vocab_size -1, as a ten-byte varint
    data = b"\x0a" + bytes([len(piece)]) + piece + b"\x12" + bytes([len(spec)]) + spec
    theirs = pb.ModelProto()
    theirs.ParseFromString(data)
    ours = parse_model_proto(data)
    assert ours.pieces[0] == Piece("a", -1.0, 1) and theirs.pieces[0].type == 1
    assert ours.trainer_spec.vocab_size == theirs.trainer_spec.vocab_size == -1


# ---- broken files ----------------------------------------------------------------------------

def refused(data: bytes, message: str, *, name: str = "bad.model", sentencepiece_too: bool = True) -> None:
    with pytest.raises(BPEError) as info:
        sentencepiece_from_bytes(data, name=name)
    text = str(info.value)
    assert text.startswith(f"{name}: ") and message in text and "\n" not in text, text
    if sentencepiece_too:
        with pytest.raises(RuntimeError):
            spm.SentencePieceProcessor(model_proto=data)


@pytest.mark.parametrize("pieces, options, message", [
    ([("a", -1), ("a", -2), ("<unk>", 0, UNK)], {}, "piece 1 ('a') is already piece 0"),
    ([("<unk>", 0, UNK), ("<unk2>", 0, UNK)], {}, "pieces 0 and 1 are both the unknown piece"),
    ([("a", -1)], {}, "no piece is the unknown piece"),
    ([("<unk>", 0, UNK), ("<0x41>", 0, BYTE)], {}, "piece 1 ('<0x41>') is a byte piece, but byte_fallback is off"),
    ([("<unk>", 0, UNK), *BYTES[:255]], {"byte_fallback": True}, "only 255 of the 256 byte pieces are there"),
    ([("<unk>", 0, UNK), ("<0xZZ>", 0, BYTE)], {"byte_fallback": True}, "not one of <0x00> to <0xFF>"),
    ([("<unk>", 0, UNK), ("", -1)], {}, "piece 1 is empty"),
    ([("<unk>", 0, UNK), ("a\0b", -1)], {}, "piece 1 ('a\\x00b') holds a NUL character"),
    ([("<unk>", 0, UNK), ("x" * 8000, -1)], {}, "piece 1 is 8,000 bytes or longer"),
    ([("<unk>", 0, UNK), ("a", math.nan)], {"model_type": UNIGRAM}, "piece 1 has the score nan"),
    ([("<unk>", 0, UNK), ("<s>", 0, CTRL)], {"model_type": UNIGRAM}, "a Unigram model needs pieces besides"),
])
def test_a_model_sentencepiece_would_refuse(pieces, options, message):
    refused(model(pieces, **options), message)


def test_a_broken_charsmap():
    refused(model([("<unk>", 0, UNK), ("a", -1)], charsmap=b"\x08\x00\x00\x00" + bytes(16)),
            "normalizer_spec: the precompiled charsmap's trie size 8 is not a multiple of 1,024 bytes")


def test_bytes_that_are_no_model():
    refused(b"", "the model has no pieces", sentencepiece_too=False)  # sentencepiece takes b"" as no model
    refused(b"\x0b", "field 1 at byte 0 has wire type 3, which a model file never uses")
    refused(b"\x02\x00", "a field numbered 0 at byte 0")
    refused(b"\x0a", "a number runs past the end at byte 1 (is the file cut short?)")
    refused(b"\x0a\x05ab", "field 1 at byte 0 needs 5 bytes, but only 2 are left (is the file cut short?)")
    refused(b"\x0a\x03\x0a\x01\xff", "not a readable SentencePiece model: piece 0's piece is not UTF-8 text",
            sentencepiece_too=False)  # (sentencepiece takes the bytes; no text can hold them)
    with pytest.raises(BPEError, match="^x.model: a SentencePiece model is bytes, not str$"):
        sentencepiece_from_bytes("not bytes", name="x.model")  # type: ignore[arg-type]


@pytest.mark.parametrize("which", ["tokenizer.model.v1", "trained"])
def test_a_file_cut_short_anywhere(which):
    data = (MISTRAL / which).read_bytes() if which != "trained" else trained(model_type="unigram", byte_fallback=True)
    rng = random.Random(7)
    cuts = sorted({*range(1, 120), *(rng.randrange(len(data)) for _ in range(150)), len(data) - 1})
    for cut in cuts:
        refused(data[:cut], "", name="cut.model")


def test_a_file_cut_after_its_pieces_says_so():
    whole = dumps_model_proto(ModelProto(pieces=(Piece("<unk>", 0.0, UNK), Piece("a", -1.0), *BYTES),
                                         trainer_spec=TrainerSpec(byte_fallback=True)))
    assert sentencepiece_from_bytes(whole, name="whole.model")
    cut = whole[:whole.rindex(b"\x12")]  # without the trainer_spec and normalizer_spec after the pieces
    refused(cut, "byte_fallback is off (the file has no trainer_spec: is it cut short?)")


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_random_bytes_are_a_one_line_error_or_a_model_sentencepiece_also_loads(data):
    try:
        tokenizer = sentencepiece_from_bytes(data, name="random.model")
    except BPEError as exc:
        assert str(exc).startswith("random.model: ") and "\n" not in str(exc)
        return
    sp = spm.SentencePieceProcessor(model_proto=data)
    for text in EDGES[:12]:
        assert tokenizer.encode_ids(text) == sp.encode(text)


def test_a_missing_file(tmp_path):
    with pytest.raises(BPEError, match="^cannot read .*nothing.model: No such file or directory$"):
        load_sentencepiece(tmp_path / "nothing.model")
