"""The report card's measures, each on cases worked by hand from its formula, and on real tokenizers."""
from __future__ import annotations

import math
import re
from collections import Counter

import pytest

from bpe_core import BPEError, train
from bpe_core.analysis.stats import TextStats
from bpe_core.encoding import Encoding
from bpe_core.families import train_unigram, train_wordpiece
from bpe_core.formats.detect import load_model
from bpe_core.report import (
    FAIL,
    MEASURES,
    NOT_CHECKED,
    PASS,
    WARN,
    checks,
    digit_grouping,
    fairness,
    gini,
    inside_counts,
    report_card,
    values,
)
from bpe_core.report.digits import LEARNED, LEFT, PER_DIGIT, chunks
from tests.core.real_texts import held_out_texts

LESSON = "low low low low low lower lower newest newest newest newest newest newest widest widest widest"


def by_name(card, name):
    return next(c for c in checks(card) if c.name == name)


# ---- Rényi and Shannon efficiency -------------------------------------------------------------

def test_renyi_efficiency_is_the_formula_on_the_tokens_produced():
    tok = train(LESSON, merges=8)
    text = "low lowest newer wider low"
    card = report_card(tok, text, alpha=2.5)
    counts = Counter(tok.encode_tokens(text))
    total = sum(counts.values())
    p = [n / total for n in counts.values()]
    h_25 = math.log(sum(x ** 2.5 for x in p)) / (1 - 2.5)
    shannon = -sum(x * math.log(x) for x in p)
    assert card.renyi_efficiency == pytest.approx(h_25 / math.log(len(tok.vocab)), rel=1e-12)
    assert card.shannon_efficiency == pytest.approx(shannon / math.log(len(tok.vocab)), rel=1e-12)
    assert 0 < card.renyi_efficiency < card.shannon_efficiency < 1  # H_α falls as α grows


def test_renyi_efficiency_worked_by_hand():
    """Tokens a a b c on a vocabulary of 8: p = 1/2, 1/4, 1/4."""
    from bpe_core.report import distribution, efficiency

    p = distribution([2, 1, 1])
    by_hand = math.log(0.5 ** 2.5 + 2 * 0.25 ** 2.5) / -1.5 / math.log(8)
    assert efficiency(p, 8, 2.5) == pytest.approx(by_hand, rel=1e-12)
    assert efficiency(p, 8, 1.0) == pytest.approx(1.5 * math.log(2) / math.log(8), rel=1e-12)  # 1.5 bits of 3
    assert efficiency([0.25] * 4, 4, 2.5) == pytest.approx(1.0)  # every token used alike
    assert efficiency(p, 1, 2.5) is None


def test_renyi_efficiency_equals_the_published_scorer_on_real_text():
    """`tokenization-scorer` (the paper's own package) scores the same ids as whitespace-separated words."""
    import tokenization_scorer as scorer

    texts = held_out_texts()
    text = texts["english prose"] + texts["python source"] + texts["parallel ru"]
    for name in ("cl100k_base", "gpt2"):
        tok = load_model(name)
        card = report_card(tok, text)
        words = " ".join(map(str, tok.encode_ids(text)))
        vocab = len(tok.vocab)
        assert card.renyi_efficiency == pytest.approx(scorer.score(words, metric="renyi", power=2.5, vocab=vocab),
                                                      rel=1e-9)
        assert card.shannon_efficiency == pytest.approx(scorer.score(words, metric="shannon", vocab=vocab),
                                                        rel=1e-9)


# ---- fairness ---------------------------------------------------------------------------------

def test_gini_is_the_double_sum_over_2_n_squared_mu():
    values_ = [0.2, 0.5, 0.5, 1.3, 0.25]
    n, mu = len(values_), sum(values_) / len(values_)
    double_sum = sum(abs(a - b) for a in values_ for b in values_)
    assert gini(values_) == pytest.approx(double_sum / (2 * n * n * mu), rel=1e-12)
    assert gini([1, 2, 3, 4]) == pytest.approx(20 / (2 * 16 * 2.5))
    assert gini([0.3, 0.3]) == 0.0
    assert gini([]) is None and gini([0, 0]) is None


def test_fairness_premiums_and_gini_of_tokens_per_byte():
    tok = train("aa aa aa b", merges=2)
    texts = {"en": "aa aa", "xx": "ab ab", "yy": "aab"}
    stats = {code: TextStats(len(t.encode()), len(t), len(t.split()), len(tok.encode_ids(t)))
             for code, t in texts.items()}
    found = fairness(stats)
    tokens = {code: s.tokens for code, s in stats.items()}
    assert [(row.code, row.premium) for row in found.languages] == [
        (code, tokens[code] / tokens["en"]) for code in texts]
    per_byte = [tokens[c] / len(texts[c]) for c in texts]
    n, mu = 3, sum(per_byte) / 3
    assert found.gini == pytest.approx(sum(abs(a - b) for a in per_byte for b in per_byte) / (2 * n * n * mu))
    assert found.highest is not None and found.highest.premium == max(r.premium for r in found.languages)


