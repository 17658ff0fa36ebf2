"""The data behind the Compare and Vocabulary pages: cuts, display, curves, usage, life stories, dropout."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import BPEError, Encoding, Settings, train
from bpe_core.analysis import (
    boundaries,
    bytes_text,
    compare_segmentations,
    display_token,
    dropout_distribution,
    life_story,
    nearly_unused,
    split_characters,
    token_count_curve,
    token_segments,
    token_text,
    token_usage,
    visible_whitespace,
    vocabulary_table,
)
from bpe_core.analysis.segments import bytes_segments
from bpe_core.encoder import encode_ranked
from bpe_core.formats.tiktoken import tokenizer_from_ranks
from bpe_core.pretokenize import bytes_to_symbols, count_words
from tests.conftest import SEED000

BYTES_CORPUS = "café café 日本 日本 日本語 naïve é"


@pytest.fixture(scope="module")
def tok10():
    return train(SEED000, merges=10)


@pytest.fixture(scope="module")
def counts10(tok10):
    return count_words([SEED000], tok10.settings)


@pytest.fixture(scope="module")
def byte_level():
    return train(BYTES_CORPUS, Settings(mode="bytes"), merges=8)


def _symbols(data: bytes) -> str:
    return bytes_to_symbols(data)


# ---- vocabulary -----------------------------------------------------------------------------


def test_vocabulary_table_of_seed000(tok10, counts10):
    rows = vocabulary_table(tok10, counts10)
    assert len(rows) == 22  # 11 base symbols + 10 merged tokens + <unk>
    assert [r.id for r in rows] == list(range(22))
    by_token = {r.token: r for r in rows}
    we = by_token["we"]
    assert (we.rank, we.count, we.parents, we.children) == (0, 9, ("w", "e"), ("newe",))
    assert by_token["ne"].children == ("newe",)
    assert by_token["newe"].parents == ("ne", "we")
    assert by_token["w"].children == ("we", "w</w>", "wi")  # in rank order
    base = by_token["e"]
    assert (base.rank, base.count, base.parents) == (None, None, None)
    unk = by_token["<unk>"]
    assert (unk.rank, unk.uses, unk.chars, unk.n_bytes) == (None, 0, 0, 0)
    # The end-of-word marker is no character.
    assert (by_token["newest</w>"].chars, by_token["newest</w>"].n_bytes) == (6, 6)
    assert by_token["</w>"].chars == 0


def test_usage_sums_to_the_final_token_count(tok10, counts10):
    usage = token_usage(tok10, counts10)
    assert set(usage) == set(tok10.vocab)
    assert sum(usage.values()) == tok10.trace[-1].total_tokens == 38
    # "ne" was merged 9 times; "newe" (then "newest</w>") took 7 of them: only "new" x2 keeps it.
    assert (usage["ne"], usage["newe"], usage["t</w>"], usage["newest</w>"]) == (2, 1, 0, 6)


def test_usage_without_word_counts_or_training_is_unknown(tok10):
    from bpe_core import Tokenizer

    imported = Tokenizer(settings=tok10.settings, merges=tok10.merges, vocab=dict(tok10.vocab), source="import")
    rows = vocabulary_table(imported)
    assert all(r.uses is None and r.kept is None for r in rows)
    assert nearly_unused(rows) == []


def test_unseen_characters_count_as_unknown(tok10):
    usage = token_usage(tok10, {"lox": 2})
    assert usage["<unk>"] == 2 and usage["lo"] == 2


def test_nearly_unused_tokens_of_seed000(tok10, counts10):
    rows = vocabulary_table(tok10, counts10)
    # kept = uses / count at birth: t</w> 0/9, newe 1/7, ne 2/9, we 2/9; lo and w</w> keep 2/7.
    assert [r.token for r in nearly_unused(rows)] == ["we", "t</w>", "ne", "newe"]
    assert [r.token for r in nearly_unused(rows, threshold=0.0)] == ["t</w>"]
    assert "ne" in [r.token for r in nearly_unused(rows, threshold=0.25)]
    with pytest.raises(BPEError):
        nearly_unused(rows, threshold=-0.5)


def test_bytes_mode_usage_needs_byte_symbol_words(byte_level):
    counts = count_words([BYTES_CORPUS], byte_level.settings)
    usage = token_usage(byte_level, counts)
    assert sum(usage.values()) == byte_level.trace[-1].total_tokens
    rank_file = tokenizer_from_ranks({**{bytes([b]): b for b in range(256)}, b" xyz": 256})
    usage = token_usage(rank_file, count_words(["a xyz xyz"], rank_file.settings))
    assert usage[_symbols(b" xyz")] == 2  # the tokenizer's own encoding, whole-piece rule included
    with pytest.raises(BPEError, match="byte symbols"):
        token_usage(byte_level, {" café": 1})


# ---- display --------------------------------------------------------------------------------


def test_byte_tokens_that_split_characters_show_hex_never_replacement(byte_level):
    shown = {t: display_token(byte_level, t) for t in byte_level.vocab}
    assert not any("\ufffd" in s for s in shown.values())
    assert any("<" in s for t, s in shown.items() if len(t) > 1)  # some merged token is partial
    # 日 = e6 97 a5, 本 = e6 9c ac
    assert display_token(byte_level, _symbols(b"\xe6\x97")) == "<e6 97>"
    assert display_token(byte_level, _symbols(b"\x97\xa5" + "本".encode())) == "<97 a5>本"
    assert display_token(byte_level, _symbols(b" \xe6")) == "·<e6>"  # the space as every page shows it
    assert display_token(byte_level, _symbols("café".encode())) == "café"
    assert display_token(byte_level, _symbols("é".encode()), as_bytes=True) == "<c3 a9>"


def test_byte_vocabulary_sizes_count_whole_characters(byte_level):
    rows = {r.token: r for r in vocabulary_table(byte_level)}
    # é was merged, as was the tail of 日 with all of 本; e6 is a base byte.
    for data, chars in [("é".encode(), 1), (b"\x97\xa5" + "本".encode(), 1), (b"\xe6", 0)]:
        row = rows[_symbols(data)]
        assert (row.chars, row.n_bytes) == (chars, len(data))
    assert all("\ufffd" not in r.display for r in rows.values())


def test_bytes_text_marks_a_literal_replacement_character_as_bytes():
    assert bytes_text("a\ufffdb".encode()) == "a<ef bf bd>b"
    assert bytes_text(b"\xe6\x97\xa5\x80\x80x\xff") == "日<80 80>x<ff>"
    assert bytes_text(b"") == ""


def test_word_mode_shows_the_token_itself(tok10):
    assert display_token(tok10, "newest</w>") == "newest</w>"
    assert display_token(tok10, "we", as_bytes=True) == "<77 65>"


def test_visible_whitespace():
    assert visible_whitespace("a b\n\t\r") == "a·b↵→␍"
    assert visible_whitespace("\u00a0\u3000\x0b") == "⟨U+00A0⟩⟨U+3000⟩⟨U+000B⟩"
    assert visible_whitespace("日本") == "日本"


def test_one_way_to_show_invisible_characters_in_every_mode():
    # A no-break space, a control character, a zero-width joiner and U+FFFD are named, the same
    # in a word, in a text-mode token and decoded from bytes.
    assert token_text("a\u00a0b\x00c\u200dd\ufffd") == "a⟨U+00A0⟩b⟨U+0000⟩c⟨U+200D⟩d⟨U+FFFD⟩"
    assert token_text(_symbols("a\u00a0b\x00c\u200dd".encode()), byte_level=True) == "a⟨U+00A0⟩b⟨U+0000⟩c⟨U+200D⟩d"
    # Decoded from bytes, a U+FFFD is its bytes: it cannot pass for a byte lost in decoding.
    assert token_text(_symbols("a\ufffd".encode()), byte_level=True) == "a<ef bf bd>"


def test_gpt2_byte_letters_are_decoded_and_hex_groups_never_look_like_text():
    assert _symbols(b" hello\n") == "ĠhelloĊ"  # how files store it
    assert token_text("ĠhelloĊ", byte_level=True) == "·hello↵"
    # Spaces of the text are dots; only a hex group keeps plain spaces.
    assert token_text("<e8 aa>") == "<e8·aa>"
    assert token_text(_symbols("語".encode()[:2]), byte_level=True) == "<e8 aa>"
    # A token that is no byte symbols (a special token) shows its characters.
    assert token_text("<|endoftext|>", byte_level=True) == "<|endoftext|>"


def test_emoji_cjk_and_devanagari_tokens_in_bytes_mode():
    emoji = "😀".encode()  # f0 9f 98 80
    assert [token_text(_symbols(d), byte_level=True) for d in (emoji, emoji[:2], emoji[2:])] == [
        "😀", "<f0 9f>", "<98 80>"]
    assert token_segments(_symbols(" 日本".encode()), byte_level=True) == [
        ("ws", "·"), ("text", "日"), ("text", "本")]
    assert token_segments(_symbols("本".encode()[1:] + "語".encode()), byte_level=True) == [
        ("hex", "<9c ac>"), ("text", "語")]
    # A token that starts with a mark gets the dotted circle: a Devanagari vowel sign (Mc),
    # a virama (Mn) and a combining accent.
    assert [token_text(_symbols(s.encode()), byte_level=True) for s in ("ि", "्ते", "\u0301x")] == [
        "◌ि", "◌्ते", "◌\u0301x"]
    assert token_text(_symbols("नमस्ते".encode()), byte_level=True) == "नमस्ते"


@given(st.binary(max_size=24) | st.text(max_size=12).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_shown_bytes_lose_nothing_and_hide_nothing(data):
    # Whatever the bytes, the shown form has no U+FFFD and no invisible character, and reading
    # it back (hex groups as bytes, symbols and names as their characters) gives the bytes again.
    back = {"·": " ", "↵": "\n", "→": "\t", "␍": "\r"}
    rebuilt = b""
    for kind, shown in bytes_segments(data):
        if kind == "hex":
            rebuilt += bytes.fromhex(shown[1:-1])
        elif kind == "ws":
            rebuilt += (back.get(shown) or chr(int(shown[3:-1], 16))).encode("utf-8", "surrogatepass")
        else:
            assert kind == "text" and not shown.isspace() and shown.isprintable() and shown != "\ufffd"
            rebuilt += shown.encode("utf-8")
    assert rebuilt == data


def test_end_of_word_marker_is_a_part_of_its_own():
    assert token_segments("st</w>") == [("text", "s"), ("text", "t"), ("marker", "</w>")]
    assert token_segments("st</w>", marker="") == [("text", c) for c in "st</w>"]


# ---- comparing segmentations ----------------------------------------------------------------


def test_compare_ten_and_three_merges_on_lowest_newer(tok10):
    tok3 = train(SEED000, merges=3)
    text = "lowest newer"
    ten, three = tok10.encode(text), tok3.encode(text)
    assert ten.tokens == ["lo", "we", "st</w>", "newe", "r", "</w>"]
    assert three.tokens == ["l", "o", "we", "st</w>", "n", "e", "we", "r", "</w>"]
    assert boundaries(ten) == {0, 2, 4, 6, 7, 11, 12}

    comparison = compare_segmentations(text, [ten, three])
    assert comparison.disputed_cuts == {1, 8, 9}  # l|o, n|e, e|we
    assert comparison.disputed_chars == frozenset()
    assert comparison.disagreements == 3
    first, second = comparison.columns
    assert [t.disputed for t in first.tokens] == [True, False, False, True, False, False]
    assert [t.disputed for t in second.tokens] == [True, True, False, False, True, True, True, False, False]
    assert (first.token_count, first.chars_per_token, first.unshared_cuts) == (6, 2.0, 0)
    assert (second.token_count, second.unshared_cuts) == (9, 3)
    assert [(t.token, t.start, t.end) for t in first.tokens][:2] == [("lo", 0, 2), ("we", 2, 4)]


def test_identical_segmentations_agree(tok10):
    enc = tok10.encode("lowest newer")
    comparison = compare_segmentations("lowest newer", [enc, enc])
    assert comparison.disagreements == 0
    assert not any(t.disputed for c in comparison.columns for t in c.tokens)
    assert compare_segmentations("x", []).columns == ()


def test_spans_must_belong_to_the_text(tok10):
    with pytest.raises(BPEError, match="outside the text"):
        compare_segmentations("low", [tok10.encode("lowest newer")])


def test_a_cut_inside_a_character_counts_at_that_character():
    # "x日": [x][first byte of 日][other two bytes] against [x][日]; both halves span 日 (1, 2).
    split = Encoding(["x", "æ", "Ĺ¥"], [0, 1, 2], [(0, 1), (1, 2), (1, 2)])
    whole = Encoding(["x", "日"], [0, 1], [(0, 1), (1, 2)])
    assert boundaries(split) == boundaries(whole) == {0, 1, 2}
    assert split_characters(split) == {1} and split_characters(whole) == set()
    comparison = compare_segmentations("x日", [split, whole])
    assert comparison.disputed_cuts == frozenset() and comparison.disputed_chars == {1}
    assert [t.disputed for t in comparison.columns[0].tokens] == [False, True, True]
    assert [t.disputed for t in comparison.columns[1].tokens] == [False, True]


def test_real_byte_level_split_against_word_mode(byte_level):
    word_level = train(BYTES_CORPUS, merges=8)
    text = "日本語"
    b = byte_level.encode(text)
    assert len(b) > 1 and split_characters(b)  # the byte tokenizer cuts inside a character
    comparison = compare_segmentations(text, [b, word_level.encode(text)])
    assert comparison.disputed_chars == split_characters(b)
    assert all(c in range(len(text)) for c in comparison.disputed_chars)


def test_ignore_whitespace_forgets_where_the_space_goes():
    text = "lowest newer"
    word_like = Encoding(["lowest</w>", "newer</w>"], [0, 1], [(0, 6), (7, 12)])
    byte_like = Encoding(["lowest", " newer"], [0, 1], [(0, 6), (6, 12)])
    assert compare_segmentations(text, [word_like, byte_like]).disputed_cuts == {7}
    relaxed = compare_segmentations(text, [word_like, byte_like], ignore_whitespace=True)
    assert relaxed.disagreements == 0


# ---- token counts as merges grow ------------------------------------------------------------


def test_token_count_curve_of_seed000(tok10):
    curve = token_count_curve(tok10, SEED000, points=50)
    assert [k for k, _ in curve] == list(range(11))  # fewer merges than points: every k once
    assert curve == [(k, len(tok10.encode(SEED000, limit=k))) for k in range(11)]
    words = SEED000.split()
    assert curve[0] == (0, sum(len(w) for w in words) + len(words))  # characters + one </w> each
    counts = [n for _, n in curve]
    assert counts == sorted(counts, reverse=True)
    assert curve[-1] == (10, 38)


def test_token_count_curve_samples_points_and_handles_long_words():
    text = "like liker love lovely hug hugs hugging hearts " * 4
    tok = train(text, Settings(mode="text", pretokenizer="none"), merges=30)  # one 188-symbol word
    assert len(tok.merges) == 30
    curve = token_count_curve(tok, text, points=6)
    assert [k for k, _ in curve] == [0, 6, 12, 18, 24, 30]
    assert curve == [(k, len(tok.encode(text, limit=k))) for k, _ in curve]
    assert token_count_curve(tok, text, points=2) == [curve[0], curve[-1]]
    with pytest.raises(BPEError):
        token_count_curve(tok, text, points=1)


def test_token_count_curve_on_a_rank_file_tokenizer():
    ranks = {bytes([b]): b for b in range(256)}
    # " xyz" is a token no merge can reach: only tiktoken's whole-piece rule produces it.
    for token in [b"lo", b"low", b"er", b"ne", b"new", b"lower", b"est", b" xyz"]:
        ranks[token] = len(ranks)
    tok = tokenizer_from_ranks(ranks, pretokenizer="gpt2")
    text = "lower newest lowest xyz"
    curve = token_count_curve(tok, text, points=len(tok.merges) + 1)
    assert tok.unreachable == {"est", "Ġxyz"}  # no "es" or "st" to build "est" from
    assert len(tok.merges) == 6
    expected = [len(tok.encode(text, limit=k)) for k in range(len(tok.merges) + 1)]
    assert expected == [23, 21, 19, 18, 17, 16, 15]
    assert [n for _, n in curve][:-1] == expected[:-1]
    assert curve[-1][1] == len(tok.encode(text)) == expected[-1] - 3  # " xyz" whole, not 4 bytes
    # k merges of the derived merge list = every token ranked (by id) up to the k-th merge's token.
    words = tok.words_of(text)
    for k, (a, b) in enumerate(tok.merges, start=1):
        by_id = [encode_ranked(tok.initial_symbols(w), tok.table, limit=tok.vocab[a + b] + 1) for w in words]
        assert [tok.encode_word(w, limit=k) for w in words] == by_id


# ---- one token's life -----------------------------------------------------------------------


def test_life_story_of_newest(tok10, counts10):
    story = life_story(tok10, "newest</w>", counts10)
    assert (story.rank, story.count, story.parents) == (7, 6, ("newe", "st</w>"))
    assert story.step == 8  # the animation shows it after 8 merges
    assert story.children == ()
    assert story.uses == 6
    assert story.tree.leaves() == ["n", "e", "w", "e", "s", "t", "</w>"]
    assert story.id == tok10.vocab["newest</w>"]


def test_life_story_of_base_and_intermediate_tokens(tok10):
    e = life_story(tok10, "e")
    # "e" survives as a token only in wider's "wi d e st</w>" (x3) after training.
    assert (e.rank, e.count, e.parents, e.step, e.uses) == (None, None, None, 0, 3)
    assert e.children == (("we", 0), ("ne", 3))
    assert life_story(tok10, "ne").children == (("newe", 5),)
    with pytest.raises(BPEError, match="not in this tokenizer's vocabulary"):
        life_story(tok10, "zz")


# ---- BPE-dropout ----------------------------------------------------------------------------


def test_dropout_distribution(tok10):
    dist = dropout_distribution(tok10, "newest", p=0.3, samples=200, seed=1)
    assert dist.deterministic == ("newest</w>",)
    assert sum(n for _, n in dist.pairs()) == 200
    counts = [o.count for o in dist.outcomes]
    assert counts == sorted(counts, reverse=True)
    assert [o.tokens for o in dist.outcomes if o.deterministic] == [("newest</w>",)]
    assert all("".join(o.tokens) == "newest</w>" for o in dist.outcomes)
    assert dist == dropout_distribution(tok10, "newest", p=0.3, samples=200, seed=1)


def test_dropout_extremes_and_bad_input(tok10):
    none = dropout_distribution(tok10, "lowest", p=0.0, samples=5, seed=0)
    assert none.pairs() == [(("lo", "we", "st</w>"), 5)] and none.outcomes[0].deterministic
    every = dropout_distribution(tok10, "low", p=1.0, samples=3, seed=0)
    assert every.pairs() == [(("l", "o", "w", "</w>"), 3)]
    with pytest.raises(BPEError, match="one word"):
        dropout_distribution(tok10, "low newer", p=0.1, samples=3, seed=0)
    with pytest.raises(BPEError):
        dropout_distribution(tok10, "low", p=1.5, samples=3, seed=0)
    with pytest.raises(BPEError):
        dropout_distribution(tok10, "low", p=0.1, samples=0, seed=0)


def test_training_usage_equals_counting_the_corpus_again():
    from bpe_core.analysis import vocabulary_table
    from bpe_core.pretokenize import count_words

    tok = train(SEED000, merges=10)
    recounted = vocabulary_table(tok, count_words([SEED000], tok.settings))
    from_training = vocabulary_table(tok)
    assert [r.uses for r in from_training] == [r.uses for r in recounted]
    assert sum(r.uses for r in from_training) == tok.trace[-1].total_tokens


def test_vocabulary_shows_hex_groups_with_plain_spaces_and_text_spaces_as_dots():
    tok = train("hello world 日本 " * 5 + "語", Settings(mode="bytes"), merges=20)
    shown = {display_token(tok, t) for t in tok.vocab}
    assert "·<e8 aa>" in shown and "·world" in shown
    assert not any("<e8·" in s for s in shown)
    assert {r.display for r in vocabulary_table(tok)} == shown  # the table shows the same text
