"""Every page that needs no merges works with any tokenizer read from a file into parts (uploaded or
built in); the pages about merges offer merge lists only. What a person sees is checked against the
reference libraries on real files (`real_tokenizer_files`)."""
from __future__ import annotations

from apptest_helpers import chip_blocks, html_bodies, plotly_specs
from plain_text import constructs, shown
from real_tokenizer_files import NAMES, TEXT

from explorer.ui import state
from explorer.ui import tokenizer_picker as picker
from tests.conftest import require


def with_uploads(app, uploads, *names: str):
    app.session_state[state.PICK_UPLOADED] = {uploads[n].key: uploads[n] for n in names}
    return app


def ok(at) -> None:
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])


def test_tokenize_page_with_uploaded_files(app, uploads, reference):
    at = with_uploads(app, uploads, *NAMES)
    at.switch_page("views/tokenize.py").run()
    keys = [uploads[n].key for n in NAMES]
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(keys).run()
    at.text_area(key=state.TOK_W_TEXT).set_value(TEXT).run()
    ok(at)
    table = at.dataframe[0].value
    assert table["tokens"].tolist() == [len(reference[n](TEXT)) for n in NAMES]
    assert table["vocabulary"].tolist() == [uploads[n].any.vocab_size for n in NAMES]
    blocks = chip_blocks(at)
    assert [b.count('class="bpe-id"') for b in blocks] == [len(reference[n](TEXT)) for n in NAMES]
    assert not any("<script" in b for b in blocks)
    assert any("WordPiece (tokenizer.json)" in shown(c.value) for c in at.caption)
    at.toggle(key=state.TOK_W_AS_BYTES).set_value(True).run()
    ok(at)
    assert ">&lt;20 f0&gt;<" in chip_blocks(at)[0]  # DeepSeek's " 𒀀" starts with a token of two bytes


def test_tokenize_page_with_builtin_files(app, reference):
    at = app.switch_page("views/tokenize.py").run()
    options = at.multiselect(key=state.TOK_W_CHOSEN).options
    assert any("DeepSeek V4" in o for o in options) and any("Tekken" in o for o in options)
    at.multiselect(key=state.TOK_W_CHOSEN).set_value(["builtin:deepseek_v4", "builtin:mistral_v1",
                                                      "builtin:tekken"]).run()
    at.text_area(key=state.TOK_W_TEXT).set_value(TEXT).run()
    ok(at)
    assert at.dataframe[0].value["tokens"].tolist() == [len(reference[n](TEXT))
                                                        for n in ("deepseek", "sentencepiece", "tekken")]
    assert len(chip_blocks(at)) == 3


def test_compare_page_with_files(app, uploads, reference):
    at = with_uploads(app, uploads, "wordpiece", "unigram")
    at.session_state[state.CMP_ENTRIES] = []  # room for three: the sidebar's two are not added
    at.switch_page("views/compare.py").run()
    at.button(key=state.b_cmp_add(uploads["wordpiece"].key)).click().run()
    at.button(key=state.b_cmp_add(uploads["unigram"].key)).click().run()
    at.button(key=state.b_cmp_add_builtin("deepseek_v4")).click().run()
    at.text_area(key=state.CMP_W_TEXT).set_value(TEXT).run()
    ok(at)
    table = at.dataframe[0].value
    assert table["tokens"].tolist() == [len(reference[n](TEXT)) for n in ("wordpiece", "unigram", "deepseek")]
    assert table["family"].tolist() == ["WordPiece (tokenizer.json)", "Unigram (tokenizer.json)",
                                             "BPE (tokenizer.json)"]
    assert len(chip_blocks(at)) == len(table)
    at.toggle(key=state.CMP_W_AS_HEX).set_value(True).run()
    ok(at)


def test_vocabulary_page_with_a_file(app, uploads):
    at = with_uploads(app, uploads, "unigram", "deepseek")
    at.switch_page("views/vocabulary.py").run()
    at.selectbox(key=state.VOC_W_SOURCE).set_value(uploads["unigram"].key).run()
    ok(at)
    unigram = uploads["unigram"].any
    assert any(h.value == f"All {unigram.vocab_size:,} tokens" for h in at.subheader)
    frame = at.dataframe[0].value
    assert len(frame) == unigram.vocab_size and "log-probability" in frame.columns
    assert frame["special"].sum() == 3 and frame["unknown token"].sum() == 1
    at.text_input(key=state.VOC_W_SEARCH).set_value("·the").run()
    ok(at)
    assert len(at.dataframe[0].value) >= 1 and all("the" in s.lower() for s in at.dataframe[0].value["surface text"])
    at.selectbox(key=state.VOC_W_SOURCE).set_value(uploads["deepseek"].key).run()
    at.number_input(key=state.VOC_W_TOKEN).set_value(0).run()
    ok(at)
    assert any("special token" in c.value for c in at.caption)


