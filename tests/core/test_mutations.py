"""Bugs planted in the engine that the other tests let through (issue 20, "The tests"), one test each:

- the built-in caches must not be read by another package version (the rebuilt rank tables under
  ~/.cache/bpe-explorer/builtin, and the language-tax numbers);
- a `tokenizer.json` whose ByteLevel pre-tokenizer has no `use_regex` key uses the GPT-2 split,
  as `tokenizers` does (its default is true);
- a GPT-2 `merges.txt` with CRLF line ends loads the same merges as with LF;
- a `.tiktoken` file with its lines out of order: ranks are the rank numbers, not the line order;
- and every property test runs the same examples on every run (the hypothesis profile).
"""
from __future__ import annotations

import base64
import json
import random

import hypothesis
import pytest

from bpe_core import Settings, train
from bpe_core.analysis import TextStats
from bpe_core.analysis.vocabulary import vocabulary_table
from bpe_core.builtin import forget_loaded, load_builtin
from bpe_core.formats import builtin, load_any, load_gpt2, save_gpt2, save_hf
from bpe_core.formats.tiktoken import read_tiktoken_ranks
from bpe_core.parts.hf_parts import read_hf_tokenizer
from bpe_core.pretokenize import GPT4_PATTERN
from explorer.data import language_tax_cache
from tests.conftest import require, require_cl100k
from tests.core.formats_common import CORPUS
from tests.core.real_texts import held_out_texts


@pytest.fixture(scope="module")
def real_text() -> str:
    texts = held_out_texts()
    return "\n".join(texts[name] for name in ("multilingual.txt", "tricky.txt", "edges", "python source"))


@pytest.fixture(scope="module")
def bytes_model():
    """A byte-level model with GPT-2's split, 300 merges: contractions, digits and spaces matter."""
    return train(CORPUS, Settings(mode="bytes", pretokenizer="gpt2"), merges=300)


# ---- the built-in caches and the package version ---------------------------------------------------



def test_a_rank_table_cached_by_another_version_is_not_read(tmp_path):
    path = tmp_path / "llama3.tiktoken"
    ranks = {bytes([b]): b for b in range(256)}
    builtin._write_cache(path, ranks, "1.0")
    assert builtin._read_cache(path, "1.0", 256) is not None
    assert builtin._read_cache(path, "1.1", 256) is None
    assert builtin._sound_cache(path, "1.1") is None


