"""The Families page drawn: the comparison table, token chips per family, overlap and segmentation tables. Pure.

Every token and word comes from the user's corpus or input, so it goes through `render.token_html`
or `render.escape` (HTML) or is a plain DataFrame cell (shown as text).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bpe_core.analysis import DropoutDistribution, token_text
from bpe_core.families.registry import family
from explorer.data.any_model import AnyModel
from explorer.data.families import FAMILIES, LONG_WORD, Families, Overlap
from explorer.display.render import TOKEN_CAP, escape, hue, token_html
from explorer.families import taking, titles

MAX_CHIPS = 200  # chips drawn per family for the user's words
MAX_WORDS_CHARS = 500  # characters of the user's words segmented
ROW_HEIGHT = HEADER_HEIGHT = 35  # px: a dataframe's row and its header row, as Streamlit draws them


@dataclass(frozen=True)
class Segmentations:
    """A family's several segmentations of one word (`explorer/families/<name>/families.py`).

    `title` heads them (no outside text: Markdown as it is); `table(model, word)` gives the table
    and a caption under it, or raises a one-line BPEError saying why not (a sentence's clause).
    """

    title: str
    table: Callable[[Any, str], tuple[pd.DataFrame, str]]


LESSON_ROWS = ("Vocabulary reached", "Training (s)", "Tokens", "Tokens per word", "Direction", "Selection criterion",
               "Encoding", "Multiple segmentations", "Note")


def lesson_frame(families: Families) -> pd.DataFrame:
    """The lesson's table with this corpus's numbers: a column per family, a row per `LESSON_ROWS` (as text,
    None where a family has no value).

    A column per family, as the lesson lays it out: a row per family needs ten columns, twice the page's
    width, while four families side by side fit it, their long criteria wrapping.
    """
    columns: dict[str, list[str | None]] = {}
    for run in families.runs:
        entry = family(run.family)
        lesson = entry.lesson
        trained = run.model is not None
        per_word = families.tokens_per_word(run)
        columns[entry.title] = [
            f"{run.vocab_size:,}" if trained else None,
            f"{run.seconds:.3f}",
            f"{run.tokens:,}" if trained else None,
            f"{per_word:.3f}" if per_word is not None else None,
            lesson.direction if lesson else None,
            lesson.criterion if lesson else None,
            lesson.encoding if lesson else None,
            lesson.segmentations if lesson else None,
            # a failure's whole message is the warning under the table: one long cell would make every row tall
            "could not train with these settings (why: under the table)" if run.error else run.note,
        ]
    return pd.DataFrame(columns, index=pd.Index(LESSON_ROWS))


def table_height(rows: int, row_height: int | None) -> int:
    """Pixels that show a dataframe's every row without scrolling (Streamlit's own height stops near ten short rows).

    >>> table_height(9, None), table_height(9, 77)
    (352, 730)
    """
    return HEADER_HEIGHT + rows * (row_height or ROW_HEIGHT) + 2


def measured_caption(families: Families) -> str:
    """Where the token counts come from, in one sentence (numbers only: safe Markdown)."""
    trained = (f"Each family trained on the first {families.train_chars:,} characters of the corpus"
               + (f" (of {families.corpus_chars:,}: the cap keeps the four trainings to seconds)"
                  if families.corpus_chars > families.train_chars else "")
               + f" to a vocabulary of {families.vocab_size:,}; {titles(taking('transition'))}'s transition at "
                 f"{families.transition:,}.")
    where = ("the held-out text after the training text" if families.measured_on == "held-out"
             else "the training text itself (the corpus is no longer than it)")
    if families.long_words:
        n = families.long_words
        trained += (f" {n:,} word{'s' if n != 1 else ''} longer than {LONG_WORD} characters "
                    f"{'were' if n != 1 else 'was'} left out of the training "
                    "text (encoding by longest match makes each its unknown token, and training by pair scores takes "
                    "time that grows with the square of a word's length).")
    return (f"{trained} Tokens are counted on {where}: {families.measured_chars:,} characters, "
            f"{families.measured_words:,} words (runs of non-whitespace); tokens per word = tokens / words.")


def family_chips_html(model: Any, text: str) -> tuple[str, int]:
    """(HTML of the chips of `text` as a family's model encodes it, the number of tokens); at most MAX_CHIPS drawn."""
    shown = AnyModel.of(model)
    tokens = shown.encode_tokens(text)
    byte_level, mark = shown.byte_level, shown.mark
    vocab = shown.vocab
    chips = []
    for token in tokens[:MAX_CHIPS]:
        token_id = vocab.get(token)
        style = f' style="background:hsl({hue(token_id)},75%,86%)"' if token_id is not None else ""
        marked = mark is not None and mark.test(token)
        if marked:
            style = style[:-1] + ';outline:2px solid #333"'
        title = escape(f"{shown.title} token {token_text(token, byte_level=byte_level)!r}"
                       + (f" · id {token_id}" if token_id is not None else " · unknown")
                       + (f" · {mark.name}: {mark.note}" if marked and mark is not None else ""))
        cut = "…" if len(token) > TOKEN_CAP else ""
        kind = "bpe-chip" if token_id is not None else "bpe-chip bpe-unknown"
        chips.append(f'<span class="{kind}"{style} title="{title}">'
                     f'{token_html(token[:TOKEN_CAP], byte_level=byte_level)}{cut}</span>')
    more = (f'<span class="bpe-count">… {len(tokens) - MAX_CHIPS:,} more</span>'
            if len(tokens) > MAX_CHIPS else "")
    return f'<span class="bpe-chips">{"".join(chips)}{more}</span>', len(tokens)


def segmentation_row_html(title: str, chips: str, tokens: int, words: int) -> str:
    """One family's line: its title, the chips and the count."""
    per_word = f"{tokens / words:.2f} per word" if words else "no words"
    return (f'<div class="bpe-row"><span class="bpe-count" style="min-width:7em;text-align:left">'
            f"<b>{escape(title)}</b></span>{chips}"
            f'<span class="bpe-count">{tokens:,} tokens, {per_word}</span></div>')


def overlap_frame(found: Sequence[Overlap]) -> pd.DataFrame:
    return pd.DataFrame([{
        "Families": f"{family(o.first).title} & {family(o.second).title}",
        "Shared": o.shared,
        "Only in the first": o.only_first,
        "Only in the second": o.only_second,
        "Jaccard": round(o.jaccard, 3),
    } for o in found])


def tokens_line(tokens: Sequence[str], *, byte_level: bool) -> str:
    """Tokens as one plain-text line (for a table cell): drawn as on every page, joined by " | "."""
    return " | ".join(token_text(t, byte_level=byte_level) for t in tokens)


def nbest_frame(nbest: Sequence[tuple[list[str], float, float]]) -> pd.DataFrame:
    return pd.DataFrame([{
        "Rank": rank,
        "Segmentation": tokens_line(pieces, byte_level=False),
        "Log-probability": round(score, 3),
        "Share of the n best (%)": round(100 * share, 4),
    } for rank, (pieces, score, share) in enumerate(nbest, 1)])


def nbest_caption(found: int, asked: int) -> str:
    """What the n-best table holds: how many segmentations, and when fewer than asked, that there are no more.

    >>> nbest_caption(2, 8)[:71]
    'The 2 most probable segmentations: this vocabulary splits the word only'
    """
    share = ("Share of the n best: each one's probability over the sum of the n shown (exp of the "
             "log-probability, normalised).")
    if found == 1 < asked:
        return f"The only segmentation this vocabulary allows. {share}"
    if found < asked:
        return (f"The {found:,} most probable segmentations: this vocabulary splits the word only {found:,} ways, "
                f"so all of them are listed (up to {asked:,} are). {share}")
    return f"The {found:,} most probable segmentations. {share}"


def dropout_frame(dist: DropoutDistribution, limit: int = 8) -> pd.DataFrame:
    return pd.DataFrame([{
        "Segmentation": tokens_line(o.tokens, byte_level=True),
        "Samples": o.count,
        "Share (%)": round(100 * o.count / dist.samples, 1),
        "Without dropout": "yes" if o.deterministic else "",
    } for o in dist.outcomes[:limit]])


def family_order(families: Families) -> list[str]:
    """The names of the families that trained, in `FAMILIES` order."""
    return [f for f in FAMILIES if families.run(f).model is not None]
