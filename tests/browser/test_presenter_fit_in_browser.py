"""Presenter mode on a 1280x720 projector, measured: for each lesson and for the 5 MB English sample
in every family, the player's controls, its merge card, every pair bar and the compression curve lie
inside the first screen beside the sidebar as it opens; the player's text is at least 20 px, the
curve's at least 18 px, and nothing is cut with an ellipsis.

The boxes are read inside the player's shadow root (Playwright's locators pierce it), after a pause
of the player at a step with a full set of bars.
"""
from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from browser_helpers import SCREENSHOTS, visited
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1280, 720
PLAYER_TEXT_PX, CHART_TEXT_PX = 20, 18
ERRORS = "[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]"
LONG = 1_800_000  # ms: a 5 MB training in a family, with both cores busy (the long lane runs niced: Unigram,
# 89 s on a quiet machine, was still at work after 600 s beside two `yes` processes)

# The player's measurements, from inside its shadow root: the boxes of what must be on the first
# screen, the smallest text drawn, and any element whose text is cut short.
PLAYER = """root => {
  const box = e => { const r = e.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left,
                                                                   right: r.right}; };
  const sizes = [];
  for (const e of root.querySelectorAll('*')) {
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && e.getClientRects().length) sizes.push([parseFloat(getComputedStyle(e).fontSize), e.className]);
  }
  const cut = [...root.querySelectorAll('*')].filter(e => {
    const s = getComputedStyle(e);
    return s.textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth + 1;
  }).map(e => e.textContent);
  return {controls: box(root.querySelector('.bp-controls')), card: box(root.querySelector('.bp-card')),
          bars: [...root.querySelectorAll('.bp-bar-row')].map(box), sizes, cut,
          labels: [...root.querySelectorAll('.bp-bar-label')].map(e => e.textContent)};
}"""
CURVE = """chart => {
  const r = chart.getBoundingClientRect();
  const sizes = [...chart.querySelectorAll('svg text')].filter(t => t.textContent.trim())
    .map(t => parseFloat(getComputedStyle(t).fontSize));
  return {box: {top: r.top, bottom: r.bottom, left: r.left, right: r.right}, sizes};
}"""
CUT_BUTTONS = """() => [...document.querySelectorAll('[data-testid=stSidebar] button, [data-testid=stMain] button')]
  .filter(b => b.offsetParent !== null && b.scrollWidth > b.clientWidth + 1).map(b => b.innerText)"""


def _on_screen(what: str, box: dict) -> None:
    inside = box["top"] >= 0 and box["left"] >= 0 and box["bottom"] <= HEIGHT and box["right"] <= WIDTH
    assert inside, (what, box)


def _measure(page, name: str) -> dict:
    """Pause the player, wait for its frame and curve, screenshot, and check the first screen."""
    root = page.locator(".bp-root.bp-presenter")
    expect(root.or_(page.locator(ERRORS)).first).to_be_visible(timeout=LONG)  # a training that failed says so
    expect(page.locator(ERRORS)).to_have_count(0)
    if root.get_attribute("data-playing") == "true":
        page.locator(".bp-play").click()
    expect(root).to_have_attribute("data-playing", "false")
    expect(page.locator(".bp-card")).to_contain_text(re.compile(r"\S"))
    chart = page.locator("[data-testid=stMain] [data-testid=stPlotlyChart]").first
    # Plotly adds a chart's text elements before their words: wait for a word, not for an element.
    expect(chart.locator("svg text").filter(has_text=re.compile(r"\S")).first).to_be_attached()
    page.evaluate("document.fonts.ready.then(() => true)")
    expect(page.locator(ERRORS)).to_have_count(0)
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"presenter-fit-{name}.png"))
    player = root.evaluate(PLAYER)
    # The chart's words are read in the same step that finds them there: a rerun may draw the chart
    # anew between two steps (once it had no words yet when read a moment after they were seen).
    drawn = ("() => { const chart = document.querySelector('[data-testid=stMain] [data-testid=stPlotlyChart]');"
             " if (!chart) return null; const curve = (" + CURVE + ")(chart);"
             " return curve.sizes.length > 0 ? curve : null; }")
    curve = page.wait_for_function(drawn, timeout=60_000).json_value()
    _on_screen("the player's controls", player["controls"])
    _on_screen("the merge card", player["card"])
    assert player["bars"], "no pair bars"
    for n, bar in enumerate(player["bars"]):
        _on_screen(f"pair bar {n + 1} ({player['labels'][n]})", bar)
    _on_screen("the compression curve", curve["box"])
    small = [(size, cls) for size, cls in player["sizes"] if size < PLAYER_TEXT_PX]
    assert small == [], f"player text under {PLAYER_TEXT_PX} px"
    assert curve["sizes"] and min(curve["sizes"]) >= CHART_TEXT_PX, curve["sizes"]
    assert player["cut"] == [] and page.evaluate(CUT_BUTTONS) == []
    return player


