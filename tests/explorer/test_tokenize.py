"""The Tokenize page's pure pieces (caps, counts, chips, the coloured text's stretches, the ids; the
page in AppTest: test_tokenize_page.py). The page's result must be the whole text's encoding, for
every family and every built-in, however it was computed."""
from __future__ import annotations

import json
import pickle

import pytest

from bpe_core import BPEError, train
from bpe_core.builtin import builtin_names, load_builtin
from bpe_core.families.registry import NAMES, family
from explorer.data.any_model import AnyModel
from explorer.data.training import train_corpus
from explorer.display import tokenize as view
from explorer.ui import state
from sample_corpora import load_corpus
from tests.conftest import missing

TOKENIZE = "views/tokenize.py"
MULTI = load_corpus("multilingual")


@pytest.fixture(scope="module")
def cl100k():
    return load_builtin("cl100k_base")


# ---- pure --------------------------------------------------------------------------------------

def test_cap_text_cuts_at_a_character_boundary():
    assert view.cap_text("日本語", 7) == ("日本", True)  # 9 bytes; the third character would be cut inside
    assert view.cap_text("日本語", 9) == ("日本語", False)
    text = "é" * 600_000  # 1.2 MB
    capped, cut = view.cap_text(text)
    assert cut and capped == "é" * 500_000 and view.utf8_size(capped) == view.MAX_TEXT_BYTES


def test_excerpt_ends_at_a_paragraph():
    text = "First paragraph here.\n\nSecond one, much longer " + "word " * 400
    assert view.excerpt(text, 40) == "First paragraph here."  # a paragraph end in the second half
    assert view.excerpt("short", 60) == "short"


def test_counts_are_over_the_whole_text_and_chips_are_capped(cl100k):
    text = "Hello world, 日本語! " * 400
    result = view.tokenized(cl100k, text, max_chips=50)
    ids = cl100k.encode(text).ids
    assert result.count == len(ids) and len(result.tokens) == 50 and result.cut
    assert [t.id for t in result.tokens] == ids[:50]
    assert (result.characters, result.bytes) == (len(text), len(text.encode()))
    assert result.characters_per_token == pytest.approx(len(text) / len(ids))
    assert result.bytes_per_token == pytest.approx(len(text.encode()) / len(ids))
    html = view.chips_html(cl100k, text, result)
    assert html.count('class="bpe-id"') == 50 and f"{len(ids) - 50:,} more tokens" in html
    assert view.shown_note(result) == (f"Showing the first 50 of {len(ids):,} tokens; "
                                       "the counts are over the whole text.")


def test_chips_show_ids_escape_text_and_bytes_on_request(cl100k):
    text = "<b>x</b> 語"
    result = view.tokenized(cl100k, text)
    html = view.chips_html(cl100k, text, result)
    assert [t.token for t in result.tokens][:2] == ["<b", ">x"]
    assert ">&lt;b<sub" in html and ">&gt;x<sub" in html and "<b>" not in html  # escaped, never a tag
    assert f'class="bpe-id">{cl100k.encode("<b>").ids[0]}<' in html
    assert "\ufffd" not in html and ">&lt;aa&gt;<" in html  # 語 split inside its bytes: hex groups
    as_bytes = view.chips_html(cl100k, text, result, as_bytes=True)
    assert ">&lt;3c 62&gt;<" in as_bytes  # "<b" as its two bytes


def test_counts_frame_and_unknown_tokens():
    word = train("low lower", merges=2)
    text = "low xyz"
    result = view.tokenized(word, text)
    frame = view.counts_frame(["word"], [result], [word.vocab_size])
    assert frame.to_dict("records") == [{
        "tokenizer": "word", "tokens": result.count, "characters per token": round(7 / result.count, 2),
        "bytes per token": round(7 / result.count, 2), "vocabulary": word.vocab_size,
        "unknown tokens": 3}]


def _as_encoded(model: AnyModel, text: str, result: view.Tokenized) -> None:
    """`result` is what the whole text's encoding says, with its first tokens drawn."""
    enc = model.encoding(text)
    n = len(result.tokens)
    assert list(result.ids) == enc.ids and result.count == len(enc.ids)
    assert result.unknown == sum(enc.unknown or ()) and result.special == sum(enc.special or ())
    assert [(t.token, t.id, t.start, t.end) for t in result.tokens] == [
        (tok, i, s, e) for tok, i, (s, e) in list(zip(enc.tokens, enc.ids, enc.spans))[:n]]
    assert result.unknown_shown == tuple(map(bool, (enc.unknown or [False] * n)[:n]))
    assert result.special_shown == tuple(map(bool, (enc.special or [False] * n)[:n]))


def _family_models():
    """Every family the registry trains, trained small on the many-scripts sample."""
    for name in NAMES:
        if family(name).trains:
            request = state.request_from_values({state.W_FAMILY: name, state.W_VOCAB: 600, state.W_TRANSITION: 0})
            yield name, AnyModel.of_trained(train_corpus([MULTI], request))


