"""The Watch page plays WordPiece, Unigram and SuperBPE in Chromium, in the browser-side player BPE plays in.

For each family: choose it in the sidebar (or open a link to it), Train, see the player's card with
the family's own facts (the score, the pruning round, the phase and the transition), move with the
player's own controls (the scrub's Home and End keys, Back, Play at 15 steps a second) and take
screenshots, normal and in presenter mode.
"""
from __future__ import annotations

import re

import pytest
from browser_helpers import LIVE, SCREENSHOTS, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'
LINKS = {  # family: the link that trains it on the Hindi sample
    "wordpiece": "/?corpus=hindi&family=wordpiece&vocab=150",
    "unigram": "/?corpus=hindi&family=unigram&vocab=60",
    "superbpe": "/?corpus=hindi&family=superbpe&vocab=420&transition=380",
}


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


def _pause(page) -> None:
    """Pause the player if it plays (a newcomer's page starts playing)."""
    either = page.locator(".bp-play")
    expect(either).to_be_visible(timeout=60_000)
    if page.locator(".bp-root").get_attribute("data-playing") == "true":
        either.click()
    expect(page.locator(".bp-root")).to_have_attribute("data-playing", "false")


def _scrub_key(page, key: str) -> None:
    page.locator(".bp-scrub").focus()
    page.keyboard.press(key)


def _step(page) -> int:
    return int(page.locator(".bp-root").get_attribute("data-step"))


def test_wordpiece_plays_with_its_scores(page, warm_server):
    _train(page, warm_server, "WordPiece", 150)
    expect(page.get_by_role("heading", level=1, name="Watch WordPiece learn")).to_be_visible(timeout=60_000)
    expect(page.locator(".bp-scrub-text")).to_have_text(re.compile(r"^Merge step \(0 to 65\)"))
    _pause(page)
    _scrub_key(page, "Home")
    card = page.locator(".bp-card")
    expect(card).to_contain_text("every word is its characters", ignore_case=True)
    expect(page.locator(".bp-bars-title")).to_have_text(re.compile("^Highest scores before the first merge"))
    page.get_by_role("button", name="Forward").click()
    expect(page.locator(".bp-title")).to_have_text("Step 1 of 65: the merge just made")
    expect(card.locator(".bpe-facts")).to_contain_text(re.compile(r"score = \d+ / \(\d+ · \d+\) = 0\.\d+"))
    expect(page.locator(".bp-bars-title")).to_have_text(
        "Highest scores at this step: count(ab) / (count(a) · count(b))")
    expect(page.locator(".bp-bar-row.bp-chosen")).to_have_count(1)
    expect(page.locator(".bpe-row").first).to_be_visible()
    expect(page.locator(f"{LIVE} .js-plotly-plot").first).to_contain_text("Compression")
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "watch-wordpiece")


def test_unigram_plays_its_pruning_rounds(page, warm_server):
    _train(page, warm_server, "Unigram", 60)
    expect(page.get_by_role("heading", level=1, name="Watch Unigram prune")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("slider", name=re.compile(r"^Round \(1 to 7\)"))).to_be_visible()
    _pause(page)
    _scrub_key(page, "Home")
    title = page.locator(".bp-title")
    expect(title).to_have_text("Round 1 of 7: 350 → 183 pieces")  # rounds count from 1
    expect(page.get_by_role("button", name="Back")).to_be_disabled()
    facts = page.locator(".bp-card .bpe-facts")
    expect(facts).to_contain_text("62 pieces removed, least loss first (12 shown)")
    expect(facts).to_contain_text(re.compile(r"corpus log-likelihood -[\d,]+\.\d"))
    expect(page.locator(".bp-card .bp-card-chips .bpe-chip")).to_have_count(12)
    expect(page.locator(".bp-bars-title")).to_have_text("Removed in round 1, least loss first (30 of 62)")
    expect(page.locator(".bp-bar-row")).to_have_count(30)
    expect(page.locator(LIVE).get_by_text("Pruning rounds", exact=False).first).to_be_visible()
    page.get_by_role("button", name="Play").click()
    expect(page.locator(".bp-root")).to_have_attribute("data-step", "7", timeout=30_000)  # plays to the end
    expect(page.locator(".bp-root")).to_have_attribute("data-playing", "false")
    expect(facts).to_contain_text("the final cut")
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "watch-unigram")


