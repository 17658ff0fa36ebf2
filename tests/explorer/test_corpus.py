from __future__ import annotations

import pytest

from bpe_core import BPEError

from explorer.corpus import corpus_stats, pasted_corpus, read_uploads


def test_one_upload():
    corpus = read_uploads([("a.txt", "low lower\n".encode())])
    assert corpus.text == "low lower\n" and corpus.key.startswith("upload:") and "a.txt" in corpus.title


def test_several_uploads_are_joined_and_keep_words_apart():
    corpus = read_uploads([("a.txt", b"low"), ("b.txt", b"lower\n")])
    assert corpus.text.split() == ["low", "lower"]


def test_bom_is_dropped():
    assert read_uploads([("a.txt", b"\xef\xbb\xbfhello")]).text == "hello"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        ("café".encode("latin-1"), "not UTF-8"),
        (b"", "empty"),
        (b"  \n\t ", "empty"),
    ],
)
def test_bad_uploads_are_refused_with_a_message(data, message):
    with pytest.raises(BPEError, match=message) as caught:
        read_uploads([("bad.txt", data)])
    assert "bad.txt" in str(caught.value) or message == "binary"
    assert "previous corpus is still loaded" in str(caught.value)


def test_one_bad_file_refuses_the_whole_upload():
    with pytest.raises(BPEError, match="b.txt is empty"):
        read_uploads([("a.txt", b"fine"), ("b.txt", b"")])


def test_size_limit():
    with pytest.raises(BPEError, match="over the"):
        read_uploads([("big.txt", b"a" * 2000)], max_bytes=1000)


def test_paste():
    assert pasted_corpus("hello world").text == "hello world"
    with pytest.raises(BPEError, match="empty"):
        pasted_corpus("   ")


def test_stats():
    stats = corpus_stats("the cat and the dog\nthe end")
    assert (stats.characters, stats.words, stats.distinct_words) == (27, 7, 5)
    assert stats.alphabet == len(set("thecatandthedogtheend"))
    assert stats.top_words[0] == ("the", 3)
