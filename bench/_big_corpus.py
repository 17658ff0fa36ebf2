"""A large generated corpus for the counting and training benchmarks, made on first use and cached.

Real text is not shipped at gigabyte scale, so this module writes a stand-in with the properties
that matter to counting and to the merge loop:

* Zipfian word frequencies (Zipf-Mandelbrot, exponent about 1): a head of English function words,
  then content words made of a stem, an optional prefix and an optional suffix ("un" + "settle" +
  "ed"). Stems are real words (an English list here plus the words of the shipped multilingual
  sample files, so several scripts appear) and pronounceable made-up words for the long tail.
  The number of distinct words keeps growing with the corpus (Heaps' law), as in real text.
* Numbers (counts, years, decimals), capitalised sentence starts, commas and full stops glued to
  words, sentences over lines and paragraphs.
* Several files in a directory, every third one gzipped, written a block at a time (the text is
  never whole in memory).

Deterministic: a seeded NumPy generator (PCG64), so the same size and seed give the same bytes.
The corpus lives under $BPE_EXPLORER_CACHE/bench or ~/.cache/bpe-explorer/bench, never in the
repository. Run as a script to build one and print its directory:

    python bench/_big_corpus.py --size 250MB
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import BinaryIO

import numpy as np

VERSION = 1  # bump when the generated text changes
FILE_BYTES = 32_000_000  # text bytes per file (uncompressed)
BLOCK_WORDS = 200_000  # words generated at a time
GZIP_EVERY = 3  # files 1, 4, 7, ... are gzipped
GZIP_LEVEL = 6

_FUNCTION_TEXT = (
    "the of and to a in is that for it as was with be by on not he this are or his from at which but have an "
    "they you were her she there one all we their been has would can had its more if will when who so no what "
    "up out about into than them only other some could these then two may do first any my now such like our "
    "over also me even most made after many before must through back years where much your way well down "
    "should because each just those people how too little state good very make world still own see men work "
    "long get here between both life being under never day same another know while last might us great old "
    "year off come since against go came right used take three"
)
FUNCTION_WORDS = _FUNCTION_TEXT.split()

_ENGLISH_TEXT = (
    "time house water train market number system program public school family student question government "
    "company night point home study book eye job word business issue side kind head service friend power "
    "hour game line end member law car city community name president team minute idea kid body information "
    "parent face level office door health person art war history party result change morning reason "
    "research girl guy moment air teacher force education foot boy age policy process music market sense "
    "nation plan college interest death experience effect class control care field development role effort "
    "rate heart drug show leader light voice wife police mind price report decision son view relationship "
    "town road arm difference value building action model season society tax director position player "
    "record paper space ground form event official matter center couple site project activity star table "
    "need court oil situation cost industry figure street image phone data picture practice piece land "
    "product doctor wall patient worker news test movie north love support technology step baby computer "
    "type attention film tree source organization hair window evidence population site garden river stone "
    "paint walk talk play read write build settle connect happen open close order turn start follow hold "
    "learn count measure train help move live believe bring begin keep teach grow cover agree"
)
ENGLISH_STEMS = _ENGLISH_TEXT.split()

PREFIXES = ("", "un", "re", "pre", "dis")
PREFIX_WEIGHTS = (0.93, 0.02, 0.02, 0.01, 0.02)
SUFFIXES = ("", "s", "ed", "ing", "er", "ly", "ness", "ation", "able", "ment", "ers")
SUFFIX_WEIGHTS = (0.62, 0.16, 0.06, 0.05, 0.03, 0.03, 0.01, 0.01, 0.01, 0.01, 0.01)
ONSETS = ("b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z",
          "br", "cl", "dr", "fl", "gr", "pl", "sh", "st", "th", "tr", "ch", "sp", "")
VOWELS = ("a", "e", "i", "o", "u", "ai", "ea", "ou", "io", "y")
CODAS = ("", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck", "rt", "ng", "x")
SYLLABLE_WEIGHTS = (0.3, 0.5, 0.2)  # made-up stems of 1, 2, 3 syllables

N_STEMS = 60_000
ZIPF_BEND = 2_000  # stem rank where the frequencies start to fall faster (two-regime Zipf)
ZIPF_HEAD, ZIPF_TAIL = 1.0, 2.0  # exponents before and after the bend
FUNCTION_SHARE = 0.42  # tokens that are function words
NUMBER_SHARE = 0.015
COMMA_SHARE = 0.04


def parse_size(text: str) -> int:
    """'250MB' -> 250_000_000 (decimal units: KB, MB, GB; a bare number is bytes)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]?B?)\s*", text, flags=re.IGNORECASE)
    if not m:
        raise ValueError(f"not a size: {text!r} (write e.g. 250MB or 1GB)")
    unit = m.group(2).upper().rstrip("B")
    return int(float(m.group(1)) * {"": 1, "K": 10**3, "M": 10**6, "G": 10**9}[unit])


