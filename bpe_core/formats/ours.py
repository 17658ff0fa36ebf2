"""Our own model file: every setting, merge and training number, so a reload loses nothing.

Layout (version 1), one JSON object::

    {"format": "bpe-explorer", "version": 1, "source": "trained",
     "settings": {...}, "unk_token": "<unk>", "base": [...], "merges": [[left, right], ...],
     "training": {"trace": [{rank, left, right, token, count, vocab_size, total_tokens,
                             multi_token_words}, ...],
                  "top_pairs": [[[left, right, count], ...], ...], "stop_reason": ..., ...},
     "vocab": {token: id}, "rank_rule": "pairs" | "concat", "concat_ranks": {token: rank}}

`vocab` is written only when the merges cannot rebuild it (imported tokenizers); `training`
only for trained ones; `concat_ranks` only when a concat rank table differs from `vocab`.

The other families' files are our JSON too: the same "format" and a "model" naming the family
(`bpe_core.families.registry`), whose `from_dict` reads the rest and whose model's `to_dict`
writes it; a BPE tokenizer's file has no "model" (or "model": "bpe").
"""
from __future__ import annotations

import json
import json.encoder
from operator import itemgetter
from pathlib import Path
from typing import Any

from ..collector import collector_paused
from ..families.registry import NAMES, Family, family, family_of
from ..model import Tokenizer
from ..settings import BPEError, Settings
from ..trainer import Merge, TrainResult
from ._common import (
    fail,
    read_json_file,
    require,
    require_int,
    require_merges_in_vocab,
    require_str,
    require_vocab,
    write_text,
)

FORMAT = "bpe-explorer"
VERSION = 1
_MERGE_FIELDS = tuple(Merge.__dataclass_fields__)
_MERGE_VALUES = itemgetter(*_MERGE_FIELDS)  # a trace record's values, in the fields' order
_TEXT_FIELDS = ("left", "right", "token")
_RESULT_NUMBERS = (
    "initial_tokens",
    "initial_multi_token_words",
    "word_count",
    "distinct_words",
    "requested_merges",
)


# ---- writing --------------------------------------------------------------------------------


def to_json_dict(tok: Tokenizer) -> dict[str, Any]:
    """The tokenizer as a JSON-ready dict in our versioned layout."""
    return _json_dict(tok, text=False)


def _json_dict(tok: Tokenizer, *, text: bool) -> dict[str, Any]:
    """`to_json_dict`; with `text` (for `dumps` alone) the pair counts are the trainer's own
    tuples, which JSON writes as it writes lists, rather than 50,000 new lists."""
    base = list(tok.training.base) if tok.training else list(tok.base)
    data: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "source": tok.source,
        "settings": tok.settings.to_dict(),
        "unk_token": tok.unk_token,
        "base": base,
        "merges": [[a, b] for a, b in tok.merges],
    }
    if tok.training is not None:
        data["training"] = _training_dict(tok.training, text=text)
    if not _vocab_is_derivable(tok, base):
        data["vocab"] = dict(tok.vocab)
    data["rank_rule"] = "concat" if tok.table.concat else "pairs"
    if tok.table.concat and dict(tok.table.ranks) != tok.vocab:
        data["concat_ranks"] = dict(tok.table.ranks)
    return data


def _training_dict(result: TrainResult, *, text: bool) -> dict[str, Any]:
    out: dict[str, Any] = {name: getattr(result, name) for name in _RESULT_NUMBERS}
    out["stop_reason"] = result.stop_reason
    out["stats"] = dict(result.stats)
    # A merge's fields are strs and ints: a copy of its attributes is what `asdict` gives, in the
    # fields' order, without the deep copy (about 0.1 s for 5,000 merges).
    out["trace"] = [dict(vars(m)) for m in result.trace]
    out["top_pairs"] = result.top_pairs if text else [[[a, b, n] for a, b, n in step] for step in result.top_pairs]
    out["final_usage"] = dict(result.final_usage)
    return out


