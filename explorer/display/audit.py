"""The Token audit page's pieces: minimal vs BPE and under-trained token candidates, drawn. Pure.

The analyses are `bpe_core.analysis.minimal` and `bpe_core.analysis.undertrained`; `audit` runs
both for one tokenizer and one reference corpus and keeps the results the page draws. Chips are
`render`'s, escaped; tables hold tokens as plain text (dataframes show text as text).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from bpe_core import Tokenizer
from bpe_core.analysis import (
    MinimalReport,
    RareToken,
    Unreachable,
    WordSplit,
    minimal_vs_bpe,
    rare_tokens,
    token_counts,
    token_text,
    unreachable_tokens,
    visible_whitespace,
)
from bpe_core.analysis.undertrained import INSIDE, MERGES, NORMALIZED, PARTIAL, PRETOKENIZER, WHOLE
from bpe_core.report import inside_counts
from explorer.data.tasks import Task, heavy_lane, resolve_model
from explorer.display.compare import is_byte_level
from explorer.display.render import Chip, cap_token, chips_html, escape

MAX_EXAMPLES = 50  # example words drawn with chips
MAX_ROWS = 2_000  # rows a candidates table shows; the caption says how many more matched
KINDS = {
    PRETOKENIZER: "pre-tokenizer cuts it",
    MERGES: "merges stop short",
    NORMALIZED: "normalization changes it",
    PARTIAL: "partial UTF-8, merges stop short",
    INSIDE: "merges stop short inside words",
    WHOLE: "only as a whole piece",
}
# Shown whitespace back to the character it stands for, so `·the` finds " the".
_SHOWN_WHITESPACE = str.maketrans({"·": " ", "↵": "\n", "→": "\t", "␍": "\r"})


@dataclass(frozen=True)
class Audit:
    """Both analyses of one tokenizer against one reference corpus."""

    minimal: MinimalReport
    rare: tuple[RareToken, ...]
    unreachable: tuple[Unreachable, ...]
    threshold: int
    corpus_bytes: int  # of the reference text audited
    inside: dict[str, int]  # per merged token: times made on the corpus and consumed by a later merge


def audit(tok: Tokenizer, text: str, *, threshold: int = 0) -> Audit:
    """Minimal vs BPE over `text`'s words, tokens `text` produces at most `threshold` times, unreachable
    tokens, and how often each merged token is made only to be merged again (`bpe_core.report.residue`)."""
    emitted = {tok.id_to_token[i]: n for i, n in token_counts(tok, text).items()}
    return Audit(
        minimal=minimal_vs_bpe(tok, text),
        rare=rare_tokens(tok, text, threshold=threshold),
        unreachable=unreachable_tokens(tok),
        threshold=threshold,
        corpus_bytes=len(text.encode("utf-8", errors="surrogatepass")),
        inside=dict(inside_counts(tok.merges, emitted)),
    )


def audit_task(ref: tuple[str, object], text: str, *, threshold: int, label: str) -> Task:
    """`audit` as a worker's task (`explorer.data.tasks`): the long lane for a large reference text."""
    nbytes = len(text.encode("utf-8", errors="surrogatepass"))
    return Task("explorer.display.audit:audit_in_worker", (ref, threshold), [text], lane=heavy_lane(nbytes),
                noun="audit", title=f"auditing {label}", what=f"auditing {label}",
                hint="try a smaller part of the corpus")


def audit_in_worker(texts: list[str], payload: tuple, report: object) -> Audit:
    ref, threshold = payload
    return audit(resolve_model(ref), texts[0], threshold=threshold)  # type: ignore[arg-type]


def _share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "0%"


def summary(report: MinimalReport) -> dict[str, tuple[str, str]]:
    """Metric label -> (value, help) for the minimal-vs-BPE summary."""
    return {
        "Words examined": (f"{report.words:,}", f"distinct words (pre-tokens), {report.occurrences:,} occurrences"),
        "Split more than needed": (
            f"{report.affected_words:,}",
            f"{_share(report.affected_words, report.words)} of the distinct words; "
            f"{report.affected_occurrences:,} occurrences ({_share(report.affected_occurrences, report.occurrences)})"),
        "Extra tokens": (f"{report.extra_tokens:,}",
                         f"BPE's {report.bpe_tokens:,} tokens against {report.minimal_tokens:,} at the minimum"),
        "Extra share": (_share(report.extra_tokens, report.bpe_tokens), "extra tokens over BPE's tokens"),
    }


def caps_text(report: MinimalReport) -> str:
    """What the minimal-vs-BPE count left out, in plain words ("" when nothing was)."""
    parts = []
    if report.long_words:
        parts.append(f"{report.long_words:,} distinct words longer than {report.max_symbols} symbols "
                     f"({report.long_occurrences:,} occurrences)")
    if report.rare_words:
        parts.append(f"{report.rare_words:,} distinct words beyond the {report.max_words:,} most frequent "
                     f"({report.rare_occurrences:,} occurrences)")
    return ("Not examined: " + "; ".join(parts) + ".") if parts else ""


