"""Data -> pandas DataFrames for `st.dataframe`. Pure: no Streamlit here.

A person reads steps: step k is the k-th merge, counted from 1 (a merge's `rank` is k - 1).

Tokens are shown with visible whitespace (`render.token_text`); dataframes show text as text, so
no HTML escaping is needed (or wanted) here.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bpe_core import Merge, MergeStep, Tokenizer
from bpe_core.analysis import Mismatch, TryIt
from explorer.data.any_model import AnyModel
from explorer.display.render import token_text

if TYPE_CHECKING:  # imported where a table or a chart is made: a worker that only tokenizes makes none
    import pandas as pd

EMPTY = "—"  # what a table shows where a value is unknown (`st.dataframe(placeholder=EMPTY)`; else "None")


def merges_table(trace: Sequence[Merge], *, byte_level: bool = False) -> pd.DataFrame:
    """Every merge of a training run, in order."""
    import pandas as pd

    return pd.DataFrame(
        {
            "step": [m.rank + 1 for m in trace],
            "left": [token_text(m.left, byte_level=byte_level) for m in trace],
            "right": [token_text(m.right, byte_level=byte_level) for m in trace],
            "new token": [token_text(m.token, byte_level=byte_level) for m in trace],
            "count": [m.count for m in trace],
            "vocabulary": [m.vocab_size for m in trace],
            "corpus tokens": [m.total_tokens for m in trace],
            "multi-token words": [m.multi_token_words for m in trace],
        }
    )


def built_table(steps: Sequence[MergeStep], tokenizer: Tokenizer, *, counts: dict[int, int] | None = None,
                phase_one: int | None = None) -> pd.DataFrame:
    """How a word was built: the merges that fired on it, in order, with their training counts.

    `counts`: rank -> count when the tokenizer's own trace lacks them (a family's merge view, whose
    model keeps the trace); `phase_one`: how many merges are phase one, adding a phase column.
    """
    import pandas as pd

    byte_level = tokenizer.settings.mode == "bytes"
    trace = tokenizer.trace

    def count(rank: int) -> int | None:
        if counts is not None:
            return counts.get(rank)
        return trace[rank].count if rank < len(trace) else None

    columns: dict[str, object] = {
        "order": list(range(1, len(steps) + 1)),
        "step": [s.rank + 1 for s in steps],  # the training step that learned this merge
        "merge": [
            f"{token_text(s.left, byte_level=byte_level)} + {token_text(s.right, byte_level=byte_level)}"
            for s in steps
        ],
        "training count": pd.Series([count(s.rank) for s in steps], dtype="Int64"),
        "pieces after": [" ".join(token_text(p, byte_level=byte_level) for p in s.pieces) for s in steps],
    }
    if phase_one is not None:
        columns["phase"] = [
            "1 (within words)" if s.rank < phase_one else "2 (across spaces)" for s in steps
        ]
    return pd.DataFrame(columns)


def word_counts_table(words: Sequence[tuple[str, int]]) -> pd.DataFrame:
    """Words and how often they occur."""
    import pandas as pd

    return pd.DataFrame({"word": [token_text(w) for w, _ in words], "count": [n for _, n in words]})


def comparison_table(
    rows: Sequence[tuple[str, Sequence[str], Sequence[str]]], *, right: str, wrong: str, same: bool = True
) -> pd.DataFrame:
    """Words segmented the right way and a wrong way, side by side (and whether they agree)."""
    import pandas as pd

    data = {
        "word": [w for w, _, _ in rows],
        right: [" ".join(token_text(p) for p in a) for _, a, _ in rows],
        wrong: [" ".join(token_text(p) for p in b) for _, _, b in rows],
    }
    if same:
        data["same?"] = ["yes" if list(a) == list(b) else "NO" for _, a, b in rows]
    return pd.DataFrame(data)


def pieces_text(tokens: Sequence[str], *, byte_level: bool = False) -> str:
    """Tokens as one readable string: `lo we st</w>`."""
    return " ".join(token_text(t, byte_level=byte_level) for t in tokens)


def lesson_merges_table(trace: Sequence[Merge]) -> pd.DataFrame:
    """A lesson's merges as its printout shows them: merge number, pair, new token, count."""
    import pandas as pd

    return pd.DataFrame(
        {
            "merge": [m.rank + 1 for m in trace],
            "pair": [f"{token_text(m.left)} + {token_text(m.right)}" for m in trace],
            "new token": [token_text(m.token) for m in trace],
            "seen": [m.count for m in trace],
        }
    )


def expected_table(got: dict[str, list[str]], expected: dict[str, list[str]]) -> pd.DataFrame:
    """Words as the engine splits them next to how the lesson says they split."""
    import pandas as pd

    return pd.DataFrame(
        {
            "word": list(expected),
            "engine": [pieces_text(got.get(w, [])) for w in expected],
            "lesson": [pieces_text(p) for p in expected.values()],
        }
    )


def try_it_table(tried: TryIt) -> pd.DataFrame:
    """The merges with the extra words, and how each moved against the original run."""
    import pandas as pd

    before = [t for t, _ in tried.before]
    rows = []
    for i, (token, count) in enumerate(tried.after):
        was = before.index(token) + 1 if token in before else None
        change = "new" if was is None else ("" if was == i + 1 else f"was step {was}")
        rows.append({"step": i + 1, "new token": token_text(token), "seen": count, "change": change})
    return pd.DataFrame(rows, columns=["step", "new token", "seen", "change"])


def added_tokens_table(trace: Sequence[Merge]) -> pd.DataFrame:
    """The "like, love, hug" lesson's printout: the vocabulary size after each merge and the token added, quoted."""
    import pandas as pd

    return pd.DataFrame({"vocab size": [m.vocab_size for m in trace], "added": [f'"{m.token}"' for m in trace]})


def round_trip_table(tokenizer: Tokenizer, texts: Sequence[str]) -> pd.DataFrame:
    """Each text encoded (tokens and ids) and decoded back."""
    import pandas as pd

    rows = []
    for text in texts:
        enc = tokenizer.encode(text)
        rows.append(
            {
                "input": text,
                "tokens": pieces_text(enc.tokens, byte_level=tokenizer.settings.mode == "bytes"),
                "ids": " ".join(map(str, enc.ids)),
                "decoded": tokenizer.decode(enc.ids),
            }
        )
    return pd.DataFrame(rows, columns=["input", "tokens", "ids", "decoded"])


def fertility_table(result: Mismatch) -> pd.DataFrame:
    """Tokens per word, one row per training text, one column per encoded text."""
    import pandas as pd

    return pd.DataFrame(
        [[f"{v:.2f}" for v in row] for row in result.fertility],
        index=[f"trained on {t}" for t in result.trained_on],
        columns=[f"encoding {e}: tokens per word" for e in result.encoded],
    )


def special_tokens_table(model: AnyModel) -> pd.DataFrame:
    """A tokenizer's added and special tokens: id, the token as its text (whitespace visible), its options."""
    import pandas as pd

    tokens = model.added_tokens
    return pd.DataFrame({
        "id": [t.id for t in tokens],
        "token": [token_text(t.content) for t in tokens],
        "special": [t.special for t in tokens],
        "matched in": ["normalized text" if t.normalized else "raw text" for t in tokens],
        "whole word only": [t.single_word for t in tokens],
        "takes spaces beside it": [", ".join(side for side, on in (("left", t.lstrip), ("right", t.rstrip)) if on)
                                   or EMPTY for t in tokens],
    })
