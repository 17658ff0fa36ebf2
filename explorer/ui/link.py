"""The link (URL) format: which session values a link carries, and how it is read and written.

`values_from_url`, `url_from_values`, `link_carries` and `link_notice` are pure, so the format is
tested without Streamlit; `read_once`, `sync_url` and `expire_link_notice` apply them to a session
(any mutable mapping). The keys and their defaults live in `state`.

Parameters: corpus (a sample id), text (a small corpus of the user's own), own (upload/paste: a
corpus the link could not carry), family (bpe when absent), transition (of the families with phases), mode, eow, pre,
tie, merges, vocab, lower, norm, minfreq, step
(the animation's step as on screen: the merges made so far), words, present; for the Tokenize
page: input (its text, up to 2,000 bytes) and tokenizers (built-in names and "sidebar", by commas).
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, MutableMapping
from typing import Any

from bpe_core import BPEError
from bpe_core.builtin import builtin_names, is_builtin
from bpe_core.pretokenize import check_text
from bpe_core.settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS
from explorer.display.render import isolate
from explorer.families import explorer_family, trainable
from explorer.ui.state import (
    CORPUS,
    DEFAULT_CORPUS,
    DEFAULT_WORDS,
    DEFAULTS,
    LINK_TEXT,
    MAX_APP_MERGES,
    MAX_INPUT,
    PLAYING,
    SETTING_DEFAULTS,
    STEP,
    TOK_CHOSEN,
    TOK_TEXT,
    URL_NOTICE,
    URL_NOTICE_AT,
    URL_READ,
    W_CORPUS,
    W_EOW,
    W_FAMILY,
    W_LOWER,
    W_MERGES,
    W_MINFREQ,
    W_MODE,
    W_NORM,
    W_PRESENTER,
    W_PRETOK,
    W_TARGET,
    W_TIE,
    W_TRANSITION,
    W_VOCAB,
    WORDS,
    apply_values,
)

LINK_TEXT_MAX_BYTES = 2_000  # a pasted corpus up to this size travels in the link (`text=`)
LINK_SHOWN = 40  # characters of a link's value quoted back in a message
_BOOL = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
_OWN = {"upload": "an uploaded file", "paste": "pasted text"}


class Clamped(ValueError):
    """A link's value was too large: `value` is used instead, and the message says so."""

    def __init__(self, message: str, value: Any) -> None:
        super().__init__(message)
        self.value = value


def _choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in options:
            shown = ", ".join(o or "(empty: the mode's default)" for o in options)
            raise ValueError(f"is not one of {shown}")
        return raw

    return parse


def _whole(low: int, high: int = MAX_INPUT, *, clamp: str = "", quiet: bool = False) -> Callable[[str], int]:
    """A whole number from `low` to `high`; with `clamp` (what it counts), larger values become `high`,
    said; `quiet`, they become `high` unsaid (a step: past any training's end, which is said later).

    Digits of any length are read: one with more digits than `high` is more than it, unconverted
    (Python refuses to convert a number of over 4,300 digits).
    """
    def parse(raw: str) -> int:
        digits = raw.strip()
        if not digits.isascii() or not digits.isdigit():
            raise ValueError("is not a whole number" + (f" ({low:,} or more)" if low else ""))
        digits = digits.lstrip("0") or "0"
        value = int(digits) if len(digits) <= len(str(high)) else high + 1
        if value < low:
            raise ValueError(f"is less than {low:,}")
        if value > high:
            if quiet:
                return high
            if clamp:
                raise Clamped(f"is more than this app allows ({high:,} {clamp}), so {high:,} was used", high)
            raise ValueError(f"is more than {high:,}")
        return value

    return parse


def _flag(raw: str) -> bool:
    try:
        return _BOOL[raw.lower()]
    except KeyError:
        raise ValueError("is not 1 or 0") from None


def _quoted(name: str, raw: str) -> str:
    """`name=value` as the link had it, cut to a readable length and isolated, so bidirectional controls
    in it cannot reorder the sentence around it (`render.isolate`; still to be escaped for display)."""
    shown = raw if len(raw) <= LINK_SHOWN else raw[:LINK_SHOWN] + "…"
    return f"{name}={isolate(shown)}"


