"""Tokenizer files: our JSON, Hugging Face tokenizer.json, GPT-2 vocab/merges, tiktoken, load_any."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from bpe_core import BPEError, Settings, Tokenizer, train
from bpe_core.formats import (
    detect_format,
    dumps_gpt2,
    dumps_hf,
    dumps_tokenizer,
    from_hf_dict,
    from_json_dict,
    load_any,
    load_bytes,
    load_gpt2,
    load_hf,
    load_tokenizer,
    save_gpt2,
    save_hf,
    save_tokenizer,
    to_hf_dict,
    to_json_dict,
)
from bpe_core.formats.huggingface import WORD_END
from bpe_core.pretokenize import symbols_to_bytes
from tests.conftest import ROOT, SEED000, require


def hf_lib():
    """Hugging Face's `tokenizers`, for the tests that compare with it (skipped locally without it, failed under CI)."""
    return require("tokenizers")


GOLDEN = Path(__file__).parent / "golden"
CORPUS = "\n".join(
    (ROOT / "sample_corpora" / name).read_text(encoding="utf-8")
    for name in ("multilingual.txt", "tricky.txt")
)
TEXTS = [
    "The morning train was late again, so everyone shared their umbrellas.",
    "Le marché ouvre tôt: crêpes, Bücher, Straßen, café and résumé",
    "hello 😀 family 👨‍👩‍👧‍👦 flag 🇫🇷 thumbs 👍🏽 heart ❤️",
    "今天早上我去市场买了新鲜的蔬菜和水果。駅の近くに小さなパン屋があります。",
    "  leading\tand trailing  \n\nspaces\x1cand\u3000separators ",
    "unseen: ñ ¿ Ω ж zebra quixotic 𝔘𝔫𝔦",
    "literal </w> and ␣ markers <script>x</script>",
    "",
]
MODES = {
    "word-separate": Settings(),
    "word-suffix": Settings(eow="suffix"),
    "word-none": Settings(eow="none"),
    "word-nfkc-lower": Settings(normalization="NFKC", lowercase=True),
    "text-none": Settings(mode="text"),
    "text-whitespace": Settings(mode="text", pretokenizer="whitespace"),
    "text-gpt2": Settings(mode="text", pretokenizer="gpt2"),
    "bytes-gpt2": Settings(mode="bytes"),
    "bytes-gpt4": Settings(mode="bytes", pretokenizer="gpt4", normalization="NFC"),
    "bytes-none": Settings(mode="bytes", pretokenizer="none"),
}


@pytest.fixture(scope="module")
def trained() -> dict[str, Tokenizer]:
    return {name: train(CORPUS, settings, merges=300) for name, settings in MODES.items()}


def hf_tokens(tokens: list[str], tok: Tokenizer) -> list[str]:
    """Hugging Face's spelling of our tokens (the separate marker is written WORD_END)."""
    if tok.settings.mode == "word" and tok.settings.eow == "separate":
        return [t[:-4] + WORD_END if t.endswith("</w>") else t for t in tokens]
    return tokens


def assert_same_encodings(ours: Tokenizer, theirs: Tokenizer, texts: list[str] = TEXTS) -> None:
    for text in texts:
        a, b = ours.encode(text), theirs.encode(text)
        assert (a.tokens, a.ids) == (b.tokens, b.ids), text


# ---- our JSON -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", MODES)
def test_our_json_round_trip_keeps_encodings_and_training(trained, tmp_path, name):
    tok = trained[name]
    save_tokenizer(tok, tmp_path / "model.json")
    loaded = load_tokenizer(tmp_path / "model.json")
    assert loaded.settings == tok.settings
    assert loaded.merges == tok.merges and loaded.vocab == tok.vocab
    assert loaded.training == tok.training  # trace, top pairs and every number
    assert loaded.trace == tok.trace and loaded.source == "trained"
    assert_same_encodings(tok, loaded)
    assert "vocab" not in json.loads((tmp_path / "model.json").read_text(encoding="utf-8"))


def test_our_json_matches_the_golden_seed000_file():
    tok = train(SEED000, merges=10)
    golden = json.loads((GOLDEN / "seed000_model.json").read_text(encoding="utf-8"))
    ours = to_json_dict(tok)
    for data in (golden, ours):
        data["training"].pop("stats")  # timings, if the trainer records any, vary by run
    assert ours == golden
    loaded = load_any(GOLDEN / "seed000_model.json")
    first = [(m.left, m.right, m.count) for m in loaded.trace[:3]]
    assert first == [("w", "e", 9), ("t", "</w>", 9), ("s", "t</w>", 9)]
    assert loaded.encode("lowest").tokens == ["lo", "we", "st</w>"]


