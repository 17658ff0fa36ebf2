from __future__ import annotations

from bpe_core import Settings, train
from bpe_core.analysis.longest_match import WORD_CAP, differences
from explorer.data import lessons
from explorer.data.training import train_corpus
from explorer.display import tables
from sample_corpora import load_corpus


def test_seed000_unseen_words(seed000_trained):
    tok = seed000_trained.tokenizer
    assert {w: tok.encode_word(w) for w in lessons.EXPECTED_000_UNSEEN} == lessons.EXPECTED_000_UNSEEN


def test_seed003(seed003_trained):
    tok = seed003_trained.tokenizer
    assert [m.token for m in tok.trace] == lessons.EXPECTED_003_ADDED
    assert [m.vocab_size for m in tok.trace] == list(range(17, 26))
    assert tok.encode(load_corpus("seed003")).tokens == lessons.EXPECTED_003_TOKENS


def test_seed002_unknown_z_round_trip():
    trained = train_corpus([load_corpus("seed002")], lessons.SEED002.request)
    tok = trained.tokenizer
    enc = tok.encode("unrecognized word")
    assert "<unk>" in enc.tokens and tok.decode(enc.ids) == "unrecogni<unk>ed word"
    for text in lessons.SEED002_INPUTS[:3]:
        assert tok.decode(tok.encode(text).ids) == text


def test_try_it_yourself():
    tried = lessons.try_it_yourself(load_corpus("seed000"))
    assert [t for t, _ in tried.before] == [a + b for a, b, _ in lessons.EXPECTED_000_MERGES]
    assert ("west</w>", 9) in tried.after and "west</w>" not in [t for t, _ in tried.before]
    assert (tried.collapse_before, tried.collapse_after) == (18, 19)


def test_wrong_orders_change_segmentations(seed000_trained):
    tok = seed000_trained.tokenizer
    for name, order in lessons.wrong_orders(tok.merges).items():
        assert sorted(order) == sorted(tok.merges)
        rows = lessons.order_rows(tok, ["newest", "lowest", "slow"], order)
        assert any(a != b for _, a, b in rows), name


def test_learned_order_replay_matches_ranked(seed000_trained):
    tok = seed000_trained.tokenizer
    rows = lessons.order_rows(tok, ["newest", "lowest", "wider", "slow"], tok.merges)
    assert all(a == b for _, a, b in rows)


def test_no_marker_makes_suffix_and_prefix_alike(seed000_trained):
    plain = train(load_corpus("seed000"), Settings(eow="none"), merges=10)
    rows = dict((w, b) for w, _, b in lessons.marker_rows(seed000_trained.tokenizer, plain, ["west", "estate"]))
    assert rows["west"][-1] == "st" and "st" in rows["estate"]
    assert plain.decode(plain.encode("low est").ids) == "lowest"


def test_longest_match_differs_from_bpe():
    plain = train(load_corpus("seed000"), Settings(eow="none"), merges=10)
    (word, bpe, greedy), = lessons.greedy_rows(plain, ["lower"])
    assert bpe == ["lo", "we", "r"] and greedy == ["low", "e", "r"]
    assert [(d.word, d.bpe, d.greedy) for d in differences(plain, ["newer", "lower", "lower"])] == [
        ("lower", bpe, greedy)]


def test_greedy_rows_cut_a_long_word_at_the_cap():
    plain = train(load_corpus("seed000"), Settings(eow="none"), merges=10)
    (word, bpe, greedy), = lessons.greedy_rows(plain, ["lower" * 1000])
    assert word == ("lower" * 1000)[:WORD_CAP] and len(word) == 2_000
    assert greedy[:3] == ["low", "e", "r"] and len(greedy) == 3 * 400
    assert bpe == plain.encode_word(word)


def test_mismatch_on_small_texts():
    english = "the cat sat on the mat and the dog sat on the log " * 40
    code = "def f(x): return x + 1\nfor i in range(10): print(f(i))\n" * 40
    result = lessons.mismatch({"English": english, "code": code}, {"English": english, "code": code}, merges=40)
    assert result.fertility[0][0] < result.fertility[1][0]  # English text is cheaper for the English tokenizer
    assert result.fertility[1][1] < result.fertility[0][1]


def test_tables(seed000_trained):
    tok = seed000_trained.tokenizer
    merges = tables.merges_table(tok.trace)
    assert list(merges["new token"][:3]) == ["we", "t</w>", "st</w>"] and list(merges["count"][:1]) == [9]
    built = tables.built_table(tok.merge_steps("lowest"), tok)
    assert list(built["merge"]) == ["w + e", "t + </w>", "s + t</w>", "l + o"]
    assert list(built["rank"]) == [0, 1, 2, 6]
    assert list(built["training count"]) == [tok.trace[r].count for r in built["rank"]]
    assert list(built["pieces after"])[-1] == "lo we st</w>"
    pieces = tables.pieces_table(["lo", "z"], tok)
    assert list(pieces["id"]) == [tok.vocab["lo"], tok.unk_id] and list(pieces["token"])[1] == "<unk> (z)"
    text = tables.pieces_table([" h"], train("a h h", Settings(mode="text"), merges=1))
    assert list(text["token"]) == ["·h"]


def test_lesson_tables(seed000_trained, seed003_trained):
    merges = tables.lesson_merges_table(seed000_trained.tokenizer.trace)
    assert list(merges["pair"])[:2] == ["w + e", "t + </w>"] and list(merges["seen"])[:2] == [9, 9]
    check = tables.expected_table({"slow": ["s", "low</w>"]}, {"slow": ["s", "low</w>"]})
    assert list(check.iloc[0]) == ["slow", "s low</w>", "s low</w>"]
    added = tables.added_tokens_table(seed003_trained.tokenizer.trace)
    assert list(added["added"])[:2] == ['" h"', '" l"'] and list(added["vocab size"])[0] == 17
    moved = tables.try_it_table(lessons.TryIt(before=[("a", 3), ("b", 2)], after=[("b", 4), ("c", 3)],
                                              collapse_before=None, collapse_after=None))
    assert list(moved["change"]) == ["was step 2", "new"]
    trip = tables.round_trip_table(seed000_trained.tokenizer, ["lowest zed"])
    assert list(trip["decoded"]) == ["lowest <unk>ed"] and "<unk>" in list(trip["tokens"])[0]
    fert = tables.fertility_table(lessons.Mismatch(["A", "B"], ["x"], [[1.234], [2.0]]))
    assert fert.loc["trained on A"].iloc[0] == "1.23"
