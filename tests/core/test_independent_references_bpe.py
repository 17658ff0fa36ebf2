"""BPE's tie-breaks and end-of-word marker against the lessons' own scripts, and SuperBPE's phase
two against a from-scratch phase two written here.

The lessons (shared/seeds 000, 002, 003) print code that trains BPE; their Python is kept verbatim
in tests/core/golden/lessons/ and run as written (`exec`), then compared with `bpe_core.train`:

- 000, "ties broken by name" (`max` of (count, pair)), a separate `</w>`: tie-break count-pair;
- 002, the first pair of highest count in first-occurrence order (`max` over a dict), lowercased
  words with a separate `</w>`: tie-break first. Its `_merge_pair` rewrites words with
  `str.replace("a b")`, which also joins pieces that only end in a or start with b ("a" + "n</w>"
  for the pair (a, n)); its merges are compared up to the first one it makes on words so damaged;
- 003, text mode (the whole text one sequence), `np.argmax` over a dict: tie-break first. Its pairs
  are keyed by their joined text, so (a, bc) and (ab, c) count as one; merges are compared up to
  the first step where two different pairs join to the new token.

SuperBPE's phase two, from its definition: the authors' stage-2 split (`extend_tokenizer.sh`, an
`Isolated` split; the text between matches is a piece too), bytes as GPT-2's byte characters, the
phase-one merges replayed in order, then the most frequent pair (ties: the larger pair) whose
token holds no ":Ġ" and at most four words (non-empty runs between "Ġ"), until the vocabulary is full.
"""
from __future__ import annotations

import contextlib
import io
import re
from collections import Counter
from pathlib import Path

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from bpe_core import Settings, train
from bpe_core.families import train_superbpe
from sample_corpora import load_corpus
from tests.conftest import SEED000, SEED002, SEED003

LESSONS = Path(__file__).parent / "golden" / "lessons"


def run_lesson(name: str) -> tuple[dict, str]:
    """The lesson's script executed as written: its namespace and what it printed."""
    namespace: dict = {"__name__": f"lesson_{name}"}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile((LESSONS / f"{name}.py.txt").read_text(encoding="utf-8"), f"{name}.py", "exec"), namespace)
    return namespace, printed.getvalue()


@pytest.fixture(scope="module")
def lesson000():
    return run_lesson("seed000")


@pytest.fixture(scope="module")
def lesson002():
    return run_lesson("seed002")


@pytest.fixture(scope="module")
def lesson003():
    return run_lesson("seed003")


def merge_pair(symbols: list[str], pair: tuple[str, str]) -> list[str]:
    """Each (a, b) of a sequence, left to right, joined."""
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


CORPORA = st.lists(st.lists(st.text(alphabet="abcde", min_size=1, max_size=6), min_size=1, max_size=8)
                   .map(" ".join), min_size=1, max_size=4)

# ---- lesson 000: count-pair ties, a separate </w> --------------------------------------------------


def test_lesson000_prints_the_merges_bpe_core_learns(lesson000):
    namespace, printed = lesson000
    merges = re.findall(r"merge +\d+: '(.*?)' \+ '(.*?)' -> '.*?' +\(seen (\d+) times\)", printed)
    tok = train(SEED000, Settings(tie_break="count-pair", eow="separate"), merges=10)
    assert len(merges) == 10 and merges == [(m.left, m.right, str(m.count)) for m in tok.trace]
    assert [tuple(pair) for pair in namespace["merges"]] == tok.merges
    for word in ["lowest", "newer", "wider", "slow"]:
        assert namespace["encode"](word, namespace["merges"]) == tok.encode_word(word)


@given(CORPORA, st.integers(1, 40))
def test_lesson000_functions_train_like_bpe_core_on_any_corpus(lesson000, texts, merges):
    lesson = lesson000[0]
    text = "\n".join(texts)
    words, learned = lesson["get_word_counts"](text), []
    for _ in range(merges):  # the lesson's loop, with its tie-break
        pairs = lesson["count_pairs"](words)
        if not pairs:
            break
        best, _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        learned.append(best)
        words = lesson["merge"](words, best)
    assert train(text, Settings(eow="separate"), merges=merges).merges == learned


