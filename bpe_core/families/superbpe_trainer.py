"""SuperBPE's fast trainer: phase one is the engine's incremental trainer on phase-one words;
phase two builds the same pair index over the phase-two pieces as the phase-one merges leave
them (`_replayed`), and goes on merging with the fork's two rules (`superbpe.phase_two_allows`),
which a pair's entry in the engine's queue (`trainer._PairQueue`) checks before it is pushed.

One merge list comes out: phase one's merges, then phase two's, ranked in that order.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..collector import collector_paused
from ..encoder import RankTable, encode_ranked
from ..pair_index import MASK, SHIFT, PairIndex
from ..settings import BPEError, Settings
from ..trainer import Progress, _PairQueue, train_counts
from .superbpe import COLON_SPACE, SPACE, is_superword, word_cut, words_in

_BASE_SIZE = 256  # every byte is a base symbol


@dataclass(frozen=True)
class SuperBPEStep:
    """One merge: `left` + `right` -> `token`, made when the pair occurred `count` times.

    `rank` counts from 0 (step rank + 1 to a person); `phase` is 1 (subwords) or 2 (superwords);
    `total_tokens` is the corpus's token count after the merge, as that phase splits the corpus.
    """

    rank: int
    left: str
    right: str
    token: str
    count: int
    vocab_size: int
    phase: int
    superword: bool
    total_tokens: int


@dataclass
class SuperBPETraining:
    """Both phases' record: the trace, the runners-up of each step and why each phase stopped."""

    base: list[str]
    trace: list[SuperBPEStep]
    top_pairs: list[list[tuple[str, str, int]]]
    transition: int  # merges made in phase one; phase two's first merge has this rank
    phase_one_stop: str
    stop_reason: str
    phase_one_initial_tokens: int
    phase_two_initial_tokens: int  # the phase-two pieces after phase one's merges (0: no phase two)
    stats: dict[str, float] = field(default_factory=dict)


class _RuledQueue(_PairQueue):
    """The engine's pair queue, where a pair whose token phase two's rules forbid never gets an
    entry. The rules are checked on each symbol's summary, not on the joined string: the words
    of `left + right` are the words of each, less one when a word runs across the join."""

    def __init__(self, index: PairIndex, tokens: list[str], tie_break: str, max_length: int | None,
                 *, max_words: int | None, colon_rule: bool) -> None:
        self.most = max_words if max_words is not None else 1 << 62
        self.colon = colon_rule
        # (words, holds ":Ġ", ends with ":", starts with "Ġ", ends with another symbol, starts with one)
        self.summary = [_summary(token) for token in tokens]
        super().__init__(index, tokens, tie_break, max_length)

    def add_symbol(self, token: str, symbol: int) -> None:
        super().add_symbol(token, symbol)
        self.summary.append(_summary(token))

    def fitting(self, keys: list[int]) -> list[int]:
        summary, most, colon = self.summary, self.most, self.colon
        out = []
        for key in super().fitting(keys):
            left_words, left_colon, left_ends_colon, _, left_ends_text, _ = summary[key >> SHIFT]
            right_words, right_colon, _, right_starts_space, _, right_starts_text = summary[key & MASK]
            if left_words + right_words - (left_ends_text and right_starts_text) > most:
                continue
            if colon and (left_colon or right_colon or (left_ends_colon and right_starts_space)):
                continue
            out.append(key)
        return out


def _summary(token: str) -> tuple[int, bool, bool, bool, bool, bool]:
    return (
        words_in(token), COLON_SPACE in token, token.endswith(":"), token.startswith(SPACE),
        not token.endswith(SPACE), not token.startswith(SPACE),
    )


