"""The Tokenize page in a real Chromium: a shared link opens it, pasting shows tokens at once, the
tokens follow typing with no commit, hovering links the text with its tokens, the table fits.

Also times (printed with -s, never asserted) how long a 200k-token built-in vocabulary takes
to show on the Vocabulary page.
"""
from __future__ import annotations

import re
import time
from urllib.parse import urlencode

import pytest
from browser_helpers import LIVE, SCREENSHOTS, settle, shoot
from playwright.sync_api import expect

from bpe_core.builtin import load_builtin
from explorer.ui import live_text

CRAFTED = "**bold** <img src=x onerror=alert(1)> [l](https://x.invalid) $x$ 日本語"


def chips(page):
    return page.locator(f"{LIVE} .bpe-chips")


def test_a_shared_link_opens_the_page_with_its_text_and_tokenizers(page, server):
    query = urlencode({"input": CRAFTED, "tokenizers": "gpt2,o200k_base,<b>nope</b>"})
    started = time.monotonic()
    page.goto(f"{server}/tokenize?{query}")
    expect(page.get_by_role("heading", level=1, name="Tokenize")).to_be_visible(timeout=60_000)
    expect(chips(page)).to_have_count(2, timeout=60_000)
    print(f"\nTokenize page from a link, two built-ins drawn: {time.monotonic() - started:.1f} s")
    notice = page.locator(f"{LIVE} [data-testid=stAlertContentWarning]")
    expect(notice).to_contain_text("tokenizers=<b>nope</b> in the link names no tokenizer this app has")
    expect(page.get_by_label("Text to tokenize")).to_have_value(CRAFTED)
    expect(chips(page).first).to_contain_text("·<1279img9600")  # GPT-2's " <" (id 1279), "img": text, not a tag
    expect(chips(page).nth(1)).to_contain_text("·日本17428語40909")  # o200k: " 日本" and "語", whole characters
    expect(page.locator("img[src=x]")).to_have_count(0)
    shoot(page, "tokenize-link")


def test_paste_see_at_once_switch_to_bytes_and_the_link_follows(page, server):
    page.goto(f"{server}/tokenize")
    expect(chips(page)).to_have_count(3, timeout=60_000)  # cl100k, o200k and the sidebar's lesson tokenizer
    box = page.get_by_label("Text to tokenize")
    box.fill("The lowest price: 12345 ₹")
    box.press("Control+Enter")
    expect(chips(page).first).to_contain_text("·price")
    expect(page).to_have_url(re.compile(r"input=The\+lowest"))
    page.get_by_text("Byte-level tokens as hex bytes").click()
    expect(chips(page).first).to_contain_text("<20 e2 82 b9>")  # " ₹" as its bytes
    page.get_by_role("button", name="Many scripts").click()
    expect(chips(page).first).to_contain_text("<45 6e 67 6c 69 73 68>")  # "English" as bytes
    shoot(page, "tokenize-paste")


def test_a_200k_vocabulary_shows_on_the_vocabulary_page(page, server):
    page.goto(f"{server}/vocab-table")
    expect(page.get_by_role("heading", level=1, name="Vocabulary")).to_be_visible(timeout=60_000)
    for visit in ("first", "second"):
        started = time.monotonic()
        page.locator(f"[data-testid=stMain] {LIVE} [data-testid=stSelectbox]").first.click()
        page.get_by_role("option", name=re.compile(r"^GPT-4o \(o200k_base\)")).click()
        expect(page.get_by_role("heading", name="All 199,998 tokens")).to_be_visible(timeout=120_000)
        expect(page.locator(f"{LIVE} [data-testid=stDataFrame]").first).to_be_visible()
        print(f"\nVocabulary page, o200k_base ({visit} time this server shows it): {time.monotonic() - started:.1f} s")
        if visit == "first":
            shoot(page, "tokenize-vocabulary-200k")
            page.locator(f"[data-testid=stMain] {LIVE} [data-testid=stSelectbox]").first.click()
            page.get_by_role("option", name=re.compile(r"^Trained here")).click()
            expect(page.get_by_role("heading", name="All 22 tokens")).to_be_visible()


