"""Decoders: tokens back to text, as Hugging Face `tokenizers` does it, and read from `tokenizer.json`.

The decoders themselves are in `decoder_parts`; here are the reading table `HF_TYPES`, the text
of a list of tokens (`decode_tokens`: without a decoder `tokenizers` joins tokens with single
spaces) and the bytes one token stands for (`token_bytes`).

>>> decode_tokens(MetaspaceDecoder(), ["▁Hello", "▁wor", "ld"])
'Hello world'
>>> decode_tokens(None, ["Hello", "world"])
'Hello world'
"""
from __future__ import annotations

from typing import Any

from .base import Builder, Decoder, PartReader
from .decoder_parts import (
    PREPEND_SCHEMES,
    SPACE,
    BPEDecoder,
    ByteFallbackDecoder,
    ByteLevelDecoder,
    CTCDecoder,
    FuseDecoder,
    MetaspaceDecoder,
    ReplaceDecoder,
    SequenceDecoder,
    StripDecoder,
)
from .part_fields import flag, number, one_char, text
from .pretokenizers_onig import PatternError

__all__ = [
    "HF_TYPES", "BPEDecoder", "ByteFallbackDecoder", "ByteLevelDecoder", "CTCDecoder", "FuseDecoder",
    "MetaspaceDecoder", "ReplaceDecoder", "SequenceDecoder", "StripDecoder", "decode_tokens",
    "token_bytes",
]


def decode_tokens(decoder: Decoder | None, tokens: list[str]) -> str:
    """The text of `tokens`: the decoder's strings joined, or the tokens joined by spaces without one."""
    if decoder is None:
        return " ".join(tokens)
    return "".join(decoder.decode_chain(tokens))


def token_bytes(decoder: Decoder | None, token: str) -> bytes:
    """The bytes `token` stands for in the middle of a text: part of a character, or a space and a word.

    >>> token_bytes(ByteLevelDecoder(), "Ġcaf"), token_bytes(ByteLevelDecoder(), "Ã")
    (b' caf', b'\\xc3')
    >>> llama = SequenceDecoder(decoders=(ReplaceDecoder(pattern="▁", content=" "), ByteFallbackDecoder(),
    ...                                   FuseDecoder(), StripDecoder(content=" ", start=1)))
    >>> token_bytes(llama, "▁Hi"), token_bytes(llama, "<0xE2>")
    (b' Hi', b'\\xe2')
    """
    # Neither first nor last: a word-start marker gives its space, a "<0xNN>" or byte-level token
    # its bytes; without a decoder a token is its own text. Each decoder says its own rule (`inner`).
    value: str | bytes = token
    if decoder is not None:
        value, _ = decoder.inner(token, False)
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")


# ---- reading tokenizer.json ----------------------------------------------------------------
# Fields that `tokenizers` requires are given the defaults of its Python constructors here.

def _byte_level(data: dict[str, Any], reader: PartReader) -> ByteLevelDecoder:
    what = "decoder ByteLevel"
    return ByteLevelDecoder(add_prefix_space=flag(data, "add_prefix_space", True, reader, what),
                            trim_offsets=flag(data, "trim_offsets", True, reader, what),
                            use_regex=flag(data, "use_regex", True, reader, what))


def _metaspace(data: dict[str, Any], reader: PartReader) -> MetaspaceDecoder:
    what = "decoder Metaspace"
    scheme = text(data, "prepend_scheme", "", reader, what)
    if scheme and scheme not in PREPEND_SCHEMES:
        reader.fail(what, f"'prepend_scheme' must be one of {', '.join(PREPEND_SCHEMES)}, not {scheme!r}")
    # Files written before prepend_scheme existed say add_prefix_space (false meaning "never";
    # `tokenizers` refuses false unless prepend_scheme is "never", here it may also be absent).
    if not flag(data, "add_prefix_space", True, reader, what):
        if scheme not in ("", "never"):
            reader.fail(what, f"add_prefix_space false contradicts prepend_scheme {scheme!r}")
        scheme = "never"
    return MetaspaceDecoder(replacement=one_char(data, "replacement", SPACE, reader, what),
                            prepend_scheme=scheme or "always", split=flag(data, "split", True, reader, what))


def _bpe(data: dict[str, Any], reader: PartReader) -> BPEDecoder:
    return BPEDecoder(suffix=text(data, "suffix", "</w>", reader, "decoder BPEDecoder"))


def _strip(data: dict[str, Any], reader: PartReader) -> StripDecoder:
    what = "decoder Strip"
    return StripDecoder(content=one_char(data, "content", " ", reader, what),
                        start=number(data, "start", 0, reader, what), stop=number(data, "stop", 0, reader, what))


def _replace(data: dict[str, Any], reader: PartReader) -> ReplaceDecoder:
    what = "decoder Replace"
    pattern = data.get("pattern")
    if not (isinstance(pattern, dict) and len(pattern) == 1 and set(pattern) <= {"String", "Regex"}
            and isinstance(next(iter(pattern.values())), str)):
        reader.fail(what, 'pattern must be {"String": "..."} or {"Regex": "..."}')
    (kind, source), = pattern.items()
    content = text(data, "content", None, reader, what)
    try:
        return ReplaceDecoder(pattern=source, content=content, is_regex=kind == "Regex")
    except PatternError as exc:
        reader.fail(what, f"the regex {source!r} does not compile: {exc}")


def _ctc(data: dict[str, Any], reader: PartReader) -> CTCDecoder:
    what = "decoder CTC"
    return CTCDecoder(pad_token=text(data, "pad_token", "<pad>", reader, what),
                      word_delimiter_token=text(data, "word_delimiter_token", "|", reader, what),
                      cleanup=flag(data, "cleanup", True, reader, what))


def _sequence(data: dict[str, Any], reader: PartReader) -> SequenceDecoder:
    what = "decoder Sequence"
    members = data.get("decoders")
    if not isinstance(members, list):
        reader.fail(what, "'decoders' must be a list of decoders")
    decoders = []
    for i, raw in enumerate(members):
        decoder = reader.decoder(raw)
        if decoder is None:
            reader.fail(what, f"decoder {i} is null")
        decoders.append(decoder)
    return SequenceDecoder(decoders=tuple(decoders))


HF_TYPES: dict[str, Builder] = {
    "ByteLevel": _byte_level,
    "Metaspace": _metaspace,
    "BPEDecoder": _bpe,
    "ByteFallback": lambda data, reader: ByteFallbackDecoder(),
    "Fuse": lambda data, reader: FuseDecoder(),
    "Strip": _strip,
    "Replace": _replace,
    "CTC": _ctc,
    "Sequence": _sequence,
}
