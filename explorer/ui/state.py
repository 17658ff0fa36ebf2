"""Every session-state key the app uses, their defaults, and the link (URL) that carries them.

Two kinds of key:
* values the app owns (no widget): the current corpus, the animation step, the unseen words...
* widget keys. Widgets in the sidebar are drawn on every page, so their keys are the values
  themselves. Widgets on a page forget their value when the user leaves the page, so each is
  bound to an owned value (`bind`): it starts from it and writes back to it on change.

`values_from_url` and `url_from_values` are pure, so the link format is tested without Streamlit.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, MutableMapping
from typing import Any

from bpe_core import BPEError, Settings
from bpe_core.settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS
from explorer.data.training import TrainRequest

# ---- values the app owns -------------------------------------------------------------------
CORPUS = "corpus"  # key of the corpus in use: "sample:seed000", "upload:<digest>", "paste:<digest>"
USER_CORPORA = "user_corpora"  # {key: Corpus} uploaded or pasted in this session
CORPUS_NOTICE = "corpus_notice"  # (kind, message) about the last upload or paste
UPLOAD_SEEN = "upload_seen"  # file ids of the upload already handled
TRAIN_CACHE = "train_cache"  # this session's trained bundles, keyed by corpus digest + request
TRAINED = "trained"  # the bundle on screen: the last training that succeeded
TRAINED_FOR = "trained_for"  # (corpus key, request key) of TRAINED
TRAIN_ERROR = "train_error"  # message of the last training that failed, or ""
TRAIN_JOB = "train_job"  # the training under way in a worker process for this session (a worker.TrainingJob)
TRAIN_FAILED = "train_failed"  # (cache key, message) of the last training stopped by a limit: not retried
STEP = "step"  # the animation's step: merges applied so far
PLAYING = "playing"
SPEED = "speed"  # steps per second
WORDS = "words"  # the unseen words
TIMELINE = "timeline"  # the unseen words page's "after k merges"
GOTO_TRAIN = "goto_train"  # set by a callback: switch to the animation page
URL_READ = "url_read"  # the link was read into the state (once per session)
URL_NOTICE = "url_notice"  # (kind, sentences) about the link just opened: "warning" or "info"; or None
URL_NOTICE_AT = "url_notice_at"  # (page, corpus, settings) when the link was opened: the notice's moment
LINK_TEXT = "link_text"  # a small corpus the link carried (`text=`), waiting to be loaded
MISMATCH_SHOWN = "mismatch_shown"  # the "trained on other text" comparison was asked for

# ---- widget keys ---------------------------------------------------------------------------
W_CORPUS = "w_corpus"
W_MODE = "w_mode"
W_EOW = "w_eow"
W_PRETOK = "w_pretokenizer"
W_TIE = "w_tie_break"
W_TARGET = "w_target"
W_MERGES = "w_merges"
W_VOCAB = "w_vocab"
W_LOWER = "w_lowercase"
W_NORM = "w_normalization"
W_MINFREQ = "w_min_frequency"
W_PRESENTER = "w_presenter"
W_WORDS = "w_words"
W_TIMELINE = "w_timeline"
W_UPLOAD = "w_upload"
W_PASTE = "w_paste"
W_ORDER = "w_wrong_order"
B_USE_PASTE = "use_paste"
B_RUN_MISMATCH = "run_mismatch"


def b_use_sample(sample_id: str) -> str:
    """Key of the "Use" button of one sample corpus."""
    return f"use_{sample_id}"


def b_jump(word_index: int, rank: int) -> str:
    """Key of the button that jumps from a piece of an unseen word to the step that made it."""
    return f"jump_{word_index}_{rank}"


def b_open_lesson(lesson_key: str, variant: str = "") -> str:
    """Key of a lesson's "Open in the explorer" button."""
    return f"open_{lesson_key}{'_' + variant if variant else ''}"

DEFAULT_CORPUS = "sample:seed000"
DEFAULT_WORDS = "lowest newer wider slow"
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
MAX_INPUT = 100_000_000  # what the minimum-count box accepts; the engine's own limit is checked later
# What one session may ask for: a link or the sidebar cannot ask the server for more merges (or a
# larger vocabulary) than this. Training 50,000 merges on the 5 MB sample is already minutes.
MAX_APP_MERGES = 50_000
LINK_TEXT_MAX_BYTES = 2_000  # a pasted corpus up to this size travels in the link (`text=`)
LINK_SHOWN = 40  # characters of a link's value quoted back in a message