def test_a_tokenizers_parts_step_by_step(page, server):
    """DeepSeek V4's tokenizer.json: its expander lists its parts and what each made of the text."""
    query = urlencode({"input": "Hello  world, 12345 日本", "tokenizers": "deepseek_v4"})
    page.goto(f"{server}/tokenize?{query}")
    expect(chips(page)).to_have_count(1, timeout=60_000)
    expander = page.locator("[data-testid=stMain] [data-testid=stExpander]").filter(has_text="Its parts, step by step")
    expander.get_by_text("Its parts, step by step").click()
    expect(expander.locator("[data-testid=stDataFrame]")).to_be_visible(timeout=30_000)
    expect(page.locator(LIVE).get_by_text("Each part of the tokenizer in the order text meets it")).to_be_visible()
    shoot(page, "tokenize-parts")


# The text area's watcher has run: until its script is in the page, an input event is heard by no one
# (the box keeps the text, and a blur or Ctrl+Enter still sends it).
LISTENING = "() => { const l = globalThis.__bpeLiveText; return !!(l && l.installed && l.watchers.size); }"
# A paste as the browser makes one: the new value, then one input event saying it came from a paste.
PASTE = """(box, text) => { box.focus();
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
  box.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertFromPaste'})); }"""


def test_tokens_follow_typing_with_no_commit(page, server):
    """No blur and no Ctrl+Enter: the page answers a pause in typing. The keys come slower than its
    pause, so runs happen between them (on a long text, while the next keys are typed): none is lost."""
    page.goto(f"{server}/tokenize")
    expect(chips(page)).to_have_count(3, timeout=60_000)
    page.wait_for_function(LISTENING, timeout=60_000)
    box = page.get_by_label("Text to tokenize")
    long = "The quick brown fox jumps over the lazy dog. " * 5000  # 225,000 characters
    box.evaluate(PASTE, long)  # as a paste: one input event, no commit
    expect(page.locator(f"{LIVE} .bpe-more").first).to_contain_text("more tokens", timeout=60_000)
    box.press("Control+End")
    page.keyboard.type(" zebra", delay=40)
    expect(page.locator(f"{LIVE} [data-testid=stCode]").first).to_contain_text("]", timeout=60_000)
    page.keyboard.type(" quagga okapi", delay=350)
    expect(box).to_have_value(long + " zebra quagga okapi")
    assert page.evaluate("() => document.activeElement && document.activeElement.tagName") == "TEXTAREA"
    box.press("Control+a")
    page.keyboard.type("naïve words typed", delay=40)
    expect(chips(page).first).to_contain_text("·typed", timeout=60_000)
    expect(box).to_have_value("naïve words typed")
    expect(page).to_have_url(re.compile(r"input=na%C3%AFve\+words\+typed"))


def test_hovering_links_the_text_and_its_tokens(page, server):
    page.goto(f"{server}/tokenize?{urlencode({'input': 'Hello <b>world</b> 語', 'tokenizers': 'cl100k_base'})}")
    expect(chips(page)).to_have_count(1, timeout=60_000)
    text = page.locator(f"{LIVE} .tk-text")
    expect(text).to_have_text("Hello <b>world</b> 語")  # the text as text: no tag made of it
    expect(page.locator(".tk-text b")).to_have_count(0)
    settle(page)  # a rerun (the sidebar's training arriving) would draw the text anew under a still mouse
    text.locator(".tk-piece", has_text="world").hover()
    lit = page.locator(f"{LIVE} .tk-c.tk-on .bpe-chip")
    expect(lit).to_have_count(1)
    expect(lit).to_contain_text("world")
    page.locator(f"{LIVE} .tk-c").filter(has_text="Hello").hover()
    expect(page.locator(f"{LIVE} .tk-piece.tk-on")).to_have_text(["Hello"])
    split = text.locator(".tk-piece.tk-shared")  # 語: one character, its bytes in several tokens
    expect(split).to_have_text("語")
    split.hover()
    expect(lit).to_have_count(len(split.get_attribute("data-o").split()))


