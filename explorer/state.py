"""Every session-state key the app uses, their defaults, and the link (URL) that carries them.

Two kinds of key:
* values the app owns (no widget): the current corpus, the animation step, the unseen words...
* widget keys. Widgets in the sidebar are drawn on every page, so their keys are the values
  themselves. Widgets on a page forget their value when the user leaves the page, so each is
  bound to an owned value (`bind`): it starts from it and writes back to it on change.

`values_from_url` and `url_from_values` are pure, so the link format is tested without Streamlit.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from bpe_core import BPEError, Settings
from bpe_core.settings import EOW_STYLES, MODES, NORMALIZATIONS, PRETOKENIZERS, TIE_BREAKS

from .training import TrainRequest

# ---- values the app owns -------------------------------------------------------------------
CORPUS = "corpus"  # key of the corpus in use: "sample:seed000", "upload:<digest>", "paste:<digest>"
USER_CORPORA = "user_corpora"  # {key: Corpus} uploaded or pasted in this session
CORPUS_NOTICE = "corpus_notice"  # (kind, message) about the last upload or paste
UPLOAD_SEEN = "upload_seen"  # file ids of the upload already handled
TRAIN_CACHE = "train_cache"  # this session's trained bundles, keyed by corpus digest + request
TRAINED = "trained"  # the bundle on screen: the last training that succeeded
TRAINED_FOR = "trained_for"  # (corpus key, request key) of TRAINED
TRAIN_ERROR = "train_error"  # message of the last training that failed, or ""
STEP = "step"  # the animation's step: merges applied so far
PLAYING = "playing"
SPEED = "speed"  # steps per second
LAST_TICK = "last_tick"  # time.monotonic() of the last step the player advanced
TIMER = "timer"  # (playing, speed) the animation's timer was registered with
WORDS = "words"  # the unseen words
TIMELINE = "timeline"  # the unseen words page's "after k merges"
GOTO_TRAIN = "goto_train"  # set by a callback: switch to the animation page
URL_READ = "url_read"  # the link was read into the state (once per session)
URL_NOTICE = "url_notice"  # what in the link could not be used
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
W_STEP = "w_step"
W_SPEED = "w_speed"
W_WORDS = "w_words"
W_TIMELINE = "w_timeline"
W_UPLOAD = "w_upload"
W_PASTE = "w_paste"
W_ORDER = "w_wrong_order"
B_BACK = "anim_back"
B_PLAY = "anim_play"
B_FORWARD = "anim_forward"
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
MAX_INPUT = 100_000_000  # what the number boxes accept; the engine's own limit is checked later

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
    LAST_TICK: 0.0,
    TIMER: None,
    WORDS: DEFAULT_WORDS,
    TIMELINE: None,
    GOTO_TRAIN: False,
    URL_NOTICE: "",
    MISMATCH_SHOWN: False,
    W_PRESENTER: False,
    **SETTING_DEFAULTS,
}

# ---- the link ------------------------------------------------------------------------------
# URL parameter -> (state key, parse)
_BOOL = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _choice(options: tuple[str, ...]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in options:
            raise ValueError(f"choose one of {', '.join(options)}")
        return raw

    return parse


def _whole(low: int, high: int = MAX_INPUT) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        value = int(raw)
        if not low <= value <= high:
            raise ValueError(f"must be between {low:,} and {high:,}")
        return value

    return parse


def _flag(raw: str) -> bool:
    try:
        return _BOOL[raw.lower()]
    except KeyError:
        raise ValueError("use 1 or 0") from None


_PARAMS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "mode": (W_MODE, _choice(MODES)),
    "eow": (W_EOW, _choice(EOW_STYLES)),
    "pre": (W_PRETOK, _choice(("", *PRETOKENIZERS))),
    "tie": (W_TIE, _choice(TIE_BREAKS)),
    "merges": (W_MERGES, _whole(0)),
    "vocab": (W_VOCAB, _whole(1)),
    "lower": (W_LOWER, _flag),
    "norm": (W_NORM, _choice(NORMALIZATIONS)),
    "minfreq": (W_MINFREQ, _whole(1)),
    "step": (STEP, _whole(0)),
    "words": (WORDS, lambda raw: raw[:2000]),
    "present": (W_PRESENTER, _flag),
}


def values_from_url(params: Mapping[str, str], *, samples: set[str]) -> tuple[dict[str, Any], list[str]]:
    """State values from a link's parameters, and a note for each parameter that was ignored.

    >>> values_from_url({"merges": "20", "step": "x"}, samples=set())[0]
    {'w_merges': 20}
    """
    values: dict[str, Any] = {}
    problems: list[str] = []
    corpus = params.get("corpus")
    if corpus is not None:
        if corpus in samples:
            values[CORPUS] = values[W_CORPUS] = f"sample:{corpus}"
        else:
            problems.append(f"corpus={corpus!r} is not a sample corpus")
    for name, (key, parse) in _PARAMS.items():
        raw = params.get(name)
        if raw is None:
            continue
        try:
            values[key] = parse(raw)
        except ValueError as exc:
            problems.append(f"{name}={raw!r}: {exc}")
    if "vocab" in params and W_VOCAB in values:
        values[W_TARGET] = "vocab"
    elif "merges" in params and W_MERGES in values:
        values[W_TARGET] = "merges"
    if STEP in values:
        values[PLAYING] = False  # a link to a step shows that step
    return values, problems


def url_from_values(values: Mapping[str, Any]) -> dict[str, str]:
    """The link parameters for the current view: the sample, the settings that differ, step, words."""
    out: dict[str, str] = {}
    corpus = values.get(CORPUS, DEFAULT_CORPUS)
    if isinstance(corpus, str) and corpus.startswith("sample:"):
        out["corpus"] = corpus.removeprefix("sample:")
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


URL_PARAMS = ("corpus", *_PARAMS)


def sync_url(query_params: MutableMapping[str, str], values: Mapping[str, Any]) -> None:
    """Write this view's parameters into the link, leaving parameters other pages own alone."""
    wanted = url_from_values(values)
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


def init(session: Any, query_params: Mapping[str, str], *, samples: set[str]) -> None:
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
        session[URL_NOTICE] = "; ".join(problems)
    keep_sidebar_values(session)


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