SETTING_DEFAULTS: dict[str, Any] = {
    W_MODE: "word",
    W_EOW: "separate",
    W_PRETOK: "",
    W_TIE: "count-pair",
    W_TARGET: "merges",
    W_MERGES: 10,
    W_VOCAB: 100,
    W_LOWER: False,
    W_NORM: "none",
    W_MINFREQ: 1,
}

DEFAULTS: dict[str, Any] = {
    CORPUS: DEFAULT_CORPUS,
    W_CORPUS: DEFAULT_CORPUS,
    CORPUS_NOTICE: None,
    UPLOAD_SEEN: (),
    TRAINED: None,
    TRAINED_FOR: None,
    TRAIN_ERROR: "",
    STEP: 1,
    PLAYING: True,  # a newcomer sees BPE moving before touching anything
    SPEED: 1.0,
    WORDS: DEFAULT_WORDS,
    TIMELINE: None,
    GOTO_TRAIN: False,
    URL_NOTICE: None,
    URL_NOTICE_AT: None,
    MISMATCH_SHOWN: False,
    W_PRESENTER: False,
    **SETTING_DEFAULTS,
}

# ---- the link ------------------------------------------------------------------------------
# URL parameter -> (state key, parse)
_BOOL = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


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


def _whole(low: int, high: int = MAX_INPUT, *, clamp: str = "") -> Callable[[str], int]:
    """A whole number from `low` to `high`; with `clamp` (what it counts), larger values become `high`."""
    def parse(raw: str) -> int:
        digits = raw.strip()
        if not digits.isascii() or not digits.isdigit():
            raise ValueError("is not a whole number" + (f" ({low:,} or more)" if low else ""))
        value = int(digits)
        if value < low:
            raise ValueError(f"is less than {low:,}")
        if value > high:
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
    """`name=value` as the link had it, cut to a readable length (still to be escaped for display)."""
    shown = raw if len(raw) <= LINK_SHOWN else raw[:LINK_SHOWN] + "…"
    return f"{name}={shown}"


_PARAMS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "mode": (W_MODE, _choice(MODES)),
    "eow": (W_EOW, _choice(EOW_STYLES)),
    "pre": (W_PRETOK, _choice(("", *PRETOKENIZERS))),
    "tie": (W_TIE, _choice(TIE_BREAKS)),
    "merges": (W_MERGES, _whole(0, MAX_APP_MERGES, clamp="merges")),
    "vocab": (W_VOCAB, _whole(1, MAX_APP_MERGES, clamp="tokens")),
    "lower": (W_LOWER, _flag),
    "norm": (W_NORM, _choice(NORMALIZATIONS)),
    "minfreq": (W_MINFREQ, _whole(1)),
    "step": (STEP, _whole(0)),
    "words": (WORDS, lambda raw: raw[:2000]),
    "present": (W_PRESENTER, _flag),
}


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
        if not text.strip():
            problems.append("text= in the link is empty, so it opened a sample corpus.")
        elif len(text.encode("utf-8", errors="surrogatepass")) > LINK_TEXT_MAX_BYTES:
            problems.append(f"The text in the link is longer than a link may carry ({LINK_TEXT_MAX_BYTES:,} bytes), "
                            "so it opened a sample corpus.")
        else:
            values[LINK_TEXT] = text
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
    if "vocab" in params and W_VOCAB in values:
        values[W_TARGET] = "vocab"
    elif "merges" in params and W_MERGES in values:
        values[W_TARGET] = "merges"
    if STEP in values:
        values[PLAYING] = False  # a link to a step shows that step
    return values, problems


_OWN = {"upload": "an uploaded file", "paste": "pasted text"}


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
    if values.get(W_TARGET, "merges") == "vocab":
        out["vocab"] = str(values.get(W_VOCAB, DEFAULTS[W_VOCAB]))
    else:
        out["merges"] = str(values.get(W_MERGES, DEFAULTS[W_MERGES]))
    out["step"] = str(values.get(STEP, DEFAULTS[STEP]))
    words = values.get(WORDS, DEFAULT_WORDS)
    if words != DEFAULT_WORDS:
        out["words"] = str(words)
    return out


URL_PARAMS = ("corpus", "text", "own", *_PARAMS)


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