# URL parameter -> (state key, parse)
_PARAMS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "family": (W_FAMILY, _choice(trainable())),
    "transition": (W_TRANSITION, _whole(0, MAX_APP_MERGES, clamp="tokens")),
    "mode": (W_MODE, _choice(MODES)),
    "eow": (W_EOW, _choice(EOW_STYLES)),
    "pre": (W_PRETOK, _choice(("", *PRETOKENIZERS))),
    "tie": (W_TIE, _choice(TIE_BREAKS)),
    "merges": (W_MERGES, _whole(0, MAX_APP_MERGES, clamp="merges")),
    "vocab": (W_VOCAB, _whole(1, MAX_APP_MERGES, clamp="tokens")),
    "lower": (W_LOWER, _flag),
    "norm": (W_NORM, _choice(NORMALIZATIONS)),
    "minfreq": (W_MINFREQ, _whole(1)),
    "step": (STEP, _whole(0, quiet=True)),  # past the end: `note_step_past_end`, whatever its size
    "words": (WORDS, lambda raw: raw[:2000]),
    "present": (W_PRESENTER, _flag),
}
URL_PARAMS = ("corpus", "text", "own", *_PARAMS, "input", "tokenizers")
SIDEBAR_KEY, BUILTIN_PREFIX = "sidebar", "builtin:"  # the tokenizer picker's keys (`ui.tokenizer_picker`)


def _tokenize_values(params: Mapping[str, str], values: dict[str, Any], problems: list[str]) -> None:
    """The Tokenize page's text (`input=`) and tokenizers (`tokenizers=gpt2,sidebar`) from a link."""
    text = params.get("input")
    if text is not None:
        data = text.encode("utf-8", errors="surrogatepass")
        if len(data) > LINK_TEXT_MAX_BYTES:
            problems.append(f"The Tokenize page's text in the link is longer than a link may carry "
                            f"({LINK_TEXT_MAX_BYTES:,} bytes), so that page opened with its example text.")
        else:
            try:  # the rules of an upload, as for text= (the text kept as it came, a leading U+FEFF too)
                check_text(data, name="The Tokenize page's text in the link")
                values[TOK_TEXT] = text
            except BPEError as exc:
                problems.append(f"{exc}, so that page opened with its example text.")
    raw = params.get("tokenizers")
    if raw is None:
        return
    keys, unknown = [], []
    for name in (n.strip() for n in raw.split(",")):
        if name == SIDEBAR_KEY or (name and is_builtin(name)):
            key = name if name == SIDEBAR_KEY else BUILTIN_PREFIX + name
            if key not in keys:
                keys.append(key)
        elif name:
            unknown.append(name)
    if unknown:
        listed = ", ".join(unknown)
        problems.append(f"{_quoted('tokenizers', listed)} in the link names no tokenizer this app has (it has "
                        f"{', '.join(builtin_names(parts=True))} and sidebar).")
    if keys or not unknown:  # only unknown names: the page keeps its own choice rather than show nothing
        values[TOK_CHOSEN] = tuple(keys)


def tokenize_link_carries(text: str) -> bool:
    """Whether the Tokenize page's text travels in the link (`input=`): up to 2,000 bytes, and no NUL,
    which the link's reader refuses as an upload's would be."""
    if len(text) > LINK_TEXT_MAX_BYTES or "\x00" in text:  # cheap checks first: a pasted text can be megabytes
        return False
    return len(text.encode("utf-8", errors="surrogatepass")) <= LINK_TEXT_MAX_BYTES


def _tokenize_params(values: Mapping[str, Any], out: dict[str, str]) -> None:
    """The Tokenize page's text and tokenizers, when they differ from the page's defaults."""
    text = values.get(TOK_TEXT, DEFAULTS[TOK_TEXT])
    if isinstance(text, str) and text != DEFAULTS[TOK_TEXT] and tokenize_link_carries(text):
        out["input"] = text
    chosen = tuple(values.get(TOK_CHOSEN, DEFAULTS[TOK_CHOSEN]) or ())
    if chosen != tuple(DEFAULTS[TOK_CHOSEN]):  # uploads are not carried: a link cannot hold a file
        out["tokenizers"] = ",".join(k.removeprefix(BUILTIN_PREFIX) for k in chosen
                                     if k == SIDEBAR_KEY or k.startswith(BUILTIN_PREFIX))


