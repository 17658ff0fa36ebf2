"""The training animation's frames: what happened at step t, and the player's window format. Pure.

Step t means "after t merges": step 0 is the corpus as single symbols, step t >= 1 shows merge
rank t - 1 (the t-th merge learned), the pair counts it was chosen from, and the words after it.
The window format below is every family's; each family builds its windows in
`explorer/families/<name>/player.py` (BPE's from the helpers here: word histories, passages).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bpe_core import Merge
from bpe_core.analysis import Curve, token_bytes_of
from explorer.data.training import LONG_WORD, Trained
from explorer.display.render import TOKEN_CAP, Chip, WordRow, cap_token, token_segments


@dataclass(frozen=True)
class Frame:
    step: int
    steps: int
    merge: Merge | None  # the merge made at this step (None at step 0)
    pairs: list[tuple[str, str, int]]  # highest pair counts at this step, best (chosen) first
    rows: list[WordRow]
    total_tokens: int
    tokens_per_word: float


def clamp_step(step: int, steps: int) -> int:
    return max(0, min(int(step), steps))


def word_rows(trained: Trained, step: int, *, limit: int = 16) -> list[WordRow]:
    """The most frequent words segmented after `step` merges, with the ones this merge changed."""
    tok = trained.tokenizer
    birth = tok.birth
    new_token = tok.trace[step - 1].token if step >= 1 else None
    rows = []
    for word, count in trained.top_words[:limit]:
        shown = word[:LONG_WORD]
        pieces = tok.encode_word(shown, limit=step)
        changed = step >= 1 and pieces != tok.encode_word(shown, limit=step - 1)
        chips = tuple(
            Chip(p, birth=birth.get(p), new=changed and p == new_token) for p in pieces
        )
        rows.append(WordRow(word=shown, count=count, chips=chips, changed=changed, truncated=len(word) > LONG_WORD))
    return rows


def build_frame(trained: Trained, step: int, *, words: int = 16) -> Frame:
    """Everything shown at one step, except the figures (see `charts`)."""
    steps = trained.steps
    step = clamp_step(step, steps)
    tok = trained.tokenizer
    merge = tok.trace[step - 1] if step >= 1 else None
    # At step t the chart shows the counts the t-th merge was chosen from; at step 0, the
    # counts the first merge will be chosen from.
    pairs = tok.top_pairs_at(step - 1 if step >= 1 else 0)
    return Frame(
        step=step,
        steps=steps,
        merge=merge,
        pairs=list(pairs),
        rows=word_rows(trained, step, limit=words),
        total_tokens=trained.curve.total_tokens[step],
        tokens_per_word=trained.curve.tokens_per_word[step],
    )


# ---- windows of frames for the browser-side player ------------------------------------------
#
# The player (explorer/ui/player) plays and scrubs in the browser, so the server sends the frames of
# a window of steps at once, as plain JSON, in one format for every tokenizer family (each family's
# `explorer/families/<name>/player.py` builds its windows; the player never knows the family):
#
#   {"first": step, "last": step, "tokens": [[shown, birth, mark?], ...], "frames": [frame, ...],
#    "words": [{"w": text, "n": count, "cut": bool, "h": [[step, [token, ...]], ...]}, ...]}
#
# Tokens are sent once per window in the table (`TokenTable`); everything else refers to them by
# index. A frame (every key but "t" optional):
#
#   "t"  the measure: tokens after this step;
#   "h"  the card's headline (else the labels' `title`, or `start_title` when there is no merge);
#   "m"  the merge just made: [left, right, token] or [left, right, token, count, vocabulary size];
#   "c"  chips shown in the card (say, pieces a pruning round removed); "f": facts, short plain strings;
#   "p"  bars of pair counts [[left, right, count], ...], or "b": any bars [[label, value, shown], ...]
#        where a label is a list of tokens (drawn "a  +  b") or plain text; the first is the chosen one;
#   "bt" the bars' title (else the labels'); "x": a passage of the text [start, end, [token, ...]].
#
# A word's segmentation is sent as a history: its pieces at the window's start and each step inside
# the window that changes them. The player's texts that differ by family (the scrub's label, the
# titles, the notes) come from the family's `labels`, sent with the window.

PASSAGE = 200  # characters of the corpus shown around the merge when the whole text is one "word"
PASSAGE_TRIES = 4  # occurrences of a merge's token tried before showing the first one anyway


def passage_mode(trained: Trained) -> bool:
    """True when the corpus is one "word" per text (no pre-tokenizer): show a passage, not words."""
    return not trained.curve.has_words


class TokenTable:
    """The token table of one window: each distinct token once, as [shown, birth rank, mark?].

    `shown` is the token's readable text, or a list of [kind, text] segments when part of it is
    whitespace, hex bytes or the end-of-word marker (kinds as in `render.token_segments`). `mark`
    (a short text, say "superword") is there only for a token `mark` names; the player rings it.
    """

    def __init__(self, births: Mapping[str, int], *, byte_level: bool,
                 mark: Callable[[str], str | None] | None = None) -> None:
        self.byte_level = byte_level
        self.birth = births
        self.mark = mark
        self.index: dict[str, int] = {}
        self.table: list[list] = []

    def __call__(self, token: str) -> int:
        found = self.index.get(token)
        if found is not None:
            return found
        segments = token_segments(token, byte_level=self.byte_level)
        text = "".join(shown for _, shown in segments)
        shown: str | list[list[str]]
        if len(text) > TOKEN_CAP:
            shown = cap_token(text)  # plain text, the "…(+N more)" included
        elif all(kind == "text" for kind, _ in segments):
            shown = text  # the common case, sent as a plain string
        else:
            shown = [list(s) for s in segments]
        entry: list = [shown, self.birth.get(token)]
        note = self.mark(token) if self.mark is not None else None
        if note:
            entry.append(note)
        self.index[token] = len(self.table)
        self.table.append(entry)
        return self.index[token]

    def ids(self, tokens: Iterable[str]) -> list[int]:
        return [self(t) for t in tokens]


def history_window(history: Sequence[tuple[int, Sequence[str]]], first: int, last: int) -> list[tuple[int, list[str]]]:
    """A whole history [(step, pieces), ...] cut to steps `first`..`last`: the pieces held at
    `first`, then each change inside; an entry equal to the one before is left out.

    >>> history_window([(0, "abc"), (2, ["ab", "c"]), (5, ["abc"])], 3, 9)
    [(3, ['ab', 'c']), (5, ['abc'])]
    """
    out: list[tuple[int, list[str]]] = []
    for step, pieces in history:
        if step > last:
            break
        if step <= first or not out:
            out = [(first, list(pieces))]
        elif list(pieces) != out[-1][1]:
            out.append((step, list(pieces)))
    return out


def curve_words(curve: Curve) -> int:
    """How many words a curve's "tokens per word" divides by (0 when it has no words)."""
    if not curve.has_words or not curve.tokens_per_word or not curve.tokens_per_word[0]:
        return 0
    return round(curve.total_tokens[0] / curve.tokens_per_word[0])


