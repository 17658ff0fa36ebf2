"""Every measure of the report card, described once: its name, definition, source and how to read it.

`MEASURES` is the one list, in the order the page and `python -m bpe_core report` show them; a
measure reads its value off a `ReportCard` (None: not measured for this tokenizer or text,
`why_missing` says why). `kind` says what the number is (SHARE 0–1, RATIO, COUNT, TEXT, YES_NO)
so a page formats it without knowing the measure; `better` which way is better, where one is.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .card import ReportCard

SHARE, RATIO, COUNT, TEXT, YES_NO = "share", "ratio", "count", "text", "yes/no"
HIGHER, LOWER = "higher", "lower"

RUST = "Rust et al., How Good is Your Tokenizer? (ACL 2021)"
TOKKA = "tokka-bench"
ZOUHAR = "Zouhar et al., Tokenization and the Noiseless Channel (ACL 2023)"
PETROV = "Petrov et al., Language Model Tokenizers Introduce Unfairness Between Languages (NeurIPS 2023)"
PICKY = "Chizhov et al., BPE Gets Picky (PickyBPE, EMNLP 2024); LiteToken's residues"


@dataclass(frozen=True)
class Measure:
    """One figure of the card."""

    key: str  # its name in the command's JSON
    group: str
    title: str
    definition: str  # one line
    source: str
    kind: str
    value: Callable[[ReportCard], float | int | str | bool | None]
    better: str | None = None
    why_missing: str = ""


def _per(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _words(card: ReportCard) -> int:
    return card.text.words


def _continued(card: ReportCard) -> float | None:
    split = sum(n for pieces, n in card.text.pieces.items() if pieces >= 2)
    return _per(split, _words(card))


def _single(card: ReportCard) -> float | None:
    return _per(card.text.pieces.get(1, 0), _words(card))


def _residue(card: ReportCard, get: Callable[..., float | int]) -> float | int | None:
    return None if card.residue is None else get(card.residue)


def _fair(card: ReportCard, get: Callable[..., float | int | str | None]) -> float | int | str | None:
    return None if card.fairness is None else get(card.fairness)


def _highest(fairness: object) -> str | None:
    row = fairness.highest  # type: ignore[attr-defined]
    return None if row is None else f"{row.code} ×{row.premium:.2f}"


NO_MERGES = "the tokenizer has no ranked merges"
NO_PARALLEL = "the parallel set was not measured"
SPACELESS = "the text is written without spaces between words: see tokens per character"

MEASURES: tuple[Measure, ...] = (
    Measure("bytes_per_token", "Compression", "Bytes per token",
            "UTF-8 bytes of the text over the tokens it is encoded into", TOKKA, RATIO,
            lambda c: _per(c.text.bytes, c.text.tokens), HIGHER),
    Measure("characters_per_token", "Compression", "Characters per token",
            "characters (code points) of the text over its tokens", TOKKA, RATIO,
            lambda c: _per(c.text.characters, c.text.tokens), HIGHER),
    Measure("tokens_per_word", "Compression", "Tokens per word (fertility)",
            "tokens over whitespace-separated words", RUST, RATIO,
            lambda c: None if c.text.spaceless else _per(c.text.tokens, c.text.words), LOWER, SPACELESS),
    Measure("tokens_per_character", "Compression", "Tokens per character",
            "tokens over characters: the fertility of a text written without spaces", RUST, RATIO,
            lambda c: _per(c.text.tokens, c.text.characters), LOWER),
    Measure("continued_word_rate", "Compression", "Continued words",
            "share of words cut into two or more tokens", f"{RUST}; {TOKKA}", SHARE, _continued, LOWER),
    Measure("single_token_word_rate", "Compression", "Single-token words",
            "share of words that are one token", "TokLens", SHARE, _single, HIGHER),
    Measure("renyi_efficiency", "Efficiency", "Rényi efficiency",
            "H_α of the tokens' frequencies on the text over log |V|, |V| the whole vocabulary", ZOUHAR, RATIO,
            lambda c: c.renyi_efficiency, HIGHER),
    Measure("shannon_efficiency", "Efficiency", "Shannon efficiency",
            "Shannon entropy of the tokens' frequencies over log |V|", ZOUHAR, RATIO,
            lambda c: c.shannon_efficiency, HIGHER),
    Measure("vocabulary_used", "Vocabulary use", "Vocabulary used",
            "share of the vocabulary produced at least once on the text", TOKKA, SHARE,
            lambda c: _per(len(c.text.counts), c.vocabulary_size), HIGHER),
    Measure("never_produced", "Vocabulary use", "Tokens never produced",
            "vocabulary tokens the text never produces", TOKKA, COUNT,
            lambda c: max(0, c.vocabulary_size - len(c.text.counts))),
    Measure("residue_share", "Intermediate tokens", "Residue share",
            "share of the vocabulary made often on the text but nearly always consumed by a later merge", PICKY,
            SHARE, lambda c: _residue(c, lambda r: r.share), LOWER, NO_MERGES),
    Measure("residue_tokens", "Intermediate tokens", "Residue tokens",
            "merged tokens made at least the minimum number of times and consumed at least the threshold share",
            PICKY, COUNT, lambda c: _residue(c, lambda r: len(r.residue)), LOWER, NO_MERGES),
    Measure("digit_grouping", "Digits and bytes", "Digit grouping",
            "how numbers of 1 to 12 digits are cut into tokens", "TokEval (SwissAI)", TEXT,
            lambda c: c.digits.describe()),
    Measure("digit_example", "Digits and bytes", "3141592653 as tokens",
            "the ten-digit probe between words, its tokens' digits apart", "TokEval (SwissAI)", TEXT,
            lambda c: " | ".join(c.digits.example) or None, why_missing="digits are unknown to the vocabulary"),
    Measure("cut_character_rate", "Digits and bytes", "Tokens that cut a character",
            "share of the tokens produced that hold part of a UTF-8 character", TOKKA, SHARE,
            lambda c: _per(c.text.cut_characters, c.text.tokens), LOWER),
    Measure("partial_vocabulary", "Digits and bytes", "Partial-character tokens",
            "vocabulary tokens whose bytes are part of a UTF-8 character", TOKKA, COUNT,
            lambda c: c.partial_vocabulary),
    Measure("round_trip", "Digits and bytes", "Round trip exact",
            "decode(encode(text)) == text on the whole text", "tiktoken's property test", YES_NO,
            lambda c: c.text.round_trip.exact, HIGHER),
    Measure("unknown_rate", "Digits and bytes", "Unknown tokens",
            "share of the tokens produced that stand for text the vocabulary lacks", RUST, SHARE,
            lambda c: _per(c.text.unknown, c.text.tokens), LOWER),
    Measure("highest_premium", "Fairness", "Highest premium",
            "the language whose parallel text costs the most tokens over English's", PETROV, TEXT,
            lambda c: _fair(c, _highest), why_missing=NO_PARALLEL),
    Measure("gini", "Fairness", "Gini of tokens per byte",
            "Σᵢ Σⱼ |cᵢ − cⱼ| / (2 n² μ) over the languages' tokens per byte: 0 is every language charged alike",
            "TokEval (SwissAI)", RATIO, lambda c: _fair(c, lambda f: f.gini), LOWER, NO_PARALLEL),
)


def measure(key: str) -> Measure:
    """The measure called `key`."""
    for one in MEASURES:
        if one.key == key:
            return one
    raise KeyError(key)


def values(card: ReportCard) -> dict[str, float | int | str | bool | None]:
    """{measure key: value} of a card, in `MEASURES` order."""
    return {one.key: one.value(card) for one in MEASURES}
