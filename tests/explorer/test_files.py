"""Import and export: the pure tokenizer_files module (exports, round trips, uploads) and the Files page in AppTest."""
from __future__ import annotations

import base64
import io
import json
import zipfile

import pytest

from bpe_core import Settings, train
from explorer.data import tokenizer_files
from explorer.display.render import md_escape
from explorer.ui import state
from sample_corpora import load_corpus

CORPUS = load_corpus("seed000") + "The café's naïve owner said: hello, world! 日本 日本 " * 3
TEXT = "lowest newer café\nnaïve 日本語 😀 <b>&amp;</b> x  y"


@pytest.fixture(scope="module")
def byte_tok():
    return train(CORPUS, Settings(mode="bytes"), merges=40)


def gpt2_files(tok) -> list[tuple[str, bytes]]:
    exports = tokenizer_files.export_tokenizer(tok)
    return [("vocab.json", exports.vocab), ("merges.txt", exports.merges)]


# ---- exports and the round trip ------------------------------------------------------------------

def test_word_mode_exports_ours_and_hf_but_explains_gpt2():
    tok = train(CORPUS, merges=30)
    exports = tokenizer_files.export_tokenizer(tok)
    assert json.loads(exports.ours)["format"] == "bpe-explorer"
    assert json.loads(exports.hf)["model"]["type"] == "BPE"
    assert exports.vocab is None and exports.gpt2_zip is None
    assert "byte-level" in exports.gpt2_problem and "word mode" in exports.gpt2_problem
    assert "word mode" in exports.gpt2_problem and "--format" not in exports.gpt2_problem


def test_gpt2_export_as_a_zip(byte_tok):
    exports = tokenizer_files.export_tokenizer(byte_tok)
    with zipfile.ZipFile(io.BytesIO(exports.gpt2_zip)) as archive:
        assert sorted(archive.namelist()) == ["merges.txt", "vocab.json"]
        assert archive.read("merges.txt").startswith(b"#version: 0.2\n")
        assert json.loads(archive.read("vocab.json")) == byte_tok.vocab


@pytest.mark.parametrize("settings", [
    Settings(),
    Settings(eow="suffix"),
    Settings(eow="none", lowercase=True),
    Settings(mode="text"),
    Settings(mode="text", pretokenizer="whitespace", normalization="NFKC"),
    Settings(mode="bytes"),
    Settings(mode="bytes", pretokenizer="gpt4"),
], ids=lambda s: f"{s.mode}-{s.eow if s.mode == 'word' else s.pretokenizer}")
def test_hf_round_trip_matches_the_real_tokenizers_library(settings):
    tok = train(CORPUS, settings, merges=40)
    exports = tokenizer_files.export_tokenizer(tok)
    trip = tokenizer_files.hf_round_trip(tok, exports.hf, TEXT)
    assert trip.ok, trip.differences()
    assert trip.reader.startswith("tokenizers ") and trip.their_tokens == trip.ours_tokens
    assert tokenizer_files.reload_round_trip(tok, [("model.json", exports.ours)], TEXT).ok


def test_a_broken_export_is_reported_with_its_differences():
    tok = train(CORPUS, merges=30)
    data = json.loads(tokenizer_files.export_tokenizer(tok).hf)
    data["model"]["merges"] = data["model"]["merges"][:5]  # forget most merges
    trip = tokenizer_files.hf_round_trip(tok, json.dumps(data).encode(), "lowest newest")
    assert not trip.ok
    rows = trip.differences()
    assert rows and rows[0]["position"] == 0 and set(rows[0]) == {"position", "our token", "our id", "their token",
                                                                  "their id"}
    assert len(trip.differences(limit=1)) == 1
    with pytest.raises(tokenizer_files.BPEError, match="tokenizers could not load"):
        tokenizer_files.hf_round_trip(tok, b"{}", "x")


