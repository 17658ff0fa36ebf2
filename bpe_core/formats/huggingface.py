"""Hugging Face `tokenizer.json`: export a BPE model `tokenizers` encodes exactly as we do, and import one.

Export maps each setting to a `tokenizers` part: NFC/NFKC and lowercasing become normalizers;
word mode splits on whitespace (a `Split` on exactly the characters Python's `str.split`
breaks on, which `WhitespaceSplit` misses four of); bytes mode uses `ByteLevel` (with the GPT-2
regex, or a `Split` on the GPT-4 regex first); text mode uses no pre-tokenizer or a `Split` on
our pattern. Merges are written as `["left", "right"]` pairs, the syntax tokenizers 0.23
writes (it still reads the older `"left right"` strings, which cannot hold a token with a
space, as text-mode tokens can). `<unk>` is the model's `unk_token` but not an added token, so
the text "<unk>" is tokenized like any other text, as we do.

Our default word mode ends each word with a *separate* `</w>` symbol, which `tokenizers`
cannot express: its `end_of_word_suffix` glues the marker onto the last character, so "newer"
could never end in the two tokens "r", "</w>". The export is still exact in token ids: a
`Replace` normalizer inserts one stand-in character, `WORD_END` ("␣"), after every word, and
the vocabulary spells `</w>` as that character ("t</w>" is written "t␣"). `tokenizers` then
gives the same ids, and the same tokens once "␣" is read as `</w>`; its `BPEDecoder` turns "␣"
back into spaces. A literal "␣" in the input is first replaced by a character the vocabulary
lacks, so it stays unknown, as it is for us. If a training text held "␣" itself the export is
refused. Importing such a file gives back the separate-marker tokenizer.

Import (`from_hf_dict`) reads as a merge list the BPE files whose parts have an equivalent in our
settings: suffix style (our word split plus `end_of_word_suffix="</w>"`), byte level (GPT-2,
RoBERTa: `ByteLevel` without a prefix space), plain text, and our own exports; token ids are kept.
`formats.detect` uses it only for files without added tokens or a post-processor and reads every
other `tokenizer.json` as a tokenizer of parts (`parts.hf_parts`), exact in every part; so is a
`WhitespaceSplit` file (it keeps U+001C..U+001F inside words, where word mode breaks).
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..model import Tokenizer
from ..pretokenize import GPT2_PATTERN, GPT4_PATTERN, LEADING_SPACE_PATTERN, O200K_PATTERN, QWEN_PATTERN
from ..settings import EOW, BPEError, Settings
from ._common import (
    dump_json,
    fail,
    read_json_file,
    require,
    require_id,
    require_merges_in_vocab,
    require_vocab,
    write_text,
)

WORD_END = "\u2423"  # ␣ spells our separate </w> symbol in exported files
# Exactly the characters str.split() breaks on: Unicode White_Space plus U+001C..U+001F.
WORD_SPLIT_PATTERN = r"[\s\x1c-\x1f]+"
# An empty match after every word's last character, where the stand-in is inserted.
WORD_END_PATTERN = r"(?<=[^\s\x1c-\x1f])(?=[\s\x1c-\x1f]|\z)"
_TEXT_PATTERNS = {
    "whitespace": LEADING_SPACE_PATTERN,
    "gpt2": GPT2_PATTERN,
    "gpt4": GPT4_PATTERN,
    "o200k": O200K_PATTERN,
    "qwen": QWEN_PATTERN,
}
_SPLIT_NAMES = {pattern: name for name, pattern in _TEXT_PATTERNS.items()}


# ---- export ---------------------------------------------------------------------------------


def to_hf_dict(tok: Tokenizer) -> dict[str, Any]:
    """The tokenizer as a `tokenizer.json` dict that `tokenizers.Tokenizer.from_str` loads."""
    settings = tok.settings
    if tok.table.concat:
        fail(
            "cannot export to Hugging Face: this tokenizer merges by tiktoken ranks, which a merge list "
            "is not guaranteed to reproduce; keep the .tiktoken file or our JSON"
        )
    separate = settings.mode == "word" and settings.eow == "separate"
    spell = _marker_speller(tok) if separate else (lambda token: token)
    vocab = {spell(t): i for t, i in sorted(tok.vocab.items(), key=lambda item: item[1])}
    merges = [[spell(a), spell(b)] for a, b in tok.merges]
    if separate:
        _check_spelling(merges, vocab)
    model = {
        "type": "BPE",
        "dropout": None,
        "unk_token": tok.unk_token,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": EOW if settings.mode == "word" and settings.eow == "suffix" else None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": vocab,
        "merges": merges,
    }
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": _sequence("normalizers", _normalizers(tok, separate)),
        "pre_tokenizer": _sequence("pretokenizers", _pre_tokenizers(settings)),
        "post_processor": None,
        "decoder": _decoder(settings),
        "model": model,
    }


def settings_parts(settings: Settings) -> dict[str, Any]:
    """The normalizer, pre-tokenizer and decoder of `settings` as `tokenizer.json` parts, as the
    export writes them but for a separate `</w>`, which needs no stand-in (`bpe_core.presets`)."""
    steps: list[dict[str, Any]] = []
    if settings.normalization != "none":
        steps.append({"type": settings.normalization})
    if settings.lowercase:
        steps.append({"type": "Lowercase"})
    decoder = _decoder(settings)
    if decoder.get("suffix") == WORD_END:
        decoder = {**decoder, "suffix": EOW}
    return {"normalizer": _sequence("normalizers", steps),
            "pre_tokenizer": _sequence("pretokenizers", _pre_tokenizers(settings)), "decoder": decoder}


def dumps_hf(tok: Tokenizer) -> str:
    """The text of the `tokenizer.json` that `save_hf` writes."""
    return dump_json(to_hf_dict(tok)) + "\n"


def save_hf(tok: Tokenizer, path: str | os.PathLike[str]) -> None:
    """Write the tokenizer as a Hugging Face `tokenizer.json`."""
    write_text(path, dumps_hf(tok))


def _marker_speller(tok: Tokenizer) -> Callable[[str], str]:
    """Spell a token for the file: a final `</w>` becomes WORD_END."""
    if any(WORD_END in token for token in tok.vocab):
        fail(
            f"cannot export to Hugging Face: the vocabulary holds {WORD_END!r}, the character the "
            "export uses for '</w>'; retrain with --eow suffix or keep our JSON"
        )

    def spell(token: str) -> str:
        return token[: -len(EOW)] + WORD_END if token.endswith(EOW) else token

    return spell


def _check_spelling(merges: list[list[str]], vocab: dict[str, int]) -> None:
    for a, b in merges:
        if a + b not in vocab:
            fail(
                f"cannot export to Hugging Face: token {a + b!r} has '</w>' inside it, "
                "which the file cannot spell; retrain with --eow suffix or keep our JSON"
            )


def _normalizers(tok: Tokenizer, separate: bool) -> list[dict[str, Any]]:
    normalizer = settings_parts(tok.settings)["normalizer"]
    steps: list[dict[str, Any]] = [] if normalizer is None else normalizer.get("normalizers", [normalizer])
    if separate:
        stranger = _unknown_character(tok)
        steps.append({"type": "Replace", "pattern": {"String": WORD_END}, "content": stranger})
        steps.append({"type": "Replace", "pattern": {"Regex": WORD_END_PATTERN}, "content": WORD_END})
    return steps


def _unknown_character(tok: Tokenizer) -> str:
    """A character that is no token, to stand for a literal WORD_END in the input."""
    for code in (0xFFFD, *range(0xE000, 0xF900)):
        if chr(code) not in tok.vocab:
            return chr(code)
    fail("cannot export to Hugging Face: every private-use character is a token")


def _pre_tokenizers(settings: Settings) -> list[dict[str, Any]]:
    mode, name = settings.mode, settings.pretokenizer
    if mode == "word":
        return [_split(WORD_SPLIT_PATTERN, "Removed")]
    if mode == "text":
        return [] if name == "none" else [_split(_TEXT_PATTERNS[name], "Isolated")]
    byte_level = _byte_level(use_regex=name == "gpt2")
    if name in ("gpt2", "none"):
        return [byte_level]
    return [_split(_TEXT_PATTERNS[name], "Isolated"), byte_level]


def _byte_level(*, use_regex: bool) -> dict[str, Any]:
    return {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": use_regex}


def _split(pattern: str, behavior: str) -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": behavior, "invert": False}


def _decoder(settings: Settings) -> dict[str, Any]:
    if settings.mode == "bytes":
        return _byte_level(use_regex=True)  # the decoder ignores the flags
    if settings.marker:
        return {"type": "BPEDecoder", "suffix": EOW if settings.eow == "suffix" else WORD_END}
    return {"type": "Fuse"}  # tokens join with nothing between them, as ours do


def _sequence(key: str, steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not steps:
        return None
    return steps[0] if len(steps) == 1 else {"type": "Sequence", key: steps}


# ---- import ---------------------------------------------------------------------------------


def load_hf(path: str | os.PathLike[str]) -> Tokenizer:
    """Read a Hugging Face `tokenizer.json` holding a BPE model."""
    path = Path(path)
    return from_hf_dict(read_json_file(path), name=path.name)


def from_hf_dict(data: Any, *, name: str = "tokenizer.json") -> Tokenizer:
    """A tokenizer from a parsed `tokenizer.json`, keeping the file's token ids."""
    require(isinstance(data, dict), f"{name} is not a JSON object")
    model = data.get("model")
    require(isinstance(model, dict), f"{name}: 'model' must be an object")
    kind = model.get("type", "BPE" if "merges" in model else None)
    require(kind == "BPE", f"{name} holds a {kind or 'typeless'} model; only BPE models can be imported")
    _check_options(model, name)
    vocab = require_vocab(model.get("vocab"), f"{name}: 'model.vocab'")
    merges = _read_merges(model.get("merges"), name)
    normalization, lowercase, stand_in = _read_normalizer(data.get("normalizer"), name)
    mode, pretokenizer = _read_pre_tokenizer(data.get("pre_tokenizer"), name)
    eow = _eow_style(model.get("end_of_word_suffix"), stand_in, mode, name)
    if stand_in:
        vocab, merges = _respell(vocab, merges, stand_in)
    _add_added_tokens(vocab, data.get("added_tokens"), name)
    require_merges_in_vocab(merges, vocab, name=name)
    unk = model.get("unk_token")
    require(unk is None or isinstance(unk, str), f"{name}: 'model.unk_token' must be a string or null")
    try:
        settings = Settings(
            mode=mode, eow=eow, pretokenizer=pretokenizer, normalization=normalization, lowercase=lowercase
        )
    except BPEError as exc:
        raise BPEError(f"{name}: {exc}") from None
    return Tokenizer(settings=settings, merges=merges, vocab=vocab, unk_token=unk, source="huggingface")


