"""Every family behind one face (`AnyModel`), the Unseen words explanations, family files in and out,
and the Compare and Vocabulary pages' pure parts for WordPiece, Unigram and SuperBPE."""
from __future__ import annotations

import json

import pytest

from bpe_core import BPEError, Settings, train
from bpe_core.analysis import compare_segmentations
from bpe_core.families import UnigramModel, WordPieceModel, train_superbpe, train_unigram, train_wordpiece
from bpe_core.families.superbpe import is_superword
from explorer.data import tokenizer_files
from explorer.data.any_model import AnyModel, pieces_encoding
from explorer.display import compare as cmp
from explorer.display import vocabulary as voc
from explorer.families.unigram import explain as unigram_explain
from explorer.families.wordpiece import explain as wordpiece_explain

CORPUS = ("the lowest newer wider slower tower widest newest of the best the new one " * 12
          + "by the way, by the way, by the way")
HELD = "the unbelievable lowest tower, by the way 日本"


@pytest.fixture(scope="module")
def models() -> dict:
    return {
        "bpe": train(CORPUS, Settings(mode="bytes"), merges=30),
        "wordpiece": train_wordpiece([CORPUS], vocab_size=80),
        "unigram": train_unigram([CORPUS], vocab_size=60),
        "superbpe": train_superbpe([CORPUS], vocab_size=330, transition=300),
    }


FAMILIES = ("wordpiece", "unigram", "superbpe")


# ---- AnyModel: segments exactly as each engine encodes -------------------------------------------

@pytest.mark.parametrize("family", FAMILIES)
def test_segment_is_the_engines_encoding_with_its_flags(models, family):
    model = models[family]
    pieces = AnyModel.of(model).segment(HELD)
    assert [p.token for p in pieces] == model.encode_tokens(HELD)
    assert [p.token_id for p in pieces] == model.encode_ids(HELD)
    assert [(p.token, p.start, p.end) for p in pieces] == model.encode_with_spans(HELD)
    unknown = [p.token for p in pieces if p.unknown]
    superwords = [p.token for p in pieces if p.marked]
    if family == "wordpiece":  # "unbelievable" and "日本" cannot be matched: each is [UNK] whole
        assert unknown == ["[UNK]", "[UNK]"] and superwords == []
    elif family == "unigram":  # the corpus has no u, v, 日, 本: unknown, neighbours fused, spelled as in the text
        assert unknown == ["u", "v", "日本"] and pieces[-1].token_id == model.unk_id and superwords == []
    else:  # byte level: nothing is unknown; "by the way" is one superword
        assert unknown == [] and superwords == ["ĠbyĠtheĠway"]
        assert superwords == [t for t in model.encode_tokens(HELD) if is_superword(t)]


def test_bpe_and_the_families_report_what_they_are(models):
    bpe, wp, ug, sb = (AnyModel.of(models[f]) for f in ("bpe", "wordpiece", "unigram", "superbpe"))
    assert [m.title for m in (bpe, wp, ug, sb)] == ["BPE", "WordPiece", "Unigram", "SuperBPE"]
    assert [m.merge_count for m in (bpe, wp, ug, sb)] == [30, None, None, len(models["superbpe"].merges)]
    assert [m.byte_level for m in (bpe, wp, ug, sb)] == [True, False, False, True]
    assert sb.tokenizer is models["superbpe"].tokenizer  # its merge view: trees and ranks
    with pytest.raises(BPEError, match="not a tokenizer of a known family"):
        AnyModel.of("a string")


# ---- why a word splits as it does ----------------------------------------------------------------