def word_history(trained: Trained, word: str, first: int, last: int) -> list[list]:
    """A word's pieces from step `first` to `last`: [[step, pieces], ...], one entry a change.

    The first entry is the word after `first` merges; each later one starts at the step whose
    merge changed the word.
    """
    tok = trained.tokenizer
    fired = tok.merge_steps(word, limit=last)
    ranks = [s.rank for s in fired]
    if any(a > b for a, b in zip(ranks, ranks[1:])):
        # Not a trained merge list (ranks out of order): encode at each change point instead.
        points = sorted({first, *(r + 1 for r in ranks if first < r + 1 <= last)})
        return [[t, tok.encode_word(word, limit=t)] for t in points]
    pieces: tuple[str, ...] = tuple(tok.initial_symbols(word))
    out: list[list] = []
    for s in fired:
        step = s.rank + 1  # the merge of rank r is made at step r + 1
        if step <= first:
            pieces = s.pieces
            continue
        if not out:
            out.append([first, list(pieces)])
        if out[-1][0] == step:
            out[-1][1] = list(s.pieces)
        else:
            out.append([step, list(s.pieces)])
    if not out:
        out.append([first, list(pieces)])
    return out


def _passage_texts(trained: Trained) -> list[str]:
    return [text for text, _ in trained.top_words]


def passage_at(trained: Trained, step: int, *, width: int = PASSAGE) -> tuple[int, int, list[str]] | None:
    """Where merge `step` applies: (start, end, pieces) of about `width` characters of the corpus.

    The passage is cut around an occurrence of the merge's new token and encoded on its own
    with the first `step` merges; an occurrence where the merge does fire is preferred.
    """
    texts = _passage_texts(trained)
    if not texts:
        return None
    tok = trained.tokenizer
    first_text = texts[0]
    if step < 1:
        end = min(len(first_text), width)
        return 0, end, tok.encode_word(first_text[:end], limit=0)
    merge = tok.trace[step - 1]
    needle = merge.token
    if trained.byte_level:
        needle = token_bytes_of(tok, merge.token).decode("utf-8", errors="ignore")
    fallback = None
    tries = 0
    offset = 0
    for text in texts:
        at = text.find(needle) if needle else -1
        while at >= 0 and tries < PASSAGE_TRIES:
            tries += 1
            start = max(0, at + len(needle) // 2 - width // 2)
            end = min(len(text), start + max(width, len(needle)))
            pieces = tok.encode_word(text[start:end], limit=step)
            found = (offset + start, offset + end, pieces)
            if merge.token in pieces:
                return found
            fallback = fallback or found
            at = text.find(needle, at + 1)
        if tries >= PASSAGE_TRIES:
            break
        offset += len(text)
    if fallback is None:
        end = min(len(first_text), width)
        fallback = (0, end, tok.encode_word(first_text[:end], limit=step))
    return fallback


def merge_labels(steps: int) -> dict[str, str]:
    """The player's texts for a training made of merges (steps 0 to `steps`); a family adds its own.

    `{step}` in a text is the step shown, `{s}` an "s" unless it is 1 (the player fills them in).
    """
    return {
        "scrub": f"Merge step (0 to {steps:,}): drag, or use the arrow keys, Home and End",
        "back": "One merge back",
        "forward": "One merge forward",
        "title": f"Step {{step}} of {steps:,}: the merge just made",
        "start_title": f"Step 0 of {steps:,}: before any merge",
        "first_merge": " The first merge will be {pair} ({value} times).",
        "rows": "The corpus's most frequent words after {step} merge{s} (● marks a word this merge changed)",
        "changed": "changed by this merge",
        "bars": "Highest pair counts at this step (red: merged)",
        "start_bars": "Highest pair counts (red: merged next)",
        "no_bars": "No pair is left to count.",
        "tokens": "Tokens in the corpus",
        "base": "base symbol",
    }



def nothing_learned(name: str, reason: str) -> str:
    """Why a family's training has nothing to animate, as a sentence."""
    why = reason or "the settings leave nothing to learn"
    return f"{name} learned nothing to animate here: {why}. Try a larger vocabulary size or another corpus."
