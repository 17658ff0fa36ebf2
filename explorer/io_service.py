"""Tokenizer files in and out of the explorer: uploads, downloads, and the round-trip proof. Pure.

No Streamlit here. The engine's readers and writers work on paths, so uploads and exports go
through a private temporary directory; every problem is a one-line `BPEError` message whose
text never shows that directory.
"""
from __future__ import annotations

import hashlib
import io
import json
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bpe_core import BPEError, Tokenizer
from bpe_core.formats import load_any, load_gpt2, save_gpt2, save_hf, save_tokenizer
from bpe_core.formats.huggingface import WORD_END

OURS_FILE = "model.json"
HF_FILE = "tokenizer.json"
GPT2_ZIP = "gpt2-vocab-merges.zip"
UPLOAD_TYPES = ("json", "txt", "tiktoken")
SOURCES = {
    "trained": "our JSON",
    "huggingface": "Hugging Face tokenizer.json",
    "gpt2": "GPT-2 vocab.json + merges.txt",
    "tiktoken": "tiktoken rank file",
}
MAX_DIFFERENCES = 20  # rows of the round trip's difference list


# ---- uploads ---------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Uploaded:
    """A tokenizer read from uploaded files, kept in the session under `key`."""

    key: str  # "file:<digest of the files>"
    name: str  # the file names, as the user knows them
    tokenizer: Tokenizer

    @property
    def kind(self) -> str:
        return SOURCES.get(self.tokenizer.source, self.tokenizer.source)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.kind})"


def _safe_name(name: str, fallback: str) -> str:
    """A bare file name to write in the temporary directory (no folders, nothing hidden)."""
    bare = Path(name.replace("\\", "/")).name.lstrip(".")
    return bare or fallback


