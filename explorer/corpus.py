"""Corpora the user brings: reading uploads and pasted text safely, and corpus statistics.

Pure: no Streamlit here. Problems raise `BPEError` with a message to show as it is.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core import BPEError
from bpe_core.pretokenize import check_text

MAX_UPLOAD_MB = 50
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024


@dataclass(frozen=True)
class Corpus:
    """A corpus in this session: where it came from and its text."""

    key: str  # "sample:<id>", "upload:<digest>" or "paste:<digest>"
    title: str
    text: str
    digest: str

    @property
    def is_sample(self) -> bool:
        return self.key.startswith("sample:")

    @property
    def sample_id(self) -> str | None:
        return self.key.removeprefix("sample:") if self.is_sample else None


def digest(text: str) -> str:
    """A short content hash: the cache key of a corpus."""
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()[:16]


def sample_corpus(sample_id: str, title: str, text: str) -> Corpus:
    return Corpus(key=f"sample:{sample_id}", title=title, text=text, digest=digest(text))


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
            problems.append(f"{name} is {len(data) / 1024 / 1024:.1f} MB, over the {max_bytes / 1024 / 1024:.0f} MB limit")
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
            f"together the files are {total / 1024 / 1024:.1f} MB, over the {max_bytes / 1024 / 1024:.0f} MB limit. "
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
        raise BPEError(f"The pasted text is over the {MAX_UPLOAD_MB} MB limit. The previous corpus is still loaded.")
    d = digest(text)
    first = " ".join(text.split())[:40]
    return Corpus(key=f"paste:{d}", title=f"Pasted: {first}…" if len(first) == 40 else f"Pasted: {first}", text=text, digest=d)


@dataclass(frozen=True)
class CorpusStats:
    characters: int
    words: int
    distinct_words: int
    alphabet: int  # distinct characters, whitespace excluded
    top_words: list[tuple[str, int]]


def corpus_stats(text: str, *, top: int = 20) -> CorpusStats:
    """Characters, whitespace-separated words, distinct words, alphabet size, most frequent words."""
    counts = Counter(text.split())
    alphabet = {ch for ch in set(text) if not ch.isspace()}
    return CorpusStats(
        characters=len(text),
        words=sum(counts.values()),
        distinct_words=len(counts),
        alphabet=len(alphabet),
        top_words=counts.most_common(top),
    )
