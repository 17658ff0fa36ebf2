"""Tokenizer files in and out of the explorer: uploads, downloads, and the round-trip proof. Pure.

No Streamlit here, and no files on disk: uploads are read from memory (`formats.load_bytes`) and
exports written to memory (`formats.dumps_*`), so a file's name, however long or strange, is only
ever text to show. Every problem is a one-line `BPEError` message (or, for an upload, one line
per file that failed); nothing a file holds can raise anything else.
"""
from __future__ import annotations

import gc
import hashlib
import io
import pickle
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

from bpe_core import BPEError, Tokenizer
from bpe_core.formats import detect_and_parse, dump_json, dumps_gpt2, dumps_hf, dumps_tokenizer, load_bytes
from bpe_core.formats.detect import OURS
from bpe_core.formats.huggingface import WORD_END
from bpe_core.formats.ours import family_from_json, from_json_dict, json_family
from bpe_core.parts.pattern_limit import match_time_limit
from bpe_core.tokenizer_model import TokenizerModel
from explorer.data import strangers
from explorer.data.any_model import AnyModel
from explorer.data.budget import resident_bytes
from explorer.data.tasks import SHORT, Task
from explorer.families import explorer_family

OURS_FILE = "model.json"
HF_FILE = "tokenizer.json"
GPT2_ZIP = "gpt2-vocab-merges.zip"
# The file name endings the upload widgets take: any (None). The contents decide the format, and a
# file that is none says what it is in one line; a list of endings would refuse real files, such as
# Mistral's SentencePiece models, named tokenizer.model.v1, .v3, .v7.
UPLOAD_TYPES: list[str] | None = None
SOURCES = {
    "trained": "our JSON",
    "huggingface": "Hugging Face tokenizer.json",
    "gpt2": "GPT-2 vocab.json + merges.txt",
    "tiktoken": "tiktoken rank file",
    "sentencepiece": "SentencePiece model",
    "tekken": "Tekken JSON",
}
MAX_DIFFERENCES = 20  # rows of the round trip's difference list
MAX_NAME = 120  # characters of a file name kept for messages and labels
INSTALL_TOKENIZERS = "pip install tokenizers==0.23.3"  # the version requirements-dev.txt pins, which tests check


# ---- uploads ---------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Uploaded:
    """A tokenizer read from uploaded files, kept in the session under `key`."""

    key: str  # "file:<digest of the files>"
    name: str  # the file names, as the user knows them
    model: TokenizerModel  # a merge list, a model of another family of ours, or a tokenizer of parts

    @property
    def any(self) -> AnyModel:
        return AnyModel.of(self.model)

    @property
    def family(self) -> str:
        return self.any.family

    @property
    def merge_list(self) -> bool:
        """A BPE merge list (`Tokenizer`), which the pages about merges read."""
        return isinstance(self.model, Tokenizer)

    @property
    def tokenizer(self) -> Tokenizer:
        """The BPE tokenizer (the pages about BPE only); a one-line BPEError for another family."""
        if not isinstance(self.model, Tokenizer):
            raise BPEError(f"{self.name} is a {self.any.title} model, not a BPE tokenizer: this page reads BPE only")
        return self.model

    @property
    def kind(self) -> str:
        """The file's format: a merge list and a tokenizer of parts say where they were read from."""
        source = getattr(self.model, "source", None)
        if not source:
            return f"our {self.any.title} JSON"
        return SOURCES.get(source, source)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.kind})"


def display_name(name: str, fallback: str) -> str:
    """An uploaded file's name as the user knows it: no folders, cut to a readable length.

    Only ever shown (as plain text), never used as a path.

    >>> display_name("../../etc/passwd", "upload-0")
    'passwd'
    """
    bare = str(name).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1].strip()
    if not bare:
        return fallback
    return bare if len(bare) <= MAX_NAME else bare[: MAX_NAME - 1] + "…"


