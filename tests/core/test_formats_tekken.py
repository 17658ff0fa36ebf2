"""Mistral's Tekken JSON: mistral-common's own ids and text, and one line for a malformed file."""
from __future__ import annotations

import base64
import copy
import json
from functools import cache
from pathlib import Path

import pytest

from bpe_core import BPEError
from bpe_core.formats.tekken import LEGACY_SPECIALS, looks_like_tekken, read_tekken_config, tekken_from_dict
from bpe_core.parts.pipeline import PartsTokenizer
from tests.conftest import require
from tests.core.parts.test_ranks import sample_texts

SPECIAL_TEXT = "<s>[INST] What is 2+2? [/INST] 4</s> <unk> [IMG] <SPECIAL_20> <pad>"


def tekken_path(name: str) -> Path:
    from importlib.resources import files

    return Path(str(files(require("mistral_common")) / "data" / name))


@cache
def shipped(name: str) -> dict:
    return json.loads(tekken_path(name).read_text(encoding="utf-8"))


@cache
def loaded(name: str) -> tuple[PartsTokenizer, object]:
    """Ours and mistral-common's Tekkenizer of one shipped file."""
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = tekken_path(name)
    return tekken_from_dict(shipped(name), name=path.name), Tekkenizer.from_file(path)


def theirs_of(tekkenizer, text: str) -> list[int]:
    return tekkenizer.encode(text, bos=False, eos=False)


@pytest.mark.parametrize("name", ["tekken_240911.json", "tekken_240718.json"])
def test_the_shipped_files_give_mistral_commons_ids_and_text(name):
    ours, theirs = loaded(name)
    for label, text in {**sample_texts(), "specials": SPECIAL_TEXT}.items():
        ids = ours.encode_ids(text)
        assert ids == theirs_of(theirs, text), (name, label)
        assert ours.encode(text).ids == ids, (name, label)
        assert ours.decode(ids) == theirs.decode(ids), (name, label)


def test_special_tokens_are_text_when_encoding_and_dropped_when_decoding():
    """Tekkenizer's defaults: "<s>" in the text is three characters; decoding ignores special ids."""
    ours, theirs = loaded("tekken_240911.json")
    assert ours.encode_ids("<s>") == theirs_of(theirs, "<s>") and 1 not in ours.encode_ids("<s>")
    ids = [1, 3, *theirs_of(theirs, " hello"), 4, 2]  # <s> [INST] hello [/INST] </s>
    assert ours.decode(ids) == theirs.decode(ids) == " hello"
    assert ours.decode(ids, skip_special_tokens=False) == "<s>[INST] hello[/INST]</s>"


def test_the_numbering_is_mistral_commons():
    ours, theirs = loaded("tekken_240911.json")
    assert ours.vocab_size == theirs.n_words == 131_072
    assert [ours.id_to_token[i] for i in range(1000)] == [theirs.id_to_piece(i) for i in range(1000)]
    assert ours.id_to_token[20] == "<SPECIAL_20>" and ours.vocab["<s>"] == 1
    assert ours.vocab["a"] == 1000 + ord("a") and max(ours.id_to_token) == 131_071
    assert all(ours.tokens_of([i])[0] for i in (1000, 5000, 131_071))
    assert list(LEGACY_SPECIALS) == [str(t["token_str"].value) for t in theirs.DEPRECATED_SPECIAL_TOKENS]


def test_offsets_are_the_original_characters():
    ours, _ = loaded("tekken_240911.json")
    text = "Héllo wörld 日本語 😀!"
    found = ours.encode(text)
    for token_id, (start, end) in zip(found.ids, found.spans):
        piece = ours.decode([token_id])
        if "\ufffd" not in piece:  # a whole character or more: its span spells it
            assert text[start:end] == piece, (piece, start, end)
    assert found.spans[0] == (0, 1) or text[slice(*found.spans[0])] == ours.decode(found.ids[:1])
    assert found.spans[-1][1] == len(text)


# ---- a small file of each version --------------------------------------------------------------


def small_file(*, version: str = "v7", specials: list[str] | None = None, count: int = 12, kept: int = 2_500) -> dict:
    """The first 3,000 ranks of tekken_240911.json under a config of our own."""
    real = shipped("tekken_240911.json")
    listed = specials if specials is not None else ["<unk>", "<s>", "</s>", "[INST]", "[/INST]", "<pad>"]
    data = {
        "config": {**real["config"], "version": version, "default_vocab_size": count + kept,
                   "default_num_special_tokens": count, "num_vocab_tokens": 3_000},
        "vocab": copy.deepcopy(real["vocab"][:3_000]),
        "special_tokens": [{"rank": i, "token_str": t, "is_control": True} for i, t in enumerate(listed)],
        "audio": {"sampling_rate": 16_000},  # left alone
    }
    return data


@pytest.mark.parametrize("version", ["v7", "v11", "v13"])
def test_a_small_file_of_our_own_gives_mistral_commons_ids(tmp_path, version):
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    data = small_file(version=version)
    del data["audio"]  # mistral-common wants a whole audio config; ours ignores it either way
    path = tmp_path / "tekken_small.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    theirs = Tekkenizer.from_file(path)
    ours = tekken_from_dict(data, name=path.name)
    assert ours.vocab_size == theirs.n_words == 2_512 and ours.id_to_token[7] == "<SPECIAL_7>"
    for label, text in {**sample_texts(), "specials": SPECIAL_TEXT}.items():
        assert ours.encode_ids(text) == theirs_of(theirs, text), label


