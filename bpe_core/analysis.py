"""What the explorer's Compare and Vocabulary pages show: cut points, token display, usage, life stories.

Conventions used throughout:

* A *cut* is a character offset in the input text where one token ends or another starts.
  Byte-level tokens can split a multi-byte character; such a cut counts at that character's
  start offset (the engine's spans already give both halves the whole character), and the
  characters split this way are reported apart, so "cut before 日" and "cut inside 日" differ.
* *Usage* is how often a token appears when each distinct corpus word is encoded with all
  merges, weighted by the word's count: the token's life after training.
* An animation *step* t is the state after t merges, so a token made by the merge of rank r
  first appears at step r + 1.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .encoder import encode_ranked, merge_steps
from .hierarchy import MergeNode, merge_tree
from .model import Encoding, Tokenizer
from .pretokenize import char_to_byte
from .settings import BPEError

# Words with more symbols than this are encoded once per curve point (the engine's heap encoder);
# shorter ones are stepped through once, which is quadratic in their length but runs only once.
_STEP_ONCE_MAX = 64
_MAX_DROPOUT_SAMPLES = 100_000
_SHOWN_WHITESPACE = {" ": "·", "\n": "↵", "\t": "→", "\r": "␍"}


# ---- comparing segmentations ----------------------------------------------------------------


def boundaries(encoding: Encoding) -> set[int]:
    """Character offsets where tokens start or end; a cut inside a character counts at its start.

    >>> boundaries(Encoding(["lo", "w"], [0, 1], [(0, 2), (2, 3)]))
    {0, 2, 3}
    """
    cuts: set[int] = set()
    prev_end: int | None = None
    for start, end in encoding.spans:
        # Spans overlap only where byte-level tokens share a split character; its end is no cut.
        if prev_end is not None and start >= prev_end:
            cuts.add(prev_end)
        cuts.add(start)
        prev_end = end
    if prev_end is not None:
        cuts.add(prev_end)
    return cuts


def split_characters(encoding: Encoding) -> set[int]:
    """Offsets of the characters that byte-level tokens cut inside (neighbouring spans overlap)."""
    out: set[int] = set()
    for (_, prev_end), (start, _) in zip(encoding.spans, encoding.spans[1:]):
        if start < prev_end:
            out.add(start)
    return out


@dataclass(frozen=True)
class ComparedToken:
    """One token of one column: its text, id, input span, and whether a disputed place touches it."""

    token: str
    id: int
    start: int
    end: int
    disputed: bool


@dataclass(frozen=True)
class Column:
    """One tokenizer's segmentation of the text, with its cut points and summary counts."""

    tokens: tuple[ComparedToken, ...]
    cuts: frozenset[int]
    split_chars: frozenset[int]
    chars_per_token: float  # characters of the whole text per token (0.0 for no tokens)
    unshared_cuts: int  # this column's cuts (and split characters) that some other column lacks

    @property
    def token_count(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class Comparison:
    """Several segmentations of one text and the places where their token boundaries disagree."""

    text: str
    columns: tuple[Column, ...]
    disputed_cuts: frozenset[int]  # offsets that are a cut in some columns and not in others
    disputed_chars: frozenset[int]  # characters that some columns split inside and others do not

    @property
    def disagreements(self) -> int:
        """How many places disagree: disputed cuts plus disputed characters."""
        return len(self.disputed_cuts) + len(self.disputed_chars)


def compare_segmentations(
    text: str, encodings: Sequence[Encoding], *, ignore_whitespace: bool = False
) -> Comparison:
    """Line up several encodings of `text` and flag each token that a disputed cut touches.

    A token is disputed when a disputed cut lies within its span, edges included, or it covers
    a disputed character. With `ignore_whitespace`, every cut at the edge of or inside a run of
    whitespace counts at the run's start, so "where does the space go" (word mode drops it,
    byte-level tokens carry it in front) is not reported as a disagreement.
    """
    n = len(text)
    for index, encoding in enumerate(encodings):
        if any(not 0 <= s <= e <= n for s, e in encoding.spans):
            raise BPEError(
                f"encoding {index + 1} has spans outside the text: encode this same text with each tokenizer"
            )
    snap = _whitespace_snap(text) if ignore_whitespace else list(range(n + 1))
    cut_sets = [frozenset(snap[c] for c in boundaries(e)) for e in encodings]
    split_sets = [
        frozenset(c for c in split_characters(e) if not (ignore_whitespace and text[c].isspace()))
        for e in encodings
    ]
    disputed_cuts = _disputed(cut_sets)
    disputed_chars = _disputed(split_sets)
    cut_list, char_list = sorted(disputed_cuts), sorted(disputed_chars)

    columns = []
    for encoding, cuts, splits in zip(encodings, cut_sets, split_sets):
        tokens = tuple(
            ComparedToken(
                token,
                token_id,
                s,
                e,
                _any_between(cut_list, snap[s], snap[e]) or _any_between(char_list, s, e - 1),
            )
            for token, token_id, (s, e) in zip(encoding.tokens, encoding.ids, encoding.spans)
        )
        columns.append(
            Column(
                tokens=tokens,
                cuts=cuts,
                split_chars=splits,
                chars_per_token=n / len(tokens) if tokens else 0.0,
                unshared_cuts=len(cuts & disputed_cuts) + len(splits & disputed_chars),
            )
        )
    return Comparison(text, tuple(columns), disputed_cuts, disputed_chars)


def _disputed(sets: Sequence[frozenset[int]]) -> frozenset[int]:
    """Members of some sets but not of all."""
    if not sets:
        return frozenset()
    return frozenset.union(*sets) - frozenset.intersection(*sets)


def _any_between(sorted_values: list[int], low: int, high: int) -> bool:
    """Whether some value v has low <= v <= high."""
    return low <= high and bisect_right(sorted_values, high) > bisect_left(sorted_values, low)


def _whitespace_snap(text: str) -> list[int]:
    """For each offset 0..len(text), the start of the whitespace run it touches, else itself."""
    snap = list(range(len(text) + 1))
    i = 0
    while i < len(text):
        if text[i].isspace():
            j = i
            while j < len(text) and text[j].isspace():
                j += 1
            for c in range(i, j + 1):
                snap[c] = i
            i = j
        else:
            i += 1
    return snap


# ---- showing tokens --------------------------------------------------------------------------


def display_token(tokenizer: Tokenizer, token: str, *, as_bytes: bool = False) -> str:
    """What a person should see for a token: its text, with hex like `<e2 80>` for partial characters.

    Word and text modes show the token itself. Bytes mode decodes the token's bytes as UTF-8 and
    writes the bytes that are no valid UTF-8 as hex. `as_bytes` always shows hex bytes.
    """
    if as_bytes:
        return hex_bytes(token_bytes_of(tokenizer, token))
    data = _symbol_bytes(token) if tokenizer.settings.mode == "bytes" else None
    return token if data is None else bytes_text(data)


def bytes_text(data: bytes) -> str:
    """Bytes as text where they are valid UTF-8 and hex `<..>` where not; never U+FFFD.

    A U+FFFD that really is in the bytes is shown as hex too, so it cannot pass for a lost byte.

    >>> bytes_text("é".encode() + b"\\xe6\\x97")
    'é<e6 97>'
    """
    return "".join(p if isinstance(p, str) else hex_bytes(p) for p in _utf8_parts(data))


def _utf8_parts(data: bytes) -> list[str | bytes]:
    """Runs of valid UTF-8 (as str, without U+FFFD) and runs of other bytes (as bytes), in order."""
    parts: list[str | bytes] = []
    i = 0
    while i < len(data):
        try:
            good, bad, i = data[i:].decode("utf-8"), b"", len(data)
        except UnicodeDecodeError as exc:
            bad_start, bad_end = i + exc.start, i + exc.end
            good, bad, i = data[i:bad_start].decode("utf-8"), data[bad_start:bad_end], bad_end
        for n, piece in enumerate(good.split("\ufffd")):
            if n:
                _append_run(parts, "\ufffd".encode("utf-8"))
            _append_run(parts, piece)
        _append_run(parts, bad)
    return parts


def _append_run(parts: list[str | bytes], piece: str | bytes) -> None:
    """Append a run, joining it to the last one when both are text or both are bytes."""
    if not piece:
        return
    if parts and type(parts[-1]) is type(piece):
        parts[-1] += piece  # type: ignore[operator]
    else:
        parts.append(piece)


def hex_bytes(data: bytes) -> str:
    """Bytes as `<6c 6f>`."""
    return "<" + " ".join(f"{b:02x}" for b in data) + ">"


def token_bytes_of(tokenizer: Tokenizer, token: str) -> bytes:
    """The bytes a token stands for; a token that is no byte sequence (a special token) as UTF-8."""
    data = _symbol_bytes(token) if tokenizer.settings.mode == "bytes" else None
    return token.encode("utf-8") if data is None else data


def visible_whitespace(s: str) -> str:
    """Make whitespace visible: space ·, newline ↵, tab →, carriage return ␍, others as escapes.

    >>> visible_whitespace("a b\\n\\u00a0")
    'a·b↵\\\\xa0'
    """
    return "".join(
        _SHOWN_WHITESPACE.get(ch) or (ascii(ch)[1:-1] if ch.isspace() else ch) for ch in s
    )


def _symbol_bytes(token: str) -> bytes | None:
    """A bytes-mode token's bytes, or None for a token that is no byte symbols (a special token)."""
    table = char_to_byte()
    try:
        return bytes(table[ch] for ch in token) if token else None
    except KeyError:
        return None


# ---- token counts as merges grow -------------------------------------------------------------


def token_count_curve(tokenizer: Tokenizer, text: str, *, points: int = 50) -> list[tuple[int, int]]:
    """(merges used, tokens in `text`) for up to `points` merge counts from 0 to all merges.

    Each value equals `len(tokenizer.encode(text, limit=k))`, and the last one `len(tokenizer.encode(text))`
    (they differ only for tiktoken rank files, whose full encoding takes a piece that is itself
    a token whole). Encoding with the first k merges applies a prefix of the full encoding's
    merge steps (it stops at the first step of rank >= k), so each distinct word is stepped
    through once and every k is read off that one run.
    """
    if isinstance(points, bool) or not isinstance(points, int) or points < 2:
        raise BPEError("a token-count curve needs at least 2 points")
    total = len(tokenizer.merges)
    ks = sorted({round(i * total / (points - 1)) for i in range(points)})
    limits = [_limit_after(tokenizer, k) for k in ks]
    counts = [0] * len(ks)
    table = tokenizer.table
    last = len(ks) - 1  # k = all merges: the tokenizer's own full encoding
    for word, n in Counter(tokenizer.words_of(text)).items():
        counts[last] += n * len(tokenizer.encode_word(word))
        symbols = tokenizer.initial_symbols(word)
        if len(symbols) > _STEP_ONCE_MAX:
            for j, limit in enumerate(limits[:last]):
                counts[j] += n * len(encode_ranked(symbols, table, limit=limit))
            continue
        # reach[i]: the highest rank among the first i + 1 steps; non-decreasing.
        reach: list[int] = []
        for step in merge_steps(symbols, table):
            reach.append(max(step.rank, reach[-1]) if reach else step.rank)
        for j, limit in enumerate(limits[:last]):
            counts[j] += n * (len(symbols) - bisect_left(reach, limit))
    return list(zip(ks, counts))


def _limit_after(tokenizer: Tokenizer, k: int) -> int:
    """The encoder `limit` that allows exactly the first k merges of the merge list."""
    if not tokenizer.table.concat or k == 0:
        return k
    # tiktoken-style tables rank the merged token itself; the merge list is sorted by that rank.
    left, right = tokenizer.merges[k - 1]
    return tokenizer.table.ranks[left + right] + 1


# ---- the vocabulary --------------------------------------------------------------------------


@dataclass(frozen=True)
class VocabRow:
    """One vocabulary entry: how it was made, what it is made into, and how much it is used."""

    id: int
    token: str
    display: str  # `display_token`'s text
    rank: int | None  # the merge that first made it; None for base symbols and <unk>
    count: int | None  # how often its pair occurred when merged; None without a trace
    chars: int  # characters it stands for (no end-of-word marker; bytes mode: valid UTF-8 only)
    n_bytes: int  # UTF-8 bytes it stands for (no end-of-word marker)
    uses: int | None  # occurrences in the corpus after training; None without word counts
    parents: tuple[str, str] | None  # (left, right) of the merge that made it
    children: tuple[str, ...]  # tokens whose merge takes it as left or right part, by rank

    @property
    def kept(self) -> float | None:
        """Share of its occurrences at birth still used after training (uses / count)."""
        if self.uses is None or not self.count:
            return None
        return self.uses / self.count


def token_usage(tokenizer: Tokenizer, word_counts: Mapping[str, int]) -> dict[str, int]:
    """How often each vocabulary token occurs when every corpus word is encoded with all merges.

    `word_counts` are as `count_words(texts, tokenizer.settings)` returns them (bytes mode: words
    written in byte symbols). Every vocabulary token has an entry; unseen characters count as
    the unknown token.
    """
    usage = dict.fromkeys(tokenizer.vocab, 0)
    bytes_mode = tokenizer.settings.mode == "bytes"
    for word, n in word_counts.items():
        if not word or n <= 0:
            continue
        if bytes_mode:
            data = _symbol_bytes(word)
            if data is None:
                raise BPEError(
                    f"word {word[:30]!r} is not written in byte symbols: "
                    "give bytes-mode word counts as count_words returns them"
                )
            try:
                # Through the tokenizer's own (cached) encoder, which knows tiktoken's rules.
                tokens = tokenizer.encode_word(data.decode("utf-8"))
            except UnicodeDecodeError:
                tokens = encode_ranked(list(word), tokenizer.table)
        else:
            tokens = tokenizer.encode_word(word)
        for token in tokens:
            key = token if token in usage or tokenizer.unk_token is None else tokenizer.unk_token
            usage[key] = usage.get(key, 0) + n
    return usage


def _usage(tokenizer: Tokenizer, word_counts: Mapping[str, int] | None) -> dict[str, int] | None:
    if word_counts is not None:
        return token_usage(tokenizer, word_counts)
    if tokenizer.training is not None and tokenizer.training.final_usage:
        return tokenizer.training.final_usage
    return None


def vocabulary_table(tokenizer: Tokenizer, word_counts: Mapping[str, int] | None = None) -> list[VocabRow]:
    """One row per vocabulary token, in id order.

    `uses` comes from `word_counts` when given, else from the training run's own final counts,
    else it is None (an imported tokenizer with no corpus).
    """
    usage = _usage(tokenizer, word_counts)
    children = _children(tokenizer)
    rows = []
    for token, token_id in sorted(tokenizer.vocab.items(), key=lambda item: item[1]):
        rank = tokenizer.birth.get(token)
        display, chars, n_bytes = _shown_with_size(tokenizer, token)
        rows.append(
            VocabRow(
                id=token_id,
                token=token,
                display=display,
                rank=rank,
                count=_count_at(tokenizer, rank),
                chars=chars,
                n_bytes=n_bytes,
                uses=usage.get(token, 0) if usage is not None else None,
                parents=tokenizer.merges[rank] if rank is not None else None,
                children=tuple(dict.fromkeys(child for child, _ in children.get(token, ()))),
            )
        )
    return rows


def nearly_unused(rows: Sequence[VocabRow], *, threshold: float = 0.25) -> list[VocabRow]:
    """Merged tokens that later merges consumed: final uses at most `threshold` x their count when merged.

    Example (seed 000, 10 merges): "ne" was made 9 times, but "newe" took 7 of those (and
    "newest</w>" later took most of "newe"), leaving 2 uses in "new" (2/9 <= 0.25). Rows
    without a merge count (no trace) qualify only when never used; rows without uses (no word
    counts) never qualify. Use the training corpus's word counts, or the ratio mixes two corpora.
    """
    if isinstance(threshold, bool) or not 0 <= threshold <= 1:
        raise BPEError("the nearly-unused threshold is a share between 0 and 1")
    out = []
    for row in rows:
        if row.rank is None or row.uses is None:
            continue
        if (row.uses <= threshold * row.count) if row.count else row.uses == 0:
            out.append(row)
    return out


# ---- one token's life ------------------------------------------------------------------------


@dataclass(frozen=True)
class LifeStory:
    """A token's birth, parents, the tokens built on it, its final usage and its merge tree."""

    token: str
    id: int
    rank: int | None  # the merge that first made it; None for base symbols and <unk>
    count: int | None  # how often its pair occurred at that merge; None without a trace
    parents: tuple[str, str] | None
    children: tuple[tuple[str, int], ...]  # (made token, rank) of each merge taking it as a part
    uses: int | None  # occurrences in the corpus after training; None without word counts
    tree: MergeNode
    step: int  # animation step where it first exists: rank + 1 (state after that merge), 0 for base


def life_story(tokenizer: Tokenizer, token: str, word_counts: Mapping[str, int] | None = None) -> LifeStory:
    """Everything about one token; `step` = rank + 1, as animation step t shows the state after t merges."""
    if token not in tokenizer.vocab:
        raise BPEError(f"{token!r} is not in this tokenizer's vocabulary")
    rank = tokenizer.birth.get(token)
    usage = _usage(tokenizer, word_counts)
    uses = usage.get(token, 0) if usage is not None else None
    return LifeStory(
        token=token,
        id=tokenizer.vocab[token],
        rank=rank,
        count=_count_at(tokenizer, rank),
        parents=tokenizer.merges[rank] if rank is not None else None,
        children=tuple(_children(tokenizer).get(token, ())),
        uses=uses,
        tree=merge_tree(tokenizer, token),
        step=rank + 1 if rank is not None else 0,
    )


# ---- BPE-dropout -----------------------------------------------------------------------------


@dataclass(frozen=True)
class DropoutOutcome:
    """One segmentation BPE-dropout produced, how often, and whether it is the deterministic one."""

    tokens: tuple[str, ...]
    count: int
    deterministic: bool


@dataclass(frozen=True)
class DropoutDistribution:
    """The segmentations of one word under BPE-dropout, most frequent first."""

    word: str
    p: float
    samples: int
    seed: int
    deterministic: tuple[str, ...]  # the segmentation without dropout
    outcomes: tuple[DropoutOutcome, ...]  # most frequent first; ties in order of first appearance

    def pairs(self) -> list[tuple[tuple[str, ...], int]]:
        """(segmentation, count) pairs, most frequent first."""
        return [(o.tokens, o.count) for o in self.outcomes]


def dropout_distribution(
    tokenizer: Tokenizer, word: str, *, p: float, samples: int, seed: int = 0
) -> DropoutDistribution:
    """Sample BPE-dropout `samples` times on one word (normalized and checked to be one word)."""
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
        raise BPEError("dropout probability must be between 0 and 1")
    if isinstance(samples, bool) or not isinstance(samples, int) or not 1 <= samples <= _MAX_DROPOUT_SAMPLES:
        raise BPEError(f"the number of dropout samples must be between 1 and {_MAX_DROPOUT_SAMPLES:,}")
    words = tokenizer.words_of(word)
    if len(words) != 1:
        raise BPEError(
            f"dropout works on one word; {word[:30]!r} is {len(words)} words as this tokenizer splits text"
        )
    (normalized,) = words
    deterministic = tuple(tokenizer.encode_word(normalized))
    counts = Counter(tuple(s) for s in tokenizer.dropout(normalized, p=p, seed=seed, samples=samples))
    outcomes = tuple(
        DropoutOutcome(tokens, n, tokens == deterministic) for tokens, n in counts.most_common()
    )
    return DropoutDistribution(normalized, float(p), samples, seed, deterministic, outcomes)


def _children(tokenizer: Tokenizer) -> dict[str, list[tuple[str, int]]]:
    """For each token, (made token, rank) of every merge that takes it as a part, by rank."""
    out: dict[str, list[tuple[str, int]]] = {}
    for rank, (left, right) in enumerate(tokenizer.merges):
        made = left + right
        out.setdefault(left, []).append((made, rank))
        if right != left:
            out.setdefault(right, []).append((made, rank))
    return out


def _count_at(tokenizer: Tokenizer, rank: int | None) -> int | None:
    trace = tokenizer.trace
    return trace[rank].count if rank is not None and rank < len(trace) else None


def _shown_with_size(tokenizer: Tokenizer, token: str) -> tuple[str, int, int]:
    """`display_token`'s text, and the characters and UTF-8 bytes a token stands for.

    The unknown token stands for no fixed text (0, 0). Bytes that are no valid UTF-8 are
    fragments of characters and add no characters. The end-of-word marker is no character.
    """
    if token == tokenizer.unk_token:
        return token, 0, 0
    data = _symbol_bytes(token) if tokenizer.settings.mode == "bytes" else None
    if data is not None:
        parts = _utf8_parts(data)
        shown = "".join(p if isinstance(p, str) else hex_bytes(p) for p in parts)
        return shown, sum(len(p) for p in parts if isinstance(p, str)), len(data)
    marker = tokenizer.settings.marker
    text = token.removesuffix(marker) if marker else token
    return token, len(text), len(text.encode("utf-8"))
