"""Hostile links, opened in the app as a visitor opens them: each is told in the app's own words.

A word of 2,000 characters, a number of 5,000 digits, a step past the end, NUL bytes in `text=`,
a right-to-left override in a pasted title (issue 20, "Links")."""
from __future__ import annotations

import re

import pytest
from apptest_helpers import APP, html_bodies
from plain_text import shown
from player_helpers import shown as frame
from streamlit.testing.v1 import AppTest

from bpe_core import BPEError
from explorer.data.corpus import read_uploads
from explorer.display.unseen import CUT_NOTE, MAX_WORD
from explorer.ui import link, state

FSI, PDI, RLO = "\u2068", "\u2069", "\u202e"
HEAD = "The link asked for something this app could not do. "
TAIL = " The link's other settings were used."


def opened(params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def notices(at) -> list[str]:
    return [shown(w.value) for w in at.warning]


def headings(at) -> list[str]:
    return [shown(m.value) for m in at.markdown if m.value.startswith("####")]


def chips(at) -> int:
    return sum(len(re.findall(r'class="bpe-chip[ "]', h)) for h in html_bodies(at))


# ---- one huge word ----------------------------------------------------------------------------

def test_a_link_with_one_huge_word_draws_its_first_characters_and_says_so():
    at = opened({"words": "lo" * 1000})
    at.switch_page("views/unseen.py").run()
    assert not at.exception
    assert at.text_input(key=state.W_WORDS).value == "lo" * 1000  # the box keeps what the link said
    assert shown(CUT_NOTE) in [shown(c.value) for c in at.caption]
    assert CUT_NOTE == ("Words longer than 64 characters are cut to their first 64 here: the page could not draw "
                        "the pieces and merge trees of a longer word quickly.")
    (heading,) = headings(at)
    assert heading.startswith("#### " + "lo" * 32 + " → ")
    tokens = int(heading.split("→ ")[1].split()[0])
    assert tokens <= MAX_WORD + 1  # its pieces (and the end-of-word token), not 1,001
    (trees,) = [h for h in html_bodies(at) if 'class="bpe-trees"' in h]
    assert 0 < trees.count('class="bpe-node') <= 2 * (MAX_WORD + 1) - 1  # nodes of at most 65 symbols
    assert chips(at) <= 2 * (MAX_WORD + 1)  # the pieces and the pieces after k merges


def test_a_typed_huge_word_is_cut_alike_and_short_words_are_not():
    at = opened({})
    at.switch_page("views/unseen.py").run()
    assert shown(CUT_NOTE) not in [shown(c.value) for c in at.caption]
    at.text_input(key=state.W_WORDS).set_value("low " + "w" * 5000).run()
    assert not at.exception
    assert shown(CUT_NOTE) in [shown(c.value) for c in at.caption]
    assert [h.split(" → ")[0] for h in headings(at)] == ["#### low", "#### " + "w" * MAX_WORD]
    at.text_input(key=state.W_WORDS).set_value("w" * MAX_WORD).run()  # exactly the limit: nothing cut
    assert shown(CUT_NOTE) not in [shown(c.value) for c in at.caption]


def test_a_piece_of_many_words_is_cut_too():
    at = opened({"mode": "text", "words": "lo " * 700})  # text mode: the whole text is one piece
    at.switch_page("views/unseen.py").run()
    assert not at.exception
    assert shown(CUT_NOTE) in [shown(c.value) for c in at.caption]
    assert [h.split(" → ")[0] for h in headings(at)] == ["#### " + ("lo " * 22)[:MAX_WORD].replace(" ", "·")]


def test_a_tokenizer_file_sees_the_cut_text(app, uploads):
    app.session_state[state.PICK_UPLOADED] = {uploads["wordpiece"].key: uploads["wordpiece"]}
    app.switch_page("views/unseen.py").run()
    app.selectbox(key=state.W_UNSEEN_SOURCE).set_value(uploads["wordpiece"].key).run()
    app.text_input(key=state.W_WORDS).set_value("naive " + "lo" * 1000).run()
    assert not app.exception
    assert shown(CUT_NOTE) in [shown(c.value) for c in app.caption]
    assert [h.split(" → ")[0] for h in headings(app)] == ["#### naive", "#### " + "lo" * 32]

# ---- numbers of any length --------------------------------------------------------------------

def test_numbers_of_5000_digits_get_the_apps_own_message():
    nines = "9" * 5000
    at = opened({"step": nines, "merges": nines, "minfreq": "0" * 5000 + "2"})
    quoted = "9" * link.LINK_SHOWN + "…"
    assert notices(at) == [
        HEAD + f"merges={quoted} in the link is more than this app allows (50,000 merges), so 50,000 was used."
        + TAIL + f" step={quoted} in the link is past the end of this training (its last step is 17), so step 17 is "
        "shown."]  # as a step of 1,000 past the end is said: one rule whatever its size
    assert at.session_state[state.W_MINFREQ] == 2  # 5,000 zeros, then 2: read as 2


@pytest.mark.parametrize("name", ["transition", "merges", "vocab", "minfreq", "step"])
@pytest.mark.parametrize("digits", ["9" * 5000, "1" + "0" * 4400, "0" * 5000])
def test_every_number_a_link_carries_is_read_whatever_its_length(name, digits):
    values, problems = link.values_from_url({name: digits}, samples=set())
    assert all("limit" not in p and "digits" not in p for p in problems), problems  # not Python's message
    if name == "step" and digits != "0" * 5000:  # past any training's end: said once it has trained
        assert problems == [] and values[state.STEP] == link.MAX_INPUT
    elif digits == "0" * 5000:
        assert problems == [] if name not in ("vocab", "minfreq") else problems == [
            f"{name}={'0' * link.LINK_SHOWN}… in the link is less than 1."]
    else:
        assert len(problems) == 1 and problems[0].startswith(f"{name}={digits[:link.LINK_SHOWN]}… in the link is more")


def test_the_largest_number_allowed_is_read_however_it_is_written():
    for raw in ("50000", "0" * 5000 + "50000"):
        assert link.values_from_url({"merges": raw}, samples=set()) == (
            {state.W_MERGES: 50_000, state.W_TARGET: "merges"}, [])
    values, problems = link.values_from_url({"merges": "50001"}, samples=set())
    assert values[state.W_MERGES] == 50_000 and problems == [
        "merges=50001 in the link is more than this app allows (50,000 merges), so 50,000 was used."]


# ---- a step past the end ----------------------------------------------------------------------

def test_a_step_past_the_end_is_said_and_the_last_step_shown():
    at = opened({"step": "900"})
    assert notices(at) == [HEAD + "step=900 in the link is past the end of this training (its last step is 10), "
                                  "so step 10 is shown." + TAIL]
    assert at.session_state[state.STEP] == 10 and frame(at).title == "Step 10 of 10"
    at.switch_page("views/unseen.py").run()  # the notice belongs to the moment the link opened
    assert notices(at) == []
    assert opened({"step": "10"}).warning.values == []  # the last step itself is no problem


def test_a_step_past_the_end_joins_the_links_other_problems():
    at = opened({"mode": "weird", "step": "11"})
    assert notices(at) == [HEAD + "mode=weird in the link is not one of word, text, bytes." + TAIL
                           + " step=11 in the link is past the end of this training (its last step is 10), "
                             "so step 10 is shown."]


# ---- text= follows the upload rules -----------------------------------------------------------

def test_link_text_with_nul_bytes_is_refused_as_an_upload_is():
    at = opened({"text": "low\x00er lowest newer"})
    said = "The text in the link looks like a binary file (it contains NUL bytes), not text"
    assert notices(at) == [HEAD + said + ", so it opened a sample corpus." + TAIL]
    assert at.session_state[state.CORPUS] == state.DEFAULT_CORPUS
    with pytest.raises(BPEError) as upload:  # the upload's own rule and words
        read_uploads([("The text in the link", b"low\x00er lowest newer")])
    assert said in str(upload.value)


def test_tokenize_link_text_follows_the_upload_rules_too():
    at = opened({"input": "tokens\x00here"})
    said = "The Tokenize page's text in the link looks like a binary file (it contains NUL bytes), not text"
    assert notices(at) == [HEAD + said + ", so that page opened with its example text." + TAIL]
    assert at.session_state[state.TOK_TEXT] == state.TOK_DEFAULT_TEXT
    assert opened({"input": "tokens here"}).session_state[state.TOK_TEXT] == "tokens here"
    assert opened({"input": "\ufefftokens"}).session_state[state.TOK_TEXT] == "\ufefftokens"  # kept as it came
    assert link.tokenize_link_carries("\ufefftokens") and not link.tokenize_link_carries("tokens\x00here")


# ---- bidirectional controls -------------------------------------------------------------------

def test_an_override_in_a_pasted_title_cannot_reverse_the_summary_line():
    at = opened({"text": RLO + "abc def lowest"})
    (summary,) = [shown(c.value) for c in at.caption if c.value.startswith("**")]
    assert summary.startswith("**" + FSI + "Pasted: abc def lowest" + PDI + "** · word mode, ")
    assert RLO not in summary
    # Selectbox options are plain text: the corpus picker, and the tokenizer picker's sentence around the title.
    assert FSI + "Pasted: abc def lowest" + PDI in at.sidebar.selectbox(key=state.W_CORPUS).options
    at.switch_page("views/unseen.py").run()
    (label,) = [o for o in at.selectbox(key=state.W_UNSEEN_SOURCE).options if "Pasted" in o]
    assert label.startswith(FSI + "Trained here: Pasted: abc def lowest, word mode, ") and label.endswith(PDI)
    assert RLO not in label


def test_an_override_quoted_in_the_link_notice_stays_inside_its_quote():
    at = opened({"corpus": RLO + "evil"})
    assert notices(at) == [FSI + HEAD + "corpus=" + FSI + "evil" + PDI + " in the link is not a sample corpus." + TAIL
                           + PDI]