def test_a_panic_inside_tokenizers_is_one_line_not_the_end_of_the_page():
    """A split regex that backtracks past Oniguruma's limit makes `tokenizers` panic: a Rust panic is a
    BaseException, which an `except Exception` lets through to end the script's thread (the page
    would run forever). The round trip says it in one line."""
    from bpe_core.formats.detect import load_bytes

    data = {"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated",
                              "invert": False}, "model": {"type": "BPE", "vocab": {"a": 0, "!": 1}, "merges": []}}
    raw = json.dumps(data).encode()
    model = load_bytes("tokenizer.json", raw)
    with pytest.raises(tokenizer_files.BPEError, match="^tokenizers could not load or use the exported") as caught:
        tokenizer_files.hf_round_trip(model, raw, "a" * 40 + "!")
    assert "\n" not in str(caught.value)


def test_an_uploaded_pattern_that_backtracks_without_bound_stops_in_seconds():
    """Read as an upload, a tokenizer's regex is timed: 2,000 letters and a "!" against `(a+)+$` (about
    30 s untimed, in the server's process) end with one line the page shows."""
    data = {"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated",
                              "invert": False}, "model": {"type": "BPE", "vocab": {"a": 0, "!": 1}, "merges": []}}
    (item,), problems = tokenizer_files.read_tokenizer_files([("runaway.json", json.dumps(data).encode())])
    assert problems == [] and item.any.encode_ids("aa!") == [0, 0, 1]
    with pytest.raises(tokenizer_files.BPEError, match=r"^the tokenizer's pattern '\(a\+\)\+\$' searched 2,001 "):
        item.any.segment("a" * 2_000 + "!")


def test_sample_text_is_the_corpus_start_plus_unseen_characters():
    text = tokenizer_files.sample_text("low lower " * 100, length=25)
    assert text == "low lower low lower low\n" + tokenizer_files.UNSEEN_EXTRA


# ---- uploads ---------------------------------------------------------------------------------------

def test_gpt2_pair_is_read_together_whatever_the_names(byte_tok):
    (_, vocab), (_, merges) = gpt2_files(byte_tok)
    loaded, problems = tokenizer_files.read_tokenizer_files([("my-merges.txt", merges), ("gpt2 vocab.json", vocab)])
    assert problems == [] and len(loaded) == 1
    item = loaded[0]
    assert item.name == "gpt2 vocab.json + my-merges.txt" and item.kind == "GPT-2 vocab.json + merges.txt"
    assert item.key.startswith("file:") and item.tokenizer.encode(TEXT).ids == byte_tok.encode(TEXT).ids
    assert tokenizer_files.reload_round_trip(byte_tok, gpt2_files(byte_tok), TEXT).ok


def test_half_a_pair_says_what_is_missing(byte_tok):
    (_, vocab), (_, merges) = gpt2_files(byte_tok)
    assert tokenizer_files.read_tokenizer_files([("vocab.json", vocab)]) == (
        [], ["vocab.json is a GPT-2 vocabulary: upload it together with its merges.txt (select both files)"])
    loaded, problems = tokenizer_files.read_tokenizer_files([("merges.txt", merges)])
    assert loaded == [] and "upload it together with its vocab.json" in problems[0]


@pytest.mark.parametrize(("name", "data", "expected"), [
    ("tokenizer.json", b'{"model": {"type": "BPE", "vocab": ', "tokenizer.json is not valid JSON"),
    # Any model is read now (into parts): a WordPiece without its unknown token is named for what is wrong.
    ("tokenizer.json", b'{"model": {"type": "WordPiece", "vocab": {"a": 0}}}', "tokenizer.json: model WordPiece"),
    ("model.json", b"\x00\x01\x02binary", "looks like a binary file"),
    ("x.json", b"[1, 2, 3]", "is JSON but not a tokenizer"),
    ("cl.tiktoken", b"QQ== 0\nnot base64!! x\n", "cl.tiktoken line 2"),
    ("../../etc/evil.json", b"{oops", "evil.json is not valid JSON"),
])
def test_malformed_files_give_one_line_without_the_temporary_folder(name, data, expected):
    loaded, problems = tokenizer_files.read_tokenizer_files([(name, data)])
    assert loaded == [] and len(problems) == 1
    (message,) = problems
    assert expected in message and "\n" not in message and "bpe-upload-" not in message and "/tmp" not in message


