"""The report card's sanity checks: pass, warn or fail, each with its reason in one sentence.

Each check reads a `ReportCard` only; `CHECKS` is the one list, in the order they are shown.
A check that cannot be made for a tokenizer says so ("not checked") rather than passing.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .card import ReportCard

PASS, WARN, FAIL, NOT_CHECKED = "pass", "warn", "fail", "not checked"
UNKNOWN_WARN = 0.001  # an unknown-token rate up to this share warns; above it fails
RESIDUE_WARN = 0.01  # a residue share above this warns …
RESIDUE_FAIL = 0.05  # … and above this fails


def percent(share: float) -> str:
    """A share as a percentage, a tiny one as "<0.01%" rather than a false 0.00%.

    >>> percent(0.25), percent(0.00002), percent(0.0)
    ('25.00%', '<0.01%', '0.00%')
    """
    return "<0.01%" if 0 < share < 0.0001 else f"{share:.2%}"


def code_points(text: str, *, limit: int = 3) -> str:
    """The first characters as code points, so a change that looks like none (NFC's Å for A + ring) shows.

    >>> code_points("A\u030a is"), code_points("")
    ('U+0041 U+030A U+0020', 'nothing')
    """
    return " ".join(f"U+{ord(ch):04X}" for ch in text[:limit]) or "nothing"


def tokens(n: int) -> str:
    """ "1 token", "2,000 tokens"."""
    return f"{n:,} token{'' if n == 1 else 's'}"


@dataclass(frozen=True)
class Check:
    """One check's verdict on one tokenizer."""

    name: str
    status: str
    reason: str


def _round_trip(card: ReportCard) -> Check:
    name, trip = "Round trip", card.text.round_trip
    if trip.exact:
        return Check(name, PASS, "decoding the text's ids gives the text back exactly")
    return Check(name, FAIL, f"decoding gives the text back changed from character {trip.at:,}: "
                             f"{trip.expected!r} came back as {trip.got!r} ({code_points(trip.expected)} became "
                             f"{code_points(trip.got)})")


def _unknown(card: ReportCard) -> Check:
    name, unknown, produced = "Unknown tokens", card.text.unknown, card.text.tokens
    if not unknown:
        return Check(name, PASS, "no token stands for text the vocabulary lacks")
    share = unknown / produced
    status = WARN if share <= UNKNOWN_WARN else FAIL
    return Check(name, status, f"{unknown:,} of {tokens(produced)} ({percent(share)}) are the unknown token: that "
                               "text is lost")


def _whitespace(card: ReportCard) -> Check:
    name, trip = "Whitespace kept", card.whitespace
    if trip.exact:
        return Check(name, PASS, "runs of spaces, a tab, a blank line and a trailing space decode as they were")
    return Check(name, FAIL, f"whitespace is not kept: from character {trip.at}, {trip.expected!r} decodes as "
                             f"{trip.got!r}")


def _digits(card: ReportCard) -> Check:
    name, digits = "Digits grouped consistently", card.digits
    example = " | ".join(digits.example)
    if digits.regular:
        return Check(name, PASS, f"every number of 1 to 12 digits is cut {digits.describe()} ({example})")
    if not digits.example:
        return Check(name, FAIL, "digits are unknown to the vocabulary")
    return Check(name, WARN, f"numbers are cut by learned merges, so the same digits group differently in numbers "
                             f"of different lengths ({example})")


def _unreachable(card: ReportCard) -> Check:
    name, found = "No unreachable tokens", card.unreachable
    if found is None:
        return Check(name, NOT_CHECKED, "the check encodes each token's own text, which needs a BPE merge list or "
                                        "rank table trained or built in here")
    if not found:
        return Check(name, PASS, "encoding each token's own text alone gives that token")
    are = "is" if found == 1 else "are"
    return Check(name, WARN, f"{tokens(found)} {are} not what encoding their own text gives: under-trained "
                             "candidates (see Token audit)")


def _residue(card: ReportCard) -> Check:
    name, found = "Little residue", card.residue
    if found is None:
        return Check(name, NOT_CHECKED, "the tokenizer has no ranked merges, so no token is made only to be merged")
    status = PASS if found.share <= RESIDUE_WARN else WARN if found.share <= RESIDUE_FAIL else FAIL
    n = len(found.residue)
    return Check(name, status, f"{tokens(n)} ({percent(found.share)} of the vocabulary) {'is' if n == 1 else 'are'} "
                               f"made at least {found.min_made:,} times and consumed by a later merge at least "
                               f"{found.threshold:.0%} of those times")


def _characters(card: ReportCard) -> Check:
    name, cut, produced = "Characters kept whole", card.text.cut_characters, card.text.tokens
    if not cut:
        return Check(name, PASS, "every token produced stands for whole characters")
    return Check(name, WARN, f"{cut:,} of {tokens(produced)} ({percent(cut / produced)}) hold part of a UTF-8 "
                             "character: their text shows only when decoded with their neighbours")


CHECKS: tuple[Callable[[ReportCard], Check], ...] = (
    _round_trip, _unknown, _whitespace, _digits, _unreachable, _residue, _characters,
)


def checks(card: ReportCard) -> list[Check]:
    """Every check of `CHECKS` on one card."""
    return [check(card) for check in CHECKS]