def _check_options(model: dict[str, Any], name: str) -> None:
    """Refuse model options that would make `tokenizers` encode differently from us."""
    if model.get("continuing_subword_prefix"):
        fail(f"{name}: continuing_subword_prefix is not supported (only end-of-word suffixes are)")
    if model.get("byte_fallback"):
        fail(f"{name}: byte_fallback is not supported; only byte-level (ByteLevel) files map bytes")
    if model.get("ignore_merges"):
        fail(f"{name}: ignore_merges=true is not supported (whole words would skip the merges)")
    if model.get("fuse_unk") and model.get("unk_token"):
        fail(f"{name}: fuse_unk=true is not supported (we give each unknown symbol its own <unk>)")


def _read_merges(raw: Any, name: str) -> list[tuple[str, str]]:
    """Merges as ["a", "b"] pairs (tokenizers 0.20 and later) or "a b" strings (older files)."""
    require(isinstance(raw, list), f"{name}: 'model.merges' must be a list")
    out = []
    for rank, item in enumerate(raw):
        if isinstance(item, str):
            parts = item.split(" ")
        else:
            parts = item if isinstance(item, list) else []
        if not (len(parts) == 2 and all(isinstance(p, str) and p for p in parts)):
            fail(f"{name}: merge {rank} is {json.dumps(item, ensure_ascii=False)[:40]}, not a pair of tokens")
        out.append((parts[0], parts[1]))
    return out