# ---- intermediate tokens ----------------------------------------------------------------------

def replayed(merges, symbols):
    """BPE on one word, written out: merge the lowest-ranked adjacent pair until none is left;
    every token made on the way, with the word's final tokens."""
    ranks = {pair: r for r, pair in reversed(list(enumerate(merges)))}
    made: Counter[str] = Counter()
    while True:
        pairs = [(ranks[p], i) for i, p in enumerate(zip(symbols, symbols[1:])) if p in ranks]
        if not pairs:
            return made, symbols
        _, i = min(pairs)
        symbols = symbols[:i] + [symbols[i] + symbols[i + 1]] + symbols[i + 2:]
        made[symbols[i]] += 1


def test_inside_counts_are_the_tokens_merging_makes_and_consumes():
    """Replay the merges word by word (no merge tree): what was made and is not in the output was consumed."""
    tok = train(LESSON, merges=10)
    text = "lowest newest widest lower low newer wider lowest"
    card = report_card(tok, text, min_made=1)
    made: Counter[str] = Counter()
    final: Counter[str] = Counter()
    for word in text.split():
        got, out = replayed(tok.merges, [*word, "</w>"])
        made += got
        final.update(out)
    assert final == Counter(tok.encode_tokens(text))
    consumed = {t: made[t] - final[t] for t in made if made[t] - final[t]}
    assert dict(inside_counts(tok.merges, card.text.counts)) == consumed
    for token, row in card.residue.tokens.items():
        assert (row.emitted, row.inside) == (final[token], consumed.get(token, 0))


def test_residue_is_made_often_and_nearly_always_consumed():
    merges = [("l", "o"), ("lo", "w"), ("e", "s"), ("es", "t"), ("low", "est")]
    from bpe_core.report import residue

    found = residue(merges, {"lowest": 19, "low": 1, "es": 1}, vocabulary_size=20, min_made=10, threshold=0.9)
    shares = {t.token: t.consumed_share for t in found.tokens.values()}
    assert shares == {"lo": 1.0, "low": 19 / 20, "es": 19 / 20, "est": 1.0, "lowest": 0.0}
    assert [t.token for t in found.residue] == ["es", "lo", "low", "est"]  # made 20, 20, 20, 19
    assert found.judged == 5 and found.share == 4 / 20
    strict = residue(merges, {"lowest": 19, "low": 1, "es": 1}, vocabulary_size=20, min_made=21)
    assert strict.residue == () and strict.judged == 0


def test_a_model_without_ranked_merges_has_no_residue_and_says_so():
    corpus = [LESSON] * 3
    for tok in (train_wordpiece(corpus, vocab_size=40), train_unigram(corpus, vocab_size=30)):
        card = report_card(tok, "lower newest")
        assert card.residue is None and values(card)["residue_share"] is None
        assert by_name(card, "Little residue").status == NOT_CHECKED
        assert by_name(card, "No unreachable tokens").status == NOT_CHECKED


# ---- words, digits, bytes, checks -------------------------------------------------------------

def test_words_cut_into_pieces_count_continued_and_single_token_words():
    tok = train(LESSON, merges=10)  # low</w> is one token; lower is low e r </w>
    card = report_card(tok, "low lower low")
    assert card.text.words == 3 and card.text.pieces == {1: 2, 4: 1}
    got = values(card)
    assert got["continued_word_rate"] == pytest.approx(1 / 3)
    assert got["single_token_word_rate"] == pytest.approx(2 / 3)
    assert got["tokens_per_word"] == pytest.approx(len(tok.encode_ids("low lower low")) / 3)


def test_text_written_without_spaces_is_counted_per_character():
    tok = load_model("cl100k_base")
    card = report_card(tok, "这是一个没有空格的句子。我们按字计算。")
    assert card.text.spaceless
    assert values(card)["tokens_per_word"] is None
    assert values(card)["tokens_per_character"] == pytest.approx(card.text.tokens / card.text.characters)


@pytest.mark.parametrize(("name", "kind", "example"), [
    ("cl100k_base", LEFT, ["314", "159", "265", "3"]),
    ("qwen3", PER_DIGIT, list("3141592653")),
    ("gpt2", LEARNED, None),
])
def test_digit_grouping_of_real_tokenizers(name, kind, example):
    found = digit_grouping(load_model(name))
    assert found.kind == kind
    if example is not None:
        assert found.example == example
    assert all("".join(groups) == number for number, groups in found.groups.items())


