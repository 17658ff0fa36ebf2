"""Sample corpora for the BPE explorer: small shipped files plus corpora
generated on first use from the local Python standard library."""

from __future__ import annotations

from .catalog import (
    DEFAULT_TARGET_BYTES,
    SampleCorpus,
    build_english,
    build_python,
    cache_dir,
    get_corpus,
    list_corpora,
    load_corpus,
)

__all__ = [
    "DEFAULT_TARGET_BYTES",
    "SampleCorpus",
    "build_english",
    "build_python",
    "cache_dir",
    "get_corpus",
    "list_corpora",
    "load_corpus",
]