def _flatten(part: Any, key: str, what: str, name: str) -> list[dict[str, Any]]:
    if part is None:
        return []
    ok = isinstance(part, dict) and isinstance(part.get("type"), str)
    require(ok, f"{name}: the {what} must be an object with a 'type'")
    if part["type"] != "Sequence":
        return [part]
    steps = part.get(key)
    require(isinstance(steps, list), f"{name}: the {what} Sequence lacks its '{key}' list")
    return [step for inner in steps for step in _flatten(inner, key, what, name)]


def _read_normalizer(raw: Any, name: str) -> tuple[str, bool, str | None]:
    """(normalization, lowercase, the separate marker's stand-in or None) from the normalizers."""
    steps = _flatten(raw, "normalizers", "normalizer", name)
    stand_in = None
    if steps and _pattern(steps[-1]) == ("Regex", WORD_END_PATTERN) and steps[-1]["type"] == "Replace":
        stand_in = steps.pop().get("content")
        ok = isinstance(stand_in, str) and len(stand_in) == 1
        require(ok, f"{name}: the end-of-word Replace must insert one character")
        if steps and steps[-1]["type"] == "Replace" and _pattern(steps[-1]) == ("String", stand_in):
            steps.pop()
    kinds = [step["type"] for step in steps]
    for allowed in (["NFC"], ["NFKC"], ["Lowercase"], ["NFC", "Lowercase"], ["NFKC", "Lowercase"], []):
        if kinds == allowed:
            normalization = kinds[0] if kinds and kinds[0] != "Lowercase" else "none"
            return normalization, "Lowercase" in kinds, stand_in
    fail(
        f"{name}: normalizer {' + '.join(kinds)} has no equivalent here "
        "(supported: NFC or NFKC, then Lowercase)"
    )


