"""Every session-state key the app uses and its default, in one place (the link format is `link`).

Three kinds of key:
* values the app owns (no widget): the current corpus, the animation step, the unseen words...
* widget keys. Widgets in the sidebar are drawn on every page, so their keys are the values
  themselves. Widgets on a page forget their value when the user leaves the page, so each is
  bound to an owned value (`bind`): it starts from it and writes back to it on change.
* each page's own keys, named after the page (`CMP_` compare, `IO_` import and export, `VOC_`
  vocabulary, `DROP_` BPE-dropout, `PICK_` the tokenizer picker, `ANIM_` the player, `TOK_` tokenize,
  `OVL_` vocabulary overlap, `TAX_` language tax, `STAB_` training stability, `AUD_` token audit, `FAM_`, `REP_`).

Nothing here imports Streamlit: a session is any mutable mapping, so this is tested on a dict.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from bpe_core import BPEError, Settings
from explorer.data.budget import Budget
from explorer.data.training import TrainRequest, request_for
from explorer.families import explorer_family

# ---- values the app owns -------------------------------------------------------------------
CORPUS = "corpus"  # key of the corpus in use: "sample:seed000", "upload:<digest>", "paste:<digest>"
USER_CORPORA = "user_corpora"  # {key: Corpus} uploaded or pasted in this session
CORPUS_NOTICE = "corpus_notice"  # (kind, message) about the last upload or paste
TRAIN_CACHE = "train_cache"  # this session's trained bundles, keyed by corpus digest + request
BUDGET = "budget"  # what the session holds and its memory (data.budget.Budget): corpora, trainings, tokenizer files
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
GOTO_TRAIN = "goto_train"  # set by a callback (`animation.jump_to`): switch to the animation page
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
W_FAMILY = "w_family"  # the name of a family this app trains (`explorer.families.trainable`)
W_TRANSITION = "w_transition"  # the vocabulary size where phase two starts (the families with phases); 0: 90%
W_PRESENTER, B_PRESENTER = "w_presenter", "b_presenter"  # the sidebar's toggle; the switch atop every page
W_WORDS = "w_words"
W_TIMELINE = "w_timeline"
UNSEEN_SOURCE, W_UNSEEN_SOURCE = "unseen_source", "w_unseen_source"  # the Unseen words page's tokenizer (picker key)
TIMELINE_FOR = "timeline_for"  # the picker key TIMELINE was set for: another tokenizer starts at its end
W_UPLOAD = "w_upload"
W_PASTE = "w_paste"
W_ORDER = "w_wrong_order"
B_USE_PASTE, B_RUN_MISMATCH, B_RECOUNT = "use_paste", "run_mismatch", "recount"


def b_use_sample(sample_id: str) -> str:
    """Key of the "Use" button of one sample corpus."""
    return f"use_{sample_id}"


def b_jump(word_index: int, step: int) -> str:
    """Key of the button that jumps from a piece of an unseen word to the step that made it."""
    return f"jump_{word_index}_{step}"


def b_open_lesson(lesson_key: str, variant: str = "") -> str:
    """Key of a lesson's "Open in the explorer" button."""
    return f"open_{lesson_key}{'_' + variant if variant else ''}"


def b_tree(word_index: int) -> str:
    """Key of the merge-tree chart of one unseen word."""
    return f"tree_{word_index}"


CURVE_CHART = "curve_chart"  # the compression curve under the player

# ---- Compare tokenizers (views/compare.py; the Files page adds entries too) ----------------------
CMP_ENTRIES = "cmp_entries"  # [display.compare.Entry] in column order; absent until the page's first visit
CMP_TEXT, CMP_W_TEXT = "cmp_text", "cmp_w_text"  # the text compared (kept when the user leaves the page)
CMP_AS_HEX, CMP_W_AS_HEX = "cmp_as_hex", "cmp_w_as_hex"  # show byte-level tokens as hex bytes
CMP_IGNORE_WS, CMP_W_IGNORE_WS = "cmp_ignore_ws", "cmp_w_ignore_ws"  # "where does the space go" is no disagreement
CMP_NOTICE = "cmp_notice"  # message about the last attempt to add a tokenizer
CMP_W_UPLOAD = "cmp_w_upload"
CMP_FORM, CMP_W_MODE, CMP_W_MERGES = "cmp_train", "cmp_mode", "cmp_merges"  # the "Train one here" form
CMP_W_EOW, CMP_W_PRETOK, CMP_W_TIE = "cmp_eow", "cmp_pretok", "cmp_tie"
CMP_ADD_SIDEBAR, CMP_CURVE = "cmp_add_sidebar", "cmp_curve"
CMP_DEFAULT_TEXT = "lowest newer wider slower tower widest newest"  # in the default corpus's alphabet


