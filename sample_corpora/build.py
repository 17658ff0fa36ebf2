"""`python -m sample_corpora build`: rebuild the shipped samples in data/ from the installed packages.

The English corpus (`builders.build_english` at 5 MB: this Python's standard library, then the
docstrings of pandas, NumPy, Streamlit, Hypothesis and pytest) and the parallel set
(`parallel.build_parallel` over Django's and Sphinx's catalogs) are built exactly as the app built
them on first use before they were shipped, so the files are those texts byte for byte. The build
also writes the manifest (what each file was built from, the sha256 of its text) and the licences:
LICENSES.md and each source's own licence file under data/licenses/. `--check` compares instead of
writing. `bash scripts/install.sh` installs every source package at its pinned version.
"""
from __future__ import annotations

import importlib.metadata
import json
import platform
import sysconfig
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .builders import ENGLISH_PACKAGES, build_english
from .catalog import write_atomically
from .languages import list_languages, message_lines
from .parallel import SOURCES as CATALOG_SOURCES
from .parallel import build_parallel
from .shipped import DATA, MANIFEST, MESSAGE_LINES, decode_file, encode_file, parallel_name, text_digest

ENGLISH_FILE = "english.txt.gz"
ENGLISH_BYTES = 5_000_000  # what the app built on first use (catalog.DEFAULT_TARGET_BYTES)
FORMAT = 1
LICENSES = "LICENSES.md"
LICENSE_DIR = "licenses"
# The Apache License's text, kept in the repository: the Streamlit package ships none.
APACHE_TEXT = f"{LICENSE_DIR}/Apache-2.0.txt"


@dataclass(frozen=True)
class Source:
    """A package whose text the samples hold: its terms, and its licence file (copied beside them)."""

    distribution: str  # "python" is the standard library
    title: str
    licence: str  # SPDX
    holder: str  # the copyright line of its licence
    licence_file: str  # the path that ends the licence file among the distribution's files ("" if none)


SOURCES = (
    Source("python", "the Python standard library", "PSF-2.0", "Python Software Foundation", "LICENSE.txt"),
    Source("pandas", "pandas", "BSD-3-Clause", "AQR Capital Management, LLC, Lambda Foundry, Inc. and PyData "
           "Development Team; Open source contributors", ".dist-info/licenses/LICENSE"),
    Source("numpy", "NumPy", "BSD-3-Clause", "NumPy Developers", ".dist-info/licenses/LICENSE.txt"),
    Source("streamlit", "Streamlit", "Apache-2.0", "Snowflake Inc.", ""),
    Source("hypothesis", "Hypothesis", "MPL-2.0", "David R. MacIver and other contributors",
           ".dist-info/licenses/LICENSE.txt"),
    Source("pytest", "pytest", "MIT", "Holger Krekel and others", ".dist-info/licenses/LICENSE"),
    Source("django", "Django", "BSD-3-Clause", "Django Software Foundation and individual contributors",
           ".dist-info/licenses/LICENSE"),
    Source("sphinx", "Sphinx", "BSD-2-Clause", "the Sphinx team", ".dist-info/licenses/LICENSE.rst"),
)
ENGLISH_SOURCES = ("python", *(distribution for _, distribution in ENGLISH_PACKAGES))
PARALLEL_SOURCES = tuple(source.package for source in CATALOG_SOURCES)


def version(distribution: str) -> str:
    """The installed version of a source (the running Python's for the standard library);
    RuntimeError naming the package when it is not installed."""
    if distribution == "python":
        return platform.python_version()
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        raise RuntimeError(f"the {distribution!r} package is not installed; bash scripts/install.sh installs "
                           "the pinned version") from None


def _licence_text(source: Source) -> str:
    if source.distribution == "python":
        return (Path(sysconfig.get_paths()["stdlib"]) / source.licence_file).read_text(encoding="utf-8")
    found = [f for f in importlib.metadata.distribution(source.distribution).files or ()
             if str(f).endswith(source.licence_file)]
    if len(found) != 1:
        raise RuntimeError(f"the {source.distribution!r} package has no single {source.licence_file} to copy")
    return found[0].read_text(encoding="utf-8")


