"""A string that remembers where each of its characters came from in the original text.

Every part of a tokenizer (normalizer, pre-tokenizer) takes and gives `Normalized` strings, so
a token maps back to its span of the input however the text was changed on the way: each
character of `text` has the (start, end) character span of the original text it stands for.

Alignment costs memory and time, and `encode_ids` never needs it, so a `Normalized` may be
*untracked* (`spans is None`): every operation then only builds the new text. Parts are written
once against the operations below and work in both modes.

>>> n = Normalized.of("ﬁx")
>>> m = n.rebuild([("fi", 0, 1), ("x", 1, 2)])
>>> m.text, m.offsets(0, 1), m.offsets(1, 3)
('fix', (0, 1), (0, 2))
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence


class Normalized:
    """`text`, and for each of its characters the span of the original it stands for.

    `spans[i]` is (start, end) in the original's characters; `None` when untracked. `at_start`
    says that this string begins where the original text begins (Metaspace's `first` scheme
    prepends only there); `origin` is that original start offset, kept even when untracked.
    """

    __slots__ = ("text", "spans", "at_start", "origin")

    def __init__(
        self, text: str, spans: list[tuple[int, int]] | None, *, at_start: bool = True, origin: int = 0
    ) -> None:
        self.text = text
        self.spans = spans
        self.at_start = at_start
        self.origin = origin

    @classmethod
    def of(cls, text: str, *, track: bool = True, origin: int = 0) -> Normalized:
        """The original text itself (optionally a piece of a longer one, starting at `origin`)."""
        spans = [(origin + i, origin + i + 1) for i in range(len(text))] if track else None
        return cls(text, spans, at_start=origin == 0, origin=origin)

    @property
    def tracking(self) -> bool:
        return self.spans is not None

    def __len__(self) -> int:
        return len(self.text)

    def __repr__(self) -> str:
        return f"Normalized({self.text!r})"

    def offsets(self, start: int, end: int) -> tuple[int, int]:
        """The original span of `text[start:end]`: from its first character's start to its last one's
        end (as Hugging Face converts a normalized range).

        An empty range sits at the start of the character that follows it (or the end of the last).
        """
        spans = self.spans
        if spans is None:
            raise ValueError("offsets need a tracked Normalized (Normalized.of(text, track=True))")
        if end > start:
            return spans[start][0], spans[end - 1][1]
        if start < len(spans):
            return spans[start][0], spans[start][0]
        if spans:
            return spans[-1][1], spans[-1][1]
        return self.origin, self.origin

    def slice(self, start: int, end: int) -> Normalized:
        """`text[start:end]` with its alignment."""
        spans = self.spans[start:end] if self.spans is not None else None
        return Normalized(self.text[start:end], spans, at_start=self.at_start and start == 0, origin=self.origin)

    def map_chars(self, change: Callable[[str], str]) -> Normalized:
        """Each character replaced by `change(character)` (any length: "" removes it), every new
        character aligned to the one it replaces."""
        text = self.text
        if self.spans is None:
            return Normalized("".join(map(change, text)), None, at_start=self.at_start, origin=self.origin)
        out: list[str] = []
        spans: list[tuple[int, int]] = []
        for ch, span in zip(text, self.spans):
            new = change(ch)
            out.append(new)
            spans.extend([span] * len(new))
        return Normalized("".join(out), spans, at_start=self.at_start, origin=self.origin)

    def rebuild(self, pieces: Iterable[tuple[str, int, int]]) -> Normalized:
        """A new text from `(new_text, start, end)` pieces, each standing for `text[start:end]`.

        The pieces are given in order and need not cover the text (what they skip is removed).
        Every character of a piece's new text gets the span of the whole range it replaces; a
        piece replacing nothing (an insertion, start == end) gets `insert_span(start)`.
        """
        if self.spans is None:
            return Normalized("".join(p[0] for p in pieces), None, at_start=self.at_start, origin=self.origin)
        out: list[str] = []
        spans: list[tuple[int, int]] = []
        for new, start, end in pieces:
            if not new:
                continue
            out.append(new)
            span = self.offsets(start, end) if end > start else self.insert_span(start)
            spans.extend([span] * len(new))
        return Normalized("".join(out), spans, at_start=self.at_start, origin=self.origin)

    def rebuild_aligned(self, pieces: Iterable[tuple[str, Sequence[tuple[int, int]] | None]]) -> Normalized:
        """A new text from pieces that bring their own spans (one per character), for parts whose
        alignment rule is not "the whole replaced range" (Hugging Face's `Replace` aligns new
        characters with the last one replaced). Untracked strings ignore the spans."""
        if self.spans is None:
            return Normalized("".join(p[0] for p in pieces), None, at_start=self.at_start, origin=self.origin)
        out: list[str] = []
        spans: list[tuple[int, int]] = []
        for new, piece_spans in pieces:
            assert piece_spans is not None and len(piece_spans) == len(new)
            out.append(new)
            spans.extend(piece_spans)
        return Normalized("".join(out), spans, at_start=self.at_start, origin=self.origin)

    def insert_span(self, at: int) -> tuple[int, int]:
        """The span an inserted character gets at position `at`: that of the character before it,
        as Hugging Face aligns insertions, or of the first character at the very start."""
        spans = self.spans
        assert spans is not None
        if at > 0:
            return spans[at - 1]
        if spans:
            return spans[0]
        return self.origin, self.origin


def split_at(piece: Normalized, cuts: Iterable[tuple[int, int]]) -> list[Normalized]:
    """The pieces `piece.text[start:end]` for each (start, end), empty ones left out."""
    return [piece.slice(start, end) for start, end in cuts if end > start]
