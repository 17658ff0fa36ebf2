"""Any tokenizer read from a file into parts behind the explorer's one face (`AnyModel`): what it
encodes, how its tokens are drawn, its vocabulary rows, its export. The pages: test_any_tokenizer_pages.py.

Checked against the reference libraries on real files (`real_tokenizer_files`): `tokenizers`
(add_special_tokens=False), `sentencepiece`, mistral-common's Tekkenizer.
"""
from __future__ import annotations

import json

import pytest
from real_tokenizer_files import NAMES, TEXT, texts

from bpe_core.analysis import compare_segmentations
from explorer.data import tokenizer_files
from explorer.data.any_model import pieces_by_word, pieces_encoding
from explorer.data.token_texts import bytes_surface
from explorer.display import compare as cmp
from explorer.display import tokenize as view
from explorer.display import vocabulary as voc

# ---- the tokenizer behind one face ---------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_every_file_encodes_as_its_reference_library_does(name, uploads, reference):
    model = uploads[name].any
    for text in texts():
        pieces = model.segment(text)
        assert [p.token_id for p in pieces] == reference[name](text), text[:40]
        assert model.encode_ids(text) == reference[name](text)
        result = view.tokenized(model, text)
        assert result.count == len(pieces)  # all counted, the first MAX_CHIPS drawn
        assert [t.id for t in result.tokens] == [p.token_id for p in pieces][:view.MAX_CHIPS]
        unk = model.vocab.get(model.unk_token) if model.unk_token is not None else None
        assert result.unknown == sum(i == unk for i in reference[name](text))


def test_what_each_file_is(uploads, files):
    deepseek, sp, tekken, wordpiece, unigram = (uploads[n].any for n in NAMES)
    assert deepseek.title == "BPE (tokenizer.json)" and deepseek.kind == "BPE"
    assert deepseek.merge_count == len(json.loads(files["deepseek"][1])["model"]["merges"])
    assert wordpiece.title == "WordPiece (tokenizer.json)" and wordpiece.merge_count is None
    assert wordpiece.unk_token == "[UNK]"
    assert unigram.title == "Unigram (tokenizer.json)" and unigram.merge_count is None
    assert unigram.unk_token == "<unk>" and unigram.scores is not None
    assert sp.title.endswith("(SentencePiece)") and tekken.title.endswith("(Tekken)")
    assert uploads["sentencepiece"].kind == "SentencePiece model" and uploads["tekken"].kind == "Tekken JSON"
    assert uploads["deepseek"].kind == "Hugging Face tokenizer.json"
    for model in (deepseek, sp, tekken, wordpiece, unigram):
        assert not model.merge_based and not model.is_marked("a b")
    assert wordpiece.is_continuation("##a") and not wordpiece.is_continuation("a")  # its model says "##"
    assert not any(m.is_continuation("##a") for m in (deepseek, sp, tekken, unigram))
    assert not any(u.merge_list for u in uploads.values())
    assert sp.vocab_size == 32_000 and tekken.vocab_size == 131_072


def test_chips_draw_every_token_as_plain_text(uploads, reference):
    for name in NAMES:
        model = uploads[name].any
        result = view.tokenized(model, TEXT)
        html = view.chips_html(model, TEXT, result)
        assert html.count('class="bpe-id"') == len(reference[name](TEXT)), name
        assert "<script" not in html and "\ufffd" not in html, name
    # Byte fallback: the cuneiform sign is four byte tokens, each drawn as its byte in hex.
    sp = uploads["sentencepiece"].any
    html = view.chips_html(sp, "𒀀", view.tokenized(sp, "𒀀"))
    assert ">&lt;f0&gt;<" in html and ">&lt;92&gt;<" in html
    # A byte-level token is drawn decoded: DeepSeek's "Ġsplit" as "·split".
    deepseek = uploads["deepseek"].any
    assert deepseek.shown(deepseek.segment(" split")[0].token) == "·split"
    as_hex = view.chips_html(deepseek, "ab", view.tokenized(deepseek, "ab"), as_bytes=True)
    assert ">&lt;61 62&gt;<" in as_hex


def test_special_tokens_are_cut_out_whole_and_drawn_as_such(uploads, reference):
    deepseek = uploads["deepseek"].any
    bos = next(t for t in deepseek.added_tokens if t.special and "begin" in t.content)
    text = f"{bos.content}Hello"
    result = view.tokenized(deepseek, text)
    assert result.special == 1 and result.tokens[0].id == bos.id == reference["deepseek"](text)[0]
    html = view.chips_html(deepseek, text, result)
    assert html.count("bpe-special") == 1 and deepseek.is_special(bos.content)
    wordpiece = uploads["wordpiece"].any
    result = view.tokenized(wordpiece, "[CLS] hello [SEP]")
    assert result.special == 2 and [t.id for t in result.tokens] == reference["wordpiece"]("[CLS] hello [SEP]")
    # sentencepiece and Tekken leave "<s>" in the text as ordinary text, as their libraries do.
    for name in ("sentencepiece", "tekken"):
        assert view.tokenized(uploads[name].any, "<s> hi").special == 0
        assert uploads[name].any.encode_ids("<s> hi") == reference[name]("<s> hi")