def test_our_json_stores_the_vocab_of_imported_tokenizers(trained, tmp_path):
    save_hf(trained["bytes-gpt2"], tmp_path / "tokenizer.json")
    imported = load_hf(tmp_path / "tokenizer.json")
    data = to_json_dict(imported)
    assert data["source"] == "huggingface" and data["vocab"] == imported.vocab and "training" not in data
    again = from_json_dict(json.loads(json.dumps(data)))
    assert again.source == "huggingface" and again.vocab == imported.vocab and again.trace == []
    assert_same_encodings(imported, again)


def write_tiktoken(tok: Tokenizer, path: Path) -> None:
    """A rank file of a byte-level tokenizer: every single byte, then each merge's token bytes."""
    tokens = [bytes([b]) for b in range(256)] + [symbols_to_bytes(a + b) for a, b in tok.merges]
    lines = [f"{base64.b64encode(t).decode()} {rank}" for rank, t in enumerate(dict.fromkeys(tokens))]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")


def test_tiktoken_sourced_tokenizers_reload_with_concat_ranks(trained, tmp_path):
    write_tiktoken(trained["bytes-gpt4"], tmp_path / "small.tiktoken")
    tik = load_any(tmp_path / "small.tiktoken")
    assert tik.source == "tiktoken" and tik.table.concat
    save_tokenizer(tik, tmp_path / "model.json")
    again = load_any(tmp_path / "model.json")
    assert again.source == "tiktoken" and again.table.concat and again.vocab == tik.vocab
    assert again.merges == tik.merges
    assert_same_encodings(tik, again)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="something-else"), "not a bpe-explorer model"),
        (lambda d: d.update(version=2), "reads only version 1"),
        (lambda d: d.pop("settings"), "'settings' must be an object"),
        (lambda d: d["settings"].update(mode="letters"), "unknown mode 'letters'"),
        (lambda d: d["settings"].update(lowercase="yes"), "'lowercase' must be true or false"),
        (lambda d: d.update(merges="w e"), "'merges' must be a list"),
        (lambda d: d["merges"].__setitem__(3, ["n"]), "item 3"),
        (lambda d: d["merges"].__setitem__(0, ["w", "q"]), "'q'"),
        (lambda d: d["training"]["trace"].pop(), "does not match 'merges'"),
        (lambda d: d["training"]["trace"][2].pop("count"), "lacks 'count'"),
        (lambda d: d["training"]["trace"][2].update(count="9"), "item 2: 'count' must be a whole number"),
        (lambda d: d["training"].update(word_count=-1), "training.word_count must be a whole number"),
        (lambda d: d.update(vocab={"a": 0, "b": 0}), "id 0 is given to both"),
        (lambda d: d.update(rank_rule="fastest"), "'rank_rule'"),
        (lambda d: d.update(rank_rule="concat"), "'concat' rank rule needs a 'vocab'"),
        (lambda d: d.pop("base"), "neither a base symbol nor made by an earlier merge"),
    ],
)
def test_our_json_rejects_malformed_files(change, message):
    data = to_json_dict(train(SEED000, merges=10))
    change(data)
    with pytest.raises(BPEError, match=message) as caught:
        from_json_dict(data, name="model.json")
    assert "\n" not in str(caught.value)


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


@hyp_settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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


def hf_byte_level_model():
    hf_lib()
    from tokenizers import ByteLevelBPETokenizer

    hf = ByteLevelBPETokenizer()
    hf.train_from_iterator(
        [CORPUS], vocab_size=600, special_tokens=["<s>", "<pad>", "</s>", "<unk>"], show_progress=False
    )
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
    hf_suffix_model(nfkc_lowercase=True).save(str(tmp_path / "suffix.json"))
    hf_byte_level_model().save(str(tmp_path / "bytes.json"))
    suffix, byte_level = load_hf(tmp_path / "suffix.json"), load_hf(tmp_path / "bytes.json")
    assert suffix.settings == Settings(eow="suffix", normalization="NFKC", lowercase=True)
    assert suffix.unk_token == "<unk>"
    assert (byte_level.settings.mode, byte_level.settings.pretokenizer) == ("bytes", "gpt2")
    assert byte_level.vocab["<s>"] == 0 and byte_level.unk_token is None