def _chips(tok: Tokenizer, tokens: Sequence[str]) -> str:
    vocab, birth = tok.vocab, tok.birth
    chips = [Chip(t, token_id=vocab.get(t), birth=birth.get(t), unknown=t not in vocab) for t in tokens]
    return chips_html(chips, byte_level=is_byte_level(tok), show_id=True)


def examples_html(tok: Tokenizer, examples: Sequence[WordSplit], *, limit: int = MAX_EXAMPLES) -> str:
    """Example words as a table: the word, its count, BPE's tokens and a shortest cut as chips."""
    rows = []
    for ex in examples[:limit]:
        word = escape(cap_token(visible_whitespace(ex.word)))
        rows.append(
            f"<tr><td class='aud-word'>{word}</td><td class='aud-num'>×{ex.count:,}</td>"
            f"<td>{_chips(tok, ex.bpe)} <span class='aud-n'>{len(ex.bpe)}</span></td>"
            f"<td>{_chips(tok, ex.minimal)} <span class='aud-n'>{len(ex.minimal)}</span></td></tr>"
        )
    if not rows:
        return "<p><em>BPE cuts every examined word into as few tokens as the vocabulary allows.</em></p>"
    head = "<tr><th>word</th><th>count</th><th>BPE's tokens</th><th>fewest tokens</th></tr>"
    return f"<table class='aud-table'>{head}{''.join(rows)}</table>"


CSS = """
<style>
.aud-table { border-collapse: collapse; width: 100%; }
.aud-table th { text-align: left; font-weight: 600; color: #444; padding: 4px 8px; border-bottom: 1px solid #ddd; }
.aud-table td { padding: 4px 8px; border-bottom: 1px solid #f0f0f0; vertical-align: middle; }
.aud-word { font-family: "Source Code Pro", ui-monospace, monospace; white-space: pre; }
.aud-num, .aud-n { color: #666; font-size: 0.85em; font-variant-numeric: tabular-nums; }
</style>
"""


def _shown(tok: Tokenizer, token: str) -> str:
    return cap_token(token_text(token, byte_level=is_byte_level(tok)))


def _matches(tok: Tokenizer, token: str, query: str) -> bool:
    """Whether the token's shown text or its spelling contains the query (case-insensitive; `·` is a space)."""
    q = query.translate(_SHOWN_WHITESPACE).casefold()
    shown = token_text(token, byte_level=is_byte_level(tok)).translate(_SHOWN_WHITESPACE)
    return q in shown.casefold() or q in token.casefold()


def search_rare(tok: Tokenizer, rows: Sequence[RareToken], query: str) -> list[RareToken]:
    return [r for r in rows if _matches(tok, r.token, query)] if query else list(rows)


def search_unreachable(tok: Tokenizer, rows: Sequence[Unreachable], query: str) -> list[Unreachable]:
    return [r for r in rows if _matches(tok, r.token, query) or query.casefold() in r.reason.casefold()] \
        if query else list(rows)


def rare_frame(tok: Tokenizer, rows: Sequence[RareToken], inside: Mapping[str, int] | None = None, *,
               limit: int = MAX_ROWS) -> pd.DataFrame:
    """The rare tokens: id, token, times produced, and times made inside longer tokens (an intermediate
    token, made only to be merged again, is rare as output yet made often)."""
    shown = rows[:limit]
    made = inside or {}
    return pd.DataFrame({
        "id": pd.Series([r.token_id for r in shown], dtype="int64"),
        "token": [_shown(tok, r.token) for r in shown],
        "times produced": pd.Series([r.count for r in shown], dtype="int64"),
        "made inside longer tokens": pd.Series([made.get(r.token, 0) for r in shown], dtype="int64"),
    })


def unreachable_frame(tok: Tokenizer, rows: Sequence[Unreachable], *, limit: int = MAX_ROWS) -> pd.DataFrame:
    shown = rows[:limit]
    return pd.DataFrame({
        "id": pd.Series([r.token_id for r in shown], dtype="int64"),
        "token": [_shown(tok, r.token) for r in shown],
        "kind": [KINDS.get(r.kind, r.kind) for r in shown],
        "why": [r.reason for r in shown],
    })


def table_caption(what: str, shown: int, matched: int, total: int, query: str) -> str:
    """How many rows a capped, searched table shows (plain text: `query` is the user's).

    >>> table_caption("tokens", 2_000, 5_000, 9_000, "")
    'The first 2,000 of 9,000 tokens.'
    >>> table_caption("tokens", 3, 3, 9_000, "th")
    "3 of 9,000 tokens contain 'th'."
    """
    if query:
        head = f"{matched:,} of {total:,} {what} contain {query!r}"
        return head + (f"; the first {shown:,} are shown." if shown < matched else ".")
    return f"The first {shown:,} of {total:,} {what}." if shown < total else f"All {total:,} {what}."
