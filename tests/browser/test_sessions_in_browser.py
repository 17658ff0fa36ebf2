"""Five visitors at once, each with a different corpus: each sees its own corpus's first merge, and no error.

The two 5 MB samples train in worker processes at the same time as the others' pages are drawn.
"""
from __future__ import annotations

import re

import pytest
from browser_helpers import LIVE, go_to
from playwright.sync_api import expect

from bpe_core import Settings
from explorer.data.training import TrainRequest, train_corpus
from sample_corpora import load_corpus

pytestmark = pytest.mark.browser

PASTED = "zq zq zqx zq " * 30
# (link, corpus text, settings): five corpora, five different first merges.
SESSIONS = [
    ("/?corpus=english&step=1", "english", Settings()),
    ("/?corpus=python&eow=none&step=1", "python", Settings(eow="none")),
    ("/?corpus=tamil&eow=none&step=1", "tamil", Settings(eow="none")),
    ("/?corpus=seed002&step=1", "seed002", Settings()),
    (None, None, Settings()),  # pastes its own text on the Corpus page
]


def first_merge(text: str, settings: Settings) -> tuple[int, tuple[str, str, str]]:
    """Merges learned (at most 10) and the first merge."""
    trace = train_corpus([text], TrainRequest(settings, "merges", 10)).tokenizer.training.trace
    return len(trace), (trace[0].left, trace[0].right, trace[0].token)


def test_five_sessions_with_different_corpora_at_once(browser, warm_server):
    expect.set_options(timeout=45_000)
    expected = [first_merge(load_corpus(cid) if cid else PASTED, settings) for _, cid, settings in SESSIONS]
    assert len({merge for _, merge in expected}) == 5  # each session's first merge tells its corpus apart
    assert [steps for steps, _ in expected] == [10, 10, 10, 10, 4]
    contexts = [browser.new_context(viewport={"width": 1280, "height": 900}) for _ in SESSIONS]
    try:
        pages = [context.new_page() for context in contexts]
        for page, (link, _, _) in zip(pages, SESSIONS):  # all five start at once: goto does not wait for the run
            page.goto(warm_server + (link or "/corpora?step=1"))
        paster = pages[-1]
        expect(paster.get_by_role("heading", level=1, name="Corpus")).to_be_visible()
        paster.get_by_role("tab", name="Paste text").click()
        paster.get_by_label("Paste text to train on").fill(PASTED)
        paster.get_by_role("button", name="Use this text").click()
        expect(paster.get_by_role("heading", name=re.compile(r"^In use: Pasted"))).to_be_visible()
        go_to(paster, "Watch training")

        for page, (steps, (left, right, token)) in zip(pages, expected):
            expect(page.get_by_text(re.compile(rf"Step 1 of {steps}: the merge just made"))).to_be_visible()
            merge = page.locator(".bpe-merge").first
            expect(merge).to_contain_text(token)
            # The chips show a combining mark on a dotted circle (◌் for the Tamil virama).
            chips = re.sub(r"\s+", " ", merge.inner_text()).replace("\u25cc", "").strip()
            assert chips.startswith(f"{left} + {right} → {token}"), chips
            expect(page.get_by_text(re.compile(rf"· {steps} merges learned ·"))).to_be_visible()
            assert page.locator(f"{LIVE} [data-testid=stAlertContentError]").count() == 0
            assert page.locator("[data-testid=stException]").count() == 0
    finally:
        for context in contexts:
            context.close()