def hf_file(tmp_path: Path, change) -> Path:
    data = to_hf_dict(train(SEED000, Settings(eow="suffix"), merges=10))
    change(data)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
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
    ],
)
def test_hf_import_rejects_what_it_cannot_reproduce(tmp_path, change, message):
    with pytest.raises(BPEError, match=message) as caught:
        load_any(hf_file(tmp_path, change))
    assert "\n" not in str(caught.value) and "tokenizer.json" in str(caught.value)


# ---- GPT-2 vocab.json + merges.txt ----------------------------------------------------------


def test_gpt2_export_loads_in_tokenizers_and_reimports(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    vocab_path, merges_path = save_gpt2(tok, tmp_path / "gpt2")
    assert merges_path.read_text(encoding="utf-8").splitlines()[0] == "#version: 0.2"
    theirs = hf_lib().ByteLevelBPETokenizer(str(vocab_path), str(merges_path))
    again = load_any(vocab_path)
    assert again.source == "gpt2" and again.vocab == tok.vocab and again.merges == tok.merges
    for text in TEXTS:
        ours = tok.encode(text)
        got = theirs.encode(text)
        assert (got.tokens, got.ids) == (ours.tokens, ours.ids), text
        assert again.encode(text).ids == ours.ids


def test_gpt2_import_of_files_tokenizers_wrote(tmp_path):
    hf = hf_byte_level_model()
    hf.save_model(str(tmp_path), "tiny")  # tiny-vocab.json, tiny-merges.txt
    ours = load_any(tmp_path / "tiny-vocab.json")
    assert (ours.settings.mode, ours.settings.pretokenizer) == ("bytes", "gpt2")
    for text in TEXTS:
        assert ours.encode(text).ids == hf.encode(text).ids, text


def test_gpt2_loads_from_a_directory(trained, tmp_path):
    save_gpt2(trained["bytes-gpt2"], tmp_path)
    assert load_any(tmp_path).vocab == trained["bytes-gpt2"].vocab


@pytest.mark.parametrize("name", ["word-separate", "text-none", "bytes-gpt4"])
def test_gpt2_export_refuses_what_the_format_cannot_say(trained, tmp_path, name):
    with pytest.raises(BPEError, match="Hugging Face tokenizer.json can"):
        save_gpt2(trained[name], tmp_path / "out")


def test_gpt2_merges_must_sit_beside_the_vocab(trained, tmp_path):
    vocab_path, merges_path = save_gpt2(trained["bytes-gpt2"], tmp_path)
    merges_path.unlink()
    beside = r"vocab.json is a GPT-2 vocabulary, but no merges file \(merges.txt or vocab.bpe\) is beside it"
    with pytest.raises(BPEError, match=beside):
        load_any(vocab_path)


@pytest.mark.parametrize(
    ("merges", "message"),
    [
        ("#version: 0.2\nĠ t h\n", "line 2: expected 'left right'"),
        ("#version: 0.2\nĠ zzz\n", "'zzz', which is not in vocab.json"),
        (b"#version: 0.2\n\xff\xfe\n", "not UTF-8"),
    ],
)
def test_gpt2_rejects_bad_merges(trained, tmp_path, merges, message):
    vocab_path, merges_path = save_gpt2(trained["bytes-gpt2"], tmp_path)
    if isinstance(merges, bytes):
        merges_path.write_bytes(merges)
    else:
        merges_path.write_text(merges, encoding="utf-8")
    with pytest.raises(BPEError, match=message):
        load_gpt2(vocab_path)


# ---- load_any: detection and broken files ---------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"   \n\n", "only whitespace"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        (b"caf\xe9 au lait", "not UTF-8"),
        (b"{\"format\": \"bpe-explorer\", \"version\": 1, \"merges\": [", "not valid JSON"),
        (b"{\"a\": 1,}", "not valid JSON .* line 1, column 9"),
        (b"[1, 2, 3]", "JSON but not a tokenizer"),
        (b"{}", "JSON but not a tokenizer"),
        (b"{\"hello\": \"world\"}", "JSON but not a tokenizer"),
        (b"{\"format\": \"sentencepiece\"}", "not a bpe-explorer model file"),
        (b"just some words\n", "broken.json is plain text, not a tokenizer file"),
        (b"#version: 0.2\na b\n", "broken.json is a GPT-2 merges file, but no vocabulary"),
        (b"IQ== 0\nIg== one\n", "line 2"),
        (b"IQ== 0\n", "lacks 255 of the 256 single-byte tokens"),
        (b"[" * 100_000, "nested too deeply|not valid JSON"),
    ],
)
def test_load_any_rejects_broken_files_in_one_line(tmp_path, content, message):
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    with pytest.raises(BPEError, match=message) as caught:
        load_any(path)
    assert "\n" not in str(caught.value)


