"""The Vocabulary page's table, histogram and life-story pieces. Pure: no Streamlit here.

Rows come from `bpe_core.analysis.vocabulary_table`. Tables show tokens as text with visible
whitespace (dataframes show text as text: no HTML escaping); chart labels are escaped.
"""
from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING

from bpe_core.analysis import VocabRow, nearly_unused, visible_whitespace
from explorer.data.any_model import AnyModel, Piece
from explorer.data.token_texts import visible
from explorer.display.charts import chart_font, figure
from explorer.display.render import Chip, chip_html, escape
from explorer.display.tables import EMPTY  # noqa: F401 - the pages' tables show it for unknown numbers
from explorer.families import Mark, explorer_family

if TYPE_CHECKING:  # imported where a table or a chart is made: a worker that only tokenizes makes none
    import numpy as np
    import pandas as pd
    import plotly.graph_objects as go

MAX_PICKER = 5_000  # above this many tokens the life story is picked by id, not from a list
UNITS = {"chars": "characters", "bytes": "bytes"}


def shown(row: VocabRow) -> str:
    """A token as every page shows it: `display_token`'s text (whitespace visible, hex groups)."""
    return row.display


def vocab_frame(rows: Sequence[VocabRow]) -> pd.DataFrame:
    """The whole vocabulary, one row per token in id order; empty cells where a number is unknown.

    A tokenizer without a training record (the built-ins, most files) has no merge counts and no
    uses: those columns are left out rather than sent empty. Built a column at a time, in 32-bit
    numbers where they fit: o200k's 200,000 rows take a tenth of a second and ~5 MB to the browser.
    """
    import pandas as pd

    index = VocabRow._fields.index
    field = {name: list(map(itemgetter(index(name)), rows))
             for name in ("id", "display", "rank", "count", "chars", "n_bytes", "uses")}
    columns: dict[str, object] = {
        "id": _whole(field["id"]),
        "token": field["display"],
        "step": _nullable([None if r is None else r + 1 for r in field["rank"]]),
    }
    if any(map(operator.is_not, field["count"], repeat(None))):
        columns["count when merged"] = _nullable(field["count"])
    columns["characters"] = _whole(field["chars"])
    columns["bytes"] = _whole(field["n_bytes"])
    if any(map(operator.is_not, field["uses"], repeat(None))):
        columns["uses after training"] = _nullable(field["uses"])
        columns["kept %"] = pd.Series([None if r.kept is None else round(100 * r.kept, 1) for r in rows],
                                      dtype="Float64")
    return pd.DataFrame(columns)


def _whole(values: list[int]) -> np.ndarray:
    """Whole numbers as 32-bit integers where they fit (half the bytes sent to the browser)."""
    import numpy as np

    wide = bool(values) and (max(values) >= 2**31 or min(values) < -(2**31))
    return np.array(values, dtype=np.int64 if wide else np.int32)


def _nullable(values: list[int | None]) -> pd.Series:
    """Whole numbers with gaps as a nullable integer column, without pandas looking at each value."""
    import numpy as np
    import pandas as pd

    n = len(values)
    missing = np.fromiter(map(operator.is_, values, repeat(None)), dtype=bool, count=n)
    known = values if not missing.any() else [0 if v is None else v for v in values]
    data = _whole(known)  # type: ignore[arg-type]  # no None left
    return pd.Series(pd.arrays.IntegerArray(data, missing))


def search(rows: Sequence[VocabRow], query: str) -> list[VocabRow]:
    """Rows whose token contains `query` (case-insensitive; `·` or a space both match a space)."""
    if not query:
        return list(rows)
    q = query.casefold()
    q_visible = visible_whitespace(query).casefold()
    return [r for r in rows if q in r.display.casefold() or q_visible in shown(r).casefold()]