def values_from_url(params: Mapping[str, str], *, samples: Collection[str]) -> tuple[dict[str, Any], list[str]]:
    """State values from a link's parameters, and a sentence for each thing the link did not get.

    The sentences quote the link's own text: show them as plain text (`render.md_escape`).
    `samples` holds the sample ids (a mapping id -> title names them by title in messages).

    >>> values_from_url({"merges": "20", "step": "x"}, samples=set())
    ({'w_merges': 20, 'w_target': 'merges'}, ['step=x in the link is not a whole number.'])
    """
    values: dict[str, Any] = {}
    problems: list[str] = []
    corpus = params.get("corpus")
    text = params.get("text")
    if text is not None:
        data = text.encode("utf-8", errors="surrogatepass")
        if not text.strip():
            problems.append("text= in the link is empty, so it opened a sample corpus.")
        elif len(data) > LINK_TEXT_MAX_BYTES:
            problems.append(f"The text in the link is longer than a link may carry ({LINK_TEXT_MAX_BYTES:,} bytes), "
                            "so it opened a sample corpus.")
        else:
            try:  # the rules of an upload: no NUL bytes, UTF-8 (a byte-order mark dropped)
                values[LINK_TEXT] = check_text(data, name="The text in the link")
            except BPEError as exc:
                problems.append(f"{exc}, so it opened a sample corpus.")
    elif corpus is not None:
        if corpus in samples:
            values[CORPUS] = values[W_CORPUS] = f"sample:{corpus}"
        else:
            problems.append(f"{_quoted('corpus', corpus)} in the link is not a sample corpus.")
    own = params.get("own")
    if own in _OWN and LINK_TEXT not in values:
        sample = values.get(CORPUS, DEFAULT_CORPUS).removeprefix("sample:")
        title = samples.get(sample, sample) if isinstance(samples, Mapping) else sample
        problems.append(f"This link was made while {_OWN[own]} was in use; a link cannot carry it, so it opened "
                        f"the sample corpus \u201c{title}\u201d instead.")
    for name, (key, parse) in _PARAMS.items():
        raw = params.get(name)
        if raw is None:
            continue
        try:
            values[key] = parse(raw)
        except Clamped as exc:
            values[key] = exc.value
            problems.append(f"{_quoted(name, raw)} in the link {exc}.")
        except ValueError as exc:
            problems.append(f"{_quoted(name, raw)} in the link {exc}.")
    _tokenize_values(params, values, problems)
    if "vocab" in params and W_VOCAB in values:
        values[W_TARGET] = "vocab"
    elif "merges" in params and W_MERGES in values:
        values[W_TARGET] = "merges"
    if STEP in values:
        values[PLAYING] = False  # a link to a step shows that step
    return values, problems


def link_carries(text: str | None) -> bool:
    """Whether a corpus this small travels in the link itself (as `text=`)."""
    if not text or len(text) > LINK_TEXT_MAX_BYTES or not text.strip():  # cheap checks first: corpora are big
        return False
    return len(text.encode("utf-8", errors="surrogatepass")) <= LINK_TEXT_MAX_BYTES


def url_from_values(values: Mapping[str, Any], *, corpus_text: str | None = None) -> dict[str, str]:
    """The link parameters for the current view: the corpus, the settings that differ, step, words.

    A sample is named; a corpus of the user's own (`corpus_text`) travels as `text=` when it is
    small (`link_carries`), and otherwise the link says `own=upload` or `own=paste`, so whoever
    opens it is told that they see a sample instead.
    """
    out: dict[str, str] = {}
    corpus = values.get(CORPUS, DEFAULT_CORPUS)
    if isinstance(corpus, str) and corpus.startswith("sample:"):
        out["corpus"] = corpus.removeprefix("sample:")
    elif isinstance(corpus, str) and link_carries(corpus_text):
        out["text"] = str(corpus_text)
    elif isinstance(corpus, str) and corpus.split(":")[0] in _OWN:
        out["own"] = corpus.split(":")[0]
    for name, (key, _) in _PARAMS.items():
        if key in (STEP, WORDS, W_MERGES, W_VOCAB):
            continue
        value = values.get(key, DEFAULTS.get(key))
        if value != DEFAULTS.get(key):
            out[name] = ("1" if value else "0") if isinstance(value, bool) else str(value)
    if values.get(W_TARGET, "merges") == "vocab" or not _counts_merges(values.get(W_FAMILY, DEFAULTS[W_FAMILY])):
        out["vocab"] = str(values.get(W_VOCAB, DEFAULTS[W_VOCAB]))
    else:
        out["merges"] = str(values.get(W_MERGES, DEFAULTS[W_MERGES]))
    out["step"] = str(values.get(STEP, DEFAULTS[STEP]))
    words = values.get(WORDS, DEFAULT_WORDS)
    if words != DEFAULT_WORDS:
        out["words"] = str(words)
    _tokenize_params(values, out)
    return out


