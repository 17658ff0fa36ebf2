"""Hugging Face tokenizer.json: export checked in `tokenizers`, import of files it wrote, ids it refuses."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import BPEError, Settings, Tokenizer, train
from bpe_core.formats import from_hf_dict, load_any, load_hf, save_hf, to_hf_dict
from bpe_core.formats.huggingface import WORD_END
from tests.conftest import SEED000
from tests.core.formats_common import (
    CORPUS,
    GOLDEN,
    MODES,
    TEXTS,
    assert_same_encodings,
    hf_byte_level_model,
    hf_lib,
    hf_tokens,
    trained_by_mode,
)


@pytest.fixture(scope="module")
def trained() -> dict[str, Tokenizer]:
    return trained_by_mode()


# ---- Hugging Face export --------------------------------------------------------------------


@pytest.mark.parametrize("name", MODES)
def test_hf_export_encodes_like_us_in_tokenizers(trained, tmp_path, name):
    tok = trained[name]
    save_hf(tok, tmp_path / "tokenizer.json")
    theirs = hf_lib().Tokenizer.from_file(str(tmp_path / "tokenizer.json"))
    for text in TEXTS:
        ours, got = tok.encode(text), theirs.encode(text)
        assert got.ids == ours.ids, text
        assert got.tokens == hf_tokens(ours.tokens, tok), text
        if "</w>" not in text:  # we decode a literal "</w>" in the text as a word end, too
            assert theirs.decode(got.ids) == tok.decode(ours.ids), text


@pytest.mark.parametrize("name", MODES)
def test_hf_export_reimports_to_the_same_tokenizer(trained, tmp_path, name):
    tok = trained[name]
    save_hf(tok, tmp_path / "tokenizer.json")
    again = load_any(tmp_path / "tokenizer.json")
    assert again.settings == tok.settings.with_changes(tie_break="count-pair")  # files hold no tie-break
    assert again.vocab == tok.vocab and again.merges == tok.merges and again.source == "huggingface"
    assert_same_encodings(tok, again)


def test_hf_export_writes_merges_as_pairs_and_matches_the_golden_file():
    data = to_hf_dict(train(SEED000, merges=10))
    assert data["model"]["merges"][:2] == [["w", "e"], ["t", WORD_END]]
    golden = json.loads((GOLDEN / "seed000_tokenizer.json").read_text(encoding="utf-8"))
    assert data == golden
    theirs = hf_lib().Tokenizer.from_file(str(GOLDEN / "seed000_tokenizer.json"))
    assert theirs.encode("lowest newer").tokens == ["lo", "we", "st␣", "newe", "r", "␣"]


def test_hf_reads_legacy_string_merges_too(trained):
    data = to_hf_dict(trained["bytes-gpt2"])  # byte-level tokens never hold a space
    data["model"]["merges"] = [" ".join(pair) for pair in data["model"]["merges"]]
    theirs = hf_lib().Tokenizer.from_str(json.dumps(data))
    ours = from_hf_dict(data)
    for text in TEXTS:
        assert ours.encode(text).ids == theirs.encode(text).ids


def test_hf_export_refuses_a_vocabulary_holding_the_stand_in():
    with pytest.raises(BPEError, match="retrain with --eow suffix"):
        to_hf_dict(train("a␣b a␣b c", merges=2))


@pytest.fixture(scope="module")
def trained_hf(trained, tmp_path_factory):
    out = []
    for name in ("word-separate", "word-suffix", "text-whitespace", "bytes-gpt4"):
        path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
        save_hf(trained[name], path)
        out.append((trained[name], hf_lib().Tokenizer.from_file(str(path))))
    return out


@hyp_settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(alphabet=st.sampled_from(sorted(set(CORPUS + " \t\n␣\x1c\u3000ñ"))), max_size=60))
def test_hf_export_agrees_on_any_text(trained_hf, text):
    for tok, theirs in trained_hf:
        assert theirs.encode(text).ids == tok.encode(text).ids


# ---- Hugging Face import --------------------------------------------------------------------


def hf_suffix_model(*, nfkc_lowercase: bool = False):
    hf_lib()
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, normalizers, pre_tokenizers, trainers

    hf = HFTokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>"))
    if nfkc_lowercase:
        hf.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
    hf.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<unk>"], end_of_word_suffix="</w>", show_progress=False
    )
    hf.train_from_iterator([CORPUS], trainer)
    return hf




@pytest.mark.parametrize(
    "make",
    [hf_suffix_model, lambda: hf_suffix_model(nfkc_lowercase=True), hf_byte_level_model],
    ids=["suffix", "suffix-nfkc-lower", "byte-level"],
)
def test_hf_import_of_files_tokenizers_wrote(tmp_path, make):
    hf = make()
    hf.save(str(tmp_path / "tokenizer.json"))
    ours = load_any(tmp_path / "tokenizer.json")
    assert ours.source == "huggingface"
    for text in TEXTS:
        # WhitespaceSplit keeps U+001C..U+001F inside words, where str.split() breaks: the one gap.
        text = text.replace("\x1c", " ")
        theirs = hf.encode(text, add_special_tokens=False)
        mine = ours.encode(text)
        assert (mine.tokens, mine.ids) == (theirs.tokens, theirs.ids), text


def test_hf_import_maps_settings(tmp_path):
    hf_byte_level_model().save(str(tmp_path / "bytes.json"))
    byte_level = load_hf(tmp_path / "bytes.json")
    assert (byte_level.settings.mode, byte_level.settings.pretokenizer) == ("bytes", "gpt2")
    assert byte_level.vocab["<s>"] == 0 and byte_level.unk_token is None


def test_whitespace_split_file_reads_exactly(tmp_path):
    """`WhitespaceSplit` keeps U+001C..U+001F inside a word, where word mode breaks: such a file
    is no merge-list tokenizer, and `load_any` reads it as parts, with `tokenizers`' ids."""
    model = hf_suffix_model(nfkc_lowercase=True)
    model.save(str(tmp_path / "suffix.json"))
    with pytest.raises(BPEError, match="pre-tokenizer WhitespaceSplit has no equivalent"):
        load_hf(tmp_path / "suffix.json")
    ours = load_any(tmp_path / "suffix.json")
    assert not isinstance(ours, Tokenizer)
    for text in ["low\x1clower newest", "Lowest\x1f \x1dwidest\u3000x", "ＮＥＷ"]:
        assert ours.encode_ids(text) == model.encode(text, add_special_tokens=False).ids, text