def test_the_page_fits_a_1400_pixel_window_with_many_scripts(page, server):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{server}/tokenize")
    expect(chips(page)).to_have_count(3, timeout=60_000)
    page.get_by_role("button", name="Many scripts").click()
    expect(chips(page).first).to_contain_text("English", timeout=60_000)
    expect(page.locator(f"{LIVE} .tk-text").first).to_contain_text("English: The morning train")
    table = page.locator(f"{LIVE} [data-testid=stDataFrame] .dvn-scroller").first
    scroll, width = table.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert scroll <= width, (scroll, width)  # nothing cut on the right: no column scrolled out of view
    page.screenshot(path=str(SCREENSHOTS / "tokenize-1400x900.png"))
    codes = page.locator(f"{LIVE} [data-testid=stCode]")
    expect(codes).to_have_count(3)
    codes.first.hover()
    expect(codes.first.get_by_role("button", name="Copy to clipboard")).to_be_visible()
    shoot(page, "tokenize-many-scripts")


# A paste as a person makes one (Ctrl+V): a paste event carrying the clipboard's text. Nothing is put in the
# box unless the page does it (a script's event has no default action): below 100,000 characters the page
# leaves pasting to the browser, so this is for long texts only.
CLIPBOARD_PASTE = """(box, text) => { box.focus(); const clipboard = new DataTransfer();
  clipboard.setData('text/plain', text);
  box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: clipboard, bubbles: true, cancelable: true})); }"""


def test_a_long_paste_reaches_the_tokens_and_is_undone_and_redone_with_the_keys(page, server):
    """A paste of 100,000 characters or more is sent before the box takes it (so the server encodes while the
    browser lays the box out), then put in the box by the page: the counts are those of the whole text, the
    caret follows the paste, and Ctrl+Z / Ctrl+Shift+Z undo and redo it, the tokens following."""
    start, pasted = "Hello there", " The quick brown fox jumps over the lazy dog." * 3000  # 135,000 characters
    page.goto(f"{server}/tokenize?{urlencode({'input': start, 'tokenizers': 'cl100k_base'})}")
    expect(chips(page)).to_have_count(1, timeout=60_000)
    page.wait_for_function(LISTENING, timeout=60_000)
    box = page.get_by_label("Text to tokenize")
    box.press("End")
    box.evaluate(CLIPBOARD_PASTE, pasted)
    counts = page.locator(f"{LIVE} [data-testid=stCaptionContainer]").filter(has_text="tokens ·")
    whole = len(load_builtin("cl100k_base").encode(start + pasted))
    expect(counts.first).to_contain_text(f"{whole:,} tokens", timeout=60_000)
    expect(box).to_have_value(start + pasted)
    assert box.evaluate("b => [b.selectionStart, b.selectionEnd]") == [len(start + pasted)] * 2
    assert box.evaluate("b => b.scrollTop + b.clientHeight >= b.scrollHeight - 2")  # scrolled to the caret
    # Its painting is contained: a long text is not painted again on every frame the page draws.
    assert box.evaluate("b => getComputedStyle(b).contain") == "paint"
    box.press("Control+z")
    expect(box).to_have_value(start)
    expect(counts.first).to_contain_text("2 tokens", timeout=60_000)
    box.press("Control+Shift+z")
    expect(box).to_have_value(start + pasted)
    expect(counts.first).to_contain_text(f"{whole:,} tokens", timeout=60_000)


PENDING = "() => [...globalThis.__bpeLiveText.watchers.values()].some(w => w.timer !== null)"