def _counts_merges(name: object) -> bool:
    """Whether a family can train to a number of merges (the others' links carry a vocabulary size)."""
    return name in trainable() and "target" in explorer_family(str(name)).options


def step_past_end(raw: str, steps: int) -> str:
    """The sentence for a link's `step=` (`raw`) past the last step of the training it opened.

    >>> step_past_end("900", 10)
    'step=900 in the link is past the end of this training (its last step is 10), so step 10 is shown.'
    """
    return (f"{_quoted('step', raw)} in the link is past the end of this training (its last step is {steps:,}), "
            f"so step {steps:,} is shown.")


def link_notice(problems: list[str]) -> str:
    """What a person is told about a link that asked for things it did not get ("" when nothing)."""
    if not problems:
        return ""
    return "The link asked for something this app could not do. " + " ".join(problems) + (
        " The link's other settings were used.")


# ---- applied to a session --------------------------------------------------------------------


def read_once(session: MutableMapping[str, Any], query_params: Mapping[str, str], *,
              samples: Collection[str]) -> None:
    """On a session's first run, apply the link's parameters and keep a notice of what it did not get."""
    if session.get(URL_READ):
        return
    session[URL_READ] = True
    values, problems = values_from_url(dict(query_params), samples=samples)
    apply_values(session, values)
    notice = link_notice(problems)
    session[URL_NOTICE] = ("warning", notice) if notice else None
    session[URL_NOTICE_AT] = None


def note_step_past_end(session: MutableMapping[str, Any], query_params: Mapping[str, str], steps: int) -> None:
    """At the session's first training (of `steps` steps): a link's step past its end joins the notice.

    The step is the link's while the session's step is the one `step=` asked for; the page then
    shows the last step (`store.ensure_trained` clamps it), and the notice says so.
    """
    raw = query_params.get("step")
    asked = session.get(STEP)
    if raw is None or not isinstance(asked, int) or asked <= steps:
        return
    try:
        if _PARAMS["step"][1](raw) != asked:
            return
    except ValueError:
        return
    said = step_past_end(raw, steps)
    notice = session.get(URL_NOTICE)
    session[URL_NOTICE] = ("warning", f"{notice[1]} {said}" if notice else link_notice([said]))


def sync_url(query_params: MutableMapping[str, str], values: Mapping[str, Any], *,
             corpus_text: str | None = None) -> None:
    """Write this view's parameters into the link, leaving parameters other pages own alone."""
    wanted = url_from_values(values, corpus_text=corpus_text)
    for name in URL_PARAMS:
        if name not in wanted and name in query_params:
            del query_params[name]
    for name, value in wanted.items():
        if query_params.get(name) != value:
            query_params[name] = value


def write_step(query_params: MutableMapping[str, str], step: int) -> None:
    """The player's own moves (a fragment run, so no `sync_url` at its end) update the link's step."""
    query_params["step"] = str(step)


def link_moment(session: Mapping[str, Any], page: str) -> tuple:
    """What the user is looking at, without the animation's step: the page, the corpus, the settings."""
    return (page, session.get(CORPUS), tuple(session.get(key) for key in SETTING_DEFAULTS))


def expire_link_notice(session: MutableMapping[str, Any], page: str) -> None:
    """The link's notice belongs to the moment the link was opened: gone once the user moves on.

    The first run after opening the link records the moment; any later run with another page,
    corpus or setting clears the notice (the animation's own steps do not).
    """
    if session.get(URL_NOTICE) is None:
        return
    now = link_moment(session, page)
    if session.get(URL_NOTICE_AT) is None:
        session[URL_NOTICE_AT] = now
    elif session[URL_NOTICE_AT] != now:
        session[URL_NOTICE] = None
        session[URL_NOTICE_AT] = None