def test_tiktoken_and_our_json_and_hf_uploads(byte_tok):
    ranks = {bytes([b]): b for b in range(256)}
    ranks[b"lo"] = 256
    ranks[b"low"] = 257
    tiktoken = "".join(f"{base64.b64encode(t).decode()} {r}\n" for t, r in ranks.items()).encode()
    exports = tokenizer_files.export_tokenizer(byte_tok)
    loaded, problems = tokenizer_files.read_tokenizer_files(
        [("tiny.tiktoken", tiktoken), ("model.json", exports.ours), ("tokenizer.json", exports.hf)])
    assert problems == []
    assert [u.kind for u in loaded] == ["tiktoken rank file", "our JSON", "Hugging Face tokenizer.json"]
    assert loaded[0].tokenizer.encode("lowly").tokens[0] == "low"
    assert loaded[1].tokenizer.training is not None  # our JSON keeps the training record


# ---- the page --------------------------------------------------------------------------------------

def open_files(at):
    at.switch_page("views/files.py").run()
    assert not at.exception, at.exception
    return at


def test_export_and_round_trip_on_the_page(app):
    at = open_files(app)
    assert not at.error
    assert any(s.value.startswith("Round trip OK: tokenizers") for s in at.success)
    labels = [b.label for b in at.download_button]
    assert labels == ["Download model.json", "Download tokenizer.json"]
    assert "this tokenizer is in word mode" in at.warning[0].value
    assert "tokenizer\\.json can hold it" in at.warning[0].value
    assert at.dataframe[-1].value["same ids"].tolist() == ["yes"]
    at.text_area(key="io_w_text").set_value("newest <script>x</script>").run()
    assert any("same 20 token ids" in s.value for s in at.success)  # newest</w>, 18 characters, </w>


def test_bytes_mode_offers_the_gpt2_pair(app):
    app.selectbox(key=state.W_MODE).set_value("bytes")
    app.number_input(key=state.W_MERGES).set_value(20)
    next(b for b in app.button if b.label == "Train").click().run()
    at = open_files(app)
    assert [b.label for b in at.download_button] == ["Download model.json", "Download tokenizer.json",
                                                     "Download both as a zip", "vocab.json", "merges.txt"]
    assert any(s.value.startswith("Round trip OK") for s in at.success)
    assert at.dataframe[-1].value["same ids"].tolist() == ["yes", "yes"]


def test_upload_a_gpt2_pair_then_a_broken_file(app, byte_tok):
    at = open_files(app)
    files = [(name, data, "application/octet-stream") for name, data in gpt2_files(byte_tok)]
    at.file_uploader(key="io_w_upload").set_value(files).run()
    assert not at.exception
    assert any(s.value.startswith(md_escape("Loaded vocab.json + merges.txt (GPT-2")) for s in at.success)
    assert at.session_state[state.PICK_EXPLORE] in at.session_state[state.PICK_UPLOADED]
    chips = [h.value for h in at.html if 'class="bpe-chips"' in h.value]
    assert chips and "\ufffd" not in chips[-1]
    assert len(at.get("plotly_chart")) == 1  # the merge trees
    at.file_uploader(key="io_w_upload").set_value(("tokenizer.json", b"{broken", "application/json")).run()
    assert not at.exception
    assert [e.value for e in at.error] == [md_escape("tokenizer.json is not valid JSON (Expecting property name "
                                                     "enclosed in double quotes at line 1, column 2)")]
    assert len(at.session_state[state.PICK_UPLOADED]) == 1  # the good one is still there
    at.button(key="io_open_vocab").click().run()
    assert not at.exception and at.title[0].value == "Vocabulary"
    assert len(at.dataframe[0].value) == byte_tok.vocab_size


def test_an_upload_goes_to_the_compare_page(app, byte_tok):
    at = open_files(app)
    files = [(name, data, "application/octet-stream") for name, data in gpt2_files(byte_tok)]
    at.file_uploader(key="io_w_upload").set_value(files).run()
    at.button(key="io_open_compare").click().run()
    assert not at.exception and at.title[0].value == "Compare tokenizers"
    table = at.dataframe[0].value
    assert table["tokenizer"].tolist()[1] == "vocab.json + merges.txt (GPT-2 vocab.json + merges.txt)"
    assert table["vocabulary"].tolist() == [22, byte_tok.vocab_size]