def size_label(n_bytes: int) -> str:
    """250_000_000 -> '250MB' (whole units only, else bytes: the label names a cache directory)."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if n_bytes >= scale and n_bytes % scale == 0:
            return f"{n_bytes // scale}{unit}"
    return f"{n_bytes}B"


def cache_root() -> Path:
    base = os.environ.get("BPE_EXPLORER_CACHE")
    root = Path(base) if base else Path.home() / ".cache" / "bpe-explorer"
    return root / "bench"


# ---- the vocabulary ----------------------------------------------------------------------------


def _sample_words() -> list[str]:
    """Words of the shipped multilingual sample files, in first-appearance order (several scripts)."""
    here = Path(__file__).resolve().parent.parent / "sample_corpora"
    seen: dict[str, None] = {}
    for name in ("multilingual.txt", "hindi.txt", "tamil.txt", "seed002_lesson.txt"):
        path = here / name
        if path.is_file():
            for word in re.findall(r"\w+", path.read_text(encoding="utf-8")):
                if len(word) > 2 and not word.isdigit():
                    seen.setdefault(word.lower(), None)
    return list(seen)


def _made_up_stems(rng: np.random.Generator, n: int, taken: set[str]) -> list[str]:
    """Pronounceable pseudo-words of one to three syllables, distinct and not in `taken`."""
    out: list[str] = []
    while len(out) < n:
        k = 4 * (n - len(out))
        syllables = rng.choice(np.arange(1, 4), size=k, p=SYLLABLE_WEIGHTS)
        parts = [rng.integers(0, len(table), size=(k, 3)) for table in (ONSETS, VOWELS, CODAS)]
        for i in range(k):
            word = "".join(ONSETS[parts[0][i, j]] + VOWELS[parts[1][i, j]] + CODAS[parts[2][i, j]]
                           for j in range(syllables[i]))
            if len(word) > 2 and word not in taken:
                taken.add(word)
                out.append(word)
                if len(out) == n:
                    break
    return out


def _vocabulary(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Stems (most frequent first) and function words, as object arrays."""
    real = list(dict.fromkeys(ENGLISH_STEMS + _sample_words()))
    stems = real + _made_up_stems(rng, N_STEMS - len(real), set(real) | set(FUNCTION_WORDS))
    return np.array(stems, dtype=object), np.array(FUNCTION_WORDS, dtype=object)


def _zipf_cdf(n: int, *, exponent: float, shift: float, bend: int = 0, tail: float = 0.0) -> np.ndarray:
    """Zipf-Mandelbrot weights 1 / (rank + shift) ** exponent, falling with `tail` past rank `bend`.

    Word frequencies in large corpora follow two regimes (exponent about 1 for the core
    vocabulary, nearer 2 for the rare words), which keeps the growth of distinct words with corpus
    size near Heaps' law's square root rather than linear.
    """
    ranks = np.arange(1, n + 1, dtype=np.float64) + shift
    weights = 1.0 / ranks**exponent
    if bend and bend < n:
        knee = bend + shift
        weights[bend:] = knee ** (tail - exponent) / ranks[bend:] ** tail  # continuous at the bend
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