def length_histogram(rows: Sequence[VocabRow], *, unit: str = "chars", presenter: bool = False) -> go.Figure:
    """How many tokens have each length, base symbols and merged tokens stacked."""
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {', '.join(UNITS)}")
    field = VocabRow._fields.index
    lengths = list(map(itemgetter(field("chars" if unit == "chars" else "n_bytes")), rows))
    made = list(map(operator.is_not, map(itemgetter(field("rank")), rows), repeat(None)))
    unbuilt = list(map(itemgetter(field("unreachable")), rows))
    merged = Counter(compress(lengths, made))
    unmade = Counter(compress(lengths, unbuilt))
    base = Counter(lengths) - merged - unmade
    xs = sorted(set(base) | set(merged) | set(unmade))
    font = chart_font(presenter)
    data = [
        {"type": "bar", "name": "base symbols", "x": xs, "y": [base.get(x, 0) for x in xs],
         "marker": {"color": "#bdbdbd"}, "hovertemplate": "%{y:,} base symbols of length %{x}<extra></extra>"},
        {"type": "bar", "name": "merged tokens", "x": xs, "y": [merged.get(x, 0) for x in xs],
         "marker": {"color": "#1f77b4"}, "hovertemplate": "%{y:,} merged tokens of length %{x}<extra></extra>"},
    ]
    if unmade:  # a rank file's tokens no merge builds (Llama 3 has 678)
        data.append({"type": "bar", "name": "no merge builds them", "x": xs, "y": [unmade.get(x, 0) for x in xs],
                     "marker": {"color": "#ff7f0e"},
                     "hovertemplate": "%{y:,} tokens no merge builds, of length %{x}<extra></extra>"})
    layout = {
        "barmode": "stack",
        "title": {"text": f"Token lengths in {UNITS[unit]}", "font": font},
        "font": font,
        "height": 340 if presenter else 300,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": f"length ({UNITS[unit]})"}, "dtick": 1 if len(xs) <= 30 else None},
        "yaxis": {"title": {"text": "tokens"}},
        "legend": {"orientation": "h", "y": -0.25},
    }
    return figure(data, layout)


def unused_frame(rows: Sequence[VocabRow], *, threshold: float = 0.25) -> pd.DataFrame:
    """Merged tokens that later merges left nearly unused, and the tokens that took their place."""
    import pandas as pd

    by_token = {r.token: r for r in rows}
    found = nearly_unused(rows, threshold=threshold)
    return pd.DataFrame(
        {
            "id": [r.id for r in found],
            "token": [shown(r) for r in found],
            "step": pd.Series([None if r.rank is None else r.rank + 1 for r in found], dtype="Int64"),
            "count when merged": pd.Series([r.count for r in found], dtype="Int64"),
            "uses after training": pd.Series([r.uses for r in found], dtype="Int64"),
            "built into": [_children_text(r, by_token) for r in found],
        }
    )


def _children_text(row: VocabRow, by_token: dict[str, VocabRow], *, shown_max: int = 6) -> str:
    names = [shown(by_token[c]) if c in by_token else visible_whitespace(c) for c in row.children[:shown_max]]
    return ", ".join(names) + (", …" if len(row.children) > shown_max else "")


def token_label(row: VocabRow) -> str:
    """How a token is named in a picker: `17 · lo (step 7)`, the step that made it."""
    made = f" (step {row.rank + 1})" if row.rank is not None else " (no merge)" if row.unreachable else " (base)"
    return f"{row.id} · {shown(row)}{made}"


def default_token(rows: Sequence[VocabRow]) -> int | None:
    """The id to show first: the token the last merge made, else the first token."""
    merged = [r for r in rows if r.rank is not None]
    if merged:
        return max(merged, key=lambda r: r.rank).id
    return rows[0].id if rows else None


# ---- the models without a merge view (the vocabulary list) and marked tokens ------------------

MAX_FAMILY_ROWS = 20_000  # rows of a family's table sent to the browser; search to reach the rest
FLAGS = {"all": "every token", "continuation": "continuation pieces (##)", "word start": "word starts (▁)",
         "superword": "superwords", "special": "added and special tokens"}  # a family offers one (`vocab_filter`)