def hf_file(tmp_path: Path, change) -> Path:
    data = to_hf_dict(train(SEED000, Settings(eow="suffix"), merges=10))
    change(data)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


MERGE_LIST_CANNOT = [
        (lambda d: d["model"].update(type="WordPiece"), "holds a WordPiece model"),
        (lambda d: d["model"].pop("vocab"), "'model.vocab' must be a non-empty object"),
        (lambda d: d["model"].update(vocab=["a", "b"]), "'model.vocab' must be a non-empty object"),
        (lambda d: d["model"]["vocab"].update(x="7"), "the id of 'x' must be a whole number"),
        (lambda d: d["model"]["merges"].append(["zz", "q"]), "'zz', which is not in the vocabulary"),
        (lambda d: d["model"]["merges"].append(["a", "b", "c"]), "not a pair of tokens"),
        (lambda d: d["model"].update(merges={"a": "b"}), "'model.merges' must be a list"),
        (lambda d: d["model"].update(end_of_word_suffix="@@"), "end_of_word_suffix '@@' is not supported"),
        (lambda d: d["model"].update(continuing_subword_prefix="##"), "continuing_subword_prefix"),
        (lambda d: d["model"].update(ignore_merges=True), "ignore_merges"),
        (lambda d: d.update(normalizer={"type": "BertNormalizer"}), "normalizer BertNormalizer has no"),
        (lambda d: d.update(pre_tokenizer={"type": "Whitespace"}), "pre-tokenizer Whitespace has no"),
        (lambda d: d.update(pre_tokenizer={"type": "ByteLevel", "add_prefix_space": True}), "prefix_space"),
        (lambda d: d.update(pre_tokenizer=None), "end_of_word_suffix needs a whitespace pre-tokenizer"),
        (lambda d: d.update(model="BPE"), "'model' must be an object"),
]