def b_cmp_add(entry_key: str) -> str:
    """Key of the button that adds an uploaded tokenizer to the comparison."""
    return f"cmp_add_{entry_key}"


def b_cmp_add_builtin(name: str) -> str:
    """Key of the button that adds a built-in tokenizer (`bpe_core.builtin`) to the comparison."""
    return f"cmp_add_{name}"


def b_cmp_remove(entry_key: str) -> str:
    """Key of a comparison column's "Remove" button."""
    return f"cmp_remove_{entry_key}"


# ---- Import and export (views/files.py) --------------------------------------------------------
IO_EXPORTS = "io_exports"  # (trained bundle, Exports, round trips of the last sample text): made once per bundle
IO_TEXT, IO_W_TEXT = "io_text", "io_w_text"  # the round trip's sample text; None: the corpus's start
IO_PROBE, IO_W_PROBE = "io_probe", "io_w_probe"  # text to split with an uploaded tokenizer
IO_W_UPLOAD, IO_W_PICK = "io_w_upload", "io_w_pick"
IO_DL_OURS, IO_DL_HF, IO_DL_ZIP = "io_dl_ours", "io_dl_hf", "io_dl_zip"  # download buttons
IO_DL_VOCAB, IO_DL_MERGES = "io_dl_vocab", "io_dl_merges"
IO_OPEN_VOCAB, IO_OPEN_COMPARE, IO_TREES = "io_open_vocab", "io_open_compare", "io_trees"
# (upload key, its tokenizer.json or None, why not, the text checked, RoundTrip or its one-line failure):
# an upload's export, made once per upload, and its round trip once per text
IO_UP_EXPORT = "io_up_export"
IO_DL_UP_HF = "io_dl_up_hf"  # the download button of an uploaded tokenizer's tokenizer.json
IO_DEFAULT_PROBE = "The lowest newer tokenizer. naïve 日本語"

# ---- the tokenizer picker of Compare, Vocabulary, Files and BPE-dropout (ui/tokenizer_picker.py) -
PICK_UPLOADED = "io_uploaded"  # {key: Uploaded} tokenizers uploaded in this session, oldest first
PICK_NOTICE = "io_upload_notice"  # [(kind, message)] about the last upload, kind "error" or "success"
PICK_EXPLORE = "io_explore"  # key of the tokenizer the Vocabulary and dropout pages show
PICK_ROWS_MEMO = "io_rows_memo"  # (tokenizer, its vocabulary rows): the last table built

# ---- Vocabulary (views/vocabulary.py) ----------------------------------------------------------
VOC_TOKEN, VOC_W_TOKEN = "voc_token", "voc_w_token"  # id of the token whose life story is shown
VOC_W_SOURCE, VOC_W_SEARCH, VOC_W_UNIT = "voc_w_source", "voc_w_search", "voc_w_unit"
VOC_W_THRESHOLD, VOC_W_TABLE = "voc_w_threshold", "voc_w_table"
VOC_SHOWN_IDS = "voc_shown_ids"  # ids of the table's rows on screen, for the row-click callback
VOC_JUMP, VOC_HIST, VOC_TREE = "voc_jump", "voc_hist", "voc_tree"

# ---- Vocabulary overlap (views/overlap.py): values, widgets ------------------------------------
OVL_A, OVL_W_A = "ovl_a", "ovl_w_a"  # picker key of tokenizer A ("" until the page picks a default)
OVL_B, OVL_W_B = "ovl_b", "ovl_w_b"  # picker key of tokenizer B
OVL_LIST, OVL_W_LIST = "ovl_list", "ovl_w_list"  # the list shown: "shared", "only_a" or "only_b"
OVL_SEARCH, OVL_W_SEARCH = "ovl_search", "ovl_w_search"  # the lists' search text
OVL_W_UPLOAD, OVL_CHART, OVL_TABLE = "ovl_w_upload", "ovl_chart", "ovl_table"
OVL_MEMO = "ovl_memo"  # (tokenizer A, tokenizer B, Overlap, {list: search texts}): the last comparison