# Long enough that only a start of it is encoded with spans; unknown characters (for the trained
# ones), added tokens' text in the middle and at the start (for the built-ins that have them).
def _texts(model: AnyModel) -> list[str]:
    added = " ".join(t.content for t in model.added_tokens[:2])
    return [MULTI * 2 + " 𒀀 ", MULTI + f" {added} " + MULTI, f"{added}{MULTI}"]


def test_the_result_is_the_whole_texts_encoding_for_every_family():
    for name, model in _family_models():
        for text in _texts(model):
            result = view.tokenized(model, text, max_chips=40)
            assert len(result.tokens) == 40, name
            _as_encoded(model, text, result)
        assert view.tokenized(model, MULTI * 2 + " 𒀀 ").unknown > 0 or name == "superbpe", name  # bytes: none


@pytest.mark.parametrize("name", builtin_names(parts=True))
def test_the_result_is_the_whole_texts_encoding_for_every_builtin(name):
    try:
        model = AnyModel.of(load_builtin(name))
    except BPEError as exc:  # its package is not installed
        missing(str(exc))
    for text in _texts(model):
        _as_encoded(model, text, view.tokenized(model, text, max_chips=40))


def test_a_start_whose_tokens_differ_is_not_trusted(cl100k, monkeypatch):
    """Were a start of the text to encode otherwise than the whole, the whole text is encoded."""
    model = AnyModel.of(cl100k)
    text = MULTI * 2
    whole = model.encoding(text)
    real = AnyModel.encoding

    def skewed(self, part):  # a start of the text loses its first token
        enc = real(self, part)
        if part == text:
            return enc
        return type(enc)(enc.tokens[1:], enc.ids[1:], enc.spans[1:], enc.unknown, enc.special)

    monkeypatch.setattr(AnyModel, "encoding", skewed)
    result = view.tokenized(model, text, max_chips=40)
    assert [t.id for t in result.tokens] == whole.ids[:40] and result.tokens[0].start == 0


def test_the_result_is_plain_data_that_pickles(cl100k):
    result = view.tokenized(cl100k, MULTI * 2, max_chips=30)
    back = pickle.loads(pickle.dumps(result))
    assert back == result and back.chips == result.chips and list(back.ids) == list(result.ids)
    assert back.pieces == result.pieces and back.kinds() == "." * 30


def test_the_text_pieces_cover_the_drawn_text_once():
    assert view.text_pieces("ab c", [(0, 2), (3, 4)]) == (("ab", (0,)), (" ", ()), ("c", (1,)))
    # 語's three bytes in three tokens, the first with the space before it: the character is all three's
    assert view.text_pieces(" 語x", [(0, 2), (1, 2), (1, 2), (2, 3)]) == (
        (" ", (0,)), ("語", (0, 1, 2)), ("x", (3,)))
    # word mode: the spaces are in no token, a separate </w> has no text
    lesson = train("low lower", merges=2)
    text = "  low  lower"
    enc = lesson.encode(text)
    pieces = view.text_pieces(text, enc.spans)
    assert "".join(p[0] for p in pieces) == text
    assert [p for p in pieces if not p[1]] == [("  ", ()), ("  ", ())]
    assert {k for _, owners in pieces for k in owners} == {k for k, (s, e) in enumerate(enc.spans) if e > s}
    assert view.text_pieces("abcdef", [(0, 3), (3, 6)], limit=4) == (("abc", (0,)), ("d", (1,)))


def test_chips_name_their_token_and_the_pieces_point_at_them(cl100k):
    text = "Hello <b>x</b> 語"
    result = view.tokenized(cl100k, text)
    n = len(result.tokens)
    assert [result.chips.count(f'data-i="{k}"') for k in range(n)] == [1] * n
    assert "".join(p[0] for p in result.pieces) == text and result.drawn_chars == len(text)
    assert result.pieces[-2:] == ((" ", (n - 3,)), ("語", (n - 3, n - 2, n - 1)))  # " " + its first byte, two more
    assert "<b>" not in result.chips and result.chips_hex != result.chips
    assert view.text_more(result) == ""


def test_the_ids_to_copy(cl100k):
    assert view.ids_text([1, 22, 333]) == "[1, 22, 333]" and view.ids_text([1, 22, 333], 2) == "[1, 22]"
    assert json.loads(view.ids_text(cl100k.encode("naïve 日本語").ids)) == cl100k.encode("naïve 日本語").ids
    result = view.tokenized(cl100k, "word " * 30, max_chips=10)
    assert view.ids_note(result, 100) == "" and view.ids_note(result, 20) == (
        f"The list holds the first 20 of {result.count:,} ids; the download holds them all.")
    assert view.text_more(result) == f" … {150 - result.drawn_chars:,} more characters, not coloured"
