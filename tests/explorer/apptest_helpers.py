"""Helpers for reading what an AppTest run drew."""
from __future__ import annotations

import base64
import json
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "explorer" / "app.py"


def decode_array(value):
    """Plotly JSON arrays may be lists or {"dtype", "bdata"} base64 packs."""
    if isinstance(value, dict) and "bdata" in value:
        import numpy as np

        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            data = data.reshape([int(n) for n in str(value["shape"]).split(",")])
        return data.tolist()
    return value


def plotly_specs(at) -> list[dict]:
    """The figures an AppTest run drew, as dicts."""
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def html_bodies(at) -> list[str]:
    return [el.value for el in at.html]


def token_texts(at) -> list[dict]:
    """The data of each coloured text Tokenize drew (its `token_text` components: the text and its chips)."""
    return [json.loads(el.proto.json) for el in at.get("bidi_component")
            if el.proto.component_name == "bpe_explorer.token_text"]


def chip_blocks(at) -> list[str]:
    """Every row of chips a run drew: as HTML elements, and beside Tokenize's coloured texts."""
    drawn = [h for h in html_bodies(at) if h.startswith('<span class="bpe-chips">')]
    return drawn + [d["chips"] for d in token_texts(at)]