# ---- lesson 002: first-occurrence ties, lowercased, a separate </w> ---------------------------------


def sound_merges(tokenizer_class, texts: list[str], rules: list[tuple[str, str]]) -> int:
    """How many of the lesson's merges it chose on words its `str.replace` had kept right."""
    words = tokenizer_class()._build_word_freqs(texts)
    for k, rule in enumerate(rules):
        after = tokenizer_class._merge_pair(words, rule)
        if after != {" ".join(merge_pair(w.split(), rule)): n for w, n in words.items()}:
            return k + 1  # this merge was chosen right; the next ones on damaged words
        words = after
    return len(rules)


def test_lesson002_merges_are_bpe_core_first_occurrence_ties(lesson002):
    namespace, _ = lesson002
    rules = namespace["bpe"].merge_rules  # trained by the script on its corpus, vocab_size=120
    sound = sound_merges(namespace["BPETokenizer"], SEED002, rules)
    tok = train(SEED002, Settings(lowercase=True, tie_break="first", eow="separate"), merges=len(rules))
    assert sound >= 12 and tok.merges[:sound] == rules[:sound]


@given(CORPORA)
def test_lesson002_trains_like_bpe_core_on_any_corpus(lesson002, texts):
    lesson_class = lesson002[0]["BPETokenizer"]
    bpe = lesson_class(vocab_size=60).train(texts)
    sound = sound_merges(lesson_class, texts, bpe.merge_rules)
    tok = train(texts, Settings(lowercase=True, tie_break="first", eow="separate"), merges=max(sound, 1))
    assert tok.merges[:sound] == bpe.merge_rules[:sound]


# ---- lesson 003: first-occurrence ties in text mode -----------------------------------------------


def test_lesson003_prints_the_merges_bpe_core_learns(lesson003):
    namespace, printed = lesson003
    added = re.findall(r'Vocab Size: (\d+) \| Added: "(.*)"', printed)
    tok = train(SEED003, Settings(mode="text", tie_break="first"), vocab_size=25)
    assert len(added) == 9 and added == [(str(m.vocab_size), m.token) for m in tok.trace]
    assert printed.rstrip().endswith(f"Final Tokens: {tok.encode(SEED003).tokens}")


def lesson003_merges(lesson: dict, text: str, steps: int) -> list[str]:
    """The lesson's loop on another text, stopped before a step whose new token two different
    pairs would make (its pairs are keyed by their joined text)."""
    symbols, vocab, added = list(text), {c: i for i, c in enumerate(sorted(set(text)))}, []
    for _ in range(steps):
        pairs = lesson["get_pair_stats"](symbols)
        if not pairs:
            break
        vocab, token = lesson["update_vocab"](pairs, vocab)
        if len({p for p in zip(symbols, symbols[1:]) if p[0] + p[1] == token}) > 1:
            break
        added.append(token)
        symbols = lesson["generate_new_token_seq"](symbols, token)
    return added


@given(st.text(alphabet="ab c", min_size=2, max_size=60), st.integers(1, 20))
def test_lesson003_functions_train_like_bpe_core_on_any_text(lesson003, text, steps):
    added = lesson003_merges(lesson003[0], text, steps)
    tok = train(text, Settings(mode="text", tie_break="first"), merges=steps)
    assert [a + b for a, b in tok.merges][:len(added)] == added


# ---- SuperBPE's phase two ----------------------------------------------------------------------

STAGE2_SPLIT = r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]{2,}[\r\n/]*| +(?!\S)"  # the authors' extend_tokenizer.sh