def test_load_any_rejects_a_truncated_model(tmp_path):
    save_tokenizer(train(SEED000, merges=10), tmp_path / "model.json")
    whole = (tmp_path / "model.json").read_bytes()
    (tmp_path / "cut.json").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(BPEError, match="cut.json is not valid JSON"):
        load_any(tmp_path / "cut.json")


def test_load_any_reports_missing_paths_and_bare_directories(tmp_path):
    with pytest.raises(BPEError, match="does not exist"):
        load_any(tmp_path / "nowhere.json")
    with pytest.raises(BPEError, match="without tokenizer.json, vocab.json or encoder.json"):
        load_any(tmp_path)


def test_load_any_detects_every_format(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    save_tokenizer(tok, tmp_path / "ours.json")
    save_hf(tok, tmp_path / "hf.json")
    vocab_path, _ = save_gpt2(tok, tmp_path / "gpt2")
    write_tiktoken(tok, tmp_path / "ranks.tiktoken")
    (tmp_path / "ranks.txt").write_bytes((tmp_path / "ranks.tiktoken").read_bytes())
    paths = [tmp_path / "ours.json", tmp_path / "hf.json", vocab_path, tmp_path / "ranks.tiktoken"]
    sources = {path.name: load_any(path).source for path in [*paths, tmp_path / "ranks.txt"]}
    assert sources == {
        "ours.json": "trained",
        "hf.json": "huggingface",
        "vocab.json": "gpt2",
        "ranks.tiktoken": "tiktoken",
        "ranks.txt": "tiktoken",
    }


# ---- detection by structure, not by key names ---------------------------------------------


def gpt2_export_with_tokens_named_like_keys(tok: Tokenizer, directory: Path) -> Path:
    """A GPT-2 export whose vocabulary also holds tokens spelt "format", "model" and "version"."""
    vocab_path, _ = save_gpt2(tok, directory)
    vocab = json.loads(vocab_path.read_text(encoding="utf-8"))
    next_id = max(vocab.values()) + 1
    for offset, token in enumerate(("format", "model", "version")):
        vocab.setdefault(token, next_id + offset)
    vocab_path.write_text(json.dumps(vocab), encoding="utf-8")
    return vocab_path


def test_a_gpt2_vocabulary_with_tokens_named_format_and_model_is_still_a_vocabulary(trained, tmp_path):
    vocab_path = gpt2_export_with_tokens_named_like_keys(trained["bytes-gpt2"], tmp_path)
    assert detect_format("vocab.json", vocab_path.read_bytes()) == "gpt2-vocab"
    loaded = load_any(vocab_path)
    assert loaded.source == "gpt2" and loaded.vocab["format"] == len(trained["bytes-gpt2"].vocab)
    assert_same_encodings(trained["bytes-gpt2"], loaded)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b'{"format": "bpe-explorer", "version": 1}', "bpe-explorer"),
        (b'{"format": "sentencepiece"}', "bpe-explorer"),  # our reader names the foreign format
        (b'{"model": {"type": "BPE"}}', "huggingface"),
        (b'{"model": "BPE", "pre_tokenizer": null}', "huggingface"),
        (b'{"format": 3, "model": 4, "version": 5}', "gpt2-vocab"),
        (b"#version: 0.2\n\xc4\xa0 t\nh e\n", "gpt2-merges"),
        (b"h e\r\nhe llo\r\n", "gpt2-merges"),
        (b"IQ== 0\nIg== 1\n", "tiktoken"),
        (b"IQ== -1\n", "tiktoken"),  # detected, then refused by the reader with the line
    ],
)
def test_detect_format_judges_the_whole_structure(data, kind):
    assert detect_format("upload.txt", data) == kind


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"Permission is hereby granted, free of charge,\nto any person obtaining a copy\n", "plain text, not a"),
        (b"#version: 0.2\nthree words here\n", "plain text, not a tokenizer"),
        (b"#version: 0.2\n", "plain text, not a tokenizer"),
        (b"a  b\n", "plain text, not a tokenizer"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "upload.txt looks like a binary file .* not a tokenizer"),
        (b"\xff\xd8\xff\xe0 JFIF", "upload.txt is not UTF-8 text"),
        (b'{"vocab": {"a": 0}}', "JSON but not a tokenizer"),
        (b"[[\"a\", \"b\"]]", "JSON but not a tokenizer"),
    ],
)
def test_a_txt_that_is_no_tokenizer_is_called_what_it_is(data, message):
    with pytest.raises(BPEError, match=message) as caught:
        detect_format("upload.txt", data)
    assert "\n" not in str(caught.value) and "GPT-2 merges" not in str(caught.value)


