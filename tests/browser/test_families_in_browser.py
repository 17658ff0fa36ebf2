"""The Families page in Chromium: the 5 MB English sample through BPE, WordPiece, Unigram and SuperBPE."""
from __future__ import annotations

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

from bpe_core.families.registry import family
from explorer.data import families as fam
from explorer.ui import state
from sample_corpora import load_corpus

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'


def test_four_families_train_on_the_english_sample_and_segment_the_words(page, warm_server):
    text = load_corpus("english")
    vocab = fam.default_vocab_size(len(text))  # 2,000: what the page starts from on this corpus
    expected = fam.train_families(text, vocab_size=vocab, transition=fam.transition_size(vocab, 80))
    words = state.DEFAULTS[state.FAM_WORDS]
    page.goto(warm_server + "/families?corpus=english")
    expect(page.get_by_role("heading", level=1, name="Families")).to_be_visible()
    rows = page.locator(f"{LIVE} .bpe-row")
    expect(rows).to_have_count(4, timeout=120_000)  # one chip row per family, once all four have trained
    for name in fam.FAMILIES:
        tokens = len(expected.run(name).model.encode_tokens(words))
        row = rows.filter(has=page.get_by_text(family(name).title, exact=True))
        expect(row).to_contain_text(f"{tokens:,} tokens, {tokens / len(words.split()):.2f} per word")
        expect(row.locator(".bpe-chip")).to_have_count(tokens)
    cut = f"Each family trained on the first {fam.TRAIN_CHARS:,} characters of the corpus (of {len(text):,}: the cap"
    expect(page.locator(LIVE).get_by_text(cut)).to_be_visible()
    expect(page.locator(f"{LIVE} [data-testid=stDataFrame]")).to_have_count(4)  # table, overlap, n-best, dropout
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "families-english")


def test_the_default_corpus_shows_superwords_and_a_bad_size_says_why(page, warm_server):
    page.goto(warm_server + "/families")
    rows = page.locator(f"{LIVE} .bpe-row")
    expect(rows).to_have_count(4, timeout=60_000)
    words = page.get_by_label("Words", exact=True)
    words.fill("low low newest newest")
    words.press("Enter")
    superbpe = rows.filter(has=page.get_by_text("SuperBPE", exact=True))
    expect(superbpe).to_contain_text("3 tokens, 0.75 per word", timeout=30_000)  # low ·low ·newest·newest
    expect(superbpe.locator('.bpe-chip[title*="superword"]')).to_have_count(1)
    expect(superbpe.locator('.bpe-chip[title*="superword"]')).to_have_text("·newest·newest")
    shoot(page, "families-seed000")
    box = page.get_by_label("Vocabulary size (all four families, 100 to 8,000)", exact=True)
    box.fill("200")
    box.press("Enter")
    expect(page.locator(LIVE).get_by_text("BPE could not train with these settings", exact=False).first
           ).to_be_visible(timeout=30_000)
    expect(page.locator(LIVE).get_by_text("ask for at least 257")).to_be_visible()
    expect(rows).to_have_count(2)  # WordPiece and Unigram still segment the words
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
