"""The Unigram model: Viterbi encoding with spans, n-best, sampling, decoding, our JSON, `tokenizer.json`.

Encoding reproduces `tokenizers`' Unigram model exactly: the words of `unigram_text`, each
segmented by Viterbi over the piece scores (ties: see `unigram_lattice`). A character that no
piece of length one covers is an unknown node scored ``min(score) - 10``; neighbouring unknown
nodes are fused into one token whose text is the input's and whose id is the unknown token's.

Ours (version 1)::

    {"format": "bpe-explorer", "model": "unigram", "version": 1, "unk_token": "<unk>",
     "vocab": [[piece, score], ...],   # in id order; id 0 is the unknown token (score 0.0)
     "trace": [{round, vocab_size_before, log_likelihood, dropped, removed, vocab_size}, ...]}
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from ..model import Encoding
from ..pretokenize import require_str, type_name
from ..settings import BPEError
from .unigram_lattice import Edge, build_edges, nbest, sample, viterbi
from .unigram_text import META, text_items, text_words
from .unigram_train import UnigramRound

FORMAT = "bpe-explorer"
MODEL = "unigram"
VERSION = 1
UNK_PENALTY = 10.0
_CACHE_LIMIT = 200_000

Token = tuple[str, int, int, int]  # token, id, start, end (characters of the input)


class UnigramModel:
    """Pieces with log-probability scores; id 0 is the unknown token.

    Shared safely between threads: only the word cache changes, swapped whole when full.
    """

    def __init__(self, vocab: Sequence[tuple[str, float]], *, unk_token: str = "<unk>",
                 trace: Sequence[UnigramRound] = ()) -> None:
        if not isinstance(unk_token, str) or not unk_token:
            raise BPEError("the unknown token must be a non-empty string")
        if not vocab or vocab[0][0] != unk_token:
            raise BPEError(f"a Unigram vocabulary starts with the unknown token {unk_token!r}")
        self.unk_token = unk_token
        self.pieces = [piece for piece, _ in vocab]
        self.scores = [float(score) for _, score in vocab]
        self.vocab = {piece: i for i, piece in enumerate(self.pieces)}
        if len(self.vocab) != len(self.pieces):
            raise BPEError("a Unigram vocabulary lists a piece twice")
        self.trace = list(trace)
        self.unk_id = 0
        self.unk_score = min(self.scores) - UNK_PENALTY
        self.max_len = max(len(p) for p in self.pieces)
        self._scores_unk = self.scores + [self.unk_score]  # index -1 is the unknown node
        self._cache: dict[str, list[tuple[str, int, int, int]]] = {}

    # ---- encoding --------------------------------------------------------------------------

    def _lattice(self, word: str) -> tuple[list[Edge], list[float]]:
        """The word's edges, with unknown nodes (id -1, scored below every piece) where needed."""
        edges = build_edges(word, self.vocab, self.max_len)
        if any(ch not in self.vocab for ch in word):
            singles = {e[1] for e in edges if e[1] - e[0] == 1}
            unknown = [(end - 1, end, -1) for end in range(1, len(word) + 1) if end not in singles]
            edges = sorted(edges + unknown, key=lambda e: (e[1], e[0], e[2] == -1))
        return edges, self._scores_unk

    def _encode_word(self, word: str) -> list[tuple[str, int, int, int]]:
        """(token, id, start, end) in the word's characters, as `tokenizers` segments it."""
        hit = self._cache.get(word)
        if hit is not None:
            return hit
        edges, scores = self._lattice(word)
        path, _ = viterbi(len(word), edges, scores)
        out: list[tuple[str, int, int, int]] = []
        unk_start = -1
        for start, end, pid in path:
            if pid in (-1, self.unk_id):  # fuse neighbouring unknowns
                if unk_start < 0:
                    unk_start = start
                continue
            if unk_start >= 0:
                out.append(self._unknown(word, unk_start, start))
                unk_start = -1
            out.append((self.pieces[pid], pid, start, end))
        if unk_start >= 0:
            out.append(self._unknown(word, unk_start, len(word)))
        if len(self._cache) >= _CACHE_LIMIT:
            self._cache = {}
        self._cache[word] = out
        return out

    def _unknown(self, word: str, start: int, end: int) -> tuple[str, int, int, int]:
        text = word[start:end]
        return (text, self.vocab.get(text, self.unk_id), start, end)

    def encode_with_spans(self, text: str) -> list[tuple[str, int, int]]:
        """Tokens with their character spans in the input text."""
        return [(tok, start, end) for tok, _, start, end in self._encode(text)]

    def _encode(self, text: str) -> list[Token]:
        text = require_str(text)
        out: list[Token] = []
        for word, start, end in text_items(text, self.unk_token):
            if word is None:
                out.append((self.unk_token, self.unk_id, start, end))
                continue
            chars, index = word
            for tok, tid, s, e in self._encode_word(chars):
                out.append((tok, tid, index[s], index[e - 1] + 1))
        return out

    def encode(self, text: str) -> Encoding:
        """The tokens of a text with ids, spans and which are unknown (an unknown stretch is its
        own text, with the unknown id).

        >>> UnigramModel([("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0), ("▁", -3.0), ("a", -3.0)]).encode("ab ba").tokens
        ['▁a', 'b', '▁', 'b', 'a']
        """
        found = self._encode(text)
        unk = self.unk_id
        return Encoding([tok for tok, _, _, _ in found], [tid for _, tid, _, _ in found],
                        [(start, end) for _, _, start, end in found], [tid == unk for _, tid, _, _ in found])

    def encode_tokens(self, text: str) -> list[str]:
        """Only the tokens of a text."""
        return [tok for tok, _, _, _ in self._encode(text)]

    merges = None  # it prunes a vocabulary: no merges

    def token_bytes(self, token: str) -> bytes:
        """What a piece stands for in the middle of a text: its meta-spaces "▁" spaces."""
        return token.replace(META, " ").encode("utf-8", "surrogatepass")

    def encode_ids(self, text: str) -> list[int]:
        return [tid for _, tid, _, _ in self._encode(text)]

    def count_unknown(self, text: str) -> int:
        """How many of `text`'s tokens are the unknown token (`encode` flags them by their id)."""
        return self.encode_ids(text).count(self.unk_id)

    # ---- alternatives ----------------------------------------------------------------------

    def _text_lattice(self, text: str) -> tuple[int, list[Edge], list[float]]:
        """One lattice for a whole text: its words one after another (no piece crosses words)."""
        text = require_str(text)
        edges: list[Edge] = []
        offset = 0
        for word, _ in text_words(text, self.unk_token):
            word_edges, _ = self._lattice(word)
            edges.extend((s + offset, e + offset, p) for s, e, p in word_edges)
            offset += len(word)
        return offset, edges, self._scores_unk

    def _pieces(self, text: str, path: Sequence[Edge]) -> list[str]:
        chars = "".join(w for w, _ in text_words(text, self.unk_token))
        return [chars[s:e] if p == -1 else self.pieces[p] for s, e, p in path]

    def nbest(self, text: str, n: int) -> list[tuple[list[str], float, float]]:
        """The ``n`` best segmentations: (pieces, log-probability, probability among the n).

        The text's words are segmented jointly; the unknown token's own text is left out.
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise BPEError(f"n must be a whole number of at least 1, not {n!r}")
        length, edges, scores = self._text_lattice(text)
        if length == 0:
            return [([], 0.0, 1.0)]
        paths = nbest(length, edges, scores, n)
        top = paths[0][1]
        weights = [math.exp(score - top) for _, score in paths]
        total = sum(weights)
        return [(self._pieces(text, path), score, w / total) for (path, score), w in zip(paths, weights)]

    def sample(self, text: str, alpha: float, rng: random.Random) -> list[str]:
        """One segmentation drawn with probability proportional to P(segmentation) ** alpha."""
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha > 0:
            raise BPEError(f"alpha must be a number above 0, not {alpha!r}")
        if not isinstance(rng, random.Random):
            raise BPEError(f"rng must be a random.Random, not {type_name(rng)}")
        length, edges, scores = self._text_lattice(text)
        return self._pieces(text, sample(length, edges, scores, float(alpha), rng))

    # ---- decoding --------------------------------------------------------------------------

    def decode(self, ids: Sequence[int]) -> str:
        """The text of token ids: "▁" back to a space, the first one dropped (the unknown id: its text).

        >>> UnigramModel([("<unk>", 0.0), ("▁a", -1.0), ("b", -2.0)]).decode([1, 2, 1])
        'ab a'
        """
        if isinstance(ids, (str, bytes)):
            raise BPEError(f"ids must be a list of whole numbers, not {type_name(ids)}")
        pieces = []
        for tid in ids:
            if isinstance(tid, bool) or not isinstance(tid, int) or not 0 <= tid < len(self.pieces):
                raise BPEError(f"token id {tid!r} is not in the vocabulary (0 to {len(self.pieces) - 1})")
            pieces.append(self.pieces[tid])
        text = "".join(pieces).replace(META, " ")
        return text[1:] if text.startswith(" ") else text

    # ---- files -----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "model": MODEL, "version": VERSION, "unk_token": self.unk_token,
            "vocab": [[p, s] for p, s in zip(self.pieces, self.scores)],
            "trace": [r.to_dict() for r in self.trace],
        }

    @classmethod
    def from_dict(cls, data: Any) -> UnigramModel:
        """A model from our JSON layout; a one-line BPEError when anything is malformed."""
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("model") != MODEL:
            raise BPEError('not a Unigram model file (expected "format": "bpe-explorer", "model": "unigram")')
        if data.get("version") != VERSION:
            raise BPEError(f"unsupported Unigram file version {data.get('version')!r} (expected {VERSION})")
        vocab = data.get("vocab")
        if not isinstance(vocab, list) or not vocab:
            raise BPEError('the Unigram file\'s "vocab" must be a non-empty list of [piece, score]')
        pairs = []
        for i, entry in enumerate(vocab):
            if (not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], str) or not entry[0]
                    or isinstance(entry[1], bool) or not isinstance(entry[1], (int, float))
                    or entry[1] != entry[1] or abs(entry[1]) == float("inf")):
                raise BPEError(f"vocab entry {i} must be [non-empty piece, finite score], not {entry!r:.60}")
            pairs.append((entry[0], float(entry[1])))
        unk = data.get("unk_token", "<unk>")
        trace_data = data.get("trace", [])
        if not isinstance(trace_data, list):
            raise BPEError('the Unigram file\'s "trace" must be a list')
        trace = [UnigramRound.from_dict(r) for r in trace_data]
        return cls(pairs, unk_token=unk, trace=trace)

    def to_hf_dict(self) -> dict[str, Any]:
        """A `tokenizer.json` for `tokenizers` 0.23 that encodes exactly as this model."""
        meta = {"type": "Metaspace", "replacement": META, "prepend_scheme": "always", "split": True}
        return {
            "version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": 0, "content": self.unk_token, "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": False, "special": True}],
            "normalizer": None, "pre_tokenizer": meta, "post_processor": None, "decoder": dict(meta),
            "model": {"type": "Unigram", "unk_id": 0,
                      "vocab": [[p, s] for p, s in zip(self.pieces, self.scores)], "byte_fallback": False},
        }