def test_longest_match_records_the_search_and_agrees_with_the_engine(models):
    wp = models["wordpiece"]
    for word in wordpiece_explain.wordpiece_words(wp, HELD + " Lowest newest towers"):
        match = wordpiece_explain.longest_match(wp, word)
        assert match.tokens == tuple(t for t, _, _, _ in wp.encode_word(word))
        if match.unknown_reason:
            assert match.tokens == ("[UNK]",) and match.steps[-1].piece is None
        else:
            assert tuple(s.piece for s in match.steps) == match.tokens
            assert [(s.start, s.end) for s in match.steps] == [(s, e) for _, _, s, e in wp.encode_word(word)]
    model = WordPieceModel(["[UNK]", "un", "##aff", "##able", "a"])
    match = wordpiece_explain.longest_match(model, "unaffable")
    assert [(s.piece, s.tried, s.tried_shown[:2]) for s in match.steps] == [
        ("un", 7, ("unaffable", "unaffabl")), ("##aff", 4, ("##affable", "##affabl")), ("##able", 0, ())]
    assert wordpiece_explain.longest_match(model, "unx").unknown_reason == (
        "no piece of the vocabulary matches at character 3 ('##x'), so the whole word is [UNK]")


def test_a_word_over_the_length_limit_is_unknown_whole():
    model = WordPieceModel(["[UNK]", "a", "##a"], max_input_chars_per_word=3)
    match = wordpiece_explain.longest_match(model, "aaaa")
    assert match.tokens == ("[UNK]",) and match.steps == ()
    assert "4 characters, more than max_input_chars_per_word (3)" in match.unknown_reason


def test_unigram_nbest_and_the_sum_of_piece_scores(models):
    ug = models["unigram"]
    best = unigram_explain.unigram_nbest(ug, "lowest", 4)
    assert [(list(s.pieces), s.log_probability, s.share) for s in best] == ug.nbest("lowest", 4)
    assert list(best[0].pieces) == ug.encode_tokens("lowest")  # Viterbi's choice is the first
    assert sum(unigram_explain.piece_score(ug, p) for p in best[0].pieces) == pytest.approx(best[0].log_probability)
    assert sum(s.share for s in best) == pytest.approx(1.0)
    # the meta-space cuts at spaces only
    assert unigram_explain.unigram_words("  the  lowest\tx ") == ["the", "lowest\tx"]


# ---- files in and out --------------------------------------------------------------------------

@pytest.mark.parametrize("family", FAMILIES)
def test_a_family_file_uploads_exports_and_round_trips(models, family):
    model = models[family]
    exports = tokenizer_files.export_family(model)
    loaded, problems = tokenizer_files.read_tokenizer_files([("../x/<b>mine<b>.json", exports.ours)])
    assert problems == [] and len(loaded) == 1
    item = loaded[0]
    assert item.family == family and item.name == "<b>mine<b>.json"
    assert item.kind == {"wordpiece": "our WordPiece JSON", "unigram": "our Unigram JSON",
                         "superbpe": "our SuperBPE JSON"}[family]
    assert item.any.encode_ids(HELD) == model.encode_ids(HELD)
    with pytest.raises(BPEError, match="not a BPE tokenizer"):
        _ = item.tokenizer  # the pages about BPE's merges refuse it in one line
    text = tokenizer_files.sample_text(CORPUS)
    trip = tokenizer_files.hf_round_trip(AnyModel.of(model), exports.hf, text)
    assert trip.ok and trip.ours_ids == model.encode_ids(text) and trip.reader.startswith("tokenizers ")
    again = tokenizer_files.reload_round_trip(AnyModel.of(model), [("model.json", exports.ours)], text)
    assert again.ok
    assert exports.vocab is None and exports.gpt2_zip is None and "GPT-2" in exports.gpt2_problem


@pytest.mark.parametrize("data", [
    {"format": "bpe-explorer", "model": "unigram", "version": 1, "unk_token": "<unk>", "vocab": "nope"},
    {"format": "bpe-explorer", "model": "wordpiece", "version": 1},
    {"format": "bpe-explorer", "model": "superbpe", "version": 1, "merges": [["a"]]},
])
def test_a_malformed_family_file_is_one_line(data):
    loaded, problems = tokenizer_files.read_tokenizer_files([("bad<i>.json", json.dumps(data).encode())])
    assert loaded == [] and len(problems) == 1
    assert problems[0].startswith("bad<i>.json") and "\n" not in problems[0]


