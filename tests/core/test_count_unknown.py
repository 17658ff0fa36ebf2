"""`count_unknown`: every model counts the tokens `encode` flags unknown, without their spans."""
from __future__ import annotations

import pytest

from bpe_core import BPEError, Settings, train
from bpe_core.families import train_superbpe, train_unigram, train_wordpiece
from bpe_core.tokenizer_model import TokenizerModel
from sample_corpora import load_corpus, load_parallel
from tests.explorer import real_tokenizer_files as real

CORPUS = "low lower lowest newer newest wider widest " * 20
TEXTS = ["", "low newest", "lowly Zebra, naïve 日本語 😀 <unk> [UNK]", "zzz\tq\n"]


def _flagged(model: TokenizerModel, text: str) -> int:
    return sum(model.encode(text).unknown or ())


@pytest.fixture(scope="module")
def families() -> dict[str, TokenizerModel]:
    return {
        "bpe words": train(CORPUS, merges=12),
        "bpe words, no end marker": train(CORPUS, Settings(eow="none"), merges=12),
        "bpe bytes": train(CORPUS, Settings(mode="bytes"), merges=12),
        "wordpiece": train_wordpiece([CORPUS], vocab_size=40),
        "unigram": train_unigram([CORPUS], vocab_size=30),
        "superbpe": train_superbpe([CORPUS], vocab_size=270, transition=262),
    }


def test_every_family_counts_what_encode_flags(families):
    for name, model in families.items():
        assert isinstance(model, TokenizerModel), name
        for text in TEXTS:
            assert model.count_unknown(text) == _flagged(model, text), (name, text)
    assert families["bpe words"].count_unknown("Zebra ☃") > 0  # characters no training saw
    assert families["wordpiece"].count_unknown("Zebra ☃") > 0
    assert families["unigram"].count_unknown("Zebra ☃") > 0
    assert families["bpe bytes"].count_unknown("Zebra ☃") == families["superbpe"].count_unknown("Zebra ☃") == 0


def test_the_lesson_model_counts_fifteen_languages_alike(families):
    model = families["bpe words"]
    for code, text in load_parallel().items():
        assert model.count_unknown(text) == _flagged(model, text), code


@pytest.mark.parametrize("name", real.NAMES)
def test_real_files_count_what_encode_flags(name):
    """Published and reference-trained files: the BERT-style file's `[UNK]` is also an added token, so
    a text holding "[UNK]" as written holds a special token there, which is not unknown."""
    model = real.uploads()[name].model
    text = real.TEXT + " [UNK] <unk> " + load_corpus("english", max_bytes=20_000)
    assert model.count_unknown(text) == _flagged(model, text)
    for bad in ("\ud800", None):
        with pytest.raises(BPEError):
            model.encode(bad)
        with pytest.raises(BPEError):
            model.count_unknown(bad)
    if name == "wordpiece":
        assert model.count_unknown("[UNK]") == 0 and model.encode("[UNK]").special == [True]
        assert model.count_unknown("𒀀") == 1


def test_what_encode_refuses_count_unknown_refuses(families):
    for model in families.values():
        for bad in ("\ud800", b"bytes", None):
            with pytest.raises(BPEError):
                model.encode(bad)
            with pytest.raises(BPEError):
                model.count_unknown(bad)
