"""Corpora the user brings: reading uploads and pasted text safely, and corpus statistics.

Pure: no Streamlit here. Problems raise `BPEError` with a message to show as it is.
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core import BPEError
from bpe_core.pretokenize import check_text

_SPACE = re.compile(r"\s")  # what str.split() splits on
# One limit for uploads and pastes, stated the same way everywhere: 50 MB = 50,000,000 bytes.
# `.streamlit/config.toml` gives the upload widget `maxUploadSize = 50`, and Streamlit 1.67's widget
# refuses a file over maxUploadSize * 1000 * 1000 bytes (1024 * 1024 only in browsers on Windows),
# so the app's own check counts megabytes of 1,000,000 bytes too.
MAX_UPLOAD_MB = 50
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1000 * 1000
UPLOAD_LIMIT_TEXT = f"{MAX_UPLOAD_MB} MB ({MAX_UPLOAD_BYTES:,} bytes)"


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB ({size:,} bytes)"


@dataclass(frozen=True)
class Corpus:
    """A corpus in this session: where it came from and its text."""

    key: str  # "sample:<id>", "upload:<digest>" or "paste:<digest>"
    title: str
    text: str
    digest: str


def digest(text: str) -> str:
    """A short content hash: the cache key of a corpus."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:16]


def sample_corpus(sample_id: str, title: str, text: str) -> Corpus:
    return Corpus(key=f"sample:{sample_id}", title=title, text=text, digest=digest(text))


def _limit(max_bytes: int) -> str:
    return UPLOAD_LIMIT_TEXT if max_bytes == MAX_UPLOAD_BYTES else f"{max_bytes:,}-byte"


def read_uploads(files: Sequence[tuple[str, bytes]], *, max_bytes: int = MAX_UPLOAD_BYTES) -> Corpus:
    """One corpus from uploaded files (name, data), or BPEError naming every file that cannot be used.

    All files must be usable: one bad file rejects the upload, so the previous corpus stays.
    """
    if not files:
        raise BPEError("no file was uploaded")
    problems = []
    texts = []
    total = 0
    for name, data in files:
        total += len(data)
        if len(data) > max_bytes:
            problems.append(f"{name} is {_mb(len(data))}, over the {_limit(max_bytes)} limit")
            continue
        if not data.strip():
            problems.append(f"{name} is empty")
            continue
        try:
            text = check_text(data, name=name)
        except BPEError as exc:
            problems.append(str(exc))
            continue
        if not text.strip():
            problems.append(f"{name} is empty")
            continue
        texts.append(text)
    if problems:
        raise BPEError("Could not use the upload: " + "; ".join(problems) + ". The previous corpus is still loaded.")
    if total > max_bytes:
        raise BPEError(
            f"Together the files are {_mb(total)}, over the {_limit(max_bytes)} limit. "
            "The previous corpus is still loaded."
        )
    text = "\n\n".join(t.rstrip("\n") for t in texts) + "\n" if len(texts) > 1 else texts[0]
    names = ", ".join(name for name, _ in files)
    d = digest(text)
    return Corpus(key=f"upload:{d}", title=f"Uploaded: {names}", text=text, digest=d)


def pasted_corpus(text: str) -> Corpus:
    """A corpus from pasted text, or BPEError if there is nothing in it."""
    if not text or not text.strip():
        raise BPEError("The pasted text is empty. The previous corpus is still loaded.")
    if len(text.encode("utf-8", errors="surrogatepass")) > MAX_UPLOAD_BYTES:
        raise BPEError(f"The pasted text is over the {UPLOAD_LIMIT_TEXT} limit. The previous corpus is still loaded.")
    d = digest(text)
    first = " ".join(text.split())[:40]
    return Corpus(
        key=f"paste:{d}", title=f"Pasted: {first}…" if len(first) == 40 else f"Pasted: {first}", text=text, digest=d
    )


@dataclass(frozen=True)
class CorpusStats:
    characters: int
    words: int
    distinct_words: int
    alphabet: int  # distinct characters, whitespace excluded
    top_words: list[tuple[str, int]]


def corpus_stats(text: str, *, top: int = 20) -> CorpusStats:
    """Characters, whitespace-separated words, distinct words, alphabet size, most frequent words."""
    counts: Counter[str] = Counter()
    start = 0
    while start < len(text):  # a megabyte at a time: text.split() of 50 MB makes 500 MB of words at once
        found = _SPACE.search(text, min(len(text), start + (1 << 20)))
        end = found.start() if found else len(text)  # cut at a space, never inside a word
        counts.update(text[start:end].split())
        start = end + 1
    alphabet = {ch for ch in set(text) if not ch.isspace()}
    return CorpusStats(
        characters=len(text),
        words=sum(counts.values()),
        distinct_words=len(counts),
        alphabet=len(alphabet),
        top_words=counts.most_common(top),
    )