def request_from_values(values: Mapping[str, Any]) -> TrainRequest:
    """The training request the settings ask for. Raises BPEError with a message for the user."""
    get = lambda key: values.get(key, SETTING_DEFAULTS[key])  # noqa: E731
    settings = Settings(
        mode=get(W_MODE),
        eow=get(W_EOW),
        pretokenizer=get(W_PRETOK),
        tie_break=get(W_TIE),
        lowercase=bool(get(W_LOWER)),
        normalization=get(W_NORM),
        min_frequency=int(get(W_MINFREQ)),
    )
    target = get(W_TARGET)
    amount = int(get(W_MERGES) if target == "merges" else get(W_VOCAB))
    if amount > MAX_APP_MERGES:
        asked = f"{amount:,} merges" if target == "merges" else f"a vocabulary of {amount:,}"
        raise BPEError(f"{asked} is more than this app trains for one visitor ({MAX_APP_MERGES:,} at most); "
                       "the command line (python -m bpe_core train) has no such limit")
    return TrainRequest(settings, target, amount)


def values_for_request(request: TrainRequest) -> dict[str, Any]:
    """The widget values that ask for `request` (the inverse of `request_from_values`)."""
    s = request.settings
    out = {
        W_MODE: s.mode,
        W_EOW: s.eow,
        W_PRETOK: "" if s.pretokenizer == Settings(mode=s.mode).pretokenizer else s.pretokenizer,
        W_TIE: s.tie_break,
        W_TARGET: request.target,
        W_LOWER: s.lowercase,
        W_NORM: s.normalization,
        W_MINFREQ: s.min_frequency,
    }
    out[W_MERGES if request.target == "merges" else W_VOCAB] = request.amount
    return out


# ---- Streamlit glue --------------------------------------------------------------------------

# Streamlit drops a widget's value from the session when a run ends without that widget, which
# a page switch can cause; the number boxes then came back as 0 and 1. Writing each sidebar value
# back at the start of every run makes it the session's own value, which is kept.
SIDEBAR_WIDGETS = (W_CORPUS, *SETTING_DEFAULTS, W_PRESENTER)


def keep_sidebar_values(session: Any) -> None:
    for key in SIDEBAR_WIDGETS:
        if key in session:
            session[key] = session[key]



def init(session: Any, query_params: Mapping[str, str], *, samples: Collection[str]) -> None:
    """Fill in missing keys; on a session's first run, apply the link's parameters."""
    for key, value in DEFAULTS.items():
        if key not in session:
            session[key] = value
    if USER_CORPORA not in session:
        session[USER_CORPORA] = {}
    if not session.get(URL_READ):
        session[URL_READ] = True
        values, problems = values_from_url(dict(query_params), samples=samples)
        for key, value in values.items():
            session[key] = value
        notice = link_notice(problems)
        session[URL_NOTICE] = ("warning", notice) if notice else None
        session[URL_NOTICE_AT] = None
    keep_sidebar_values(session)


def link_notice(problems: list[str]) -> str:
    """What a person is told about a link that asked for things it did not get ("" when nothing)."""
    if not problems:
        return ""
    return "The link asked for something this app could not do. " + " ".join(problems) + (
        " The link's other settings were used.")


def link_moment(session: Any, page: str) -> tuple:
    """What the user is looking at, without the animation's step: the page, the corpus, the settings."""
    return (page, session.get(CORPUS), tuple(session.get(key) for key in SETTING_DEFAULTS))


def expire_link_notice(session: Any, page: str) -> None:
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


def current_values(session: Any) -> dict[str, Any]:
    return {key: session.get(key, default) for key, default in DEFAULTS.items()}


def bind(session: Any, widget_key: str, value_key: str) -> Callable[[], None]:
    """Start a page widget from an owned value; the returned callback writes changes back."""
    session[widget_key] = session.get(value_key, DEFAULTS.get(value_key))

    def write_back() -> None:
        session[value_key] = session[widget_key]

    return write_back


def apply_values(session: Any, values: Mapping[str, Any]) -> None:
    """Set several values at once (from a callback, before the widgets are drawn)."""
    for key, value in values.items():
        session[key] = value


def request_or_error(session: Any) -> tuple[TrainRequest | None, str]:
    try:
        return request_from_values(current_values(session)), ""
    except BPEError as exc:
        return None, str(exc)