@dataclass(slots=True)
class FamilyRow:
    """One vocabulary entry of any family, as the Vocabulary page lists it."""

    id: int
    token: str  # as the model writes it
    shown: str  # as every page shows a token (`token_text`)
    surface: str  # the text it stands for, whitespace visible
    chars: int  # characters of that text
    continuation: bool  # a piece that continues a word ("##...")
    marked: bool  # a token its family marks (a superword)
    step: int | None  # the training step (or merge) that made it (1-based), when known
    score: float | None  # its log-probability, else the score of the step that made it
    n_bytes: int = 0  # bytes of the text it stands for
    special: bool = False  # an added or special token (`<s>`)
    unknown: bool = False  # the unknown token
    word_start: bool = False  # it stands for text that starts with a space (▁the)


def family_rows(model: AnyModel) -> list[FamilyRow]:
    """Every token of the model in id order with what the page shows about it.

    The token is as the model writes it (`AnyModel.spelled`: a file's `▁the` and `<0xE6>` too, byte
    letters read; the surface column has the text it stands for), whitespace made visible.
    """
    scores, step_scores = model.scores, model.step_scores
    birth = model.birth
    unk = model.unk_token
    # Bound once: this runs for each of up to 250,000 tokens.
    row_texts, continues, marked, special = model.row_texts, model.is_continuation, model.is_marked, model.is_special
    get_birth = birth.get
    n_scores = len(scores) if scores is not None else 0
    n_steps = len(step_scores)
    out = []
    for token, token_id in sorted(model.vocab.items(), key=itemgetter(1)):
        spelled, surface, n_bytes = row_texts(token)
        rank = get_birth(token)
        if scores is not None:
            score = scores[token_id] if 0 <= token_id < n_scores else None
        else:
            score = step_scores[rank] if rank is not None and rank < n_steps else None
        out.append(FamilyRow(token_id, token, spelled, visible(surface), len(surface), continues(token),
                             marked(token), None if rank is None else rank + 1, score, n_bytes,
                             special(token), token == unk, surface.startswith(" ")))
    return out


def family_flags(family: str) -> list[str]:
    """The filters that mean something for a family: every token, and its own (`vocab_filter`)."""
    own = explorer_family(family).vocab_filter
    return ["all"] if own is None else ["all", own]


_FILTERS = {"continuation": attrgetter("continuation"), "superword": attrgetter("marked"),
            "word start": attrgetter("word_start"), "special": attrgetter("special")}


def family_search(rows: Sequence[FamilyRow], query: str, flag: str = "all") -> list[FamilyRow]:
    """Rows whose token or surface text contains `query` (case-insensitive; a space or `·` match a space)."""
    keep = _FILTERS.get(flag)
    if keep is not None:
        rows = [r for r in rows if keep(r)]
    if not query:
        return list(rows)
    q = visible_whitespace(query).casefold()
    raw = query.casefold()
    return [r for r in rows if q in r.shown.casefold() or q in r.surface.casefold() or raw in r.token.casefold()]


def family_frame(model: AnyModel, rows: Sequence[FamilyRow], *, limit: int = MAX_FAMILY_ROWS) -> pd.DataFrame:
    """The first `limit` rows as a table: id, token, surface text, lengths, what is special and what the
    model has (continuation pieces, the step that made a token and its score, phases, marked tokens,
    log-probabilities)."""
    import pandas as pd

    rows = rows[:limit]
    columns: dict[str, object] = {
        "id": _whole([r.id for r in rows]),
        "token": [r.shown for r in rows],
        "surface text": [r.surface for r in rows],
        "characters": _whole([r.chars for r in rows]),
        "bytes": _whole([r.n_bytes for r in rows]),
    }
    if model.added_tokens:
        columns["special"] = [r.special for r in rows]
    if model.unk_token is not None:
        columns["unknown token"] = [r.unknown for r in rows]
    prefix = model.shows.continuation(model.model)
    if prefix and any(r.continuation for r in rows):
        columns[f"continuation ({prefix})"] = [r.continuation for r in rows]
    if model.birth:
        columns["step (merge)" if model.merges else "step"] = _nullable([r.step for r in rows])
    if model.step_scores and model.scores is None:
        columns["score when merged"] = pd.Series([r.score for r in rows], dtype="Float64")
    phase_one = model.phase_one
    if phase_one is not None:
        columns["phase"] = _nullable([None if r.step is None else 1 if r.step <= phase_one else 2 for r in rows])
    if model.mark is not None:
        columns[model.mark.name] = [r.marked for r in rows]
    if model.scores is not None:
        columns["log-probability"] = pd.Series([r.score for r in rows], dtype="Float64")
    return pd.DataFrame(columns)


