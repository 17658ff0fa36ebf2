"""Fixtures for the explorer's tests: trained lesson bundles and the app under AppTest."""
from __future__ import annotations

from pathlib import Path

import pytest

from bpe_core import Settings
from explorer.data.training import Trained, TrainRequest, train_corpus
from sample_corpora import load_corpus

APP = Path(__file__).resolve().parents[2] / "explorer" / "app.py"


@pytest.fixture(scope="session")
def seed000_trained() -> Trained:
    return train_corpus([load_corpus("seed000")], TrainRequest(Settings(), "merges", 10))


@pytest.fixture(scope="session")
def seed003_trained() -> Trained:
    return train_corpus([load_corpus("seed003")], TrainRequest(Settings(mode="text", tie_break="first"), "vocab", 25))


@pytest.fixture
def app():
    """A fresh AppTest of the explorer, already run once (the default page)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    return at


# ---- real tokenizer files read into parts (tests/explorer/real_tokenizer_files.py) -------------------

@pytest.fixture(scope="session")
def files():
    """DeepSeek V4's, Mistral's (SentencePiece, Tekken) and two trained tokenizer files: name -> (file name, bytes)."""
    import real_tokenizer_files

    return real_tokenizer_files.files()


@pytest.fixture(scope="session")
def reference(files):
    """Each of `files` as its reference library encodes text: name -> text -> ids."""
    import real_tokenizer_files

    return real_tokenizer_files.reference()


@pytest.fixture(scope="session")
def uploads(files):
    """Each of `files` read as the upload widgets read it: name -> `Uploaded`."""
    import real_tokenizer_files

    return real_tokenizer_files.uploads()