def _digest(files: Sequence[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for name, data in sorted(files):
        h.update(name.encode("utf-8", "replace") + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:16]


def _is_merges(name: str, data: bytes) -> bool:
    return name.endswith(".txt") or data.lstrip().startswith(b"#version")


def _is_gpt2_vocab(data: bytes) -> bool:
    """A JSON object whose values are all whole numbers (a GPT-2 vocab.json)."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(value, dict) and bool(value) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value.values()
    )


def _load_in(directory: Path, load, *paths: Path) -> Tokenizer:
    try:
        return load(*paths)
    except BPEError as exc:
        raise BPEError(str(exc).replace(f"{directory}/", "").replace(str(directory), "the upload")) from None
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:  # a reader's gap: still one line
        raise BPEError(f"{paths[0].name} could not be read as a tokenizer ({type(exc).__name__})") from None


def read_tokenizer_files(files: Sequence[tuple[str, bytes]]) -> tuple[list[Uploaded], list[str]]:
    """Tokenizers from uploaded (name, data) files, and a one-line problem for each file that failed.

    A GPT-2 `vocab.json` and a merges `.txt` uploaded together make one tokenizer, whatever
    their names; every other file is read on its own, its format detected.
    """
    files = [(_safe_name(name, f"upload-{i}"), data) for i, (name, data) in enumerate(files)]
    merges = [f for f in files if _is_merges(*f)]
    vocabs = [f for f in files if f not in merges and f[0].endswith(".json") and _is_gpt2_vocab(f[1])]
    loaded: list[Uploaded] = []
    problems: list[str] = []
    singles = [f for f in files if f not in merges and f not in vocabs]
    if len(vocabs) == 1 and len(merges) == 1:
        (vname, vdata), (mname, mdata) = vocabs[0], merges[0]
        try:
            loaded.append(_read_pair(vname, vdata, mname, mdata))
        except BPEError as exc:
            problems.append(str(exc))
    else:
        for name, _ in vocabs:
            problems.append(f"{name} is a GPT-2 vocabulary: upload it together with its merges.txt (select both files)")
        for name, _ in merges:
            problems.append(f"{name} looks like a GPT-2 merges file: upload it together with its vocab.json")
    for name, data in singles:
        try:
            loaded.append(_read_single(name, data))
        except BPEError as exc:
            problems.append(str(exc))
    return loaded, problems


def _read_single(name: str, data: bytes) -> Uploaded:
    with tempfile.TemporaryDirectory(prefix="bpe-upload-") as tmp:
        directory = Path(tmp)
        path = directory / name
        path.write_bytes(data)
        tok = _load_in(directory, load_any, path)
    return Uploaded(key=f"file:{_digest([(name, data)])}", name=name, tokenizer=tok)


def _read_pair(vname: str, vdata: bytes, mname: str, mdata: bytes) -> Uploaded:
    with tempfile.TemporaryDirectory(prefix="bpe-upload-") as tmp:
        directory = Path(tmp)
        vpath, mpath = directory / "v" / vname, directory / "m" / mname  # apart, even if named alike
        for path, data in ((vpath, vdata), (mpath, mdata)):
            path.parent.mkdir()
            path.write_bytes(data)
        tok = _load_in(directory, load_gpt2, vpath, mpath)
    key = f"file:{_digest([(vname, vdata), (mname, mdata)])}"
    return Uploaded(key=key, name=f"{vname} + {mname}", tokenizer=tok)


# ---- exports ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Exports:
    """The tokenizer in each format, or the engine's reason that format cannot hold it."""

    ours: bytes
    hf: bytes | None
    hf_problem: str
    vocab: bytes | None  # GPT-2 vocab.json
    merges: bytes | None  # GPT-2 merges.txt
    gpt2_problem: str

    @property
    def gpt2_zip(self) -> bytes | None:
        if self.vocab is None or self.merges is None:
            return None
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("vocab.json", self.vocab)
            archive.writestr("merges.txt", self.merges)
        return buffer.getvalue()


def export_tokenizer(tok: Tokenizer) -> Exports:
    """Write the tokenizer in our JSON, HF tokenizer.json and GPT-2 files, with the engine's writers."""
    with tempfile.TemporaryDirectory(prefix="bpe-export-") as tmp:
        directory = Path(tmp)
        save_tokenizer(tok, directory / OURS_FILE)
        ours = (directory / OURS_FILE).read_bytes()
        hf, hf_problem = None, ""
        try:
            save_hf(tok, directory / HF_FILE)
            hf = (directory / HF_FILE).read_bytes()
        except BPEError as exc:
            hf_problem = str(exc)
        vocab = merges = None
        gpt2_problem = ""
        try:
            vocab_path, merges_path = save_gpt2(tok, directory / "gpt2")
            vocab, merges = vocab_path.read_bytes(), merges_path.read_bytes()
        except BPEError as exc:
            gpt2_problem = str(exc).replace(str(directory / "gpt2"), "the export")
    return Exports(ours, hf, hf_problem, vocab, merges, gpt2_problem)


# ---- the round trip --------------------------------------------------------------------------

UNSEEN_EXTRA = "Unseen text: naïve café 日本語 😀 <b>&amp;</b> don't"


def sample_text(corpus_text: str, *, length: int = 300) -> str:
    """A text to check the round trip on: the corpus's start (cut at a space) plus characters it may lack."""
    start = corpus_text[:length]
    if len(corpus_text) > length and " " in start:
        start = start[: start.rindex(" ")]
    return f"{start.strip()}\n{UNSEEN_EXTRA}"


@dataclass(frozen=True)
class RoundTrip:
    """Our encoding of a text next to another reader's encoding of the exported file."""

    reader: str
    ours_tokens: list[str]
    ours_ids: list[int]
    their_tokens: list[str]
    their_ids: list[int]

    @property
    def ok(self) -> bool:
        return self.ours_ids == self.their_ids

    def differences(self, *, limit: int = MAX_DIFFERENCES) -> list[dict[str, object]]:
        """The positions where the ids differ (one row each, at most `limit`), and a length mismatch."""
        rows: list[dict[str, object]] = []
        n = max(len(self.ours_ids), len(self.their_ids))
        for i in range(n):
            ours = self.ours_ids[i] if i < len(self.ours_ids) else None
            theirs = self.their_ids[i] if i < len(self.their_ids) else None
            if ours != theirs:
                rows.append({
                    "position": i,
                    "our token": self.ours_tokens[i] if i < len(self.ours_tokens) else "(none)",
                    "our id": ours,
                    "their token": self.their_tokens[i] if i < len(self.their_tokens) else "(none)",
                    "their id": theirs,
                })
                if len(rows) >= limit:
                    break
        return rows


def hf_round_trip(tok: Tokenizer, hf_json: bytes, text: str) -> RoundTrip:
    """Load the exported tokenizer.json with the real `tokenizers` library and encode `text` both ways."""
    try:
        import tokenizers
    except ImportError:
        raise BPEError("the `tokenizers` package is not installed, so the round trip cannot be checked") from None
    try:
        theirs = tokenizers.Tokenizer.from_str(hf_json.decode("utf-8")).encode(text, add_special_tokens=False)
    except Exception as exc:  # noqa: BLE001 - the library's own errors are many kinds
        first_line = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise BPEError(f"tokenizers could not load or use the exported tokenizer.json: {first_line}") from None
    ours = tok.encode(text)
    # The export spells our separate end-of-word symbol as one stand-in character; read it back.
    their_tokens = [t.replace(WORD_END, "</w>") if tok.settings.marker else t for t in theirs.tokens]
    return RoundTrip(f"tokenizers {tokenizers.__version__}", ours.tokens, ours.ids, their_tokens, list(theirs.ids))


def reload_round_trip(tok: Tokenizer, files: Sequence[tuple[str, bytes]], text: str) -> RoundTrip:
    """Read exported files back with our own loader and encode `text` both ways."""
    loaded, problems = read_tokenizer_files(files)
    if problems or len(loaded) != 1:
        raise BPEError("; ".join(problems) or "the exported files did not read back as one tokenizer")
    again = loaded[0].tokenizer.encode(text)
    ours = tok.encode(text)
    return RoundTrip("bpe_core.formats.load_any", ours.tokens, ours.ids, again.tokens, again.ids)