@pytest.mark.parametrize(("change", "message"), MERGE_LIST_CANNOT)
def test_the_merge_list_reader_rejects_what_it_cannot_reproduce(tmp_path, change, message):
    data = json.loads(hf_file(tmp_path, change).read_text(encoding="utf-8"))
    with pytest.raises(BPEError, match=message) as caught:
        from_hf_dict(data, name="tokenizer.json")
    assert "\n" not in str(caught.value) and "tokenizer.json" in str(caught.value)


@pytest.mark.parametrize("change", [case[0] for case in MERGE_LIST_CANNOT])
def test_any_tokenizer_json_reads_exactly_what_tokenizers_reads(tmp_path, change):
    """What the merge list cannot express is read as a tokenizer of parts when `tokenizers` loads
    it (with its ids), and refused in one line naming the file when `tokenizers` refuses it."""
    tokenizers = pytest.importorskip("tokenizers")
    path = hf_file(tmp_path, change)
    try:
        theirs = tokenizers.Tokenizer.from_file(str(path))
    except BaseException:  # tokenizers panics (a BaseException, not an Exception) on some malformed merges
        theirs = None
    if theirs is None:
        with pytest.raises(BPEError) as caught:
            load_any(path)
        assert "\n" not in str(caught.value) and str(caught.value).startswith("tokenizer.json: ")
        return
    ours = load_any(path)
    for text in (SEED000, "lowest newer widest naïve 日本語", "  two  spaces\n"):
        assert ours.encode(text).ids == theirs.encode(text, add_special_tokens=False).ids



# ---- ids no real tokenizer has --------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["model"]["vocab"].update(x=2**32),
         r"token 'x' has id 4294967296: ids are whole numbers from 0 to 4,294,967,295"),
        (lambda d: d["model"]["vocab"].update(x=-1),
         r"token 'x' has id -1: ids are whole numbers from 0 to 4,294,967,295"),
        (lambda d: d["model"]["vocab"].update(x=1.5), r"token 'x' has id 1.5: ids are whole numbers"),
        (lambda d: d["model"]["vocab"].update(x=True), r"token 'x' has id True: ids are whole numbers"),
        (
            lambda d: d["added_tokens"].append({"id": 0, "content": "<pad>"}),
            r"added token '<pad>': has id 0, which already belongs to 'd'",
        ),
        (
            lambda d: d["added_tokens"].extend([{"id": 90, "content": "<a>"}, {"id": 90, "content": "<b>"}]),
            r"added token '<b>': has id 90, which already belongs to '<a>'",
        ),
        (
            lambda d: d["added_tokens"].append({"id": 90, "content": "d"}),
            r"added token 'd': has id 90, but the model's vocabulary gives it 0",
        ),
        (
            lambda d: d["added_tokens"].append({"id": 2**32, "content": "<big>"}),
            r"added token '<big>': needs a whole-number 'id' from 0 to 4,294,967,295",
        ),
        (lambda d: d["added_tokens"].append({"id": "7", "content": "<s>"}),
         r"added token '<s>': needs a whole-number 'id'"),
    ],
)
def test_hf_files_with_ids_tokenizers_refuses_are_refused(tmp_path, change, message):
    with pytest.raises(BPEError, match=message) as caught:
        load_any(hf_file(tmp_path, change))
    assert "\n" not in str(caught.value) and str(caught.value).startswith("tokenizer.json: ")


def test_hf_added_tokens_join_the_vocabulary_with_their_ids(tmp_path):
    def add(d):
        d["added_tokens"] += [{"id": 0, "content": "d"}, {"id": 2**32 - 1, "content": "<end>"}]

    tok = load_any(hf_file(tmp_path, add))
    assert tok.vocab["d"] == 0 and tok.vocab["<end>"] == 2**32 - 1
    assert tok.decode([2**32 - 1]) == "<end>"
