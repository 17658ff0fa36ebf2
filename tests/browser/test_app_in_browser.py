"""The explorer in a real Chromium: upload, train, play, scrub, encode, and every page looks right."""
from __future__ import annotations

import re

import pytest
from browser_helpers import LIVE, go_to, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def open_app(page, server: str, path: str = "/") -> None:
    """Open a page of the app and wait for its title."""
    page.goto(server + path)
    expect(page.get_by_role("heading", level=1)).to_be_visible()


def step_text(page, step: int, steps: int = 10):
    return page.get_by_text(f"Step {step} of {steps}", exact=False)


def test_play_pause_scrub_and_step(page, server):
    open_app(page, server, "/?step=1")
    expect(step_text(page, 1)).to_be_visible()
    expect(page.locator(".js-plotly-plot").first).to_be_visible()
    shoot(page, "1-watch-training")
    page.get_by_role("button", name="Play").click()
    expect(step_text(page, 3)).to_be_visible(timeout=20_000)
    page.get_by_role("button", name="Pause").click()
    expect(page.get_by_role("button", name="Play")).to_be_visible()
    paused_at = int(re.search(r"Step (\d+) of", page.get_by_text(re.compile(r"Step \d+ of 10")).inner_text()).group(1))
    page.wait_for_timeout(2500)
    expect(step_text(page, paused_at)).to_be_visible()  # paused means paused

    page.get_by_role("slider", name=re.compile("Merge step")).focus()
    page.keyboard.press("End")
    expect(step_text(page, 10)).to_be_visible()
    expect(page.locator(f"{LIVE} .bpe-card")).to_contain_text("wi")
    page.get_by_role("button", name="Back").click()
    expect(step_text(page, 9)).to_be_visible()
    expect(page.locator(f"{LIVE} .bpe-card")).to_contain_text("low</w>")


def test_settings_survive_moving_between_pages(page, server):
    """The sidebar keeps its values on every page, so Train on another page trains the same thing."""
    open_app(page, server, "/?step=1")
    for link in ("Vocabulary", "Unseen words", "Watch training"):
        go_to(page, link)
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        expect(page.get_by_role("spinbutton", name="Merges")).to_have_value("10")
        expect(page.get_by_role("spinbutton", name="Vocabulary size")).to_have_value("100")
    page.get_by_role("button", name="Train").click()
    expect(page.get_by_text(re.compile(r"· 10 merges learned ·"))).to_be_visible()


def test_unseen_word_lowest(page, server):
    open_app(page, server, "/unseen-words?corpus=seed000")
    box = page.get_by_label(re.compile("Words to encode"))
    box.fill("lowest")
    box.press("Enter")
    expect(page.get_by_role("heading", name=re.compile("lowest → 3 tokens"))).to_be_visible()
    chips = page.locator(".bpe-chips").first.locator(":scope > .bpe-chip")
    expect(chips).to_have_count(3)
    expect(chips.nth(0)).to_have_text(re.compile(r"^lo\s*17$"))
    expect(chips.nth(1)).to_have_text(re.compile(r"^we\s*11$"))
    expect(chips.nth(2)).to_have_text(re.compile(r"^st</w>\s*13$"))
    expect(page.locator(".bpe-tree .bpe-node").first).to_be_visible()
    shoot(page, "3-unseen-words")
    page.get_by_role("button", name="Step 7: lo").click()
    expect(step_text(page, 7)).to_be_visible()


def test_upload_train_and_play(page, server, tmp_path):
    corpus = tmp_path / "hugs.txt"
    corpus.write_text("hug hugs hugging hugged hugger " * 40 + "like liker likely liking " * 30, encoding="utf-8")
    open_app(page, server, "/corpora")
    page.get_by_role("tab", name="Upload files").click()
    page.locator("input[type=file]").set_input_files(str(corpus))
    expect(page.get_by_text("Loaded hugs.txt")).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile("In use: Uploaded: hugs.txt"))).to_be_visible()
    shoot(page, "2-corpus")
    bad = tmp_path / "bad.txt"
    bad.write_bytes("caf\u00e9".encode("latin-1"))
    page.locator("input[type=file]").set_input_files(str(bad))
    expect(page.get_by_text(re.compile("not UTF-8 text.*previous corpus is still loaded"))).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile("In use: Uploaded: hugs.txt"))).to_be_visible()

    go_to(page, "Watch training")
    merges = page.get_by_label("Merges", exact=True)
    merges.fill("20")
    page.get_by_role("button", name="Train").click()
    expect(step_text(page, 1, 20)).to_be_visible()
    page.get_by_role("button", name="Play").click()
    expect(step_text(page, 3, 20)).to_be_visible(timeout=20_000)
    page.get_by_role("button", name="Pause").click()


def test_tricky_text_is_shown_not_run(page, server):
    open_app(page, server, "/?corpus=tricky&mode=text&step=3")
    expect(page.locator(f"{LIVE} .bpe-rows")).to_be_visible()
    expect(page.locator(f"{LIVE} .bpe-rows")).to_contain_text("<script>")
    assert page.locator(".bpe-rows script, .bpe-rows img").count() == 0
    page.goto(server + "/unseen-words?corpus=tricky&words=%3Cimg+src%3Dx+onerror%3Dalert(2)%3E")
    expect(page.locator(".bpe-chips").nth(1)).to_contain_text("<img")
    assert page.locator("[data-testid=stMain] img[src=x]").count() == 0


def test_every_page_screenshot(page, server):
    open_app(page, server, "/seed-lessons")
    expect(page.get_by_text("Merges after that point cannot shorten the corpus any more")).to_be_visible()
    shoot(page, "4-lessons-seed000")
    page.get_by_role("tab", name=re.compile("like, love, hug")).click()
    expect(page.get_by_text("Matches the lesson: the final tokens")).to_be_visible()
    shoot(page, "4-lessons-seed003")
    page.get_by_role("tab", name=re.compile("cats and dogs")).click()
    expect(page.get_by_text(re.compile(r"the unknown token\), not 120"))).to_be_visible()
    shoot(page, "4-lessons-seed002")
    open_app(page, server, "/common-mistakes")
    expect(page.get_by_text("Training on different text than you encode")).to_be_visible()
    shoot(page, "5-common-mistakes")
    open_app(page, server, "/?corpus=seed000&merges=20&step=18&present=1")
    expect(step_text(page, 18, 18)).to_be_visible()
    expect(page.locator(".bp-bars")).to_be_visible()  # the pair counts, drawn by the player
    expect(page.locator(".js-plotly-plot").first).to_be_visible()  # the compression curve
    shoot(page, "6-presenter-collapse")