# ---- ids and ranks no real tokenizer has ----------------------------------------------------


def rank_file(ranks: list[tuple[bytes, int]]) -> bytes:
    return "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks).encode("ascii")


ALL_BYTES = [(bytes([b]), b) for b in range(256)]


@pytest.mark.parametrize(
    ("ranks", "message"),
    [
        ([(bytes([b]), 0) for b in range(256)], r"line 2: rank 0 is given to both b'\\x00' and b'\\x01'"),
        ([*ALL_BYTES, (b"ab", 7)], r"line 257: rank 7 is given to both b'\\x07' and b'ab'"),
        ([*ALL_BYTES, (b"ab", -1)], "line 257: rank -1 is not a token id from 0 to 2,147,483,647"),
        ([*ALL_BYTES, (b"ab", 2**31)], "line 257: rank 2147483648 is not a token id"),
        ([*ALL_BYTES, (b"ab", 10**30)], "line 257: rank 1000000000000000000000000000000 is not a token id"),
        ([*ALL_BYTES, (b"\x00", 300)], r"line 257: token b'\\x00' appears twice"),
    ],
)
def test_tiktoken_files_with_impossible_ranks_are_refused(tmp_path, ranks, message):
    path = tmp_path / "bad.tiktoken"
    path.write_bytes(rank_file(ranks))
    for load in (lambda: load_any(path), lambda: load_bytes("bad.tiktoken", path.read_bytes())):
        with pytest.raises(BPEError, match=message) as caught:
            load()
        assert "\n" not in str(caught.value) and str(caught.value).startswith("bad.tiktoken line")


def test_tiktoken_ranks_up_to_the_limit_load(tmp_path):
    path = tmp_path / "ok.tiktoken"
    path.write_bytes(rank_file([*ALL_BYTES, (b"ab", 2**31 - 1)]))
    assert load_any(path).encode("ab abc").ids == [2**31 - 1, 32, 2**31 - 1, 99]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["model"]["vocab"].update(x=2**32), r"'x' must be a whole number from 0 to 4,294,967,295, not 42"),
        (lambda d: d["model"]["vocab"].update(x=-1), r"the id of 'x' must be a whole number from 0 to [0-9,]+, not -1"),
        (lambda d: d["model"]["vocab"].update(x=1.5), r"the id of 'x' must be a whole number .* not 1.5"),
        (lambda d: d["model"]["vocab"].update(x=True), r"the id of 'x' must be a whole number .* not true/false"),
        (
            lambda d: d["added_tokens"].append({"id": 0, "content": "<pad>"}),
            r"added token '<pad>' has id 0, which already belongs to 'd'",
        ),
        (
            lambda d: d["added_tokens"].extend([{"id": 90, "content": "<a>"}, {"id": 90, "content": "<b>"}]),
            r"added token '<b>' has id 90, which already belongs to '<a>'",
        ),
        (
            lambda d: d["added_tokens"].append({"id": 90, "content": "d"}),
            r"added token 'd' has id 90, but the vocabulary gives it 0",
        ),
        (
            lambda d: d["added_tokens"].append({"id": 2**32, "content": "<big>"}),
            r"the id of added token '<big>' must be a whole number from 0 to 4,294,967,295",
        ),
        (lambda d: d["added_tokens"].append({"id": "7", "content": "<s>"}), r"token '<s>' must be a whole number"),
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


# ---- load_bytes: tokenizers from memory (uploads) ---------------------------------------------


