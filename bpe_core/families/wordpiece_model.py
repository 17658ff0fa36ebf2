"""The WordPiece model: encoding with spans, decoding, our JSON layout and Hugging Face's `tokenizer.json`.

Ours (version 1)::

    {"format": "bpe-explorer", "model": "wordpiece", "version": 1,
     "options": {"unk_token", "prefix", "max_input_chars_per_word", "lowercase", "cleanup",
                 "special_tokens"},
     "vocab": [token, ...],            # in id order
     "trace": [{step, left, right, token, pair_count, left_count, right_count, added}, ...]}

`tokenizer.json`: the WordPiece model with our vocabulary, the `Lowercase` normalizer when the
model lowercases, the `BertPreTokenizer` and the WordPiece decoder. The special tokens are plain
vocabulary entries there as here, not "added tokens": text that spells "[UNK]" is cut like any
other text ("[", "UNK", "]"), and decoding writes every token, special or not.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..model import Encoding
from ..pretokenize import require_str, type_name
from ..settings import BPEError
from ..tokenizer_model import spans_encoding
from .wordpiece_text import is_punctuation, lowercase_with_offsets, normalize, split_words, word_spans
from .wordpiece_train import WordPieceStep

FORMAT = "bpe-explorer"
MODEL = "wordpiece"
VERSION = 1
_CACHE_LIMIT = 200_000
# The text replacements of the Hugging Face WordPiece decoder's `cleanup`, in its order.
_CLEANUP = (
    (" .", "."), (" ?", "?"), (" !", "!"), (" ,", ","), (" ' ", "'"), (" n't", "n't"),
    (" 'm", "'m"), (" do not", " don't"), (" 's", "'s"), (" 've", "'ve"), (" 're", "'re"),
)

Piece = tuple[str, int, int, int]  # token, id, start, end (characters of the normalized word)


class WordPieceModel:
    """A WordPiece vocabulary with its options; encodes as `tokenizers`' WordPiece model does.

    Shared safely between threads: nothing changes after construction but the word cache, which
    is swapped whole when full, never emptied in place.
    """

    def __init__(
        self,
        tokens: Sequence[str],
        *,
        unk_token: str = "[UNK]",
        prefix: str = "##",
        max_input_chars_per_word: int = 100,
        lowercase: bool = False,
        cleanup: bool = True,
        special_tokens: Sequence[str] = (),
        trace: Sequence[WordPieceStep] = (),
    ) -> None:
        check_options(unk_token=unk_token, prefix=prefix, max_input_chars_per_word=max_input_chars_per_word)
        for name, flag in (("lowercase", lowercase), ("cleanup", cleanup)):
            if not isinstance(flag, bool):
                raise BPEError(f"{name} must be true or false, not {type_name(flag)}")
        vocab: dict[str, int] = {}
        for token in tokens:
            if not isinstance(token, str) or not token:
                raise BPEError(f"every token must be a non-empty str, not {token!r}")
            if token in vocab:
                raise BPEError(f"token {token!r} appears twice in the vocabulary")
            vocab[token] = len(vocab)
        if unk_token not in vocab:
            raise BPEError(f"the unknown token {unk_token!r} is not in the vocabulary")
        self.tokens: tuple[str, ...] = tuple(vocab)
        self.vocab = vocab
        self.unk_token = unk_token
        self.unk_id = vocab[unk_token]
        self.prefix = prefix
        self.max_input_chars_per_word = max_input_chars_per_word
        self.lowercase = lowercase
        self.cleanup = cleanup
        self.special_tokens: tuple[str, ...] = tuple(special_tokens)
        self.trace: tuple[WordPieceStep, ...] = tuple(trace)
        # Longest match never needs a piece longer than the longest token of its kind.
        n = len(prefix)
        self._max_first = max(len(t) for t in vocab)  # any token may start a word of a loaded vocab
        self._max_rest = max((len(t) - n for t in vocab if t.startswith(prefix)), default=0)
        self._cache: dict[str, tuple[Piece, ...]] = {}
        self._flat_caches: list[dict[str, tuple[str | int, ...]]] = [{}, {}]

    def __len__(self) -> int:
        return len(self.tokens)

    # ---- encoding ---------------------------------------------------------------------------

    def encode_word(self, word: str) -> tuple[Piece, ...]:
        """One (normalized) word's pieces: (token, id, start, end) with character offsets."""
        cache = self._cache
        found = cache.get(word)
        if found is not None:
            return found
        pieces = self._match(word)
        if len(cache) >= _CACHE_LIMIT:
            cache = self._cache = {}
        cache[word] = pieces
        return pieces

    def _match(self, word: str) -> tuple[Piece, ...]:
        n = len(word)
        unknown = ((self.unk_token, self.unk_id, 0, n),)
        if n > self.max_input_chars_per_word:
            return unknown
        vocab, prefix = self.vocab, self.prefix
        pieces: list[Piece] = []
        start = 0
        while start < n:
            end = min(n, start + (self._max_rest if start else self._max_first))
            while end > start:
                piece = word[start:end] if start == 0 else prefix + word[start:end]
                token_id = vocab.get(piece)
                if token_id is not None:
                    pieces.append((piece, token_id, start, end))
                    break
                end -= 1
            else:
                return unknown
            start = end
        return tuple(pieces)


    def encode(self, text: str) -> Encoding:
        """Tokens of `text` with their ids, character spans and which are the unknown token."""
        return spans_encoding(self.encode_with_spans(text), self.vocab, self.unk_id)

    def encode_tokens(self, text: str) -> list[str]:
        """Only the tokens of `text` (a cache of each word's)."""
        return self._flat(text, 0)  # type: ignore[return-value]

    def encode_ids(self, text: str) -> list[int]:
        """Token ids of `text`."""
        return self._flat(text, 1)  # type: ignore[return-value]

    def count_unknown(self, text: str) -> int:
        """How many of `text`'s tokens are the unknown token (`encode` flags them by their id)."""
        return self.encode_ids(text).count(self.unk_id)

    def _flat(self, text: str, field: int) -> list[str | int]:
        """The hot path of bulk encoding: no offsets, and a cache of one field (0: tokens, 1: ids)
        per word."""
        require_str(text)
        cache = self._flat_caches[field]
        out: list[str | int] = []
        for word in split_words(normalize(text, lowercase=self.lowercase)):
            found = cache.get(word)
            if found is None:
                found = tuple(piece[field] for piece in self.encode_word(word))
                if len(cache) >= _CACHE_LIMIT:  # swapped, never emptied in place (see the class)
                    cache = self._flat_caches[field] = {}
                cache[word] = found
            out += found
        return out

    def encode_with_spans(self, text: str) -> list[tuple[str, int, int]]:
        """Tokens with their (start, end) character spans in `text`."""
        require_str(text)
        if self.lowercase:
            norm, starts, ends = lowercase_with_offsets(text)
        else:
            norm, starts, ends = text, range(len(text)), range(1, len(text) + 1)
        identity = isinstance(starts, range)
        out: list[tuple[str, int, int]] = []
        append = out.append
        for ws, we in word_spans(norm):
            pieces = self.encode_word(norm[ws:we])
            if identity:
                if len(pieces) == 1:  # most words are one token
                    append((pieces[0][0], ws, we))
                else:
                    out.extend([(t, ws + s, ws + e) for t, _, s, e in pieces])
            else:
                out.extend([(t, starts[ws + s], ends[ws + e - 1]) for t, _, s, e in pieces])
        return out

    merges = None  # its training merges pairs, but it encodes by longest match: no ranked merges

    def token_bytes(self, token: str) -> bytes:
        """What a token stands for in the middle of a text, as the decoder writes it: a
        continuation ("##ing") its text, a word's first piece a space and its text, cleaned up as
        `decode` cleans it (" ," is ","); a special token its own text."""
        if token in self.special_tokens:
            return token.encode("utf-8")
        prefix = self.prefix
        text = token[len(prefix):] if token.startswith(prefix) else " " + token
        if self.cleanup:
            for old, new in _CLEANUP:
                text = text.replace(old, new)
        return text.encode("utf-8", "surrogatepass")

    # ---- decoding ---------------------------------------------------------------------------

    def decode(self, ids: Iterable[int]) -> str:
        """Text from token ids, as the Hugging Face WordPiece decoder writes it.

        Pieces with the prefix join the previous one; any other piece after the first gets a
        space before it; with `cleanup`, each piece then loses the space before . ? ! , and
        English contractions ("do n't" -> "don't").
        """
        if isinstance(ids, (str, bytes)):
            raise BPEError(f"ids must be a sequence of token ids, not {type_name(ids)}")
        parts: list[str] = []
        size = len(self.tokens)
        for i, token_id in enumerate(ids):
            if isinstance(token_id, bool) or not isinstance(token_id, int):
                raise BPEError(f"token ids must be whole numbers, not {type_name(token_id)}")
            if not 0 <= token_id < size:
                raise BPEError(f"token id {token_id} is not in the vocabulary (ids 0 to {size - 1})")
            token = self.tokens[token_id]
            if i:
                token = token[len(self.prefix):] if token.startswith(self.prefix) else " " + token
            if self.cleanup:
                for old, new in _CLEANUP:
                    token = token.replace(old, new)
            parts.append(token)
        return "".join(parts)

    # ---- files ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Our JSON layout (see `wordpiece_io`)."""
        return {
            "format": FORMAT,
            "model": MODEL,
            "version": VERSION,
            "options": {
                "unk_token": self.unk_token,
                "prefix": self.prefix,
                "max_input_chars_per_word": self.max_input_chars_per_word,
                "lowercase": self.lowercase,
                "cleanup": self.cleanup,
                "special_tokens": list(self.special_tokens),
            },
            "vocab": list(self.tokens),
            "trace": [step.to_dict() for step in self.trace],
        }

    @classmethod
    def from_dict(cls, data: object) -> WordPieceModel:
        """A model from our JSON layout; a one-line BPEError when anything is malformed."""
        return _from_dict(data)

    def to_hf_dict(self) -> dict[str, Any]:
        """A Hugging Face `tokenizer.json` that encodes and decodes exactly as this model."""
        return {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": {"type": "Lowercase"} if self.lowercase else None,
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": None,
            "decoder": {"type": "WordPiece", "prefix": self.prefix, "cleanup": self.cleanup},
            "model": {
                "type": "WordPiece",
                "unk_token": self.unk_token,
                "continuing_subword_prefix": self.prefix,
                "max_input_chars_per_word": self.max_input_chars_per_word,
                "vocab": dict(self.vocab),
            },
        }