# ---- BPE-dropout (views/dropout.py): value, widget -----------------------------------------------
DROP_WORD, DROP_W_WORD = "drop_word", "drop_w_word"
DROP_P, DROP_W_P = "drop_p", "drop_w_p"
DROP_SAMPLES, DROP_W_SAMPLES = "drop_samples", "drop_w_samples"
DROP_SEED, DROP_W_SEED = "drop_seed", "drop_w_seed"
DROP_W_SOURCE, DROP_CHART = "drop_w_source", "drop_chart"

# ---- Tokenize (views/tokenize.py): value, widget; the link carries TOK_TEXT and TOK_CHOSEN ---------
TOK_TEXT, TOK_W_TEXT = "tok_text", "tok_w_text"  # the text pasted or typed
TOK_CHOSEN, TOK_W_CHOSEN = "tok_chosen", "tok_w_chosen"  # picker keys: "sidebar", "builtin:<name>", "file:..."
TOK_AS_BYTES, TOK_W_AS_BYTES = "tok_as_bytes", "tok_w_as_bytes"  # byte-level tokens drawn as hex bytes
TOK_MEMO = "tok_memo"  # {(picker key, text digest): (tokenizer, display.tokenize.Tokenized)} for one text
TOK_EXAMPLE, TOK_PARTS = "tok_example_", "tok_parts_"  # + example id: a button; + picker key: its parts open
TOK_BOX, TOK_VIEW, TOK_IDS = "tok_box_", "tok_view_", "tok_ids_"  # + position: a box, its text; + picker key: ids
TOK_DEFAULT_TEXT = ("Tokenizers split text into pieces from a fixed vocabulary: \"unbelievable\" may be one token "
                    "or three. Numbers like 12345, code like print(x), and 日本語 or हिन्दी cost more.")
TOK_DEFAULT_CHOSEN = ("builtin:cl100k_base", "builtin:o200k_base", "sidebar")

# ---- Language tax (views/language_tax.py): value, widget ---------------------------------------
TAX_CHOSEN, TAX_W_CHOSEN = "tax_chosen", "tax_w_chosen"  # picker keys of the tokenizers compared
TAX_METRIC, TAX_W_METRIC = "tax_metric", "tax_w_metric"  # "premium" or "per_character" (display.language_tax)
TAX_CORPUS, TAX_W_CORPUS = "tax_corpus", "tax_w_corpus"  # the sidebar's corpus takes part as one more row
TAX_CHART = "tax_chart"
TAX_DEFAULT_CHOSEN = ("builtin:gpt2", "builtin:cl100k_base", "builtin:o200k_base", "builtin:llama3", "builtin:qwen3",
                      "sidebar")

# ---- Training stability (views/stability.py): values, widgets ------------------------------------
STAB_WANTED = "stab_wanted"  # (corpus digest, request key) whose runs on 1%, 10%, 50% were asked for
STAB_RESULT = "stab_result"  # ((corpus digest, request key), analysis.Stability): the last comparison
STAB_RUN, STAB_CHART, STAB_TABLE = "stab_run", "stab_chart", "stab_table"  # the button, the chart, the table

# ---- Token audit (views/audit.py): value, widget ------------------------------------------------
AUD_TOKENIZER, AUD_W_TOKENIZER = "aud_tokenizer", "aud_w_tokenizer"  # picker key of the tokenizer audited
AUD_CORPUS, AUD_W_CORPUS = "aud_corpus", "aud_w_corpus"  # corpus key of the reference corpus; "": the sidebar's
AUD_MB, AUD_W_MB = "aud_mb", "aud_w_mb"  # the reference corpus is cut to its first this many MB
AUD_THRESHOLD, AUD_W_THRESHOLD = "aud_threshold", "aud_w_threshold"  # "rare": produced at most this many times
AUD_RARE_SEARCH, AUD_W_RARE_SEARCH = "aud_rare_search", "aud_w_rare_search"
AUD_UNREACH_SEARCH, AUD_W_UNREACH_SEARCH = "aud_unreach_search", "aud_w_unreach_search"
AUD_MEMO = "aud_memo"  # {(tokenizer ident, corpus digest, bytes, threshold): (tokenizer, display.audit.Audit)}
AUD_RUN = "aud_run"  # the button that runs a large audit