# ---- file names from outside (issue 8, section 4) -------------------------------------------------

CJK_NAME = "语" * 100 + ".json"  # 305 bytes: longer than a file name may be on disk (255)


@pytest.mark.parametrize(("name", "shown_as"), [
    (CJK_NAME, CJK_NAME),
    ("../../x/../model.json", "model.json"),
    ("C:\\Users\\me\\model.json", "model.json"),
    ("**b** [l](https://example.invalid) <b>h</b>.json", "b>.json"),  # what is before a slash is a folder
    ("n" * 300 + ".json", "n" * 119 + "…"),
    ("", "upload-1"),
])
def test_any_file_name_reads_from_memory(byte_tok, name, shown_as):
    ours = tokenizer_files.export_tokenizer(byte_tok).ours
    loaded, problems = tokenizer_files.read_tokenizer_files([(name, ours)])
    assert problems == [] and [u.name for u in loaded] == [shown_as]
    assert loaded[0].tokenizer.merges == byte_tok.merges


def test_a_readers_unexpected_error_is_one_line(monkeypatch, byte_tok):
    def crash(*args, **kwargs):
        raise RecursionError("deep")

    exports = tokenizer_files.export_tokenizer(byte_tok)
    for reader, file in (("from_json_dict", exports.ours), ("load_bytes", exports.hf)):  # our JSON, then any other
        monkeypatch.setattr(tokenizer_files, reader, crash)
        loaded, problems = tokenizer_files.read_tokenizer_files([(CJK_NAME, file)])
        assert loaded == [] and problems == [f"{CJK_NAME} could not be read as a tokenizer (RecursionError)"]
    monkeypatch.setattr(tokenizer_files, "detect_and_parse", crash)
    assert tokenizer_files.read_tokenizer_files([("x.json", b"{}")]) == (
        [], ["x.json could not be read as a tokenizer (RecursionError)"])


def test_a_long_or_crafted_file_name_on_the_page(app, byte_tok):
    from plain_text import constructs, shown

    at = open_files(app)
    ours = tokenizer_files.export_tokenizer(byte_tok).ours
    crafted = "**b** $x$ :red[r] [l](www.example.invalid) <b>h.json"
    at.file_uploader(key="io_w_upload").set_value([(CJK_NAME, ours, "application/json"),
                                                  (crafted, b"{broken", "application/json")]).run()
    assert not at.exception
    loaded = [shown(s.value) for s in at.success if shown(s.value).startswith("Loaded")]  # not the round trips
    assert loaded[-1:] == [f"Loaded {CJK_NAME} (our JSON): {byte_tok.vocab_size:,} "
                           f"tokens, {len(byte_tok.merges):,} merges."]
    (error,) = [e.value for e in at.error]
    assert shown(error).startswith(f"{crafted} is not valid JSON") and constructs(error) == []
    assert at.selectbox(key="io_w_pick").options == [f"{CJK_NAME} (our JSON)"]  # plain text, as it is


def test_our_json_of_a_family_is_parsed_once_when_read(monkeypatch):
    from bpe_core.families import train_unigram
    from bpe_core.formats import detect

    model = train_unigram(["low lower lowest newest widest " * 5], vocab_size=30)
    parsed = []
    real = detect.parse_json
    monkeypatch.setattr(detect, "parse_json", lambda text, name: parsed.append(name) or real(text, name=name))
    (item,), problems = tokenizer_files.read_tokenizer_files([("uni.json", json.dumps(model.to_dict()).encode())])
    assert problems == [] and item.any.vocab_size == len(model.pieces)
    assert parsed == ["uni.json"]  # detection's parse is the one the model is read from (megabytes for 5 MB)
    parsed.clear()
    tok = train(CORPUS, merges=30)
    (item,), problems = tokenizer_files.read_tokenizer_files([("bpe.json", tokenizer_files.export_tokenizer(tok).ours)])
    assert problems == [] and item.tokenizer.merges == tok.merges and item.tokenizer.vocab == tok.vocab
    assert parsed == ["bpe.json"]  # BPE's own file too
