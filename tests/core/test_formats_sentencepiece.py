"""SentencePiece `.model` files read by our own parser encode and decode as `sentencepiece` does.

On the real files mistral_common ships (Mistral 7B's tokenizer.model.v1 and the instruct
tokenizers v2, v3, v7: BPE with byte fallback, no charsmap, control and user-defined pieces)
and on models sentencepiece trains here (BPE, Unigram, WORD and CHAR; byte fallback on and off;
user-defined and control symbols; split digits; the nmt_nfkc, nmt_nfkc_cf, nfkc and identity
rules; whitespace as suffix; extra whitespace kept; pieces across words), every held-out text
(15 languages, prose, code, the sample files, edge cases) gives sentencepiece's ids, pieces and
offsets, and `decode` gives `sp.decode`. Hand-built models and broken files are in
test_formats_sentencepiece_cases.py.
"""
from __future__ import annotations

import dataclasses
import json
import random
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core.formats.sentencepiece import load_sentencepiece, sentencepiece_from_bytes
from bpe_core.formats.sentencepiece_proto import dumps_model_proto, parse_model_proto
from tests.conftest import require
from tests.core.sentencepiece_helpers import EDGES, MISTRAL, assert_same, corpora, spm, trained

pb = require("sentencepiece.sentencepiece_model_pb2")

MISTRAL_FILES = ["tokenizer.model.v1", "mistral_instruct_tokenizer_240216.model.v2",
                 "mistral_instruct_tokenizer_240323.model.v3", "mistral_instruct_tokenizer_241114.model.v7"]
USER = ("<sep>", "[X]", "▁the", "ing")
MODELS = {
    "bpe": {"model_type": "bpe"},
    "bpe-bytes-user-digits": {"model_type": "bpe", "byte_fallback": True, "user_defined_symbols": USER,
                              "control_symbols": ("<ctl>",), "split_digits": True},
    "bpe-identity-spaces": {"model_type": "bpe", "normalization_rule_name": "identity",
                            "remove_extra_whitespaces": False, "allow_whitespace_only_pieces": True},
    "bpe-across-words": {"model_type": "bpe", "split_by_whitespace": False, "byte_fallback": True},
    "unigram": {"model_type": "unigram"},
    "unigram-bytes-user-digits": {"model_type": "unigram", "byte_fallback": True, "user_defined_symbols": USER,
                                  "split_digits": True, "normalization_rule_name": "nmt_nfkc_cf"},
    "unigram-nfkc": {"model_type": "unigram", "normalization_rule_name": "nfkc"},
    "unigram-suffix": {"model_type": "unigram", "treat_whitespace_as_suffix": True, "add_dummy_prefix": True},
    "word": {"model_type": "word"},
    "char": {"model_type": "char", "user_defined_symbols": ("<sep>",)},
}


def mistral(name: str) -> bytes:
    return (MISTRAL / name).read_bytes()


@pytest.mark.parametrize("name", MISTRAL_FILES)
def test_the_mistral_files_encode_and_decode_as_sentencepiece(name):
    data = mistral(name)
    tokenizer = sentencepiece_from_bytes(data, name=name)
    assert tokenizer.kind == "BPE" and tokenizer.source == "sentencepiece"
    assert_same(tokenizer, data, corpora()[1])


def test_mistral_7b_on_long_prose_and_code():
    from sample_corpora import load_corpus

    data = mistral("tokenizer.model.v1")
    texts = [load_corpus("english", max_bytes=200_000)[:60_000], load_corpus("python", max_bytes=200_000)[:60_000]]
    assert_same(sentencepiece_from_bytes(data, name="tokenizer.model.v1"), data, texts)


def test_v7m1_is_v7_and_the_files_hold_what_they_say():
    v7 = "mistral_instruct_tokenizer_241114.model.v7"
    assert mistral(v7 + "m1") == mistral(v7)
    v1 = parse_model_proto(mistral("tokenizer.model.v1"))
    v3 = parse_model_proto(mistral("mistral_instruct_tokenizer_240323.model.v3"))
    assert (len(v1.pieces), v1.trainer_spec.model_type, v1.trainer_spec.byte_fallback) == (32000, 2, True)
    assert v1.normalizer_spec.name == "identity" and not v1.normalizer_spec.precompiled_charsmap
    assert not v1.normalizer_spec.remove_extra_whitespaces and v1.trainer_spec.split_digits
    assert len(v3.pieces) == 32768 and v3.pieces[3].piece == "[INST]" and v3.pieces[751].type == 4


@pytest.mark.parametrize("name", MODELS)
def test_trained_models_encode_and_decode_as_sentencepiece(name):
    data = trained(**MODELS[name])
    assert_same(sentencepiece_from_bytes(data, name=f"{name}.model"), data, corpora()[1])


@pytest.mark.parametrize("name", [*MISTRAL_FILES, "unigram-bytes-user-digits", "char"])
def test_our_parser_reads_what_protobuf_reads(name):
    data = mistral(name) if name in MISTRAL_FILES else trained(**MODELS[name])
    theirs = pb.ModelProto()
    theirs.ParseFromString(data)
    ours = parse_model_proto(data)
    assert [(p.piece, p.score, p.type) for p in ours.pieces] == [(p.piece, p.score, p.type) for p in theirs.pieces]
    for spec, other in [(ours.trainer_spec, theirs.trainer_spec), (ours.normalizer_spec, theirs.normalizer_spec)]:
        for field in dataclasses.fields(spec):
            value = getattr(other, field.name)
            assert getattr(spec, field.name) == (tuple(value) if field.name.endswith("symbols") else value), field.name