# ---- Report card (views/report.py): values, widgets -----------------------------------------------
REP_CHOSEN, REP_W_CHOSEN = "rep_chosen", "rep_w_chosen"  # picker keys of the tokenizers graded (at most 4)
REP_CORPUS, REP_W_CORPUS = "rep_corpus", "rep_w_corpus"  # corpus key of the reference text; "": the sidebar's
REP_MB, REP_W_MB = "rep_mb", "rep_w_mb"  # the reference text is cut to its first this many MB
REP_ALPHA, REP_MIN_MADE, REP_SHARE = "rep_alpha", "rep_min_made", "rep_share"  # Rényi order; residue: made, consumed
REP_W_ALPHA, REP_W_MIN_MADE, REP_W_SHARE = "rep_w_alpha", "rep_w_min_made", "rep_w_share"
REP_RUN, REP_GRADED = "rep_run", "rep_graded"  # the button that grades a large text; {(corpus digest, bytes)} asked
REP_PIECES_CHART, REP_TAX_CHART = "rep_pieces_chart", "rep_tax_chart"

# ---- Families (views/families.py): values, widgets ----------------------------------------------
FAM_VOCAB, FAM_W_VOCAB = "fam_vocab", "fam_w_vocab"  # one vocabulary size for all; None: the corpus's default
FAM_PERCENT, FAM_W_PERCENT = "fam_percent", "fam_w_percent"  # the transition, % of the vocabulary
FAM_WORDS, FAM_W_WORDS = "fam_words", "fam_w_words"  # the words segmented by every family
FAM_WORD, FAM_W_WORD = "fam_word", "fam_w_word"  # the word segmented several ways
FAM_TABLE, FAM_OVERLAP = "fam_table", "fam_overlap"


def b_fam_several(family: str) -> str:
    """Key of a family's table of several segmentations of one word on the Families page."""
    return f"fam_several_{family}"

# ---- every family on Compare, Unseen words, Vocabulary (views/compare.py, unseen.py, vocabulary.py) ---
CMP_W_FAMILY, CMP_W_TRANSITION = "cmp_family", "cmp_transition"  # the "Train one here" form's family
CMP_OVERLAP_MEMO = "cmp_overlap_memo"  # (models, DataFrame, labels): the last vocabulary overlap table
UNS_NBEST, UNS_W_NBEST = "uns_nbest", "uns_w_nbest"  # how many best segmentations are listed
UNS_TABLE = "uns_table_"  # + word index: the table of a word's explanation
VOC_W_FLAG = "voc_w_flag"  # the family vocabulary's filter: "all", "continuation", "superword", "word start"
VOC_W_SUPER = "voc_w_super"  # a merge-list table: marked tokens (superwords) only
VOC_FAM_HIST, VOC_FAM_TABLE, VOC_FAM_MEMO = "voc_fam_hist", "voc_fam_table", "voc_fam_memo"  # memo: (model, rows)
VOC_FAM_TOKEN = "voc_fam_token"  # id of the family token whose details are shown

# ---- the player (ui/animation.py), beside STEP, PLAYING and SPEED ------------------------------
ANIM_PLAYER = "anim_player"  # the component's key
ANIM_SEEN = "anim_seen"  # (trained key, step, playing) as the player last reported it or was told it
ANIM_SEQ = "anim_seq"  # how many times the server moved the player
ANIM_CENTRE = "anim_centre"  # (trained key, step, jump) the player last asked frames around
ANIM_WINDOW = "anim_window"  # (trained key, first, last, frames) last sent
ANIM_NEEDED = "anim_needed"  # the last view event asked for frames

# ---- defaults --------------------------------------------------------------------------------
DEFAULT_CORPUS = "sample:seed000"
DEFAULT_WORDS = "lowest newer wider slow"
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0)
MAX_INPUT = 100_000_000  # what the minimum-count box accepts; the engine's own limit is checked later
# What one session may ask for: a link or the sidebar cannot ask the server for more merges (or a
# larger vocabulary) than this. Training 50,000 merges on the 5 MB sample is already minutes.
MAX_APP_MERGES = 50_000

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
    W_FAMILY: "bpe",
    W_TRANSITION: 0,
}