def test_superbpe_plays_past_its_transition(page, warm_server):
    _train(page, warm_server, "SuperBPE", 420, transition=380)
    expect(page.get_by_role("heading", level=1, name="Watch SuperBPE learn")).to_be_visible(timeout=60_000)
    phases = re.compile(r"164 merges \(124 in phase one, 40 in phase two\)")
    expect(page.locator(LIVE).get_by_text(phases).first).to_be_visible()
    expect(page.locator(".bp-scrub-text")).to_contain_text("phase one: 1 to 124; phase two: from 125")
    _pause(page)
    _scrub_key(page, "End")
    facts = page.locator(".bp-card .bpe-facts")
    expect(page.locator(".bp-title")).to_have_text("Step 164 of 164: the merge just made")
    expect(facts).to_contain_text("phase two: merges across spaces")
    superword = page.locator('.bp-rows .bpe-chip.bp-marked[title*="superword"]').first
    expect(superword).to_be_visible()  # superwords ringed in the phase-two pieces
    shoot(page, "watch-superbpe-last")
    page.locator(".bp-scrub").evaluate("(s) => { s.value = '125'; s.dispatchEvent(new Event('input')); }")
    expect(facts).to_contain_text("the transition: phase two starts here")
    _scrub_key(page, "Home")
    expect(page.locator(".bp-card")).to_contain_text("Every byte is a token")
    expect(page.locator(LIVE).get_by_text("transition after merge 124", exact=False).first).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "watch-superbpe")


@pytest.mark.parametrize(("family", "facts"), [
    ("wordpiece", re.compile(r"score = \d")),
    ("unigram", re.compile("corpus log-likelihood")),
    ("superbpe", re.compile("phase (one: inside pre-tokens|two: merges across spaces)")),
])
def test_each_family_plays_at_15_steps_a_second(page, warm_server, family, facts):
    page.goto(warm_server + LINKS[family] + "&step=1")
    _pause(page)
    _scrub_key(page, "Home")
    start = _step(page)
    page.get_by_label("Speed (steps per second)").select_option("15")
    page.get_by_role("button", name="Play").click()
    several = start + 6  # Unigram has 7 rounds: from round 1, the last
    past = re.compile("^(%s)$" % "|".join(str(s) for s in range(several, several + 400)))
    expect(page.locator(".bp-root")).to_have_attribute("data-step", past, timeout=30_000)
    expect(page.locator(".bp-speed")).to_have_value("15")
    expect(page.locator(".bp-card .bpe-facts")).to_contain_text(facts)
    expect(page.locator(ERROR_BOXES)).to_have_count(0)


@pytest.mark.parametrize("family", sorted(LINKS))
def test_presenter_mode_shows_each_familys_player_in_the_first_screen(page, warm_server, family):
    width, height = 1280, 720
    page.set_viewport_size({"width": width, "height": height})
    page.goto(warm_server + LINKS[family] + "&step=3&present=1")
    _pause(page)
    play, card = page.locator(".bp-play"), page.locator(".bp-card")
    expect(page.locator(".bp-root.bp-presenter")).to_be_visible()
    expect(card.locator(".bpe-facts")).to_be_visible()
    page.evaluate("document.fonts.ready.then(() => true)")  # the fonts are in: the boxes are where they stay
    expect(page.locator("[data-testid=stSidebar]")).to_be_visible()
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"presenter-watch-{family}.png"))
    for what, box in (("play button", play.bounding_box()), ("card", card.bounding_box())):
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (what, box)