@pytest.mark.parametrize("base", ["bpe-bytes-user-digits", "unigram", "char"])
def test_every_normalizer_flag_combination(base):
    """The trained model with each combination of the normalizer's flags, written by our writer:
    sentencepiece loads it, and we encode and decode as it does."""
    proto = parse_model_proto(trained(**MODELS[base]))
    texts = [*EDGES, *(text[:1500] for text in corpora()[1][:17])]
    for dummy, extra, escape, suffix in product([True, False], repeat=4):
        normalizer = dataclasses.replace(proto.normalizer_spec, add_dummy_prefix=dummy,
                                         remove_extra_whitespaces=extra, escape_whitespaces=escape)
        trainer = dataclasses.replace(proto.trainer_spec, treat_whitespace_as_suffix=suffix)
        data = dumps_model_proto(dataclasses.replace(proto, normalizer_spec=normalizer, trainer_spec=trainer))
        assert parse_model_proto(data) == dataclasses.replace(proto, normalizer_spec=normalizer,
                                                              trainer_spec=trainer, fields=frozenset({1, 2, 3}))
        assert_same(sentencepiece_from_bytes(data, name="flags.model"), data, texts)


ALPHABET = list("ab the  \t\n\r12") + ["ing", "<sep>", "[X]", "▁", "ﬁ", "Ａ", "\u0301", "e\u0301", "é", "ŧ", "乾",
                                     "😀", "\u200d", "\u3000", "\u00a0", "\x00", "ß", "İ", "Σ", "क्ष", "한"]


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), max_size=14).map("".join))
def test_random_text_in_the_trickiest_models(text):
    for name in ("bpe-bytes-user-digits", "unigram-bytes-user-digits", "unigram-suffix"):
        data = trained(**MODELS[name])
        assert_same(cached_tokenizer(name), data, [text])


_TOKENIZERS: dict[str, object] = {}


def cached_tokenizer(name: str):
    if name not in _TOKENIZERS:
        _TOKENIZERS[name] = sentencepiece_from_bytes(trained(**MODELS[name]), name=name)
    return _TOKENIZERS[name]


@pytest.mark.parametrize("name", ["tokenizer.model.v1", "mistral_instruct_tokenizer_241114.model.v7",
                                  "bpe-bytes-user-digits", "unigram", "unigram-suffix", "word"])
def test_decoding_any_ids_is_sentencepieces(name):
    data = mistral(name) if name in MISTRAL_FILES else trained(**MODELS[name])
    sp = spm.SentencePieceProcessor(model_proto=data)
    tokenizer = sentencepiece_from_bytes(data, name=name)
    size = sp.get_piece_size()
    odd = [i for i in range(size) if sp.is_control(i) or sp.is_unknown(i) or sp.is_byte(i)][:300]
    spaced = [i for i in range(size) if sp.id_to_piece(i).startswith("▁")][:50]
    rng = random.Random(0)
    for _ in range(1500):
        ids = [rng.choice([rng.randrange(size), rng.choice(odd), rng.choice(spaced)]) for _ in range(rng.randrange(8))]
        assert tokenizer.decode(ids) == sp.decode(ids), [sp.id_to_piece(i) for i in ids]


def test_control_pieces_are_special_and_user_defined_ones_are_matched_in_the_text():
    data = mistral("mistral_instruct_tokenizer_241114.model.v7")
    tokenizer = sentencepiece_from_bytes(data, name="v7.model")
    encoding = tokenizer.encode("[INST] hi [/INST][REF]x")
    # "[INST]" is a control piece: ordinary text here, as sentencepiece has it. "[REF]" is user-defined.
    assert 3 not in encoding.ids and 750 in encoding.ids
    assert not any(encoding.special) and tokenizer.is_special("[INST]") and not tokenizer.is_special("[REF]")
    ids = [1, 3, *tokenizer.encode_ids("Hello"), 2]
    assert tokenizer.decode(ids) == spm.SentencePieceProcessor(model_proto=data).decode(ids) == "Hello"
    # Kept, the control pieces show as themselves, and the leading space still goes.
    assert tokenizer.decode(ids, skip_special_tokens=False) == "<s>[INST]Hello</s>"
    assert tokenizer.vocab["<unk>"] == 0 and tokenizer.vocab["<0x0A>"] == 781 and tokenizer.vocab_size == 32768


def test_unknown_tokens_are_flagged_and_carry_their_text():
    tokenizer = cached_tokenizer("unigram")
    encoding = tokenizer.encode("ŧŧ x")
    assert encoding.tokens[:2] == ["▁", "ŧŧ"] and encoding.unknown[:2] == [False, True]
    assert tokenizer.decode(encoding.ids) == " \u2047  x"


def test_the_tokenizer_json_it_writes_loads_in_tokenizers_and_agrees_on_plain_lines():
    """The export is the nearest `tokenizers` pipeline (no `tokenizers` part drops extra spaces
    or breaks BPE ties as sentencepiece does); on ordinary lines it gives the same ids."""
    tk = require("tokenizers")
    lines = [line for line in corpora()[1][15].splitlines() if line.strip()][:150]
    for data in (mistral("tokenizer.model.v1"), trained(**MODELS["unigram"])):
        sp = spm.SentencePieceProcessor(model_proto=data)
        exported = tk.Tokenizer.from_str(json.dumps(sentencepiece_from_bytes(data, name="x").to_hf_dict()))
        assert [exported.encode(line, add_special_tokens=False).ids for line in lines] == [sp.encode(x) for x in lines]


def test_load_from_a_path(tmp_path):
    path = tmp_path / "tok.model"
    path.write_bytes(mistral("tokenizer.model.v1"))
    assert load_sentencepiece(path).encode_ids("Hello world") == [22557, 1526]