def family_length_histogram(rows: Sequence[FamilyRow], *, presenter: bool = False) -> go.Figure:
    """How many tokens stand for texts of each length (characters)."""
    counts = Counter(r.chars for r in rows)
    xs = sorted(counts)
    font = chart_font(presenter)
    data = [{"type": "bar", "name": "tokens", "x": xs, "y": [counts[x] for x in xs], "marker": {"color": "#1f77b4"},
             "hovertemplate": "%{y:,} tokens of length %{x}<extra></extra>"}]
    layout = {
        "title": {"text": "Token lengths (characters of the text each stands for)", "font": font},
        "font": font, "height": 340 if presenter else 300, "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": "length (characters)"}, "dtick": 1 if len(xs) <= 30 else None},
        "yaxis": {"title": {"text": "tokens"}}, "showlegend": False,
    }
    return figure(data, layout)


def phases_note(phase_one: int) -> str:
    """A model's two phases in a sentence, from its number of phase-one merges.

    >>> phases_note(0)
    'Every merge is phase two (merges that may cross spaces): the transition is at the 256 bytes.'
    """
    if phase_one == 0:
        return "Every merge is phase two (merges that may cross spaces): the transition is at the 256 bytes."
    return (f"Steps 1 to {phase_one:,} are phase one (merges within words); steps after {phase_one:,} are "
            "phase two (merges that may cross spaces).")


def merge_view_note(model: AnyModel) -> str:
    """What the merge-list table of a model with phases or marked tokens adds, in a sentence ("" for neither)."""
    bits = [phases_note(model.phase_one)] if model.phase_one is not None else []
    if model.mark is not None:
        marked = sum(1 for token in model.vocab if model.is_marked(token))
        bits.append(f"{marked:,} tokens are {model.mark.plural}.")
    return f"{model.title}: " + " ".join(bits) if bits else ""


def with_phases(frame: pd.DataFrame, rows: Sequence[VocabRow], model: AnyModel) -> pd.DataFrame:
    """The merge-list table with each token's phase and whether it is marked, where the model has them."""
    frame = frame.copy()
    phase_one = model.phase_one
    if phase_one is not None:
        frame["phase"] = _nullable([None if r.rank is None else 1 if r.rank < phase_one else 2 for r in rows])
    if model.mark is not None:
        frame[model.mark.name] = [model.is_marked(r.token) for r in rows]
    return frame


def family_chips_html(model: AnyModel, pieces: Sequence[Piece], text: str) -> str:
    """A text's pieces as chips with ids: coloured by the step that made them where one did, an unknown
    piece red with the text it stands for, a special one in its own style, a marked one (a superword)
    underlined in purple."""
    out = []
    for piece in pieces:
        if piece.unknown:
            chip = chip_html(Chip(text[piece.start:piece.end] or piece.token, token_id=piece.token_id, unknown=True,
                                   unk_label=model.unk_token or "<unk>"),
                             show_id=True)
        else:
            spelling, byte_level = model.drawn(piece.token)
            chip = chip_html(Chip(spelling, token_id=piece.token_id, birth=model.birth.get(piece.token),
                                  special=piece.special), byte_level=byte_level, show_id=True)
        out.append(marked_chip(chip, model.mark) if piece.marked and model.mark is not None else chip)
    return f'<span class="bpe-chips">{"".join(out) or "<em>no tokens</em>"}</span>'


def marked_chip(chip: str, mark: Mark) -> str:
    """A chip underlined in purple: a token its family marks (inline style: no page CSS needed)."""
    return (f'<span class="fam-{escape(mark.name)}" style="display:inline-block;border-bottom:3px solid #7b3fa0;'
            f'border-radius:4px;padding-bottom:5px" title="{escape(f"a {mark.name}: {mark.note}")}">{chip}</span>')