def test_chunks_from_either_end():
    assert chunks("12345678", 3) == ["123", "456", "78"]
    assert chunks("12345678", 3, from_right=True) == ["12", "345", "678"]
    assert chunks("123456", 3, from_right=True) == ["123", "456"]


def test_bytes_unknown_tokens_and_round_trip():
    word_mode = train(LESSON, merges=10)
    card = report_card(word_mode, "low lowest zebra")
    assert card.text.unknown == sum(word_mode.encode(t).unknown.count(True) for t in ["low lowest zebra"])
    assert card.text.unknown > 0 and by_name(card, "Unknown tokens").status == FAIL
    assert not card.text.round_trip.exact and by_name(card, "Round trip").status == FAIL

    gpt2 = load_model("gpt2")
    text = "日本語のテキスト"
    card = report_card(gpt2, text)
    produced = gpt2.encode_tokens(text)
    cut = sum(1 for t in produced if not _decodes(gpt2.token_bytes(t)))
    assert cut > 0 and card.text.cut_characters == cut
    assert values(card)["cut_character_rate"] == pytest.approx(cut / len(produced))
    assert card.partial_vocabulary == sum(1 for t in gpt2.vocab if not _decodes(gpt2.token_bytes(t)))
    assert card.text.round_trip.exact and by_name(card, "Round trip").status == PASS
    assert by_name(card, "Characters kept whole").status == WARN


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_whitespace_check_fails_where_decoding_drops_spaces():
    lowercase_word_mode = train(LESSON + " a b c d e", merges=5)
    assert by_name(report_card(lowercase_word_mode, "a b"), "Whitespace kept").status == FAIL  # word mode: one space
    assert by_name(report_card(load_model("gpt2"), "a b"), "Whitespace kept").status == PASS


def test_every_family_gets_every_measure():
    corpus = [LESSON] * 4
    models = [train(" ".join(corpus), merges=10), train_wordpiece(corpus, vocab_size=40),
              train_unigram(corpus, vocab_size=30), load_model("o200k_harmony")]
    for tok in models:
        card = report_card(tok, "lowest newer 2024 wider\n")
        got = values(card)
        assert list(got) == [m.key for m in MEASURES]
        for one in MEASURES:
            value = got[one.key]
            if value is None:
                assert one.why_missing
            elif one.kind == "share":
                assert 0 <= value <= 1
        assert {c.status for c in checks(card)} <= {PASS, WARN, FAIL, NOT_CHECKED}


def test_bad_settings_are_refused_in_one_line():
    tok = train(LESSON, merges=3)
    for options in ({"alpha": -1.0}, {"alpha": float("nan")}, {"residue_share": 0.0}, {"residue_share": 1.5},
                    {"min_made": 0}):
        with pytest.raises(BPEError):
            report_card(tok, "low", **options)


def test_a_normalizing_tokenizer_fails_the_round_trip_and_shows_the_code_points():
    """Qwen normalizes to NFC: A + combining ring comes back as Å, which looks the same on screen."""
    card = report_card(load_model("qwen3"), "A\u030a ring, and more text")
    check = by_name(card, "Round trip")
    assert not card.text.round_trip.exact and card.text.round_trip.at == 0
    assert check.status == FAIL and "U+0041 U+030A" in check.reason and "U+00C5" in check.reason


def test_vocabulary_use_counts_the_tokens_produced_at_least_once():
    tok = train(LESSON, merges=10)
    text = "low low newest"
    card = report_card(tok, text)
    produced = set(tok.encode_tokens(text))
    got = values(card)
    assert got["vocabulary_used"] == pytest.approx(len(produced) / len(tok.vocab))
    assert got["never_produced"] == len(set(tok.vocab) - produced)


class RightToLeftDigits:
    """A stand-in tokenizer that cuts digit runs in threes from the right, every other character alone."""

    def encode(self, text):
        spans = []
        for run in re.finditer(r"\d+|\D", text):
            start, end = run.span()
            head = (end - start) % 3 if run.group().isdigit() else end - start
            cuts = [start, *([start + head] if head else []), *range(start + head + 3, end, 3), end]
            spans += [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]
        return Encoding([text[a:b] for a, b in spans], list(range(len(spans))), spans)


def test_digit_grouping_names_groups_from_the_right():
    from bpe_core.report.digits import RIGHT

    found = digit_grouping(RightToLeftDigits())
    assert (found.kind, found.size, found.example) == (RIGHT, 3, ["3", "141", "592", "653"])
    assert found.describe() == "right to left, 3 at a time" and found.regular