class _Words:
    """Draws blocks of text; holds the vocabulary and the generator state."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.stems, self.function = _vocabulary(self.rng)
        self.ascii = np.array([s.isascii() for s in self.stems.tolist()])
        self.prefixes = np.array(PREFIXES, dtype=object)
        self.suffixes = np.array(SUFFIXES, dtype=object)
        self.stem_cdf = _zipf_cdf(N_STEMS, exponent=ZIPF_HEAD, shift=2.7, bend=ZIPF_BEND, tail=ZIPF_TAIL)
        self.function_cdf = _zipf_cdf(len(self.function), exponent=1.0, shift=1.5)

    def _numbers(self, k: int) -> list[str]:
        rng = self.rng
        kind = rng.integers(0, 4, size=k)
        small = rng.integers(0, 100, size=k)
        years = rng.integers(1800, 2031, size=k)
        big = rng.integers(100, 1_000_000, size=k)
        frac = rng.integers(0, 100, size=k)
        out = []
        for i in range(k):
            if kind[i] == 0:
                out.append(str(small[i]))
            elif kind[i] == 1:
                out.append(str(years[i]))
            elif kind[i] == 2:
                out.append(f"{big[i]:,}")
            else:
                out.append(f"{small[i]}.{frac[i]:02d}")
        return out

    def block(self, n: int) -> str:
        """About `n` words of text: sentences of 5 to 29 words, lines, paragraphs."""
        rng = self.rng
        words = np.empty(n, dtype=object)
        is_function = rng.random(n) < FUNCTION_SHARE
        nf = int(is_function.sum())
        words[is_function] = self.function[np.searchsorted(self.function_cdf, rng.random(nf))]
        nc = n - nf
        stem = np.searchsorted(self.stem_cdf, rng.random(nc))
        prefix = rng.choice(len(PREFIXES), size=nc, p=PREFIX_WEIGHTS)
        suffix = rng.choice(len(SUFFIXES), size=nc, p=SUFFIX_WEIGHTS)
        # English affixes go on Latin-script stems only; other scripts' stems stay bare.
        latin = self.ascii[stem]
        prefix[~latin] = 0
        suffix[~latin] = 0
        words[~is_function] = self.prefixes[prefix] + self.stems[stem] + self.suffixes[suffix]
        numbers = np.flatnonzero(rng.random(n) < NUMBER_SHARE)
        words[numbers] = np.array(self._numbers(len(numbers)) + [""], dtype=object)[:-1]
        seps = np.full(n, " ", dtype=object)
        seps[rng.random(n) < COMMA_SHARE] = ", "
        ends = np.cumsum(rng.integers(5, 30, size=n // 5 + 2))
        ends = ends[ends < n] - 1
        stops = rng.random(len(ends))
        seps[ends] = np.where(stops < 0.06, "?\n", np.where(stops < 0.2, ".\n\n", np.where(stops < 0.5, ".\n", ". ")))
        starts = np.concatenate(([0], ends + 1))[:-1] if len(ends) else np.array([0])
        for i in starts.tolist():
            w = words[i]
            words[i] = w[:1].upper() + w[1:]
        seps[-1] = ".\n"
        out = np.empty(2 * n, dtype=object)
        out[0::2] = words
        out[1::2] = seps
        return "".join(out.tolist())


# ---- files -------------------------------------------------------------------------------------


def _open_for_writing(path: Path) -> BinaryIO:
    if path.name.endswith(".gz"):
        # mtime=0: the same bytes on every run (gzip.open has no such argument)
        return gzip.GzipFile(path, "wb", compresslevel=GZIP_LEVEL, mtime=0)
    return open(path, "wb")


def corpus_dir(size: int, *, seed: int = 0, file_bytes: int = FILE_BYTES, root: Path | None = None,
               quiet: bool = False) -> Path:
    """The directory of the corpus's files (about `size` text bytes in all), built if not cached yet.

    It holds the text files only, so it can be given to `count` and `train` as it is; the
    manifest (sizes, seed) sits beside it. `file_bytes`: text bytes per file (the smoke tests use
    small files to get several of them).
    """
    root = root or cache_root()
    files_tag = "" if file_bytes == FILE_BYTES else f"-files{size_label(file_bytes)}"
    target = root / f"corpus-{size_label(size)}{files_tag}-seed{seed}-v{VERSION}"
    if (target / "manifest.json").is_file():
        return target / "text"
    root.mkdir(parents=True, exist_ok=True)
    building = root / f".{target.name}.{os.getpid()}.tmp"
    shutil.rmtree(building, ignore_errors=True)
    (building / "text").mkdir(parents=True)
    words = _Words(seed)
    n_files = max(1, -(-size // file_bytes))
    files = []
    written = 0
    for i in range(n_files):
        want = min(file_bytes, size - written) if i < n_files - 1 else size - written
        name = f"part-{i:03d}.txt" + (".gz" if i % GZIP_EVERY == 1 else "")
        path = building / "text" / name
        done = 0
        with _open_for_writing(path) as fh:
            while done < want:
                data = words.block(BLOCK_WORDS).encode("utf-8")
                last = done + len(data) >= want
                if last:  # end the file at the last line end that fits: never inside a word
                    cut = data.rfind(b"\n", 0, want - done) + 1
                    data = data[:cut] if cut > 0 else data
                fh.write(data)
                done += len(data)
                if last:
                    break
        files.append({"name": name, "text_bytes": done, "file_bytes": path.stat().st_size})
        written += done
        if not quiet:
            print(f"  {name}: {done / 1e6:.1f} MB of text", file=sys.stderr, flush=True)
    manifest = {"size": size, "seed": seed, "version": VERSION, "text_bytes": written, "files": files}
    (building / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    try:
        os.replace(building, target)
    except OSError:  # another process built it meanwhile
        shutil.rmtree(building, ignore_errors=True)
    return target / "text"


def manifest(directory: Path) -> dict:
    """What `corpus_dir` wrote beside the files: size, seed, and each file's text and file bytes."""
    return json.loads((directory.parent / "manifest.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def corpus_files(directory: Path) -> list[Path]:
    """The corpus's files in order (the manifest's order, which is the sorted order)."""
    return [directory / f["name"] for f in manifest(directory)["files"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="50MB", help="text bytes: 50MB, 250MB, 1GB ...")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--file-bytes", default=None, help=f"text bytes per file (default {size_label(FILE_BYTES)})")
    args = parser.parse_args(argv)
    file_bytes = parse_size(args.file_bytes) if args.file_bytes else FILE_BYTES
    print(corpus_dir(parse_size(args.size), seed=args.seed, file_bytes=file_bytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
