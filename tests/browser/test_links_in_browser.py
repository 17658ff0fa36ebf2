"""Crafted and shared links, opened in a real browser: what a person sees is plain text, in words."""
from __future__ import annotations

import re
import urllib.parse
import urllib.request

import pytest
from browser_helpers import LIVE, go_to, requests_to, shoot
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

NOT_RENDERED = """() => ({
  links: [...document.querySelectorAll('a[href*="example.invalid"]')].map(a => a.href),
  images: [...document.querySelectorAll('img[src*="example.invalid"]')].map(i => i.src),
})"""


def open_link(page, server: str, params: dict[str, str], path: str = "/") -> None:
    page.goto(server + path + "?" + urllib.parse.urlencode(params))
    expect(page.get_by_role("heading", level=1)).to_be_visible(timeout=60_000)


def notice(page):
    return page.locator(LIVE).locator("[data-testid=stAlert]").filter(has_text="the link").first


def text_of(locator) -> str:
    """What a person reads: the word joiners that keep `https://` from becoming a link are invisible."""
    return locator.inner_text().replace("\u2060", "")


@pytest.mark.parametrize(("value", "name"), [("[Reload here](https://example.invalid)", "link"),
                                             ("![t](https://example.invalid/p.png)", "image")])
def test_a_crafted_mode_is_shown_as_text(page, server, value, name):
    with requests_to(page, "example.invalid") as requests:
        open_link(page, server, {"mode": value})
        expect(notice(page)).to_contain_text("The link's other settings were used.")
        assert f"mode={value} in the link is not one of word, text, bytes." in text_of(notice(page))
        shoot(page, f"link-crafted-{name}")
        assert page.evaluate(NOT_RENDERED) == {"links": [], "images": []}
    assert requests == []


def test_a_bad_number_is_said_in_words_once(page, server):
    open_link(page, server, {"merges": "abc"})
    expect(notice(page)).to_have_text(re.compile(
        r"The link asked for something this app could not do\. merges=abc in the link is not a whole number\. "
        r"The link's other settings were used\."))
    expect(page.get_by_text("invalid literal")).to_have_count(0)
    go_to(page, "Unseen words")  # moving on: the notice is done
    expect(page.get_by_role("heading", level=1, name="Unseen words")).to_be_visible()
    page.wait_for_timeout(1500)
    expect(page.get_by_text("in the link is not a whole number")).to_have_count(0)


def test_a_small_pasted_corpus_travels_in_the_link(page, server):
    open_link(page, server, {"text": "hug hugs hugging hug", "merges": "3", "step": "2"})
    expect(page.locator(LIVE).get_by_text(
        "This link carries its own corpus: 20 characters of pasted text, now in use.")).to_be_visible()
    expect(page.get_by_text(re.compile(r"Pasted: hug hugs hugging hug · word mode"))).to_be_visible()


def test_a_link_made_with_a_big_pasted_corpus_says_so_when_made_and_when_opened(page, server, browser):
    page.goto(server + "/corpora")
    page.get_by_role("tab", name="Paste text").click()
    page.get_by_label("Paste text to train on").fill("lorem ipsum dolor sit amet " * 100)  # 2,700 bytes
    page.get_by_role("button", name="Use this text").click()
    made = page.locator("[data-testid=stSidebar]").get_by_text(re.compile(
        r"This page's link \(the address bar\) opens a sample corpus, not your pasted text"))
    expect(made).to_be_visible(timeout=60_000)
    expect(page).to_have_url(re.compile(r"own=paste"))
    shared = page.url
    other = browser.new_context(viewport={"width": 1440, "height": 1100}).new_page()  # another visitor
    try:
        other.goto(shared)
        expect(other.locator(LIVE).locator("[data-testid=stAlert]")).to_contain_text(
            "This link was made while pasted text was in use; a link cannot carry it, so it opened the sample "
            "corpus")
    finally:
        other.context.close()


def test_a_huge_request_is_clamped_with_a_message_and_the_server_answers(page, server):
    # Last in this file: the training it starts may still run while later files' tests start.
    page.goto(server + "/?" + urllib.parse.urlencode({"corpus": "english", "mode": "text", "merges": "1000000"}))
    expect(notice(page)).to_contain_text(
        "merges=1000000 in the link is more than this app allows (50,000 merges), so 50,000 was used.")
    expect(page.get_by_role("spinbutton", name="Merges")).to_have_value("50000")
    with urllib.request.urlopen(server + "/_stcore/health", timeout=30) as answer:  # answers while it trains
        assert answer.read().decode().strip() == "ok"
    shoot(page, "link-clamped")