def licence_name(source: Source) -> str:
    """Where a source's licence text is kept under data/."""
    return f"{LICENSE_DIR}/{source.distribution}.txt" if source.licence_file else APACHE_TEXT


def built_texts() -> dict[str, str]:
    """{file name under data/: its text} of everything the build writes, the manifest included."""
    versions = {source.distribution: version(source.distribution) for source in SOURCES}
    texts = {ENGLISH_FILE: build_english(ENGLISH_BYTES)}
    languages = list_languages()
    parallel = build_parallel([(lang.code, dict(lang.locales)) for lang in languages])
    for lang in languages:
        texts[parallel_name(lang.code)] = parallel.text(lang.code)
    texts[MESSAGE_LINES] = message_lines(dict(parallel.messages))

    def sources(names: tuple[str, ...]) -> dict[str, str]:
        return {name: versions[name] for name in names}

    files = {name: {"sha256": text_digest(text), "bytes": len(text.encode("utf-8")),
                    "sources": sources(ENGLISH_SOURCES if name == ENGLISH_FILE else PARALLEL_SOURCES)}
             for name, text in texts.items()}
    texts[MANIFEST] = json.dumps({"format": FORMAT, "made by": "python -m sample_corpora build",
                                  "english target bytes": ENGLISH_BYTES, "files": files},
                                 indent=1, ensure_ascii=False) + "\n"
    for source in SOURCES:
        if source.licence_file:
            texts[licence_name(source)] = _licence_text(source)
    texts[LICENSES] = licences_page(versions)
    return texts


def licences_page(versions: Mapping[str, str]) -> str:
    """LICENSES.md: which file holds whose text, on what terms, and where each licence's text is."""
    lines = [
        "# The shipped samples and their licences",
        "",
        "Written by `python -m sample_corpora build` (sample_corpora/build.py) from the installed packages,",
        "with the files it describes.",
        "",
        f"- `{ENGLISH_FILE}`: English prose, about 5 MB: the docstrings, help topics and comments of the",
        "  Python standard library, then the docstrings of pandas, NumPy, Streamlit, Hypothesis and pytest,",
        "  cleaned to prose paragraphs (sample_corpora/builders.py).",
        f"- `{parallel_name('<code>')}`: the same interface messages of Django and Sphinx in fifteen",
        "  languages, one message a line, English first (sample_corpora/parallel.py, languages.json);",
        f"  `{MESSAGE_LINES}` lists the few messages that span lines.",
        "",
        "| source | version | used in | licence | copyright | licence text |",
        "|---|---|---|---|---|---|",
    ]
    for source in SOURCES:
        used = "english" if source.distribution in ENGLISH_SOURCES else "parallel"
        lines.append(f"| {source.title} | {versions[source.distribution]} | {used} | {source.licence} | "
                     f"{source.holder} | `{licence_name(source)}` |")
    lines += [
        "",
        "The English corpus keeps its sources' prose paragraphs as they wrote them, each paragraph's lines",
        "joined and code samples left out; the parallel set keeps every message exactly. Each stays under",
        "its source's licence and notice: Hypothesis's docstrings under the MPL-2.0, for example, whose text",
        "is in `licenses/hypothesis.txt`. The packages' own licence files are copied by the build; the",
        f"Apache License (Streamlit's, which its package does not ship) is kept here as `{APACHE_TEXT}`.",
    ]
    return "\n".join(lines) + "\n"


def differences(texts: Mapping[str, str], folder: Path = DATA) -> dict[str, str]:
    """{file name: why} for each file of `texts` that `folder` lacks or holds otherwise; {} when all match."""
    out = {}
    for name, text in texts.items():
        try:
            found = decode_file(name, (folder / name).read_bytes())
        except (OSError, ValueError, EOFError, zlib.error):
            out[name] = "missing or unreadable"
            continue
        if found != text:
            out[name] = "differs from a fresh build"
    return out


def write(texts: Mapping[str, str], folder: Path = DATA) -> list[str]:
    """Write each file whose text is not already there, atomically; the names written."""
    stale = list(differences(texts, folder))
    for name in stale:
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, encode_file(name, texts[name]))
        path.chmod(0o644)  # a temporary file's mode is the owner's alone
    return stale
