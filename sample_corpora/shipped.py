"""The built samples shipped in ``data/``: the English corpus and the multilingual parallel set.

They are what the builders make from installed packages (``builders.build_english`` reads the
docstrings of pandas, NumPy, Streamlit, Hypothesis and pytest; ``parallel.build_parallel`` reads
Django's and Sphinx's translation catalogs), built once with ``python -m sample_corpora build``
(``build.py``) and kept as files, so the app needs none of those packages at run time.
``data/manifest.json`` records what each file was built from and the sha256 of its text; a file
that does not match is refused, with the command that rebuilds it. Licences: ``data/LICENSES.md``.

Large texts are gzip-compressed (zlib is in every Python); the parallel set is plain text, one
file a language, the folder ``python -m bpe_core report --parallel`` reads.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
MANIFEST = "manifest.json"
PARALLEL = "parallel"  # the folder of the parallel set: <code>.txt
# Which of its messages span lines: {code: {message index: its number of lines}} (every other is one line).
MESSAGE_LINES = f"{PARALLEL}/message-lines.json"
REBUILD = "python -m sample_corpora build"


def decode_file(name: str, data: bytes) -> str:
    """A shipped file's text: gunzipped when its name ends in .gz, then UTF-8, line endings kept."""
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    return data.decode("utf-8")


def encode_file(name: str, text: str) -> bytes:
    """What `decode_file` reads back as `text` (gzip without a time stamp, so a rebuild is the same file)."""
    data = text.encode("utf-8")
    return gzip.compress(data, compresslevel=9, mtime=0) if name.endswith(".gz") else data


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def manifest(folder: Path = DATA) -> dict[str, Any]:
    """The manifest: {"files": {name: {"sha256", "bytes", "sources"}}, ...}; RuntimeError if unreadable."""
    try:
        with open(folder / MANIFEST, encoding="utf-8") as fh:
            found = json.load(fh)
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"the sample data's manifest cannot be read ({exc}); {REBUILD} writes it") from None
    if not isinstance(found, dict) or not isinstance(found.get("files"), dict):
        raise RuntimeError(f"{folder / MANIFEST} is not a manifest of the sample data; {REBUILD} writes it")
    return found


def read_shipped(name: str, *, folder: Path = DATA) -> str:
    """The text of shipped file `name` (a path under data/), checked against the manifest.

    RuntimeError, naming the file and the command that rebuilds it, when it is missing, not listed,
    or not the text the manifest describes.
    """
    entry = manifest(folder)["files"].get(name)
    if not isinstance(entry, dict):
        raise RuntimeError(f"{name} is not in the sample data's manifest; {REBUILD} rebuilds the samples")
    try:
        text = decode_file(name, (folder / name).read_bytes())
    except (OSError, ValueError, EOFError, zlib.error) as exc:  # gzip's errors; UTF-8's ValueError
        raise RuntimeError(f"the sample file {name} cannot be read ({exc}); {REBUILD} rebuilds it") from None
    if text_digest(text) != entry.get("sha256"):
        raise RuntimeError(f"the sample file {name} is not the one its manifest describes; {REBUILD} rebuilds it")
    return text


def parallel_name(code: str) -> str:
    """The shipped file of one language of the parallel set."""
    return f"{PARALLEL}/{code}.txt"
