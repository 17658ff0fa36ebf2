"""The training animation's player in a real Chromium: every merge drawn at 15 steps/s, fast scrubs.

The player draws in the browser (explorer/ui/player); these tests read the step it shows from its
`data-step` attribute. The speed test runs the page on Playwright's clock, so it counts steps in
three seconds of the page's time however busy the machine is; how fast a real tab keeps up is
bench/bench_pages.py's business, not a test's.
"""
from __future__ import annotations

import re

import pytest
from browser_helpers import shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

# The player's root inside the component's shadow root.
ROOT = """(() => {
  for (const host of document.querySelectorAll('.stBidiComponent *')) {
    const root = host.shadowRoot && host.shadowRoot.querySelector('.bp-root');
    if (root) return root;
  }
  return document.querySelector('.bp-root');
})()"""

# Move the slider as a drag or a key press does (input, then change on release), then wait for the
# frame: the time from the input to the new step shown.
SCRUB = """async (target) => {
  const root = %s;
  const slider = root.getRootNode().querySelector('.bp-scrub');
  const t0 = performance.now();
  slider.value = String(target);
  slider.dispatchEvent(new Event('input', {bubbles: true}));
  slider.dispatchEvent(new Event('change', {bubbles: true}));
  while (Number(root.dataset.step) !== target) {
    await new Promise((next) => requestAnimationFrame(next));
    if (performance.now() - t0 > 30000) return -1;
  }
  return performance.now() - t0;
}""" % ROOT


def open_player(page, server: str, path: str, timeout: int = 60_000) -> None:
    page.goto(server + path)
    expect(page.get_by_role("button", name="Play")).to_be_visible(timeout=timeout)


def shown_step(page) -> int:
    return int(page.evaluate(f"{ROOT}.dataset.step"))


# Every step the player shows, as it shows it: a MutationObserver on `data-step` is called in
# microtasks, which the page's clock does not hold back.
OBSERVE = """() => {
  const root = %s;
  window.__bpSteps = [Number(root.dataset.step)];
  new MutationObserver(() => window.__bpSteps.push(Number(root.dataset.step)))
    .observe(root, { attributes: true, attributeFilter: ["data-step"] });
}""" % ROOT


@pytest.mark.own_tab  # Playwright's clock stays installed in its browser context
def test_playing_at_15_steps_a_second_shows_every_merge(page, server):
    # The page runs on Playwright's clock, paused while playing: three seconds of the page's time
    # are three seconds however busy the machine is, so the count of steps is exact, not a timing.
    page.clock.install()
    open_player(page, server, "/?corpus=multilingual&merges=200&step=1")
    expect(page.get_by_text("Step 1 of 200", exact=False)).to_be_visible()
    page.get_by_label("Speed (steps per second)").select_option("15")
    page.get_by_role("button", name="Play").click()
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    page.evaluate(OBSERVE)
    page.clock.run_for(3000)
    steps = page.evaluate("window.__bpSteps")
    distinct = [s for i, s in enumerate(steps) if i == 0 or s != steps[i - 1]]
    jumps = [(a, b) for a, b in zip(distinct, distinct[1:]) if b != a + 1]
    assert not jumps, f"steps skipped: {jumps}"
    assert 44 <= len(distinct) - 1 <= 46, f"{len(distinct) - 1} steps in 3 s at 15 steps/s ({distinct})"
    page.clock.resume()
    shoot(page, "player-playing")


def test_pause_scrub_step_and_the_link(page, server):
    open_player(page, server, "/?step=3")
    expect(page.get_by_text("Step 3 of 10", exact=False)).to_be_visible()
    slider = page.get_by_role("slider", name=re.compile("Merge step"))
    slider.focus()
    page.keyboard.press("End")
    expect(page.get_by_text("Step 10 of 10", exact=False)).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]step=10\b"))  # the link follows a scrub
    page.get_by_role("button", name="Play").click()  # at the end, play starts over
    expect(page.get_by_text("Step 1 of 10", exact=False)).to_be_visible(timeout=10_000)
    page.get_by_role("button", name="Pause").click()
    paused_at = shown_step(page)
    expect(page).to_have_url(re.compile(rf"[?&]step={paused_at}\b"))  # and a pause
    page.wait_for_timeout(1500)
    assert shown_step(page) == paused_at  # paused means paused
    page.get_by_role("button", name="Forward").click()
    page.get_by_role("button", name="Forward").click()
    page.get_by_role("button", name="Back").click()
    assert shown_step(page) == paused_at + 1
    expect(page).to_have_url(re.compile(rf"[?&]step={paused_at + 1}\b"))


def test_corpus_text_is_text_in_the_player(page, server):
    open_player(page, server, "/?corpus=tricky&mode=text&step=0")
    passage = page.locator(".bp-passage")
    expect(passage).to_contain_text("<script>alert(1)</script>")
    assert page.locator(".bp-root script, .bp-root img").count() == 0
    expect(page.get_by_text("Tokens per character")).to_be_visible()
    assert page.get_by_text("Tokens per word").count() == 0  # one giant "word": no per-word measure


def scrub_times(page, targets: list[int]) -> list[float]:
    times = []
    for target in targets:
        times.append(page.evaluate(SCRUB, target))
        page.wait_for_timeout(700)  # let the server hear of it, as between two moves of a hand
    return times


def test_scrub_reaches_near_and_far_steps_on_5_mb(page, server):
    """5 MB of English, word mode, 5,000 merges: scrubs near and far from the frames the browser holds.

    A state, not a time: each scrub must show its step (how fast is bench/bench_pages.py's figure)."""
    open_player(page, server, "/?corpus=english&merges=5000&step=4000", timeout=300_000)
    expect(page.get_by_text("Step 4,000 of 5,000", exact=False)).to_be_visible()
    near = scrub_times(page, [4100, 4300, 3900, 4444])
    far = scrub_times(page, [1000, 2500, 200, 4999, 3300])
    assert min(near) >= 0 and min(far) >= 0, (near, far)  # -1: the step never showed
    assert shown_step(page) == 3300
    shoot(page, "player-english-5mb")


def test_scrub_in_text_mode_on_5_mb(page, server):
    """Text mode without a pre-tokenizer: the whole 5 MB is one "word"; a passage is shown around each merge."""
    open_player(page, server, "/?corpus=english&mode=text&merges=2000&step=1000", timeout=300_000)
    expect(page.get_by_text("Step 1,000 of 2,000", exact=False)).to_be_visible()
    expect(page.locator(".bp-passage")).to_be_visible()
    near = scrub_times(page, [1010, 1050, 990])
    far = scrub_times(page, [300, 1700, 1990])
    assert min(near) >= 0 and min(far) >= 0, (near, far)  # -1: the step never showed
    assert shown_step(page) == 1990
    expect(page.locator(".bp-passage")).to_be_visible()
    shoot(page, "player-english-text")