def _vocab_is_derivable(tok: Tokenizer, base: list[str]) -> bool:
    """Whether base + merges (+ the unknown token) rebuild exactly this vocabulary."""
    if tok.source != "trained" or tok.table.concat:
        return False
    # What loading the file would build (a few milliseconds for 5,000 merges: the merges' rank
    # table and the vocabulary, nothing encoded).
    rebuilt = Tokenizer(settings=tok.settings, merges=tok.merges, base=base, unk_token=tok.unk_token)
    return rebuilt.vocab == tok.vocab


def _encoder() -> Any:
    """`dump_json`'s compact encoder, made once rather than on every call (its cost, for a row)."""
    compact = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # no C speed-ups in this Python
        return compact.encode
    try:  # the arguments `JSONEncoder.iterencode` makes it with
        encode = make(None, compact.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True)
    except TypeError:  # another Python's signature
        return compact.encode
    return lambda value: "".join(encode(value, 0))


_compact = _encoder()


def _layout(value: Any, indent: str = "") -> str:
    """`dump_json`'s text (tests check they agree), each row encoded by one call: about half the time."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        if any(isinstance(v, (dict, list)) for v in value.values()):
            items = [f"{inner}{_compact(k)}: {_layout(v, inner)}" for k, v in value.items()]
        elif len(value) > 50 or len(_compact(value)) > 100:  # 51 items take more than 100 characters
            items = [f"{inner}{k}: {v}" for k, v in zip(map(_compact, value), map(_compact, value.values()))]
        else:
            return _compact(value)
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and value and all(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join([inner + row for row in map(_compact, value)]) + "\n" + indent + "]"
    return _compact(value)


def save_tokenizer(tok: Tokenizer, path: str | Path) -> None:
    """Write the tokenizer to `path` as our JSON (UTF-8, readable, one merge a line)."""
    write_text(path, dumps(tok))


def dumps(tok: Tokenizer) -> str:
    """The JSON text `save_tokenizer` writes."""
    with collector_paused():  # tens of thousands of rows and lists, none of them garbage
        return _layout(_json_dict(tok, text=True)) + "\n"


def save_model(model: Any, path: str | Path) -> None:
    """Write a model of any family with a file of ours as our JSON (its family's `to_dict`); for
    a BPE `Tokenizer` this is `save_tokenizer`."""
    writer = family_of(model).to_dict
    if writer is None:
        fail(f"a {family_of(model).title} has no model file of ours; export it as tokenizer.json")
    if isinstance(model, Tokenizer):
        return save_tokenizer(model, path)
    with collector_paused():  # a model's rows and lists, none of them garbage
        text = _layout(writer(model)) + "\n"
    write_text(path, text)


# ---- reading --------------------------------------------------------------------------------


def load_tokenizer(path: str | Path) -> Tokenizer:
    """Read a tokenizer saved by `save_tokenizer`."""
    path = Path(path)
    with collector_paused():  # the parsed file's rows and lists, and the records made of them
        return from_json_dict(read_json_file(path), name=path.name)


def json_family(data: Any, *, name: str) -> Family:
    """The family of our parsed JSON: the one its "model" names, BPE without one; a name that is
    no family with a file of ours is a one-line BPEError naming the file."""
    model = data.get("model", "bpe") if isinstance(data, dict) else "bpe"
    readable = [one for one in NAMES if family(one).from_dict is not None]
    if not isinstance(model, str):
        fail(f"{name}: 'model' must be a family's name ({', '.join(readable)})")
    if model not in readable:
        fail(f"{name}: 'model' {model!r:.40} is none of our families ({', '.join(readable)})")
    return family(model)


def family_from_json(data: Any, chosen: Family, *, name: str) -> Any:
    """A model of `chosen` from our parsed JSON (by its `from_dict`); a malformed file is a
    one-line BPEError naming it."""
    assert chosen.from_dict is not None  # json_family gives only families with a file of ours
    try:
        return chosen.from_dict(data)
    except BPEError as exc:
        raise BPEError(f"{name}: {str(exc).splitlines()[0] if str(exc) else 'malformed'}") from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        # The families' readers check their files; this keeps any case they missed to one line.
        raise BPEError(f"{name}: malformed {chosen.title} model file ({type(exc).__name__})") from None


def from_json_dict(data: Any, *, name: str = "model file") -> Tokenizer:
    """Rebuild a tokenizer from `to_json_dict` output, with a one-line error for anything malformed."""
    with collector_paused():  # a record per merge and a tuple per pair count, none of them garbage
        return _from_json_dict(data, name)


def _from_json_dict(data: Any, name: str) -> Tokenizer:
    require(isinstance(data, dict), f"{name} is not a JSON object")
    fmt = data.get("format")
    require(fmt == FORMAT, f"{name} is not a bpe-explorer model file (its format is {fmt!r})")
    chosen = json_family(data, name=name)
    require(
        chosen.model_class is Tokenizer,
        f"{name} is our {chosen.title} model file, not a BPE tokenizer (formats.detect.load_model reads it)",
    )
    version = data.get("version")
    require(
        version == VERSION,
        f"{name} is bpe-explorer format version {version!r}; this version reads only version {VERSION}",
    )
    settings = _settings(data.get("settings"), name)
    source = require_str(data.get("source", "trained"), f"{name}: 'source'")
    unk = data.get("unk_token")
    require(unk is None or isinstance(unk, str), f"{name}: 'unk_token' must be a string or null")
    merges = _pairs(data.get("merges"), f"{name}: 'merges'")
    base = _strings(data.get("base", []), f"{name}: 'base'")
    vocab = require_vocab(data["vocab"], f"{name}: 'vocab'") if "vocab" in data else None
    concat = _rank_rule(data, vocab, name)
    if vocab is None:
        _check_derived(merges, base, name)
    else:
        require_merges_in_vocab(merges, vocab, name=name)
    training = _training(data["training"], merges, base, name) if data.get("training") is not None else None
    return Tokenizer(
        settings=settings,
        merges=merges,
        base=base,
        vocab=vocab,
        concat_ranks=concat,
        unk_token=unk,
        training=training,
        source=source,
    )


def _settings(raw: Any, name: str) -> Settings:
    require(isinstance(raw, dict), f"{name}: 'settings' must be an object")
    for key in ("mode", "eow", "pretokenizer", "tie_break", "normalization"):
        if key in raw:
            require_str(raw[key], f"{name}: setting {key!r}")
    if "lowercase" in raw:
        require(isinstance(raw["lowercase"], bool), f"{name}: setting 'lowercase' must be true or false")
    try:
        return Settings.from_dict(raw)
    except BPEError as exc:
        raise BPEError(f"{name}: {exc}") from None


def _strings(raw: Any, what: str) -> list[str]:
    require(isinstance(raw, list), f"{what} must be a list of strings")
    for i, item in enumerate(raw):
        if not isinstance(item, str):
            fail(f"{what} item {i} is {_short(item)}, not a string")
    return list(raw)


def _pairs(raw: Any, what: str) -> list[tuple[str, str]]:
    require(isinstance(raw, list), f"{what} must be a list of [left, right] pairs")
    out = []
    for rank, item in enumerate(raw):
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(s, str) and s for s in item)):
            fail(f"{what} item {rank} is {_short(item)}, not a [left, right] pair of strings")
        out.append((item[0], item[1]))
    return out


def _training(raw: Any, merges: list[tuple[str, str]], base: list[str], name: str) -> TrainResult:
    what = f"{name}: training"
    require(isinstance(raw, dict), f"{what} must be an object")
    numbers = {key: require_int(raw.get(key, 0), f"{what}.{key}") for key in _RESULT_NUMBERS}
    stop_reason = require_str(raw.get("stop_reason", ""), f"{what}.stop_reason")
    stats = raw.get("stats", {})
    require(
        isinstance(stats, dict) and all(_is_number(v) for v in stats.values()),
        f"{what}.stats must map names to numbers",
    )
    trace = _trace(raw.get("trace"), f"{what}.trace")
    require(
        [(m.left, m.right) for m in trace] == merges,
        f"{what}.trace does not match 'merges' (the trace must hold one entry per merge, in order)",
    )
    top_pairs = _top_pairs(raw.get("top_pairs", []), f"{what}.top_pairs")
    usage = raw.get("final_usage", {})
    require(
        isinstance(usage, dict) and all(_is_number(v) for v in usage.values()),
        f"{what}.final_usage must map tokens to counts",
    )
    return TrainResult(
        base=base,
        trace=trace,
        top_pairs=top_pairs,
        stop_reason=stop_reason,
        stats=dict(stats),
        final_usage={str(k): int(v) for k, v in usage.items()},
        **numbers,
    )


def _trace(raw: Any, what: str) -> list[Merge]:
    require(isinstance(raw, list), f"{what} must be a list of merge records")
    # Every field checked at once, column by column; a file this does not accept (a missing key,
    # another type) is read again by `_checked_trace`, which names what is wrong.
    try:
        rows = list(map(_MERGE_VALUES, raw))
    except (TypeError, KeyError):
        rows = None
    kinds = [str if key in _TEXT_FIELDS else int for key in _MERGE_FIELDS]
    if rows is not None and all(map(_plain, zip(*rows), kinds)):
        return [Merge(*row) for row in rows]
    return _checked_trace(raw, what)


def _plain(values: tuple[Any, ...], kind: type) -> bool:
    """Whether every value is exactly a `kind` (a bool is no int) and, for ints, none is negative."""
    return set(map(type, values)) <= {kind} and (kind is not int or not values or min(values) >= 0)


def _checked_trace(raw: list[Any], what: str) -> list[Merge]:
    out = []
    for i, item in enumerate(raw):
        require(isinstance(item, dict), f"{what} item {i} is not an object")
        missing = [key for key in _MERGE_FIELDS if key not in item]
        require(not missing, f"{what} item {i} lacks {', '.join(map(repr, missing))}")
        for key in _MERGE_FIELDS:
            if not (isinstance(item[key], str) if key in _TEXT_FIELDS else _is_count(item[key])):
                kind = "a string" if key in _TEXT_FIELDS else "a whole number 0 or more"
                fail(f"{what} item {i}: {key!r} must be {kind}, not {_short(item[key])}")
        out.append(Merge(**{key: item[key] for key in _MERGE_FIELDS}))
    return out


def _top_pairs(raw: Any, what: str) -> list[list[tuple[str, str, int]]]:
    require(isinstance(raw, list), f"{what} must be a list (one list of pairs per merge)")
    out = []
    for i, step in enumerate(raw):
        require(isinstance(step, list), f"{what} item {i} must be a list of [left, right, count]")
        row = []
        for entry in step:
            ok = isinstance(entry, list) and len(entry) == 3 and _is_count(entry[2])
            if not (ok and isinstance(entry[0], str) and isinstance(entry[1], str)):
                fail(f"{what} item {i} holds {_short(entry)}, not [left, right, count]")
            row.append((entry[0], entry[1], entry[2]))
        out.append(row)
    return out


def _rank_rule(data: dict[str, Any], vocab: dict[str, int] | None, name: str) -> dict[str, int] | None:
    """The concat rank table (tiktoken-style), or None for ordinary merge ranks."""
    rule = data.get("rank_rule", "pairs")
    require(rule in ("pairs", "concat"), f"{name}: 'rank_rule' must be 'pairs' or 'concat', not {rule!r}")
    if rule == "pairs":
        return None
    require(vocab is not None, f"{name}: the 'concat' rank rule needs a 'vocab'")
    if "concat_ranks" in data:
        return require_vocab(data["concat_ranks"], f"{name}: 'concat_ranks'")
    return vocab


def _check_derived(merges: list[tuple[str, str]], base: list[str], name: str) -> None:
    """Each merge must join tokens that exist by then: base symbols or earlier merges' results."""
    known = set(base)
    for rank, (a, b) in enumerate(merges):
        for part in (a, b):
            if part not in known:
                fail(
                    f"{name}: merge {rank} ({a!r}, {b!r}) uses {part!r}, "
                    "which is neither a base symbol nor made by an earlier merge"
                )
        known.add(a + b)


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."