def check_options(*, unk_token: object, prefix: object, max_input_chars_per_word: object) -> None:
    """BPEError for an option `WordPieceModel` and the trainers cannot use."""
    if not isinstance(unk_token, str) or not unk_token:
        raise BPEError(f"the unknown token must be a non-empty str, not {unk_token!r}")
    if not isinstance(prefix, str) or not prefix or not all(is_punctuation(c) for c in prefix):
        # Words never hold punctuation, so a punctuation prefix can never be read as word text.
        raise BPEError(f"the continuation prefix must be punctuation characters such as '##', not {prefix!r}")
    m = max_input_chars_per_word
    if isinstance(m, bool) or not isinstance(m, int) or m < 1:
        raise BPEError(f"max_input_chars_per_word must be a whole number of at least 1, not {m!r}")


_STEP_TEXT = ("left", "right", "token")
_STEP_COUNTS = ("step", "pair_count", "left_count", "right_count")


def _fail(what: str) -> BPEError:
    return BPEError(f"malformed WordPiece model file: {what}")


def _from_dict(data: object) -> WordPieceModel:
    if not isinstance(data, dict):
        raise _fail(f"expected a JSON object, found {type_name(data)}")
    if data.get("format") != FORMAT or data.get("model") != MODEL:
        raise _fail(f'"format" must be {FORMAT!r} and "model" {MODEL!r}')
    if data.get("version") != VERSION:
        raise _fail(f"unsupported version {data.get('version')!r} (this program reads version {VERSION})")
    options = data.get("options")
    if not isinstance(options, dict):
        raise _fail('"options" must be an object')
    tokens = data.get("vocab")
    if not isinstance(tokens, list):
        raise _fail('"vocab" must be a list of tokens in id order')
    specials = options.get("special_tokens", [])
    if not isinstance(specials, list) or not all(isinstance(s, str) for s in specials):
        raise _fail('"special_tokens" must be a list of str')
    steps = data.get("trace", [])
    if not isinstance(steps, list):
        raise _fail('"trace" must be a list')
    trace = [_step(i, raw) for i, raw in enumerate(steps)]
    try:
        return WordPieceModel(
            tokens,
            unk_token=options.get("unk_token", "[UNK]"),
            prefix=options.get("prefix", "##"),
            max_input_chars_per_word=options.get("max_input_chars_per_word", 100),
            lowercase=options.get("lowercase", False),
            cleanup=options.get("cleanup", True),
            special_tokens=specials,
            trace=trace,
        )
    except BPEError as exc:
        raise _fail(str(exc)) from None


def _step(index: int, raw: object) -> WordPieceStep:
    where = f"trace entry {index + 1}"
    if not isinstance(raw, dict):
        raise _fail(f"{where} must be an object")
    for key in _STEP_TEXT:
        if not isinstance(raw.get(key), str):
            raise _fail(f'{where}: "{key}" must be a str')
    for key in _STEP_COUNTS:
        value = raw.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise _fail(f'{where}: "{key}" must be a whole number of at least 1')
    if not isinstance(raw.get("added"), bool):
        raise _fail(f'{where}: "added" must be true or false')
    return WordPieceStep(raw["step"], raw["left"], raw["right"], raw["token"], raw["pair_count"],
                         raw["left_count"], raw["right_count"], raw["added"])