@pytest.mark.own_tab  # Playwright's clock stays installed in its browser context
def test_a_paste_is_sent_at_once_and_typing_after_its_pause(page, server):
    """On the page's clock, stopped and moved by hand: a paste reaches the tokens within a moment (the
    page's own timers need one), typed keys only once the pause after the last one has passed."""
    page.clock.install()
    page.goto(f"{server}/tokenize?{urlencode({'input': 'start', 'tokenizers': 'cl100k_base'})}")
    expect(chips(page)).to_have_count(1, timeout=60_000)
    page.wait_for_function(LISTENING, timeout=60_000)
    settle(page)
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    moment = live_text.DELAY_MS // 6
    box = page.get_by_label("Text to tokenize")
    box.evaluate(PASTE, "pasted words")
    assert not page.evaluate(PENDING)
    page.clock.run_for(moment)
    expect(chips(page).first).to_contain_text("·words")
    box.press("End")
    page.keyboard.type(" typed")
    page.clock.run_for(moment)
    assert page.evaluate(PENDING)  # held for the pause
    expect(chips(page).first).not_to_contain_text("·typed")
    page.clock.run_for(live_text.DELAY_MS)
    expect(chips(page).first).to_contain_text("·typed")
    page.clock.resume()


# The chips' script on a blank page: its drawing function given chips' HTML with what no chip is made of.
GUARD_JS = """async ([source, chips]) => {
  const { default: draw } = await import("data:text/javascript;base64," + btoa(unescape(encodeURIComponent(source))));
  document.body.innerHTML = '<div class="st-key-g"><div id="host"><div class="tk-pair"><div class="tk-text"></div>'
    + '<div class="tk-chips"></div></div></div></div>';
  window.ran = false;
  draw({ data: { pieces: [["ab", [0]]], kinds: ".", group: "g", more: "", chips },
         parentElement: document.getElementById("host") });
  await new Promise((resolve) => setTimeout(resolve, 100));  // an image's error would have fired
  const box = document.querySelector(".tk-chips");
  return { html: box.innerHTML, text: box.textContent, ran: window.ran, elements: box.querySelectorAll("*").length };
}"""
CHIP = ('<span class="tk-c" data-i="0"><span class="bpe-chip" style="background:hsl(1,75%,86%)" title="token \'ab\'">'
        'ab<sub class="bpe-id">7</sub></span></span>')


def test_the_chips_keep_only_the_tags_and_attributes_chips_are_made_of(page):
    """The page's chips are its own escaped HTML, put in without Streamlit's sanitizer; the script still
    drops any other tag (kept as its text), any event attribute and any style chips are not drawn with."""
    from explorer.display.vocabulary import marked_chip
    from explorer.families import Mark

    source = (live_text.HERE / "token_text.js").read_text(encoding="utf-8")
    page.goto("about:blank")
    marked = marked_chip(CHIP, Mark("superword", "superwords", "one token across a space", str.isspace))
    drawn = page.evaluate(GUARD_JS, [source, f'<span class="bpe-chips">{marked}</span>'])
    assert drawn["html"] == f'<span class="bpe-chips">{marked}</span>'  # a family's mark is kept whole
    hostile = ('<img src="x.invalid" onerror="window.ran = true"><script>window.ran = true</script>'
               '<span class="bpe-chip" onmouseover="window.ran = true" style="background:url(https://x.invalid/p)">c</span>'
               '<span style="position:fixed;inset:0">d</span>'
               '<span style="background:src(&quot;x.invalid&quot;)">e</span>'
               '<a href="javascript:window.ran = true">link</a><em>no tokens</em>')
    drawn = page.evaluate(GUARD_JS, [source, f'<span class="bpe-chips">{CHIP}{hostile}</span>'])
    assert drawn["html"] == (f'<span class="bpe-chips">{CHIP}window.ran = true<span class="bpe-chip">c</span>'
                             '<span>d</span><span>e</span>link<em>no tokens</em></span>')
    assert not drawn["ran"] and drawn["text"] == "ab7window.ran = truecdelinkno tokens"
