"""Compare, Vocabulary, Import and export, BPE-dropout in a real Chromium (server fixture: conftest.py)."""
from __future__ import annotations

import re

from browser_helpers import LIVE, go_to, open_expander, shoot
from playwright.sync_api import expect

from bpe_core import Settings, train
from bpe_core.formats import save_gpt2


def open_page(page, server: str, link: str, title: str) -> None:
    """Start at the app's front page (paused: a link with a step), then follow the sidebar link, as a user would."""
    page.goto(server + "/?step=1")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    expect(page.get_by_text(re.compile(r"· 10 merges learned ·"))).to_be_visible()
    go_to(page, link)
    expect(page.get_by_role("heading", level=1, name=title)).to_be_visible()


def test_compare_highlights_disagreements_and_shows_bytes(page, server):
    open_page(page, server, "Compare tokenizers", "Compare tokenizers")
    columns = page.locator(f"[data-testid=stHorizontalBlock] {LIVE} .bpe-chips")
    expect(columns).to_have_count(2)  # the sidebar's 10 merges and the same corpus with 5
    box = page.get_by_label("Text to compare")
    box.fill("lowest newer 日本語")
    box.press("Control+Enter")
    expect(page.locator(f"{LIVE} .cmp-text")).to_contain_text("lowest·newer")
    expect(page.get_by_text(re.compile(r"\d+ places? where the token boundaries disagree"))).to_be_visible()
    expect(page.locator(f"{LIVE} .cmp-cut").first).to_be_visible()
    expect(columns.nth(1).locator(".cmp-disputed").first).to_be_visible()  # "l o" where the other has "lo"

    builtin_tab = page.get_by_role("tab", name="Built-in tokenizers")
    open_expander(page, re.compile(r"^Add a tokenizer"), builtin_tab)
    builtin_tab.click()
    page.get_by_role("button", name="Add GPT-4 (cl100k_base)").click()
    expect(columns).to_have_count(3, timeout=40_000)
    cl = columns.nth(2)
    expect(cl).to_contain_text("<e8 aa>")  # 語 is split inside its bytes: hex, never "�"
    expect(cl).not_to_contain_text("\ufffd")
    shoot(page, "issue4-compare")
    page.get_by_text("Byte-level tokens as hex bytes").click()
    expect(cl).to_contain_text("<20 e6 97 a5>")  # " 日" as its four bytes
    expect(columns.nth(0)).to_contain_text("lo")  # word mode stays text


def test_export_tokenizer_json_and_round_trip(page, server, tmp_path):
    open_page(page, server, "Import and export", "Import and export")
    expect(page.get_by_text(re.compile(r"^Round trip OK: tokenizers"))).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download tokenizer.json").click()
    saved = tmp_path / "tokenizer.json"
    download.value.save_as(saved)
    import tokenizers

    assert tokenizers.Tokenizer.from_file(str(saved)).encode("lowest").ids == [17, 11, 13]
    shoot(page, "issue4-files-export")


def test_upload_gpt2_pair(page, server, tmp_path):
    tok = train("hello world, hello there! 日本 日本 " * 20, Settings(mode="bytes"), merges=30)
    vocab, merges = save_gpt2(tok, tmp_path / "pair")
    open_page(page, server, "Import and export", "Import and export")
    page.locator("input[type=file]").set_input_files([str(vocab), str(merges)])
    expect(page.get_by_text(re.compile(r"^Loaded vocab\.json \+ merges\.txt \(GPT-2"))).to_be_visible()
    page.get_by_label("How it splits text").fill("hello there 日本語")
    page.get_by_label("How it splits text").press("Enter")
    chips = page.locator(".bpe-chips").last
    expect(chips).to_contain_text("hello")
    expect(chips).to_contain_text("<e8>")  # 語 was never seen: single bytes, in hex
    expect(page.locator(".js-plotly-plot").last).to_be_visible()  # the merge trees
    shoot(page, "issue4-files-upload")
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": ', encoding="utf-8")
    page.locator("input[type=file]").set_input_files(str(bad))
    expect(page.get_by_text(re.compile(r"tokenizer\.json is not valid JSON"))).to_be_visible()


def test_life_story_and_jump_to_birth(page, server):
    open_page(page, server, "Vocabulary", "Vocabulary")
    picker = page.get_by_label("Token", exact=True)
    picker.click()
    page.keyboard.type("ne (step 4)")
    page.keyboard.press("Enter")
    expect(page.get_by_text("Parents (joined at step 4)")).to_be_visible()
    story = page.locator("[data-testid=stMetric]")
    expect(story.filter(has_text="Born at step")).to_contain_text("4")
    expect(story.filter(has_text="Pair count when merged")).to_contain_text("9")
    shoot(page, "issue4-vocabulary")
    page.get_by_role("button", name=re.compile("Watch its birth")).click()
    expect(page.get_by_text("Step 4 of 10", exact=False)).to_be_visible()


def test_dropout_page(page, server):
    open_page(page, server, "BPE-dropout", "BPE-dropout")
    expect(page.locator(".js-plotly-plot")).to_be_visible()
    expect(page.get_by_text("Without dropout", exact=True)).to_be_visible()
    shoot(page, "issue4-dropout")