def test_a_new_package_version_rebuilds_the_builtin_table(fresh_cache, monkeypatch):
    """The cache of an older quicktok holds a different table (two ranks swapped): never used."""
    quicktok = require("quicktok")
    text = "Hello world, the cache must follow the package."
    ids = load_builtin("llama3").encode_ids(text)
    table = fresh_cache / "llama3.tiktoken"
    fields = table.read_bytes().split()
    old = dict(zip(map(base64.b64decode, fields[0::2]), map(int, fields[1::2])))
    hello, world = b"Hello", b" world"
    old[hello], old[world] = old[world], old[hello]
    builtin._write_cache(table, old, "0.0.1-old")  # a sound cache, of another version
    (fresh_cache / "llama3.symbols").unlink()
    built = []
    real = quicktok.get_encoding
    monkeypatch.setattr(quicktok, "get_encoding", lambda name: built.append(name) or real(name))
    forget_loaded()
    assert load_builtin("llama3").encode_ids(text) == ids
    assert built == ["llama3"]  # rebuilt from the package
    meta = json.loads(table.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["version"] == str(quicktok.__version__)


def test_language_tax_numbers_of_another_package_version_are_counted_again(tmp_path, monkeypatch):
    monkeypatch.setenv("BPE_EXPLORER_CACHE", str(tmp_path))
    counted = []

    def language_stats(tokenizer, texts):
        counted.append(tokenizer)
        return {code: TextStats(bytes=1, characters=1, words=1, tokens=len(counted)) for code in texts}

    monkeypatch.setattr(language_tax_cache, "load_builtin", lambda name: name)
    monkeypatch.setattr(language_tax_cache, "language_stats", language_stats)
    texts = {"en": "The cat sat.\n"}
    monkeypatch.setattr(language_tax_cache, "version", lambda package: "1.0")
    assert language_tax_cache.builtin_language_stats("gpt2", texts)["en"].tokens == 1
    assert language_tax_cache.builtin_language_stats("gpt2", texts)["en"].tokens == 1  # read back
    monkeypatch.setattr(language_tax_cache, "version", lambda package: "2.0")
    assert language_tax_cache.builtin_language_stats("gpt2", texts)["en"].tokens == 2  # counted again
    assert counted == ["gpt2", "gpt2"]
    assert len(list((tmp_path / "language-tax").glob("gpt2-*.json"))) == 2


# ---- a ByteLevel pre-tokenizer without use_regex ------------------------------------------------------

def test_byte_level_without_use_regex_splits_as_tokenizers_does(bytes_model, real_text, tmp_path):
    tokenizers = require("tokenizers")
    save_hf(bytes_model, tmp_path / "tokenizer.json")
    data = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    assert data["pre_tokenizer"]["type"] == "ByteLevel"
    del data["pre_tokenizer"]["use_regex"]
    path = tmp_path / "no-use-regex.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    theirs = tokenizers.Tokenizer.from_file(str(path)).encode(real_text).ids
    ours = load_any(path)
    assert ours.settings.pretokenizer == "gpt2"
    assert ours.encode_ids(real_text) == theirs == bytes_model.encode_ids(real_text)
    assert read_hf_tokenizer(data, name="no-use-regex.json").encode_ids(real_text) == theirs


# ---- a merges.txt with CRLF line ends --------------------------------------------------------------

def test_crlf_merges_load_like_lf_and_encode_as_tokenizers_does(bytes_model, real_text, tmp_path):
    tokenizers = require("tokenizers")
    vocab_path, merges_path = save_gpt2(bytes_model, tmp_path / "lf")
    crlf = tmp_path / "crlf"
    crlf.mkdir()
    (crlf / "vocab.json").write_bytes(vocab_path.read_bytes())
    lf = merges_path.read_bytes()
    assert b"\r" not in lf
    (crlf / "merges.txt").write_bytes(lf.replace(b"\n", b"\r\n"))
    for ours in (load_gpt2(crlf / "vocab.json", crlf / "merges.txt"), load_any(crlf / "vocab.json"),
                 load_any(crlf)):
        assert ours.merges == bytes_model.merges
        assert ours.vocab == bytes_model.vocab
    theirs = tokenizers.ByteLevelBPETokenizer(str(crlf / "vocab.json"), str(crlf / "merges.txt"))
    assert load_any(crlf).encode_ids(real_text) == theirs.encode(real_text).ids


# ---- a .tiktoken file with its lines out of order --------------------------------------------------

def test_a_shuffled_rank_file_keeps_its_ranks(real_text, tmp_path):
    """cl100k_base's first 6,000 ranks (a sound table of its own) in random line order."""
    tiktoken = require("tiktoken")
    ranks = {t: r for t, r in read_tiktoken_ranks(require_cl100k().read_text(encoding="ascii")).items() if r < 6000}
    lines = [f"{base64.b64encode(token).decode()} {rank}\n" for token, rank in ranks.items()]
    (tmp_path / "ordered.tiktoken").write_text("".join(lines), encoding="ascii")
    random.Random(20).shuffle(lines)
    assert int(lines[0].split()[1]) != 0
    (tmp_path / "shuffled.tiktoken").write_text("".join(lines), encoding="ascii")
    theirs = tiktoken.Encoding("cl100k_6000", pat_str=GPT4_PATTERN, mergeable_ranks=ranks, special_tokens={})
    ordered, shuffled = load_any(tmp_path / "ordered.tiktoken"), load_any(tmp_path / "shuffled.tiktoken")
    ids = theirs.encode_ordinary(real_text)
    assert shuffled.encode_ids(real_text) == ids == ordered.encode_ids(real_text)
    assert shuffled.decode(ids) == real_text
    assert shuffled.merges == ordered.merges  # in rank order, whatever the file's line order
    made = [shuffled.vocab[a + b] for a, b in shuffled.merges]
    assert made == sorted(made)
    assert shuffled.base == ordered.base
    assert vocabulary_table(shuffled) == vocabulary_table(ordered)
    for word in (" tokenization", " unbelievable", "Hello"):
        assert shuffled.encode_word(word, limit=len(shuffled.merges)) == ordered.encode_word(word)


# ---- the hypothesis profile ---------------------------------------------------------------------

def test_property_tests_are_deterministic():
    """tests/conftest.py loads a profile: the same examples every run, none replayed from a database."""
    current = hypothesis.settings.default
    assert current.derandomize is True and current.database is None and current.deadline is None
    assert current.max_examples == 100
