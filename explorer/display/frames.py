"""One frame of the training animation: what happened at step t. Pure: no Streamlit here.

Step t means "after t merges": step 0 is the corpus as single symbols, step t >= 1 shows merge
rank t - 1 (the t-th merge learned), the pair counts it was chosen from, and the words after it.
"""
from __future__ import annotations

from dataclasses import dataclass

from bpe_core import Merge
from bpe_core.analysis import token_bytes_of
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
# a window of steps at once, as plain JSON. Tokens are sent once per window in a table (their
# display segments, already made readable and capped, and the rank of the merge that made them);
# frames refer to them by index. A word's segmentation is sent as a history: its pieces at the
# window's start and each step inside the window that changes them, which one pass of the word's
# merges gives (`Tokenizer.merge_steps`), instead of encoding every word at every step.

PASSAGE = 200  # characters of the corpus shown around the merge when the whole text is one "word"
PASSAGE_TRIES = 4  # occurrences of a merge's token tried before showing the first one anyway


def passage_mode(trained: Trained) -> bool:
    """True when the corpus is one "word" per text (no pre-tokenizer): show a passage, not words."""
    return not trained.curve.has_words


class _Tokens:
    """The token table of one window: each distinct token once, as [shown, birth rank].

    `shown` is the token's readable text, or a list of [kind, text] segments when part of it is
    whitespace, hex bytes or the end-of-word marker (kinds as in `render.token_segments`).
    """

    def __init__(self, trained: Trained) -> None:
        self.byte_level = trained.byte_level
        self.birth = trained.tokenizer.birth
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
        self.index[token] = len(self.table)
        self.table.append([shown, self.birth.get(token)])
        return self.index[token]


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


def frame_window(trained: Trained, first: int, last: int, *, words: int = 14) -> dict:
    """The frames of steps `first`..`last` (clamped) as JSON-ready data for the player."""
    tok = trained.tokenizer
    steps = trained.steps
    first, last = clamp_step(first, steps), clamp_step(last, steps)
    last = max(first, last)
    tokens = _Tokens(trained)
    known = tokens.index

    def tid(token: str) -> int:  # the table's index of a token; most are known already
        found = known.get(token)
        return tokens(token) if found is None else found

    trace = tok.trace
    totals = trained.curve.total_tokens
    frames = []
    passage = passage_mode(trained)
    for step in range(first, last + 1):
        merge = None
        if step >= 1:
            m = trace[step - 1]
            merge = [tid(m.left), tid(m.right), tid(m.token), m.count, m.vocab_size]
        pairs = tok.top_pairs_at(step - 1 if step >= 1 else 0)
        frame: dict = {"m": merge, "p": [[tid(a), tid(b), n] for a, b, n in pairs], "t": totals[step]}
        if passage:
            found = passage_at(trained, step)
            if found is not None:
                start, end, pieces = found
                frame["x"] = [start, end, [tokens(p) for p in pieces]]
        frames.append(frame)
    rows = []
    if not passage:
        base = max(0, first - 1)  # one step before, so that "changed at `first`" is known
        for word, count in trained.top_words[:words]:
            shown = word[:LONG_WORD]
            history = word_history(trained, shown, base, last)
            rows.append({"w": cap_token(shown), "n": count, "cut": len(word) > LONG_WORD,
                         "h": [[t, [tokens(p) for p in pieces]] for t, pieces in history]})
    return {"first": first, "last": last, "tokens": tokens.table, "frames": frames, "words": rows}