def _pattern(step: dict[str, Any]) -> tuple[str, Any] | None:
    pattern = step.get("pattern")
    if isinstance(pattern, dict) and len(pattern) == 1:
        return next(iter(pattern.items()))
    return None


def _read_pre_tokenizer(raw: Any, name: str) -> tuple[str, str]:
    """(mode, pre-tokenizer) from the pre-tokenizers."""
    steps = _flatten(raw, "pretokenizers", "pre-tokenizer", name)
    kinds = [step["type"] for step in steps]
    if not steps:
        return "text", "none"
    # Only our own word split: `WhitespaceSplit` keeps U+001C..U+001F inside words, where word
    # mode (like `str.split`) breaks, so such a file is read as parts (`formats.detect`).
    if len(steps) == 1 and _is_split(steps[0], WORD_SPLIT_PATTERN, "Removed"):
        return "word", "whitespace"
    if kinds[-1] == "ByteLevel":
        prefix = steps[-1].get("add_prefix_space")
        require(not prefix, f"{name}: ByteLevel add_prefix_space=true is not supported (we add no space)")
        regex = bool(steps[-1].get("use_regex", True))
        if len(steps) == 1:
            return "bytes", "gpt2" if regex else "none"
        split = _split_name(steps[0]) if len(steps) == 2 and not regex else None
        if split is not None and split != "whitespace":
            return "bytes", split
    elif len(steps) == 1 and _split_name(steps[0]):
        return "text", _split_name(steps[0])  # type: ignore[return-value]
    fail(
        f"{name}: pre-tokenizer {' + '.join(kinds)} has no equivalent here (supported: "
        "our word split, ByteLevel, a Split on the GPT-2, GPT-4, GPT-4o or Qwen pattern, or none)"
    )


def _is_split(step: dict[str, Any], pattern: str, behavior: str) -> bool:
    return (
        step.get("type") == "Split"
        and _pattern(step) == ("Regex", pattern)
        and step.get("behavior") == behavior
        and not step.get("invert")
    )


def _split_name(step: dict[str, Any]) -> str | None:
    """Which of our patterns an isolating Split uses, or None."""
    found = _pattern(step)
    if found is None or found[0] != "Regex" or not _is_split(step, found[1], "Isolated"):
        return None
    return _SPLIT_NAMES.get(found[1])


def _eow_style(suffix: Any, stand_in: str | None, mode: str, name: str) -> str:
    if suffix is not None and suffix != "":
        require(suffix == EOW, f"{name}: end_of_word_suffix {suffix!r} is not supported (only {EOW!r})")
        require(mode == "word", f"{name}: end_of_word_suffix needs a whitespace pre-tokenizer")
        require(stand_in is None, f"{name}: both an end-of-word suffix and an end-of-word normalizer")
        return "suffix"
    if stand_in is not None:
        require(mode == "word", f"{name}: the end-of-word normalizer needs a whitespace pre-tokenizer")
        return "separate"
    return "none" if mode == "word" else "separate"


def _respell(
    vocab: dict[str, int], merges: list[tuple[str, str]], stand_in: str
) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """Undo the export's spelling: a final stand-in character is our `</w>` again."""

    def spell(token: str) -> str:
        return token[:-1] + EOW if token.endswith(stand_in) else token

    return {spell(t): i for t, i in vocab.items()}, [(spell(a), spell(b)) for a, b in merges]


def _add_added_tokens(vocab: dict[str, int], raw: Any, name: str) -> None:
    """Added tokens join the vocabulary with their own ids; an id may belong to one token only.

    An added token already in the model's vocabulary must keep its id there (files list
    special tokens in both places); any other clash is refused rather than dropped.
    """
    if raw is None:
        return
    require(isinstance(raw, list), f"{name}: 'added_tokens' must be a list")
    owner = {token_id: token for token, token_id in vocab.items()}
    for number, entry in enumerate(raw):
        ok = isinstance(entry, dict) and isinstance(entry.get("content"), str)
        require(ok, f"{name}: added token {number} needs a string 'content' and an integer 'id'")
        content = entry["content"]
        token_id = require_id(entry.get("id"), f"{name}: the id of added token {content!r}")
        if content in vocab and vocab[content] != token_id:
            fail(f"{name}: added token {content!r} has id {token_id}, but the vocabulary gives it {vocab[content]}")
        other = owner.get(token_id, content)
        if other != content:
            fail(f"{name}: added token {content!r} has id {token_id}, which already belongs to {other!r}")
        vocab[content] = token_id
        owner[token_id] = content