# ---- Compare's and Vocabulary's parts ------------------------------------------------------------

def test_counts_and_overlap_tables_across_families(models):
    any_models = [AnyModel.of(models[f]) for f in ("bpe", *FAMILIES)]
    segments = [m.segment(HELD) for m in any_models]
    comparison = compare_segmentations(HELD, [pieces_encoding(p) for p in segments])
    table = cmp.counts_table(["a", "b", "c", "d"], any_models, comparison,
                             unknown=[sum(p.unknown for p in s) for s in segments])
    assert table["tokens"].tolist() == [len(models["bpe"].encode_tokens(HELD))] + [len(models[f].encode_tokens(HELD))
                                                                            for f in FAMILIES]
    assert table["family"].tolist() == ["BPE", "WordPiece", "Unigram", "SuperBPE"]
    assert table["unknown tokens"].tolist() == [0, 2, 3, 0]
    assert table["merges"].tolist()[0] == 30 and table["merges"].isna().tolist() == [False, True, True, False]
    html = cmp.column_html(any_models[3], HELD, comparison.columns[3])
    assert html.count("fam-superword") == 1
    wp_html = cmp.column_html(any_models[1], HELD, comparison.columns[1], unknown=[p.unknown for p in segments[1]])
    assert wp_html.count("bpe-unknown") == 2 and "unbelievable" in wp_html and "日本" in wp_html


def test_overlap_reads_each_familys_markers():
    wp = AnyModel.of(WordPieceModel(["[UNK]", "low", "##er", "e"]))
    ug = AnyModel.of(UnigramModel([("<unk>", 0.0), ("▁low", -1.0), ("er", -2.0), ("x", -3.0)]))
    table = cmp.overlap_table(["wp", "ug"], [wp, ug])
    assert table.to_dict("records") == [{"first": "wp", "second": "ug", "shared": 2, "only first": 1,
                                         "only second": 1, "shared % (Jaccard)": 50.0}]


def test_family_vocabulary_rows(models):
    wp, ug, sb = (AnyModel.of(models[f]) for f in FAMILIES)
    rows = voc.family_rows(wp)
    assert [r.token for r in rows] == list(models["wordpiece"].tokens)
    assert [r.continuation for r in rows] == [t.startswith("##") for t in models["wordpiece"].tokens]
    added = [s for s in models["wordpiece"].trace if s.added]
    by_token = {r.token: r for r in rows}
    assert [(by_token[s.token].step, by_token[s.token].score) for s in added] == [(s.step, s.score) for s in added]
    assert [r.score for r in voc.family_rows(ug)] == models["unigram"].scores
    frame = voc.family_frame(sb, voc.family_rows(sb))
    assert frame["superword"].sum() == len(models["superbpe"].superwords)
    assert (frame["phase"] == 1).sum() == models["superbpe"].transition
    assert len(voc.family_search(voc.family_rows(wp), "", "continuation")) == sum(
        t.startswith("##") for t in models["wordpiece"].tokens)
    with_space = [t for t in models["unigram"].pieces if "▁new" in t]  # the meta-space is a space of the text
    assert with_space and [r.token for r in voc.family_search(voc.family_rows(ug), " new")] == with_space
    assert [r.token for r in voc.family_search(voc.family_rows(ug), "·new")] == with_space


def test_a_200k_vocabulary_is_listed_capped():
    big = AnyModel.of(UnigramModel([("<unk>", 0.0)] + [(f"p{i}", -1.0 - i * 1e-6) for i in range(200_000)]))
    rows = voc.family_rows(big)
    assert len(rows) == 200_001
    assert len(voc.family_frame(big, rows)) == voc.MAX_FAMILY_ROWS
    assert [r.token for r in voc.family_search(rows, "p19999")] == ["p19999"] + [f"p19999{d}" for d in range(10)]
