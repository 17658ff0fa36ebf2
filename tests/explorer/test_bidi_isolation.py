"""Outside text with right-to-left letters or bidirectional controls is isolated where it is escaped
(`render.isolate`, called by `md_escape`, `escape` and `charts.plotly_text`), so a right-to-left
override in a title cannot reverse the app's own words around it."""
from __future__ import annotations

import pytest
from plain_text import constructs, shown

from explorer.display import charts
from explorer.display.render import escape, isolate, md_escape

FSI, PDI, PDF = "\u2068", "\u2069", "\u202c"
LRE, RLE, LRO, RLO, LRI, RLI = "\u202a", "\u202b", "\u202d", "\u202e", "\u2066", "\u2067"
OPENS = {LRE: PDF, RLE: PDF, LRO: PDF, RLO: PDF, LRI: PDI, RLI: PDI, FSI: PDI}
HOSTILE = [RLO + "evil", "a" + PDI + "b", PDF + "x", LRI + "open", RLO + "a" + LRI + "b" + PDF + "c" + PDI,
           PDI * 3 + RLO * 3, "\u200fx", "\u061c1", "\u200e", "שלום 3", "مرحبا، 12", RLE + "ok" + PDF]


def unpaired(text: str) -> list[str]:
    """Controls of `text` that do not open and close in strictly nested pairs (a reference, written here)."""
    stack: list[str] = []
    bad: list[str] = []
    for ch in text:
        if ch in OPENS:
            stack.append(ch)
        elif ch in (PDF, PDI):
            if stack and OPENS[stack[-1]] == ch:
                stack.pop()
            else:
                bad.append(ch)
    return bad + stack


def whole_isolate(text: str) -> bool:
    """Whether `text` is one FSI ... PDI isolate: its first FSI is closed only by its last character."""
    if not (text.startswith(FSI) and text.endswith(PDI)):
        return False
    depth = 0
    for at, ch in enumerate(text):
        depth += ch in OPENS
        depth -= ch in (PDF, PDI)
        if depth == 0 and at < len(text) - 1:
            return False
    return depth == 0


def test_an_override_in_a_title_cannot_reverse_the_apps_summary_line():
    title = "Pasted: " + RLO + "evil title"
    line = f"**{md_escape(title)}** · word mode, 10 merges"  # as page_header.training_summary builds it
    assert line == "**" + FSI + "Pasted\\: evil title" + PDI + "** · word mode, 10 merges"
    assert RLO not in line and unpaired(line) == []
    assert shown(line) == "**" + FSI + "Pasted: evil title" + PDI + "** · word mode, 10 merges"


@pytest.mark.parametrize("text", HOSTILE)
def test_every_escape_isolates_and_leaves_nothing_unpaired(text):
    for escaped in (md_escape(text), escape(text), charts.plotly_text(text), isolate(text)):
        assert whole_isolate(escaped), repr(escaped)
        assert unpaired(escaped) == [], repr(escaped)
    assert constructs(md_escape(text)) == []


def test_controls_that_pair_are_kept_and_the_others_dropped():
    assert isolate(RLE + "ok" + PDF) == FSI + RLE + "ok" + PDF + PDI  # a pair stays within the text
    assert isolate("a" + PDI + " b") == FSI + "a b" + PDI  # a stray PDI would close the isolate early
    assert isolate(RLO + "abc") == FSI + "abc" + PDI  # never closed: it would reach the app's words
    # The PDF inside the isolate cannot close the override opened before it: both go, the isolate stays.
    assert isolate(RLO + "a" + LRI + "b" + PDF + "c" + PDI) == FSI + "a" + LRI + "bc" + PDI + PDI
    assert isolate(LRI + RLO + "x" + PDI) == FSI + LRI + "x" + PDI + PDI  # an override left open inside


def test_right_to_left_letters_and_marks_are_isolated_too():
    assert md_escape("שלום 3") == FSI + "שלום 3" + PDI  # the number stays with the Hebrew, not the app's words
    assert isolate("\u200fx") == FSI + "\u200fx" + PDI
    assert escape('<b dir="rtl">' + RLO) == FSI + "&lt;b dir=&quot;rtl&quot;&gt;" + PDI


def test_left_to_right_text_is_unchanged():
    for text in ("plain words", "**a** $x$", "naïve café — 日本語", "a\u200db"):
        assert FSI not in md_escape(text) and FSI not in escape(text) and FSI not in charts.plotly_text(text)
    assert md_escape("plain words") == "plain words"

