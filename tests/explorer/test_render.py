from __future__ import annotations

import html as html_module
import re

from bpe_core import Settings, train
from bpe_core.analysis import display_token
from bpe_core.analysis.segments import bytes_segments
from bpe_core.pretokenize import bytes_to_symbols
from explorer.display.render import (
    Chip,
    WordRow,
    chip_html,
    chips_html,
    md_escape,
    token_html,
    token_text,
    word_rows_html,
)

EVIL = ["<script>alert(1)</script>", "<img src=x onerror=alert(2)>", '"quoted" & \'single\'']


def test_whitespace_is_visible():
    assert token_text(" h") == "·h"
    assert token_text("a\nb\tc\r") == "a↵b→c␍"
    assert token_text("a\u200db") == "a⟨U+200D⟩b"


def test_marker_is_kept_and_styled():
    assert token_text("st</w>") == "st</w>"
    assert token_html("st</w>") == 'st<span class="bpe-marker">&lt;/w&gt;</span>'


def test_bytes_mode_decodes_valid_utf8_and_shows_hex_otherwise():
    dash = "—".encode()  # e2 80 94
    assert token_text(bytes_to_symbols(dash), byte_level=True) == "—"
    assert token_text(bytes_to_symbols(dash[:2]), byte_level=True) == "<e2 80>"
    assert token_text(bytes_to_symbols(b" the"), byte_level=True) == "·the"
    assert bytes_segments(b"\xff" + "é".encode()) == [("hex", "<ff>"), ("text", "é")]
    for token in (bytes_to_symbols(dash[:1]), bytes_to_symbols(dash[1:]), bytes_to_symbols(b"\x80abc")):
        assert "\ufffd" not in token_text(token, byte_level=True)


def test_hex_is_escaped_in_html():
    html = token_html(bytes_to_symbols(b"\xe2\x80"), byte_level=True)
    assert "&lt;e2 80&gt;" in html and "<e2" not in html


def test_every_corpus_string_is_escaped():
    for evil in EVIL:
        for html in (
            token_html(evil),
            chip_html(Chip(evil, token_id=3, birth=1)),
            chips_html([Chip(evil), Chip(evil, unknown=True)], show_id=True),
            word_rows_html([WordRow(evil, 2, (Chip(evil),), changed=True)]),
        ):
            assert "<script" not in html and "<img" not in html
            assert '"quoted"' not in html and "'single'" not in html
            if "<" in evil:
                assert "&lt;script&gt;" in html or "&lt;img" in html


def test_titles_cannot_break_out_of_attributes():
    html = chip_html(Chip('x" onmouseover="alert(1)'))
    assert 'onmouseover="alert' not in html
    assert "&quot;" in html


def test_chip_colours_and_new_outline():
    base = chip_html(Chip("a"))
    made = chip_html(Chip("ab", birth=3, new=True))
    assert "bpe-base" in base and "bpe-new" not in base
    assert "bpe-new" in made and "hsl(" in made
    assert "<unk>" not in chip_html(Chip("z", unknown=True)) and "&lt;unk&gt;" in chip_html(Chip("z", unknown=True))


def test_changed_rows_are_marked():
    rows = [
        WordRow("low", 5, (Chip("lo", birth=0, new=True), Chip("w"))),
        WordRow("new", 2, (Chip("n"),), changed=True),
    ]
    html = word_rows_html(rows)
    assert html.count("bpe-changed") == 1 and "×5" in html


def test_md_escape_makes_markdown_literal():
    assert md_escape("a_b *c* <x>") == r"a\_b \*c\* \<x\>"


def test_leading_combining_mark_gets_a_dotted_circle():
    assert token_text("\u0bcd") == "◌\u0bcd"
    assert token_text("a\u0301") == "a\u0301"
    assert token_text(bytes_to_symbols("\u0301x".encode()), byte_level=True) == "◌\u0301x"


def _drawn(html: str) -> str:
    """The text a browser draws for some chip HTML (tags dropped, entities resolved)."""
    return html_module.unescape(re.sub(r"<[^>]+>", "", html))


def test_chips_draw_emoji_cjk_devanagari_and_partial_bytes_in_bytes_mode():
    def chip(data: bytes) -> str:
        return chip_html(Chip(bytes_to_symbols(data), birth=4), byte_level=True)

    assert _drawn(chip("😀".encode())) == "😀"
    assert _drawn(chip(" 日本".encode())) == "·日本"
    assert _drawn(chip("नमस".encode())) == "नमस"
    assert _drawn(chip("ि".encode())) == "◌ि"  # a vowel sign (Mc) alone on a chip gets its circle
    emoji = "😀".encode()  # f0 9f 98 80
    assert _drawn(chip(emoji[:2])) == "<f0 9f>"
    assert '<span class="bpe-hex">&lt;f0 9f&gt;</span>' in chip(emoji[:2])
    html = token_html(bytes_to_symbols(b" \xe6\x97"), byte_level=True)
    assert html == '<span class="bpe-ws">·</span><span class="bpe-hex">&lt;e6 97&gt;</span>'


def test_chip_titles_name_the_token_as_drawn_never_gpt2_letters():
    html = chip_html(Chip(bytes_to_symbols(b" the\n"), token_id=7), byte_level=True)
    title = html_module.unescape(re.search(r'title="([^"]*)"', html).group(1))
    assert title.startswith("token '·the↵' · id 7")
    assert "Ġ" not in html and "Ċ" not in html


def test_chips_show_what_the_engine_shows():
    tok = train("hello world 日本 😀😀 नमस्ते\u00a0x\tz " * 4 + "語", Settings(mode="bytes"), merges=40)
    for token in tok.vocab:
        assert token_text(token, byte_level=True) == display_token(tok, token)
        assert _drawn(token_html(token, byte_level=True)) == display_token(tok, token)


def test_an_unknown_chip_names_the_models_own_unknown_token():
    # WordPiece writes [UNK]; a BPE tokenizer of ours <unk>: the chip and its hover say which.
    wordpiece = chip_html(Chip("slow", token_id=0, unknown=True, unk_label="[UNK]"))
    assert "[UNK] <span" in wordpiece and "never seen in training: [UNK]" in wordpiece
    assert "&lt;unk&gt;" not in wordpiece
    assert "&lt;unk&gt; <span" in chip_html(Chip("slow", unknown=True))