def test_to_hf_loads_in_tokenizers_with_the_same_ids():
    """The file as a tokenizer.json (where, as `tokenizers` does, special tokens would be cut out)."""
    tokenizers = require("tokenizers")
    ours = tekken_from_dict(small_file(), name="small.json")
    theirs = tokenizers.Tokenizer.from_str(json.dumps(ours.to_hf_dict()))
    for label, text in sample_texts().items():
        found = theirs.encode(text)
        assert found.ids == ours.encode_ids(text), label
        assert found.offsets == ours.encode(text).spans, label
        assert theirs.decode(found.ids) == ours.decode(found.ids), label


# ---- detection and malformed files -------------------------------------------------------------


def test_looks_like_tekken_by_its_keys():
    assert looks_like_tekken(small_file())
    assert not looks_like_tekken({"model": {"type": "BPE"}, "added_tokens": []})
    assert not looks_like_tekken({"config": {}, "vocab": {"a": 0}}) and not looks_like_tekken([1, 2])


def broken(change) -> dict:
    data = small_file()
    change(data)
    return data


def _set(path: str, value):
    def change(data: dict) -> None:
        *parents, last = path.split(".")
        target = data
        for key in parents:
            target = target[int(key)] if key.isdigit() else target[key]
        if value is _DELETE:
            del target[last]
        else:
            target[int(last) if last.isdigit() else last] = value
    return change


_DELETE = object()
MALFORMED = [
    (_set("config.pattern", _DELETE), "config: 'pattern' is missing"),
    (_set("config.pattern", ["."]), "config: 'pattern' must be the split pattern \\(a string\\), not a list"),
    (_set("config.pattern", "(["), r"config: the split pattern '\(\[' is not a regular expression"),
    (_set("config.pattern", "x*"), "matches the empty string"),
    (_set("config.version", 3), r"config: 'version' must be a string such as \"v3\", not 3"),
    (_set("config.default_vocab_size", 99_999), "'default_vocab_size' 99,999 must exceed the 12 special tokens"),
    (_set("config.default_num_special_tokens", -1), "'default_num_special_tokens' must be a whole number"),
    # a crafted count: refused before a filler token is made for each reserved id
    (lambda d: (_set("config.default_num_special_tokens", 5_000_000)(d),
                _set("config.default_vocab_size", 5_000_100)(d)),
     "'default_num_special_tokens' is 5,000,000; a Tekken file reserves at most 100,000 special ids"),
    (lambda d: (d.pop("special_tokens"), _set("config.version", "v11")(d)),
     "a Tekken file of version v11 must list its 'special_tokens'"),
    (_set("special_tokens.2.token_str", "<s>"), "the special token '<s>' is listed twice"),
    (_set("special_tokens.2.rank", 9), r"special token '</s>' has rank 9; the list gives ranks 0, 1, 2"),
    (_set("special_tokens.1", "<s>"), "special token 1 needs a non-empty string 'token_str'"),
    (_set("special_tokens.1.token_str", "<SPECIAL_11>"), "'<SPECIAL_11>' is also the name of a filler"),
    (_set("config.default_num_special_tokens", 3), "6 special tokens are listed but config says there are 3"),
    (_set("vocab.300.rank", 301), "vocab entry 300 must be an object with rank 300, not 301"),
    (_set("vocab.300.token_bytes", "%%%"), "vocab entry 300: 'token_bytes' must be the token's bytes in base64"),
    (_set("vocab.65.token_bytes", base64.b64encode(b"a").decode()), r"vocab entry 65 must be the single byte 0x41"),
    (_set("vocab.301.token_bytes", base64.b64encode(b"\x00").decode()), r"token b'\\x00' already has rank 0"),
    (_set("vocab", [1, 2]), "'default_vocab_size' 2,512 must exceed the 12 special tokens and be at most"),
]


@pytest.mark.parametrize(("change", "message"), MALFORMED)
def test_a_malformed_file_is_one_line_naming_what_is_wrong(change, message):
    with pytest.raises(BPEError, match=message) as caught:
        tekken_from_dict(broken(change), name="bad_tekken.json")
    assert "\n" not in str(caught.value) and str(caught.value).startswith("bad_tekken.json")


def test_a_file_before_v7_may_leave_the_special_tokens_out():
    data = broken(_set("special_tokens", _DELETE))
    data["config"]["version"] = "v3"
    data["config"]["default_num_special_tokens"] = 1000
    data["config"]["default_vocab_size"] = 1000 + 2_500
    config = read_tekken_config(data, name="old.json")
    assert config.specials[:20] == LEGACY_SPECIALS and config.specials[20] == "<SPECIAL_20>"
    assert len(config.specials) == 1000 and config.ranks_kept == 2_500


def test_not_a_tekken_file_is_one_line():
    with pytest.raises(BPEError, match=r"^x.json is not a Tekken file: it needs a 'config' object and a 'vocab' list$"):
        tekken_from_dict({"vocab": []}, name="x.json")