def byte_chars() -> dict[int, str]:
    """GPT-2's byte characters: printable Latin-1 bytes stand for themselves, the others from U+0100."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    table, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            table[byte] = chr(byte)
        else:
            table[byte], extra = chr(256 + extra), extra + 1
    return table


def phase_two_words(texts: list[str]) -> Counter[tuple[str, ...]]:
    """Phase two's pieces in byte characters: every match of the split and every stretch between."""
    chars, counts = byte_chars(), Counter()
    for text in texts:
        cuts = sorted({0, len(text), *(i for m in regex.finditer(STAGE2_SPLIT, text) for i in m.span())})
        for start, end in zip(cuts, cuts[1:]):
            counts[tuple(chars[b] for b in text[start:end].encode("utf-8"))] += 1
    return counts


def allowed(token: str, *, max_words: int | None, colon_rule: bool) -> bool:
    if colon_rule and ":Ġ" in token:
        return False
    return max_words is None or len([w for w in token.split("Ġ") if w]) <= max_words


def reference_phase_two(texts: list[str], phase_one: list[tuple[str, str]], new_merges: int, *,
                        max_words: int | None = 4, colon_rule: bool = True) -> list[tuple[str, str]]:
    words = {}
    for word, n in phase_two_words(texts).items():
        symbols = list(word)
        for pair in phase_one:  # replayed in order, as the fork does
            symbols = merge_pair(symbols, pair)
        words[tuple(symbols)] = words.get(tuple(symbols), 0) + n
    learned: list[tuple[str, str]] = []
    while len(learned) < new_merges:
        pairs: Counter[tuple[str, str]] = Counter()
        for symbols, n in words.items():
            for pair in zip(symbols, symbols[1:]):
                if allowed(pair[0] + pair[1], max_words=max_words, colon_rule=colon_rule):
                    pairs[pair] += n
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        learned.append(best)
        words = {tuple(merge_pair(list(s), best)): n for s, n in words.items()}
    return learned


SUPER_TEXTS = {
    "phrases": ["by the way, by the way, by the way. in the end of the day we go home.\n" * 4],
    "colons": ["name: Ada\nrole: engineer\nname: Alan\nrole: engineer\nkey: value, key: value\n" * 3],
    "prose": [load_corpus("english")[:4_000], SEED002[0]],
    "long runs": ["one two three four five six seven one two three four five six seven " * 5,
                  "  spaced   out  text 12345 678 ... !! done\n\n" * 3],
}


@pytest.mark.parametrize("rules", [{}, {"max_words": None}, {"colon_rule": False}, {"max_words": 2}])
@pytest.mark.parametrize("corpus", sorted(SUPER_TEXTS))
def test_superbpe_phase_two_is_the_reference(corpus, rules):
    texts = SUPER_TEXTS[corpus]
    size = 256 + 30 + 60
    model = train_superbpe(texts, vocab_size=size, transition=256 + 30, **rules)
    phase_one, phase_two = model.merges[:model.transition], model.merges[model.transition:]
    assert 0 < model.transition <= 30 and phase_two  # phase one may run out of pairs first
    assert phase_two == reference_phase_two(texts, phase_one, size - 256 - model.transition, **rules)
    kept = {"max_words": 4, "colon_rule": True, **rules}
    assert all(allowed(a + b, **kept) for a, b in phase_two)


def test_the_phase_two_rules_bite():
    texts = SUPER_TEXTS["colons"] + SUPER_TEXTS["long runs"]
    ruled = train_superbpe(texts, vocab_size=256 + 30 + 120, transition=256 + 30)
    free = train_superbpe(texts, vocab_size=256 + 30 + 120, transition=256 + 30, max_words=None, colon_rule=False)
    tokens = [a + b for a, b in free.merges[free.transition:]]
    assert any(":Ġ" in t for t in tokens) and any(len([w for w in t.split("Ġ") if w]) > 4 for t in tokens)
    new = 30 + 120 - ruled.transition
    assert ruled.merges[ruled.transition:] == reference_phase_two(texts, ruled.merges[:ruled.transition], new)