def check_targets(vocab_size: object, transition: object, base_size: int) -> tuple[int, int]:
    """(vocabulary size, transition) checked: base <= transition <= vocabulary size."""
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < base_size:
        raise BPEError(
            f"the vocabulary size must be a whole number of at least {base_size} (the bytes), not {vocab_size!r}"
        )
    if transition is None:
        transition = max(base_size, vocab_size * 9 // 10)  # the paper's best: t = 180k of 200k
    if isinstance(transition, bool) or not isinstance(transition, int) or not base_size <= transition <= vocab_size:
        raise BPEError(
            f"the transition must be a whole number from {base_size} to the vocabulary size ({vocab_size:,}), "
            f"not {transition!r}"
        )
    return vocab_size, transition


def train_phases(
    phase_one: Mapping[str, int],
    phase_two: Mapping[str, int],
    settings: Settings,
    *,
    vocab_size: int,
    transition: int,
    top_k: int = 10,
    max_token_length: int | None,
    max_words: int | None,
    colon_rule: bool,
    progress: Progress | None = None,
) -> SuperBPETraining:
    """Both phases on checked word counts (byte symbols); see `train_superbpe`.

    `progress(done, total)` hears of the merges made, both phases counted together."""
    total = vocab_size - _BASE_SIZE
    with collector_paused():
        started = time.perf_counter()
        one = train_counts(
            phase_one, settings, vocab_size=transition, top_k=top_k, max_token_length=max_token_length,
            progress=None if progress is None else (lambda done, _: progress(done, total)),
        )
        middle = time.perf_counter()
        base = one.base
        trace = [
            SuperBPEStep(m.rank, m.left, m.right, m.token, m.count, m.vocab_size, 1, False, m.total_tokens)
            for m in one.trace
        ]
        wanted = vocab_size - len(base) - len(trace)
        two = _phase_two(
            phase_two, settings, base, trace, wanted=wanted, top_k=top_k, max_token_length=max_token_length,
            progress=progress, max_words=max_words, colon_rule=colon_rule,
        )
        ended = time.perf_counter()
    return SuperBPETraining(
        base=base,
        trace=trace + two.steps,
        top_pairs=one.top_pairs + two.top_pairs,
        transition=len(one.trace),
        phase_one_stop=one.stop_reason,
        stop_reason=two.stop_reason,
        phase_one_initial_tokens=one.initial_tokens,
        phase_two_initial_tokens=two.initial_tokens,
        stats={"phase_one_seconds": middle - started, "phase_two_seconds": ended - middle},
    )


@dataclass
class _PhaseTwo:
    steps: list[SuperBPEStep]
    top_pairs: list[list[tuple[str, str, int]]]
    stop_reason: str
    initial_tokens: int


def _phase_two(
    word_counts: Mapping[str, int],
    settings: Settings,
    base: list[str],
    earlier: list[SuperBPEStep],
    *,
    wanted: int,
    top_k: int,
    max_token_length: int | None,
    max_words: int | None,
    colon_rule: bool,
    progress: Progress | None,
) -> _PhaseTwo:
    tokens = list(base)
    ids = {s: i for i, s in enumerate(base)}
    for step in earlier:
        if step.token not in ids:
            ids[step.token] = len(tokens)
            tokens.append(step.token)
    if wanted <= 0:  # the transition is the vocabulary size: plain BPE, no phase two to prepare
        return _PhaseTwo([], [], "phase one reached the vocabulary size: no phase two", 0)
    sym, lengths, weights = _replayed(word_counts, earlier, ids)
    index = PairIndex(sym, lengths, weights, len(tokens))
    del sym  # the index keeps its own copy (a long text's as an array)
    queue = _RuledQueue(index, tokens, settings.tie_break, max_token_length, max_words=max_words, colon_rule=colon_rule)
    initial = index.total
    steps: list[SuperBPEStep] = []
    top_pairs: list[list[tuple[str, str, int]]] = []
    stop = "reached the requested vocabulary size"
    rank = len(earlier)
    while len(steps) < wanted:
        best = queue.pop()
        if best is None:
            stop = "no pair is left that phase two may merge"
            break
        count = -best[0]
        if count < settings.min_frequency:
            stop = f"no pair occurs at least {settings.min_frequency} times"
            break
        key = best[-1]
        shown = [best, *queue.peek(top_k - 1, besides=key)]
        top_pairs.append([(tokens[e[-1] >> SHIFT], tokens[e[-1] & MASK], -e[0]) for e in shown])
        a, b = key >> SHIFT, key & MASK
        merged = tokens[a] + tokens[b]
        new = ids.get(merged, len(tokens))
        if new == len(tokens):
            tokens.append(merged)
            ids[merged] = new
            queue.add_symbol(merged, new)
        queue.push_all(index.merge(key, new))
        steps.append(SuperBPEStep(
            rank, tokens[a], tokens[b], merged, count, len(tokens), 2, is_superword(merged), index.total,
        ))
        rank += 1
        if progress is not None and (len(steps) % 100 == 0 or len(steps) == wanted):
            progress(rank, rank - len(steps) + wanted)
    return _PhaseTwo(steps, top_pairs, stop, initial)


def _replayed(
    word_counts: Mapping[str, int], earlier: list[SuperBPEStep], ids: dict[str, int]
) -> tuple[list[int], list[int], list[int]]:
    """The phase-two pieces as symbol ids after phase one's merges, replayed in order on them as
    the authors' fork inherits them: (ids laid end to end, each piece's length, its count).

    Replaying on every piece would cost what training on the undeduplicated text costs: the
    pieces are phrases, mostly distinct. But no merge can join a symbol x to a whitespace symbol
    w after it unless some phase-one token holds x followed by w, so the pieces are cut between
    every other such x and w (x not whitespace); the parts (mostly words) repeat, and
    replaying on the distinct parts gives exactly the same symbols, since no occurrence of a
    merged pair straddles a cut.
    """
    made = [step.token for step in earlier]
    cut = word_cut(made)
    parts: dict[str, int] = {}
    split_words = [cut.split(word) if made else [word] for word in word_counts]
    for pieces in split_words:
        for part in pieces:
            parts.setdefault(part, len(parts))
    part_list = list(parts)
    if len(set(made)) == len(made):
        # Each token made once: merging by rank (the lowest-ranked pair first, the leftmost of
        # equals) replays the merges in order, since a pair a merge makes ranks after it.
        table = RankTable({(step.left, step.right): step.rank for step in reversed(earlier)})
        done = [list(map(ids.__getitem__, encode_ranked(part, table))) for part in part_list]
    else:
        done = _replay_in_index(part_list, earlier, ids)
    sym: list[int] = []
    lengths: list[int] = []
    for pieces in split_words:
        n = len(sym)
        for part in pieces:
            sym.extend(done[parts[part]])
        lengths.append(len(sym) - n)
    return sym, lengths, list(word_counts.values())


def _replay_in_index(parts: list[str], earlier: list[SuperBPEStep], ids: dict[str, int]) -> list[list[int]]:
    """Each part's symbols after replaying the merges in the pair index training uses: exact
    even when two merges spell the same token, where merging by rank may not replay them."""
    index = PairIndex([ids[c] for part in parts for c in part], list(map(len, parts)), [1] * len(parts), len(ids))
    counts = index.counts
    for step in earlier:
        key = ids[step.left] << SHIFT | ids[step.right]
        if key in counts:
            index.merge(key, ids[step.token])
    done: list[list[int]] = []
    live = index.sym
    start = 0
    for part in parts:
        end = start + len(part)
        done.append([s for s in live[start:end] if s != -1])
        start = end
    return done