DEFAULTS: dict[str, Any] = {
    CORPUS: DEFAULT_CORPUS,
    W_CORPUS: DEFAULT_CORPUS,
    CORPUS_NOTICE: None,
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
    CMP_TEXT: CMP_DEFAULT_TEXT,
    CMP_AS_HEX: False,
    CMP_IGNORE_WS: True,
    CMP_NOTICE: "",
    IO_TEXT: None,
    IO_PROBE: IO_DEFAULT_PROBE,
    OVL_A: "",
    OVL_B: "",
    OVL_LIST: "shared",
    OVL_SEARCH: "",
    PICK_NOTICE: None,
    DROP_WORD: "newest",
    DROP_P: 0.1,
    DROP_SAMPLES: 1000,
    DROP_SEED: 0,
    TOK_TEXT: TOK_DEFAULT_TEXT,
    TOK_CHOSEN: TOK_DEFAULT_CHOSEN,
    TOK_AS_BYTES: False,
    TAX_CHOSEN: TAX_DEFAULT_CHOSEN,
    TAX_METRIC: "premium",
    TAX_CORPUS: False,
    AUD_TOKENIZER: "",
    AUD_CORPUS: "",
    AUD_MB: 5.0,
    AUD_THRESHOLD: 0,
    AUD_RARE_SEARCH: "",
    AUD_UNREACH_SEARCH: "",
    REP_CHOSEN: ("sidebar", "builtin:gpt2", "builtin:o200k_base"),
    REP_CORPUS: "", REP_MB: 1.0,
    REP_ALPHA: 2.5, REP_MIN_MADE: 10, REP_SHARE: 0.9,
    FAM_VOCAB: None,
    FAM_PERCENT: 80,
    FAM_WORDS: "the lowest of the newest qwzx",
    FAM_WORD: "lowest",
    UNS_NBEST: 5,
}
# Values a session must not share with another: each session gets a new one.
FRESH: dict[str, Callable] = {USER_CORPORA: dict, PICK_UPLOADED: dict, TRAIN_CACHE: OrderedDict, BUDGET: Budget}

# The sidebar's widget of each training option (`training.request_for` names them), and how its value is read.
OPTION_WIDGETS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "mode": (W_MODE, str), "eow": (W_EOW, str), "pretokenizer": (W_PRETOK, str), "tie_break": (W_TIE, str),
    "lowercase": (W_LOWER, bool), "normalization": (W_NORM, str), "min_frequency": (W_MINFREQ, int),
    "target": (W_TARGET, str), "merges": (W_MERGES, int), "vocab": (W_VOCAB, int), "transition": (W_TRANSITION, int),
}


def request_from_values(values: Mapping[str, Any]) -> TrainRequest:
    """The training request the settings ask for. Raises BPEError with a message for the user."""
    get = lambda key: values.get(key, SETTING_DEFAULTS[key])  # noqa: E731
    options = {name: read(get(key)) for name, (key, read) in OPTION_WIDGETS.items()}
    return request_for(get(W_FAMILY), options, limit=MAX_APP_MERGES)


def values_for_request(request: TrainRequest) -> dict[str, Any]:
    """The widget values that ask for `request` (the inverse of `request_from_values`): the family's
    own options only, the others left as they are."""
    s = request.settings
    options = explorer_family(request.family).options
    out = {W_FAMILY: request.family, W_TARGET: request.target,
           W_MERGES if request.target == "merges" else W_VOCAB: request.amount}
    if "pretokenizer" in options:
        out[W_PRETOK] = "" if s.pretokenizer == Settings(mode=s.mode).pretokenizer else s.pretokenizer
    if "transition" in options:
        out[W_TRANSITION] = request.transition or 0
    for name in ("mode", "eow", "tie_break", "lowercase", "normalization", "min_frequency"):
        if name in options:
            out[OPTION_WIDGETS[name][0]] = getattr(s, name)
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


def init(session: Any) -> None:
    """Fill in the keys a session lacks (the link is read by `link.read_once`)."""
    for key, value in DEFAULTS.items():
        if key not in session:
            session[key] = value
    for key, fresh in FRESH.items():
        if key not in session:
            session[key] = fresh()
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
