"""Every family of the engine's registry has its folder in explorer/families, with the modules and
functions the pages and the data layer ask of it (`explorer.families`), so a new family is found,
and checked, by the registry alone."""
from __future__ import annotations

import dataclasses

import pytest

from bpe_core import BPEError
from bpe_core.families.registry import NAMES, family
from explorer.data.training import TrainRequest, request_for
from explorer.families import ExplorerFamily, explorer_family, part, taking, trainable

DEFAULT = {f.name: f.default for f in dataclasses.fields(ExplorerFamily)}
OPTIONS = {"mode", "eow", "pretokenizer", "tie_break", "lowercase", "normalization", "min_frequency", "target",
           "transition"}


@pytest.mark.parametrize("name", NAMES)
def test_every_family_has_its_folder(name):
    shows = explorer_family(name)
    assert shows.name == name and shows.options <= OPTIONS
    unseen = part(name, "unseen")
    assert callable(unseen.how) and callable(unseen.words)
    if shows.merge_view is DEFAULT["merge_view"]:  # no merge view: its own cards and vocabulary list
        assert callable(unseen.cards) and (unseen.COUNT is None or isinstance(unseen.COUNT, str))
        vocabulary = part(name, "vocabulary")
        assert callable(vocabulary.columns_note) and callable(vocabulary.details)
    if family(name).trains:
        assert shows.describe is not None and shows.made is not None and shows.ours_holds
        assert callable(part(name, "training").train) and callable(part(name, "families").train_on)
        assert part(name, "families").COST > 0  # the Families page starts the longest training first


def test_the_trainable_families_are_the_registrys():
    assert trainable() == tuple(f.name for f in map(family, NAMES) if f.trains)
    assert "parts" not in trainable()
    with pytest.raises(BPEError, match="unknown tokenizer family 'parts'"):
        TrainRequest(family="parts", target="vocab", amount=300)
    with pytest.raises(BPEError, match="unknown tokenizer family 'gpt5'"):
        explorer_family("gpt5")


@pytest.mark.parametrize("name", trainable())
def test_a_request_keeps_only_the_options_its_family_takes(name):
    asked = {"mode": "text", "eow": "suffix", "pretokenizer": "gpt2", "tie_break": "first", "lowercase": True,
             "normalization": "NFKC", "min_frequency": 3, "target": "merges", "merges": 300, "vocab": 300,
             "transition": 280}
    request = request_for(name, asked, limit=1_000)
    shows = explorer_family(name)
    defaults = request_for(name, {"target": "vocab", "vocab": 300}, limit=1_000).settings
    for option in ("mode", "eow", "tie_break", "lowercase", "normalization", "min_frequency"):
        expected = asked[option] if option in shows.options else shows.fixed.get(option, getattr(defaults, option))
        assert getattr(request.settings, option) == expected, option
    assert request.target == ("merges" if "target" in shows.options else "vocab")
    assert request.transition == (280 if name in taking("transition") else None)
    assert request.describe() and request.family == name