def test_unseen_words_page_with_files(app, uploads):
    at = with_uploads(app, uploads, "wordpiece", "deepseek")
    at.switch_page("views/unseen.py").run()
    at.selectbox(key=state.W_UNSEEN_SOURCE).set_value(uploads["deepseek"].key).run()
    at.text_input(key=state.W_WORDS).set_value("tokenization naïvely").run()
    ok(at)
    trees = [h for h in html_bodies(at) if 'class="bpe-trees"' in h]
    assert len(chip_blocks(at)) == 2 and len(trees) == 2  # each word's pieces and merge trees
    assert any("BPE (tokenizer.json): read from a file" in shown(c.value) for c in at.caption)
    at.selectbox(key=state.W_UNSEEN_SOURCE).set_value(uploads["wordpiece"].key).run()
    ok(at)
    assert len(chip_blocks(at)) == 2 and not [h for h in html_bodies(at) if 'class="bpe-trees"' in h]
    assert any("has no merges, so there is no merge tree" in shown(c.value) for c in at.caption)


def test_files_page_reads_a_sentencepiece_model_and_exports_it(app, files, uploads):
    at = app.switch_page("views/files.py").run()
    name, data = files["sentencepiece"]
    at.file_uploader(key=state.IO_W_UPLOAD).set_value([(name, data, "application/octet-stream")]).run()
    ok(at)
    captions = [shown(c.value) for c in at.caption]
    assert any(c.startswith("SentencePiece model · BPE model · vocabulary 32,000") for c in captions), captions
    assert any(s.value.startswith("Round trip OK: tokenizers") for s in at.success)
    added = uploads["sentencepiece"].any.added_tokens  # <s> and </s>
    assert any(e.label.startswith(f"Its {len(added)} added tokens ({len(added)} special)") for e in at.expander)
    assert [d.value for d in at.dataframe if "matched in" in d.value.columns][0]["token"].tolist() == ["<s>", "</s>"]
    assert len(chip_blocks(at)) == 1 and len(plotly_specs(at)) == 1  # the probe's pieces and merge trees


def test_a_crafted_file_name_and_tokens_stay_plain_text(app, files):
    crafted = "**b** $x$ :red[r] <b>h<b>.json"  # no slash: a name's folders are dropped
    at = app.switch_page("views/files.py").run()
    at.file_uploader(key=state.IO_W_UPLOAD).set_value([(crafted, files["wordpiece"][1], "application/json")]).run()
    ok(at)
    assert at.selectbox(key=state.IO_W_PICK).options == [f"{crafted} (Hugging Face tokenizer.json)"]
    notice = next(s.value for s in at.success if "Loaded" in s.value)
    assert constructs(notice) == [] and shown(notice).startswith(f"Loaded {crafted}")


def test_pages_about_merges_offer_merge_lists_only(app, uploads):
    at = with_uploads(app, uploads, "deepseek", "wordpiece")
    at.switch_page("views/dropout.py").run()
    ok(at)
    options = at.selectbox(key=state.DROP_W_SOURCE).options
    assert len(options) == 6  # the sidebar's and the five merge-list built-ins
    assert not any(n in o for o in options for n in ("DeepSeek", "Tekken", "Mistral", "tokenizer.json", "gpt-oss"))
    assert picker.MERGE_LISTS_ONLY in [c.value for c in at.caption]  # said in one line
    at.switch_page("views/audit.py").run()
    ok(at)
    assert not any("DeepSeek" in o for o in at.selectbox(key=state.AUD_W_TOKENIZER).options)
    at.switch_page("views/overlap.py").run()
    ok(at)
    assert not any("DeepSeek" in o for o in at.selectbox(key=state.OVL_W_A).options)


def test_language_tax_counts_any_tokenizer(app, uploads, reference):
    at = with_uploads(app, uploads, "wordpiece")
    at.switch_page("views/language_tax.py").run()
    at.multiselect(key=state.TAX_W_CHOSEN).set_value([uploads["wordpiece"].key, "builtin:deepseek_v4"]).run()
    ok(at)
    every = next(d.value for d in at.dataframe if "Tokens" in d.value.columns)
    texts = require("sample_corpora").load_parallel()
    for name, label in (("wordpiece", uploads["wordpiece"].label), ("deepseek", "DeepSeek V4 (deepseek_v4)")):
        rows = every[every["Tokenizer"] == label]
        assert rows["Tokens"].tolist() == [len(reference[name](texts[code])) for code in texts], name