def test_unknown_text_is_counted_and_drawn_red(uploads, reference):
    for name in ("wordpiece", "unigram"):
        model = uploads[name].any
        result = view.tokenized(model, "hello 𒀀 world")
        unk = model.vocab[model.unk_token]
        assert result.unknown == reference[name]("hello 𒀀 world").count(unk) > 0, name
        html = view.chips_html(model, "hello 𒀀 world", result)
        assert html.count("bpe-unknown") == result.unknown and "𒀀" in html


def test_the_text_a_token_stands_for(uploads):
    sp, wordpiece = uploads["sentencepiece"].any, uploads["wordpiece"].any
    assert sp.surface("▁the") == " the" and sp.overlap_key("▁the") == "the"
    assert sp.surface("<0xE6>") == "<e6>" and sp.shown("<0xE6>") == "<e6>"
    assert wordpiece.surface("##ing") == "ing"
    assert bytes_surface("日本".encode()[:5]) == "日<e6 9c>"


def test_vocabulary_rows_of_a_file(uploads):
    for name in NAMES:
        model = uploads[name].any
        rows = voc.family_rows(model)
        assert len(rows) == model.vocab_size and [r.id for r in rows] == sorted(model.vocab.values()), name
        assert {r.id for r in rows if r.special} == {t.id for t in model.added_tokens if t.special}, name
        frame = voc.family_frame(model, rows)
        assert {"id", "token", "surface text", "characters", "bytes"} <= set(frame.columns)
        if model.added_tokens:
            assert frame["special"].sum() == sum(r.special for r in rows[:len(frame)])
    deepseek_rows = voc.family_rows(uploads["deepseek"].any)
    the = next(r for r in deepseek_rows if r.token == "Ġthe")
    assert the.shown == the.surface == "·the" and the.n_bytes == 4 and the.step is not None
    assert "step (merge)" in voc.family_frame(uploads["deepseek"].any, deepseek_rows).columns
    unigram = uploads["unigram"].any
    assert "log-probability" in voc.family_frame(unigram, voc.family_rows(unigram)).columns
    found = voc.family_search(deepseek_rows, "", "special")
    assert found and all(r.special for r in found)
    assert "special" in voc.family_flags("parts")


def test_pieces_are_grouped_by_the_word_they_spell(uploads):
    for name in NAMES:
        model = uploads[name].any
        pieces = model.segment(TEXT)
        grouped = pieces_by_word(TEXT, pieces)
        assert [p for _, found in grouped for p in found] == pieces
        assert set(w for w, _ in grouped) <= set(TEXT.split())


def test_merge_trees_of_a_files_bpe(uploads):
    deepseek = uploads["deepseek"].any
    token = deepseek.segment(" tokenization")[0].token
    tree = deepseek.drawn_tree(token)
    assert tree.rank == deepseek.birth[token] and "".join(tree.leaves()) == token
    assert uploads["wordpiece"].any.drawn_tree("hello").rank is None  # no merges: one leaf


@pytest.mark.parametrize("name", NAMES)
def test_exported_tokenizer_json_round_trips_through_tokenizers(name, uploads):
    item = uploads[name]
    hf = tokenizer_files.hf_export(item.model)
    trip = tokenizer_files.hf_round_trip(item.any, hf, tokenizer_files.sample_text(TEXT))
    assert trip.ok, trip.differences()[:3]


def test_compare_counts_and_overlap_take_files(uploads):
    models = [uploads[n].any for n in ("deepseek", "wordpiece", "unigram")]
    segments = [m.segment(TEXT) for m in models]
    comparison = compare_segmentations(TEXT, [pieces_encoding(s) for s in segments])
    table = cmp.counts_table(["a", "b", "c"], models, comparison, unknown=[sum(p.unknown for p in s) for s in segments])
    assert table["family"].tolist() == [m.title for m in models]
    assert table["merges"].isna().tolist() == [False, True, True]
    overlap = cmp.overlap_table(["a", "b", "c"], models)
    assert len(overlap) == 3 and (overlap["shared"] > 0).all()
    html = cmp.column_html(models[0], TEXT, comparison.columns[0], special=[p.special for p in segments[0]])
    assert html.count('class="bpe-id"') == len(segments[0])


def test_uploads_take_any_file_name_and_read_the_contents(files):
    assert tokenizer_files.UPLOAD_TYPES is None  # "tokenizer.model.v1" is a real file's name
    loaded, problems = tokenizer_files.read_tokenizer_files([("notes.v1", b"\x00\x01binary")])
    assert loaded == [] and problems == ["notes.v1 looks like a binary file (it contains NUL bytes), not a tokenizer"]
