"""WordPiece training and Unigram's M-step against references written here from their definitions.

The engine's own reference trainers share helpers with the fast ones (`word_symbols`,
`merged_token`, `m_step`, `digamma`), so a bug in a helper is in both and their agreement proves
nothing. Nothing below imports those helpers: each reference is written from the formula.

- WordPiece: start from characters, every one but a word's first carrying the continuation
  prefix; merge the pair with the highest likelihood score count(ab) / (count(a) · count(b))
  (ties: the larger pair count, then the pair's strings in code-point order); "a" + "@@b" makes
  "ab", "@@a" + "@@b" makes "@@ab". Checked for the default "##" and for other prefixes, since
  a prefix of another length catches one hard-coded as "##" or as two characters.
- Unigram's Bayesian M-step (SentencePiece's "Bayesianified" EM): a piece expected fewer than
  0.5 times is dropped (a character is kept at 0.5), the others get
  log θ_i = ψ(c_i) − ψ(Σ_j c_j), with ψ the digamma function, written here by its recurrence
  and asymptotic series; an E-step by listing every segmentation feeds it.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bpe_core.families import train_wordpiece, train_wordpiece_from_counts
from bpe_core.families.unigram_lattice import digamma as engine_digamma
from bpe_core.families.unigram_train import m_step, seed_scores, train_pieces
from tests.conftest import SEED000, SEED002, SEED003, require

PREFIXES = ("##", "@@", "~", "+++")
SPECIALS = ("[PAD]", "[UNK]")

# ---- WordPiece ----------------------------------------------------------------------------------


def reference_wordpiece(counts: Mapping[str, int], *, vocab_size: int, specials: Sequence[str],
                        prefix: str) -> tuple[list[str], list[tuple]]:
    """The vocabulary (id order) and each merge as (left, right, token, count(ab), count(a), count(b), new)."""
    words = {w: [w[0], *(prefix + c for c in w[1:])] for w in counts if w}
    alphabet = sorted({s for seq in words.values() for s in seq})
    vocab = [*specials, *(s for s in alphabet if s not in specials)]
    steps: list[tuple] = []
    while len(vocab) < vocab_size:
        units: Counter[str] = Counter()
        pairs: Counter[tuple[str, str]] = Counter()
        for word, seq in words.items():
            for symbol in seq:
                units[symbol] += counts[word]
            for pair in zip(seq, seq[1:]):
                pairs[pair] += counts[word]
        if not pairs:
            break
        left, right = min(pairs, key=lambda p: (-Fraction(pairs[p], units[p[0]] * units[p[1]]), -pairs[p], p))
        assert right.startswith(prefix)  # a right symbol is never a word's first
        token = left + right[len(prefix):]
        steps.append((left, right, token, pairs[left, right], units[left], units[right], token not in vocab))
        if token not in vocab:
            vocab.append(token)
        for word, seq in words.items():
            merged, i = [], 0
            while i < len(seq):
                if i + 1 < len(seq) and (seq[i], seq[i + 1]) == (left, right):
                    merged.append(token)
                    i += 2
                else:
                    merged.append(seq[i])
                    i += 1
            words[word] = merged
    return vocab, steps


def greedy_longest_match(word: str, vocab: Sequence[str], prefix: str, unk: str) -> list[str]:
    """BERT's WordPiece encoding of one word: longest vocabulary match from the left, the unknown
    token for the whole word when some part matches nothing."""
    known, pieces, start = set(vocab), [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else prefix + word[start:end]
            if piece in known:
                pieces.append(piece)
                start = end
                break
        else:
            return [unk]
    return pieces


def engine_steps(model) -> list[tuple]:
    return [(s.left, s.right, s.token, s.pair_count, s.left_count, s.right_count, s.added) for s in model.trace]


def whitespace_counts(texts: Sequence[str]) -> Counter[str]:
    return Counter(word for text in texts for word in text.split())


LESSON_TEXTS = {"seed000": [SEED000], "seed002": SEED002, "seed003": [SEED003]}


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("corpus", sorted(LESSON_TEXTS))
def test_wordpiece_training_matches_the_reference(corpus, prefix):
    texts = LESSON_TEXTS[corpus]  # lowercase letters and spaces only: BERT's split is the whitespace split
    counts = whitespace_counts(texts)
    size = len(set("".join(texts).replace(" ", ""))) + 60
    model = train_wordpiece(texts, vocab_size=size, special_tokens=list(SPECIALS), prefix=prefix)
    vocab, steps = reference_wordpiece(counts, vocab_size=size, specials=SPECIALS, prefix=prefix)
    assert list(model.tokens) == vocab
    assert engine_steps(model) == steps
    assert any(token.startswith(prefix) and len(token) > len(prefix) + 1 for token in vocab)  # merged continuations
    for word in ["lowest", "hugging", "cats", "unrecognized", "zzz"]:
        assert model.encode_tokens(word) == greedy_longest_match(word, vocab, prefix, "[UNK]"), word


@given(counts=st.dictionaries(st.text(alphabet="abcd", min_size=1, max_size=6), st.integers(1, 9),
                              min_size=1, max_size=8),
       prefix=st.sampled_from(PREFIXES), extra=st.integers(0, 25))
def test_wordpiece_from_counts_matches_the_reference_on_any_counts(counts, prefix, extra):
    size = len(SPECIALS) + len({c for w in counts for c in w}) + extra
    model = train_wordpiece_from_counts(counts, vocab_size=size, special_tokens=list(SPECIALS), prefix=prefix)
    vocab, steps = reference_wordpiece(counts, vocab_size=size, specials=SPECIALS, prefix=prefix)
    assert (list(model.tokens), engine_steps(model)) == (vocab, steps)


@pytest.mark.parametrize("prefix", ["@@", "+++"])
def test_a_custom_prefix_encodes_as_tokenizers_does(prefix):
    tokenizers = require("tokenizers")
    texts = SEED002
    model = train_wordpiece(texts, vocab_size=90, special_tokens=list(SPECIALS), prefix=prefix)
    vocab, _ = reference_wordpiece(whitespace_counts(texts), vocab_size=90, specials=SPECIALS, prefix=prefix)
    assert list(model.tokens) == vocab
    theirs = tokenizers.Tokenizer(tokenizers.models.WordPiece(
        {token: i for i, token in enumerate(vocab)}, unk_token="[UNK]", continuing_subword_prefix=prefix))
    theirs.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    text = "the fastest cats chased sleeping dogs in parks unrecognized"
    assert model.encode_tokens(text) == theirs.encode(text).tokens
    assert any(t.startswith(prefix) for t in theirs.encode(text).tokens)


# ---- Unigram: the digamma M-step ---------------------------------------------------------------

EULER_GAMMA = 0.57721566490153286
# B_2k / 2k for the asymptotic series psi(x) ~ ln x - 1/(2x) - sum_k B_2k / (2k x^2k)
_SERIES = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def digamma(x: float) -> float:
    """psi(x) for x > 0: psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series."""
    shift = 0.0
    while x < 10.0:
        shift -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series, power = 0.0, inv2
    for coefficient in _SERIES:
        series += coefficient * power
        power *= inv2
    return shift + math.log(x) - 0.5 / x - series


def reference_m_step(expected: Mapping[str, float], is_char: Mapping[str, bool]) -> tuple[dict[str, float], set[str]]:
    """The new log-probabilities and the pieces dropped: log θ_i = ψ(c_i) − ψ(Σ c)."""
    kept, dropped = {}, set()
    for piece, count in expected.items():
        if count < 0.5 and not is_char[piece]:
            dropped.add(piece)
        else:
            kept[piece] = max(count, 0.5)
    total = math.fsum(kept.values())
    return {piece: digamma(count) - digamma(total) for piece, count in kept.items()}, dropped


def segmentations(word: str, pieces: set[str]) -> list[list[str]]:
    if not word:
        return [[]]
    return [[word[:end], *rest] for end in range(1, len(word) + 1) if word[:end] in pieces
            for rest in segmentations(word[end:], pieces)]


def reference_e_step(words: Sequence[str], counts: Sequence[int], scores: Mapping[str, float]) -> dict[str, float]:
    """Expected piece counts: each segmentation weighted by exp(sum of its scores), per word."""
    expected = dict.fromkeys(scores, 0.0)
    for word, count in zip(words, counts):
        segs = segmentations(word, set(scores))
        weights = [math.exp(math.fsum(scores[p] for p in seg)) for seg in segs]
        total = math.fsum(weights)
        for seg, weight in zip(segs, weights):
            for piece in seg:
                expected[piece] += count * weight / total
    return expected


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def test_our_digamma_is_right():
    assert math.isclose(digamma(1.0), -EULER_GAMMA, abs_tol=1e-14)
    assert math.isclose(digamma(0.5), -EULER_GAMMA - 2 * math.log(2), abs_tol=1e-14)
    for n in range(1, 30):  # psi(n) = H_(n-1) - gamma
        assert math.isclose(digamma(float(n)), math.fsum(1 / k for k in range(1, n)) - EULER_GAMMA, abs_tol=1e-13)
    for x in (0.3, 2.5, 7.25, 40.0, 1e6):  # psi(x + 1) = psi(x) + 1/x
        assert math.isclose(digamma(x + 1), digamma(x) + 1 / x, abs_tol=1e-12)


@pytest.mark.parametrize("x", [0.5, 0.75, 1.0, 1.5, 2.0, 3.3, 5.999, 6.0, 6.5, 11.0, 123.456, 5e4, 1e7])
def test_the_engines_digamma_agrees(x):
    assert math.isclose(engine_digamma(x), digamma(x), rel_tol=1e-12, abs_tol=5e-11)


COUNTS = st.floats(0.0, 60.0).filter(lambda v: abs(v - 0.5) > 1e-6)  # no value that rounds onto the threshold


@given(st.dictionaries(st.sampled_from("abc"), COUNTS, min_size=1),  # training always has its characters
       st.dictionaries(st.text(alphabet="abc", min_size=2, max_size=4), COUNTS, max_size=12))
def test_the_m_step_is_the_digamma_formula(chars, pieces):
    expected = {**chars, **pieces}
    is_char = {piece: len(piece) == 1 for piece in expected}
    scores, dropped = m_step(dict(expected), is_char)
    want, want_dropped = reference_m_step(expected, is_char)
    assert {piece for piece, _ in dropped} == want_dropped
    assert scores.keys() == want.keys()
    assert all(close(scores[p], want[p]) for p in want), (scores, want)


@pytest.mark.parametrize("rounds", [1, 2])
@pytest.mark.parametrize("corpus", ["seed000", "seed003", "seed002"])
def test_unigram_em_rounds_are_the_formula_applied_to_the_seeds(corpus, rounds):
    """No pruning (a large target): the trained scores are `rounds` E-steps and M-steps of the seeds."""
    counts = whitespace_counts(LESSON_TEXTS[corpus])
    words, freqs = ["\u2581" + w for w in counts], list(counts.values())
    scores, _ = seed_scores(words, freqs, 6, 1_000_000)
    is_char = {piece: len(piece) == 1 for piece in scores}
    for _ in range(rounds):
        scores, _ = reference_m_step(reference_e_step(words, freqs, scores), is_char)
    pieces, trace = train_pieces(words, freqs, vocab_size=10_000, max_piece_length=6, sub_iterations=rounds)
    assert len(trace) == 1 and not trace[0].removed
    got = dict(pieces)
    assert got.keys() == scores.keys()
    assert all(close(got[p], scores[p]) for p in scores)
    assert any(not is_char[p] for p in got) and len(got) < len(is_char)  # some pieces kept, some dropped
