"""The Watch page plays WordPiece, Unigram and SuperBPE in Chromium, each in its own terms.

For each family: choose it in the sidebar, set the vocabulary size, Train, Play, see the frame
advance with the family's own panel (the score chart, the pruning rounds, the transition), and
take a screenshot.
"""
from __future__ import annotations

import re

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


def _train(page, server: str, family: str, vocab: int, transition: int | None = None) -> None:
    page.goto(server + "/?corpus=hindi&step=1")
    expect(page.get_by_role("heading", level=1, name="Watch BPE learn")).to_be_visible(timeout=60_000)
    page.locator("[data-testid=stSidebar] [data-testid=stSelectbox]").filter(has_text="Family").click()
    page.get_by_role("option", name=family, exact=True).click()
    box = page.get_by_role("spinbutton", name="Vocabulary size")
    box.fill(str(vocab))
    page.get_by_role("button", name="Train").click()
    if transition is not None:
        # The form's boxes follow the family trained last (as End of word follows the mode): once
        # SuperBPE is the sidebar's family, its Transition box opens.
        box = page.get_by_role("spinbutton", name="Transition")
        expect(box).to_be_enabled(timeout=60_000)
        box.fill(str(transition))
        page.get_by_role("button", name="Train").click()


def _facts(page):
    return page.locator(f"{LIVE} .fam-facts").first


def _play_until(page, pattern: re.Pattern, where) -> None:
    """Press Play (the page may already be playing), see `where` match `pattern`, then pause."""
    either = page.locator(LIVE).get_by_role("button", name=re.compile("^(Play|Pause)$"))
    expect(either).to_be_visible()
    if either.inner_text().strip().endswith("Play"):
        either.click()
    expect(where).to_contain_text(pattern, timeout=30_000)
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("button", name="Play")).to_be_visible()


def test_wordpiece_plays_with_its_score_chart(page, warm_server):
    _train(page, warm_server, "WordPiece", 150)
    expect(page.get_by_role("heading", level=1, name="Watch WordPiece learn")).to_be_visible(timeout=60_000)
    expect(_facts(page)).to_contain_text(re.compile(r"step \d+ of 65"))
    expect(page.locator(LIVE).get_by_text("Highest scores at this step", exact=False).first).to_be_visible()
    _play_until(page, re.compile(r"step ([3-9]|\d\d+) of 65"), _facts(page))
    expect(_facts(page)).to_contain_text("score = count(ab) / (count(a) · count(b))")
    expect(page.locator(f"{LIVE} .bpe-row").first).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "watch-wordpiece")


def test_unigram_plays_its_pruning_rounds(page, warm_server):
    _train(page, warm_server, "Unigram", 60)
    expect(page.get_by_role("heading", level=1, name="Watch Unigram prune")).to_be_visible(timeout=60_000)
    card = page.locator(f"{LIVE} .bpe-card").first
    expect(card).to_contain_text(re.compile(r"Round \d of 7"))
    expect(page.locator(LIVE).get_by_text("Pruning rounds", exact=False).first).to_be_visible()
    page.get_by_role("button", name="First").click()
    expect(card).to_contain_text("Round 1 of 7: 380 → 192 pieces")
    _play_until(page, re.compile(r"Round [3-7] of 7"), card)
    expect(page.locator(LIVE).get_by_text(re.compile(r"Pieces removed in round \d"))).to_be_visible()
    expect(page.locator(f"{LIVE} [data-testid=stDataFrame]").first).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "watch-unigram")


def test_superbpe_plays_past_its_transition(page, warm_server):
    _train(page, warm_server, "SuperBPE", 420, transition=380)
    expect(page.get_by_role("heading", level=1, name="Watch SuperBPE learn")).to_be_visible(timeout=60_000)
    phases = re.compile(r"164 merges \(124 in phase one, 40 in phase two\)")
    expect(page.locator(LIVE).get_by_text(phases).first).to_be_visible()
    page.get_by_role("button", name="Last").click()
    expect(_facts(page)).to_contain_text("phase 2 (across spaces)")
    expect(page.locator(f"{LIVE} .fam-super").first).to_be_visible()  # superwords ringed in the corpus pieces
    shoot(page, "watch-superbpe-last")
    page.get_by_role("button", name="First").click()
    expect(page.locator(f"{LIVE} .bpe-card").first).to_contain_text("Before the first merge")
    _play_until(page, re.compile(r"step ([2-9]|\d\d+) of"), _facts(page))
    expect(page.locator(LIVE).get_by_text("transition after merge 124", exact=False).first).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "watch-superbpe")
