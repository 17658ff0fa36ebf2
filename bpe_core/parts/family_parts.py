"""The parts that belong to one family, found in the families' folder by their modules' names.

A family whose model (or decoder) is a part of a tokenizer of parts keeps it in its own folder,
`bpe_core/families/<name>_part.py`. Such a module may offer `HF_TYPES` (its `tokenizer.json`
models by "type"), `HF_DECODER_TYPES` (its decoders), `SENTENCEPIECE_TYPES` (its models by a
SentencePiece `model_type` number) and `looks_like_model(raw)` (whether a model serialized
without a "type", as old files are, is its own). The readers (`hf_parts`, `formats.sentencepiece`)
merge these tables with their own, so no reader names a family.
"""
from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Callable
from functools import cache
from types import ModuleType
from typing import Any

_FOLDER = "bpe_core.families"
_SUFFIX = "_part"


@cache
def part_modules() -> tuple[ModuleType, ...]:
    """Every `*_part` module of the families' folder, in name order (the same on every machine)."""
    spec = importlib.util.find_spec(_FOLDER)
    assert spec is not None and spec.submodule_search_locations is not None
    names = sorted(m.name for m in pkgutil.iter_modules(spec.submodule_search_locations) if m.name.endswith(_SUFFIX))
    return tuple(importlib.import_module(f"{_FOLDER}.{name}") for name in names)


def table(name: str) -> dict[Any, Any]:
    """The families' tables called `name`, merged (`table("HF_TYPES")`)."""
    merged: dict[Any, Any] = {}
    for module in part_modules():
        merged.update(getattr(module, name, {}))
    return merged


def model_detectors() -> list[tuple[str, Callable[[dict[str, Any]], bool]]]:
    """(model "type", test) for each family model that can tell an untyped serialization its own."""
    found: list[tuple[str, Callable[[dict[str, Any]], bool]]] = []
    for module in part_modules():
        test = getattr(module, "looks_like_model", None)
        if test is not None:
            found.extend((kind, test) for kind in getattr(module, "HF_TYPES", {}))
    return found