def test_load_bytes_reads_every_format_without_touching_the_disk(trained, tmp_path, monkeypatch):
    tok = trained["bytes-gpt2"]
    vocab_text, merges_text = dumps_gpt2(tok)
    write_tiktoken(tok, tmp_path / "ranks.tiktoken")
    ranks = (tmp_path / "ranks.tiktoken").read_bytes()
    monkeypatch.setattr(Path, "write_bytes", None)  # nothing may be written to read an upload
    monkeypatch.setattr(Path, "write_text", None)
    long_name = "語" * 100 + ".json"  # longer than a file name may be (255 bytes)
    loaded = {
        "ours": load_bytes(long_name, dumps_tokenizer(tok).encode()),
        "hf": load_bytes(long_name, dumps_hf(tok).encode()),
        "gpt2": load_bytes(long_name, vocab_text.encode(), merges=("語" * 100 + ".txt", merges_text.encode())),
        "swapped": load_bytes("m.txt", merges_text.encode(), merges=("v.json", vocab_text.encode())),
        "tiktoken": load_bytes("ranks.txt", ranks),
    }
    assert {k: t.source for k, t in loaded.items()} == {
        "ours": "trained",
        "hf": "huggingface",
        "gpt2": "gpt2",
        "swapped": "gpt2",
        "tiktoken": "tiktoken",
    }
    for name in ("ours", "hf", "gpt2", "swapped"):
        assert loaded[name].vocab == tok.vocab and loaded[name].merges == tok.merges, name
        assert_same_encodings(tok, loaded[name])


def test_load_bytes_texts_equal_the_files_the_savers_write(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    save_tokenizer(tok, tmp_path / "model.json")
    save_hf(tok, tmp_path / "tokenizer.json")
    save_gpt2(tok, tmp_path / "gpt2")
    assert (tmp_path / "model.json").read_text(encoding="utf-8") == dumps_tokenizer(tok)
    assert (tmp_path / "tokenizer.json").read_text(encoding="utf-8") == dumps_hf(tok)
    written = tuple((tmp_path / "gpt2" / n).read_text(encoding="utf-8") for n in ("vocab.json", "merges.txt"))
    assert written == dumps_gpt2(tok)


@pytest.mark.parametrize(
    ("merges", "message"),
    [
        (None, r"vocab.json is a GPT-2 vocabulary; it needs its merges file \(merges.txt or vocab.bpe\) too"),
        (("notes.txt", b"some plain prose here\n"), "notes.txt is plain text, not a tokenizer file"),
        (("model.json", b'{"format": "bpe-explorer"}'), "model.json is our model JSON, not the merges file"),
        (("merges.txt", b"#version: 0.2\nzz qq\n"), r"merges.txt: merge 0 \('zz', 'qq'\) needs 'zz', which is not in"),
    ],
)
def test_load_bytes_pairs_a_gpt2_vocabulary_with_its_merges_or_says_why_not(trained, merges, message):
    vocab_text, _ = dumps_gpt2(trained["bytes-gpt2"])
    with pytest.raises(BPEError, match=message) as caught:
        load_bytes("vocab.json", vocab_text.encode(), merges=merges)
    assert "\n" not in str(caught.value)


def test_load_bytes_needs_a_vocabulary_for_merges_and_a_vocabulary_to_pair(trained):
    _, merges_text = dumps_gpt2(trained["bytes-gpt2"])
    alone = r"merges.txt is a GPT-2 merges file; it needs its vocabulary \(vocab.json or encoder.json\) too"
    with pytest.raises(BPEError, match=alone):
        load_bytes("merges.txt", merges_text.encode())
    hf_text = dumps_hf(trained["bytes-gpt2"]).encode()
    with pytest.raises(BPEError, match="merges.txt was given as a merges file, but tokenizer.json is a Hugging Face"):
        load_bytes("tokenizer.json", hf_text, merges=("merges.txt", merges_text.encode()))


def test_gpt2_pairs_are_found_by_either_naming(trained, tmp_path):
    tok = trained["bytes-gpt2"]
    vocab_text, merges_text = dumps_gpt2(tok)
    layouts = {
        "gpt2": ("encoder.json", "vocab.bpe"),
        "hf": ("vocab.json", "merges.txt"),
        "prefixed": ("tiny-vocab.json", "tiny-merges.txt"),
    }
    for folder, (vocab_name, merges_name) in layouts.items():
        (tmp_path / folder).mkdir()
        (tmp_path / folder / vocab_name).write_text(vocab_text, encoding="utf-8")
        (tmp_path / folder / merges_name).write_text(merges_text, encoding="utf-8")
        for path in (tmp_path / folder / vocab_name, tmp_path / folder / merges_name):
            assert load_any(path).merges == tok.merges, path
    assert load_any(tmp_path / "gpt2").vocab == tok.vocab  # a directory holding encoder.json
    (tmp_path / "apart").mkdir()
    (tmp_path / "apart" / "my-merges").write_text(merges_text, encoding="utf-8")
    loaded = load_any(tmp_path / "hf" / "vocab.json", merges=tmp_path / "apart" / "my-merges")
    assert loaded.merges == tok.merges