@pytest.fixture
def projector(request, tab, warm_server):
    with visited(request, tab, {"width": WIDTH, "height": HEIGHT}) as page:
        yield page


@pytest.mark.parametrize("lesson", ["low, lower, newest, widest", "like, love, hug", "cats and dogs"])
def test_each_lesson_fits_the_projector(projector, warm_server, lesson):
    """As a teacher opens a lesson: presenter mode by its switch (key P), the lesson's tab, its button."""
    page = projector
    page.goto(warm_server + "/seed-lessons")
    expect(page.get_by_role("heading", level=1, name="Lessons")).to_be_visible(timeout=60_000)
    expect(page.get_by_role("button", name=re.compile("^Presenter mode Shortcut"))).to_be_visible()  # atop the page
    page.keyboard.press("p")  # the switch's shortcut
    expect(page.get_by_role("switch", name="Presenter mode")).to_be_checked()
    page.get_by_role("tab", name=re.compile(re.escape(lesson))).click()
    page.locator("[data-testid=stTabPanel]:visible").get_by_role("button", name="Open in the explorer").first.click()
    expect(page.locator(".bp-root")).to_have_attribute("data-step", "1", timeout=60_000)
    page.locator(".bp-forward").click()  # the second merge: the card and bars of a step under way
    expect(page.locator(".bp-root")).to_have_attribute("data-step", "2")
    _measure(page, "lesson-" + re.sub(r"\W+", "-", lesson).strip("-"))


FIVE_MB = {  # family: the link that trains it on the 5 MB English sample
    "bpe": "/?corpus=english&merges=2000",
    "wordpiece": "/?corpus=english&family=wordpiece&vocab=2000",
    "unigram": "/?corpus=english&family=unigram&vocab=8000",  # fewer pruning rounds than 2,000: faster
    "superbpe": "/?corpus=english&family=superbpe&vocab=2000&transition=1500",
}


@pytest.mark.parametrize("family", sorted(FIVE_MB))
def test_the_5_mb_sample_fits_the_projector_in_each_family(projector, warm_server, family):
    page = projector
    page.goto(warm_server + FIVE_MB[family] + "&step=3&present=1")
    player = _measure(page, f"english-{family}")
    assert len(player["bars"]) >= 5  # a full set of pairs on a large corpus, each one on screen


# The texts of the pair's two tokens as drawn, left to right on screen: in the merge card and in the
# chosen (red) bar, which is the same pair.
PAIR_ON_SCREEN = """root => {
  const inOrder = els => els.map(e => [e.getBoundingClientRect().left, e.textContent])
    .sort((a, b) => a[0] - b[0]).map(p => p[1]);
  const card = [...root.querySelectorAll('.bp-card .bpe-merge > .bpe-chip')].slice(0, 2);
  const bar = [...root.querySelectorAll('.bp-bar-row.bp-chosen .bp-bar-token')];
  return {card: inOrder(card), bar: inOrder(bar)};
}"""


@pytest.mark.parametrize("present", ["0", "1"])
def test_a_right_to_left_pair_is_drawn_in_one_order(projector, warm_server, present):
    """Arabic words: the merge card and the bar of the same pair show its tokens in the same order
    (each token is isolated: the letters' direction never swaps the pair around its "+")."""
    page = projector
    corpus = "السلام السلام السلام الكتاب الكتاب"
    page.goto(warm_server + f"/?text={quote(corpus)}&merges=4&step=1&present={present}")
    root = page.locator(".bp-root")
    expect(root).to_have_attribute("data-step", "1", timeout=60_000)
    if root.get_attribute("data-playing") == "true":
        page.locator(".bp-play").click()
    expect(page.locator(".bp-bar-row.bp-chosen .bp-bar-token")).to_have_count(2)
    shown = root.evaluate(PAIR_ON_SCREEN)
    page.screenshot(path=str(SCREENSHOTS / f"rtl-pair-present-{present}.png"))
    assert len(shown["card"]) == 2 and all(re.search("[\u0600-\u06ff]", t) for t in shown["card"]), shown
    assert shown["bar"] == shown["card"]