def _digest(files: Sequence[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for name, data in sorted(files):
        h.update(name.encode("utf-8", "replace") + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:16]


def _one_line(name: str, exc: BaseException) -> str:
    """A reader's unexpected failure as one line (the engine should have said BPEError)."""
    return f"{name} could not be read as a tokenizer ({type(exc).__name__})"


def read_tokenizer_files(files: Sequence[tuple[str, bytes]]) -> tuple[list[Uploaded], list[str]]:
    """Tokenizers from uploaded (name, data) files, and a one-line problem for each file that failed.

    A GPT-2 vocabulary and a merges file uploaded together make one tokenizer, whatever their
    names; every other file is read on its own. Formats are detected from the contents.
    """
    with match_time_limit(strangers.MATCH_SECONDS):  # a stranger's regex cannot hold the server
        return _read_tokenizer_files(files)


def _read_tokenizer_files(files: Sequence[tuple[str, bytes]]) -> tuple[list[Uploaded], list[str]]:
    named = [(display_name(name, f"upload-{i + 1}"), data) for i, (name, data) in enumerate(files)]
    loaded: list[Uploaded] = []
    problems: list[str] = []
    kinds: dict[int, str] = {}
    parsed: dict[int, object] = {}  # what detection parsed of our JSON (another format's reader parses its own)
    for i, (name, data) in enumerate(named):
        try:
            kinds[i], value = detect_and_parse(name, data)
            parsed[i] = value if kinds[i] == OURS else None
        except BPEError as exc:
            problems.append(str(exc))
        except MemoryError:
            raise  # the worker's limit: its message says so
        except Exception as exc:  # noqa: BLE001 - an upload never raises past this point
            problems.append(_one_line(name, exc))
    vocabs = [i for i, kind in kinds.items() if kind == "gpt2-vocab"]
    merges = [i for i, kind in kinds.items() if kind == "gpt2-merges"]
    if len(vocabs) == 1 and len(merges) == 1:
        (vname, vdata), (mname, mdata) = named[vocabs[0]], named[merges[0]]
        _read(loaded, problems, f"{vname} + {mname}", [(vname, vdata), (mname, mdata)],
              lambda: load_bytes(vname, vdata, merges=(mname, mdata)))
    else:
        for i in vocabs:
            problems.append(f"{named[i][0]} is a GPT-2 vocabulary: upload it together with its merges.txt "
                            "(select both files)")
        for i in merges:
            problems.append(f"{named[i][0]} is a GPT-2 merges file: upload it together with its vocab.json "
                            "(select both files)")
    for i, kind in kinds.items():
        if kind not in ("gpt2-vocab", "gpt2-merges"):
            name, data = named[i]
            _read(loaded, problems, name, [(name, data)], lambda i=i: _load_one(*named[i], kinds[i], parsed.pop(i)))
    return loaded, problems


def _load_one(name: str, data: bytes, kind: str, parsed: object) -> TokenizerModel:
    """One file: our JSON (`parsed`) gives its family's model, any other format `load_bytes`."""
    if kind == OURS:
        chosen = json_family(parsed, name=name)
        if chosen.model_class is not Tokenizer:
            return family_from_json(parsed, chosen, name=name)
        return from_json_dict(parsed, name=name)  # as `load_bytes` reads it, without parsing it again
    return load_bytes(name, data)


def _read(loaded: list[Uploaded], problems: list[str], name: str, files: list[tuple[str, bytes]], load) -> None:
    try:
        tok = load()
    except BPEError as exc:
        problems.append(str(exc))
    except MemoryError:
        raise  # the worker's limit: its message says so
    except Exception as exc:  # noqa: BLE001 - a reader's gap is still one line, never a traceback
        problems.append(_one_line(name, exc))
    else:
        loaded.append(Uploaded(key=f"file:{_digest(files)}", name=name, model=tok))


# ---- reading in a worker process ------------------------------------------------------------

@dataclass(frozen=True)
class Reading:
    """What a worker read from uploaded files: each tokenizer pickled, with the memory it took, and the problems.
    `again`: one was read within the limits but cannot travel between processes, so the server reads
    the files itself (the worker has shown that they fit)."""

    pickled: tuple[bytes, ...] = ()
    memory: tuple[int, ...] = ()  # bytes each tokenizer took in the worker's memory
    problems: tuple[str, ...] = ()
    again: bool = False

    def loaded(self) -> list[tuple[Uploaded, int]]:
        return [(pickle.loads(data), nbytes) for data, nbytes in zip(self.pickled, self.memory, strict=True)]


def read_in_worker(texts: list[str], job: tuple[list[tuple[str, bytes]], int], report: object) -> Reading:
    """`read_tokenizer_files` in a worker process (`reading_task`), with the memory each tokenizer
    takes; one that takes more than a session may hold (`job`'s second part) never leaves the worker."""
    files, max_bytes = job
    gc.collect()
    before = resident_bytes() or 0
    loaded, problems = read_tokenizer_files(files)
    gc.collect()
    grown = max(0, (resident_bytes() or 0) - before)
    try:
        pickled = [pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL) for item in loaded]
    except (pickle.PicklingError, AttributeError, TypeError):
        return Reading(problems=tuple(problems), again=True)
    total = sum(map(len, pickled)) or 1
    # The growth of the process, shared by pickled size; never less than twice the pickle.
    memory = [max(2 * len(data), grown * len(data) // total) for data in pickled]
    kept = [i for i, nbytes in enumerate(memory) if nbytes <= max_bytes]
    for i in sorted(set(range(len(loaded))) - set(kept)):
        problems.append(f"{loaded[i].name} takes about {memory[i] / 1024**2:,.0f} MB of memory once read, more "
                        f"than one session may hold here ({max_bytes / 1024**2:,.0f} MB); try a smaller tokenizer "
                        "file")
    return Reading(tuple(pickled[i] for i in kept), tuple(memory[i] for i in kept), tuple(problems))


def reading_task(files: Sequence[tuple[str, bytes]], *, max_bytes: int) -> Task:
    """Reading uploaded tokenizer files as a worker's task (the short lane); a tokenizer that takes
    more than `max_bytes` (a session's whole budget) stays in the worker, refused in one line."""
    names = ", ".join(display_name(name, f"upload-{i + 1}") for i, (name, _) in enumerate(files)) or "the files"
    return Task("explorer.data.tokenizer_files:read_in_worker", (list(files), max_bytes), lane=SHORT, noun="upload",
                title=f"reading {names}", what=f"reading {names}", hint="try a smaller tokenizer file")


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
    """The tokenizer as our JSON, HF tokenizer.json and GPT-2 files, from the engine's writers."""
    ours = dumps_tokenizer(tok).encode("utf-8")
    hf, hf_problem = None, ""
    try:
        hf = dumps_hf(tok).encode("utf-8")
    except BPEError as exc:
        hf_problem = str(exc)
    vocab = merges = None
    gpt2_problem = ""
    try:
        vocab_text, merges_text = dumps_gpt2(tok)
        vocab, merges = vocab_text.encode("utf-8"), merges_text.encode("utf-8")
    except BPEError as exc:
        gpt2_problem = str(exc)
    return Exports(ours, hf, hf_problem, vocab, merges, gpt2_problem)


def export_family(model: TokenizerModel) -> Exports:
    """A model of a family beside BPE as our JSON and `tokenizer.json` (the engine's `to_dict` and
    `to_hf_dict`); GPT-2's two files have no place for it (its folder's `gpt2_note` says why)."""
    ours = _dump(model.to_dict())
    hf, hf_problem = None, ""
    try:
        hf = _dump(model.to_hf_dict())
    except BPEError as exc:
        hf_problem = str(exc)
    why = explorer_family(AnyModel.of(model).family).gpt2_note
    return Exports(ours, hf, hf_problem, None, None, why)


def export_model(model: TokenizerModel) -> Exports:
    """Any trained model's files: a merge list's in every format (`export_tokenizer`), another
    family's as our JSON and `tokenizer.json` (`export_family`)."""
    return export_tokenizer(model) if isinstance(model, Tokenizer) else export_family(model)


def hf_export(model: TokenizerModel) -> bytes:
    """Any tokenizer as `tokenizer.json`: a merge list through `dumps_hf`, the others through their
    own `to_hf_dict`; a one-line BPEError when the format cannot hold it."""
    if isinstance(model, Tokenizer):
        return dumps_hf(model).encode("utf-8")
    try:
        return _dump(model.to_hf_dict())
    except BPEError:
        raise
    except Exception as exc:  # noqa: BLE001 - a writer's gap is still one line, never a traceback
        raise BPEError(f"this tokenizer cannot be written as tokenizer.json ({type(exc).__name__})") from None


def _dump(data: object) -> bytes:  # as the engine writes JSON: twice as fast as json.dumps with an indent
    return (dump_json(data) + "\n").encode("utf-8")


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


def _ours(tok: Tokenizer | AnyModel, text: str) -> tuple[list[str], list[int]]:
    """Tokens and ids of `text` as this app encodes it, for any family."""
    model = tok if isinstance(tok, AnyModel) else AnyModel.of(tok)
    return model.encode_tokens(text), model.encode_ids(text)


def hf_round_trip(tok: Tokenizer | AnyModel, hf_json: bytes, text: str) -> RoundTrip:
    """Load the exported tokenizer.json with the real `tokenizers` library and encode `text` both ways."""
    try:
        import tokenizers
    except ImportError:
        raise BPEError(f"the round trip needs the `tokenizers` package, not installed: {INSTALL_TOKENIZERS}") from None
    try:
        theirs = tokenizers.Tokenizer.from_str(hf_json.decode("utf-8")).encode(text, add_special_tokens=False)
    except BaseException as exc:  # the library's own errors are many kinds, a Rust panic one of them
        if not strangers.answered(exc):
            raise  # Ctrl-C, or Streamlit stopping the run
        first_line = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise BPEError(f"tokenizers could not load or use the exported tokenizer.json: {first_line}") from None
    tokens, ids = _ours(tok, text)
    # The export spells our separate end-of-word symbol as one stand-in character; read it back.
    obj = tok.model if isinstance(tok, AnyModel) else tok
    marker = isinstance(obj, Tokenizer) and obj.settings.marker
    their_tokens = [t.replace(WORD_END, "</w>") if marker else t for t in theirs.tokens]
    return RoundTrip(f"tokenizers {tokenizers.__version__}", tokens, ids, their_tokens, list(theirs.ids))


def reload_round_trip(tok: Tokenizer | AnyModel, files: Sequence[tuple[str, bytes]], text: str) -> RoundTrip:
    """Read exported files back with our own loader and encode `text` both ways."""
    loaded, problems = read_tokenizer_files(files)
    if problems or len(loaded) != 1:
        raise BPEError("; ".join(problems) or "the exported files did not read back as one tokenizer")
    again = loaded[0].any
    tokens, ids = _ours(tok, text)
    return RoundTrip("bpe_core.formats (as an upload is read)", tokens, ids, again.encode_tokens(text),
                     again.encode_ids(text))
