"""Unseen words, Compare, Vocabulary and Import/export in Chromium with the sidebar trained as WordPiece,
Unigram and SuperBPE (from the link), a screenshot of each."""
from __future__ import annotations

import json
import re

import pytest
from browser_helpers import LIVE, shoot
from playwright.sync_api import expect

from bpe_core.families import train_wordpiece
from explorer.data.training import family_request, train_corpus
from explorer.families.unigram.explain import unigram_nbest
from sample_corpora import load_corpus

pytestmark = pytest.mark.browser

ERROR_BOXES = '[data-testid=stMain] [data-testid=stException], [data-testid=stMain] [data-testid=stAlertContentError]'
LINKS = {"wordpiece": "family=wordpiece&vocab=60", "unigram": "family=unigram&vocab=40",
         "superbpe": "family=superbpe&vocab=280"}


def trained(family: str):
    """The model the sidebar trains from the link (the default corpus, seed000)."""
    size = int(LINKS[family].rsplit("=", 1)[1])
    return train_corpus([load_corpus("seed000")], family_request(family, size, limit=50_000)).model


def open_page(page, server, path: str, family: str, heading: str) -> None:
    page.goto(f"{server}/{path}?{LINKS[family]}")
    expect(page.get_by_role("heading", level=1, name=heading)).to_be_visible(timeout=60_000)


def type_words(page, label: str, text: str) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(text)
    box.press("Enter")


def test_unseen_words_by_wordpiece_and_unigram(page, warm_server):
    wordpiece = trained("wordpiece")
    open_page(page, warm_server, "unseen-words", "wordpiece", "Unseen words")
    type_words(page, "Words to encode (split into words as this tokenizer splits text)", "lowest slow")
    expect(page.locator(LIVE).get_by_text("Unknown: no piece of the vocabulary matches at character 1")).to_be_visible()
    lowest = len(wordpiece.encode_tokens("lowest"))
    expect(page.locator(LIVE).get_by_role("heading", name=f"lowest → {lowest} token")).to_be_visible()
    expect(page.locator(f"{LIVE} .bpe-chips").first.locator(".bpe-chip")).to_have_count(lowest)
    expect(page.locator(f"{LIVE} .bpe-unknown")).to_have_count(1)  # "slow" is [UNK] whole
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "family-unseen-wordpiece")

    unigram = trained("unigram")
    open_page(page, warm_server, "unseen-words", "unigram", "Unseen words")
    type_words(page, "Words to encode (split into words as this tokenizer splits text)", "lowest")
    # Only the typed word's card (the link's default words are gone once the typed words apply), and
    # as many segmentations as the model has for it.
    expect(page.locator(LIVE).get_by_text(re.compile(r"^The \d+ best segmentations?$"))).to_have_count(1)
    n_best = len(unigram_nbest(unigram, "lowest", 5))
    expect(page.locator(LIVE).get_by_text(f"The {n_best} best segmentation{'s' * (n_best != 1)}", exact=True)
           ).to_be_visible()
    chips = page.locator(f"{LIVE} .bpe-chips").first.locator(".bpe-chip")
    expect(chips).to_have_count(len(unigram.encode_tokens("lowest")))
    expect(page.locator(f"{LIVE} [data-testid=stDataFrame]")).to_have_count(1)
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "family-unseen-unigram")


def test_compare_superbpe_with_gpt2(page, warm_server):
    model = trained("superbpe")
    open_page(page, warm_server, "side-by-side", "superbpe", "Compare tokenizers")
    text = "low low newest newest"
    area = page.get_by_label("Text to compare")
    area.fill(text)
    area.press("Control+Enter")
    expect(page.locator(f"{LIVE} .bpe-chips")).to_have_count(1)
    expect(page.locator(f"{LIVE} .bpe-chips").first.locator(".bpe-chip")).to_have_count(len(model.encode_tokens(text)))
    page.get_by_role("tab", name="Built-in tokenizers").click()
    page.get_by_role("button", name="Add GPT-2 (gpt2)").click()
    expect(page.locator(f"{LIVE} .bpe-chips")).to_have_count(2, timeout=60_000)
    superwords = [t for t in model.encode_tokens(text) if t in model.superwords]
    expect(page.locator(f"{LIVE} .fam-superword")).to_have_count(len(superwords))
    expect(page.locator(LIVE).get_by_text("Vocabulary overlap:", exact=False)).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "family-compare-superbpe")


def test_vocabulary_of_unigram_and_superbpe(page, warm_server):
    unigram = trained("unigram")
    open_page(page, warm_server, "vocab-table", "unigram", "Vocabulary")
    expect(page.locator(LIVE).get_by_text(f"{len(unigram.pieces)} of {len(unigram.pieces)} tokens")).to_be_visible()
    expect(page.locator(LIVE).get_by_text("Log-probability", exact=False).first).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "family-vocabulary-unigram")

    superbpe = trained("superbpe")
    open_page(page, warm_server, "vocab-table", "superbpe", "Vocabulary")
    page.get_by_text("Superwords only").click()
    n = len(superbpe.superwords)
    expect(page.locator(LIVE).get_by_text(f"{n:,} of {len(superbpe.vocab):,} tokens")).to_be_visible()
    expect(page.locator(ERROR_BOXES)).to_have_count(0)
    shoot(page, "family-vocabulary-superbpe")


def test_import_export_with_wordpiece(page, warm_server, tmp_path):
    open_page(page, warm_server, "import-export", "wordpiece", "Import and export")
    expect(page.locator(LIVE).get_by_text(re.compile(r"^Round trip OK: tokenizers"))).to_be_visible(timeout=60_000)
    expect(page.get_by_role("button", name="Download tokenizer.json")).to_be_visible()
    mine = train_wordpiece(["unbelievable believers believe the unbelievers " * 8], vocab_size=70)
    good = tmp_path / "<b>mine<b>.json"
    good.write_text(json.dumps(mine.to_dict()), encoding="utf-8")
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps({"format": "bpe-explorer", "model": "wordpiece", "version": 1}), encoding="utf-8")
    page.locator("input[type=file]").set_input_files([str(good), str(bad)])
    expect(page.get_by_text(re.compile(r"^Loaded <b>mine<b>\.json \(our WordPiece JSON\)"))).to_be_visible()
    expect(page.locator(LIVE).get_by_text("broken.json: malformed WordPiece model file")).to_be_visible()
    type_words(page, "How it splits text", "unbelievable believers x")
    tokens = mine.encode_tokens("unbelievable believers x")
    expect(page.locator(LIVE).get_by_text(f"{len(tokens)} tokens.", exact=True)).to_be_visible()
    expect(page.locator(f"{LIVE} .bpe-chips").last.locator(".bpe-chip")).to_have_count(len(tokens))
    expect(page.locator("b", has_text="mine")).to_have_count(0)  # the file name is text, not markup
    shoot(page, "family-import-export-wordpiece")
