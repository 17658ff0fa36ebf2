"""Why WordPiece leaves "the" in pieces (`explorer.families.wordpiece.why`): every number it tells checked
against counts recomputed here from the definition (the corpus's words, the trace's merges replayed), and
its claim about Hugging Face's WordPieceTrainer checked against `tokenizers` itself."""
from __future__ import annotations

import re
from collections import Counter

import pytest

from bpe_core.families import WordPieceModel
from bpe_core.families.wordpiece_text import count_words
from explorer.data.training import family_request, train_corpus
from explorer.families import explorer_family
from explorer.families.wordpiece import why
from sample_corpora import load_corpus
from tests.conftest import require

TEXT_CHARS = 60_000  # of the English sample: "the" stays th ##e at 400 tokens


@pytest.fixture(scope="module")
def english():
    text = load_corpus("english")[:TEXT_CHARS]
    return text, train_corpus([text], family_request("wordpiece", 400, limit=50_000))


def plain(markdown: str) -> str:
    """The note as a reader sees it (md_escape's backslashes dropped)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def counts_before(text: str, trace, step: int) -> tuple[Counter, Counter]:
    """Symbol and pair counts before `step` (from 1), from the definition: each word's characters (all but the
    first with ##), the merges of the steps before it applied in order, left to right."""
    words = count_words([text])  # BERT's words: whitespace, then punctuation
    symbols: Counter = Counter()
    pairs: Counter = Counter()
    for word, n in words.items():
        seq = [word[0], *("##" + c for c in word[1:])]
        for merge in trace[:step - 1]:
            if merge.left not in seq:
                continue
            out, i = [], 0
            while i < len(seq):
                if i + 1 < len(seq) and (seq[i], seq[i + 1]) == (merge.left, merge.right):
                    out.append(merge.left + merge.right[2:])
                    i += 2
                else:
                    out.append(seq[i])
                    i += 1
            seq = out
        for symbol in seq:
            symbols[symbol] += n
        for pair in zip(seq, seq[1:]):
            pairs[pair] += n
    return symbols, pairs


def fraction(pair_count: int, left: int, right: int) -> str:
    return f"{pair_count:,} / ({left:,} · {right:,}) = {why.one_in(pair_count / (left * right))}"


@pytest.mark.parametrize(("word", "pieces"), [("the", ["th", "##e"]),
                                             ("function", ["f", "##u", "##n", "##c", "##t", "##i", "##o", "##n"])])
def test_the_note_on_a_word_tells_this_corpus_s_counts(english, word, pieces):
    text, trained = english
    model, trace = trained.model, trained.model.trace
    assert model.encode_tokens(word) == pieces
    symbols, pairs = counts_before(text, trace, len(trace))
    best = max(zip(pieces, pieces[1:]), key=lambda p: pairs[p])  # the pair a count would merge first
    assert best not in {(s.left, s.right) for s in trace}  # never merged
    start = counts_before(text, trace, 1)[1]
    by_count = sorted(start, key=lambda p: (-start[p], p))
    where = (f": {best[0]} + {best[1]} is this corpus's {why._ordinal(by_count.index(best) + 1)}most frequent pair "
             "before step 1" if best in start else "")
    last = trace[-1]
    assert plain(why.word_note(model, trained.story, word)) == (
        f"No step merged {best[0]} + {best[1]}, though it is seen {pairs[best]:,} times: {why.SCORE}, and at the "
        f"last step ({last.step}) it scored {fraction(pairs[best], symbols[best[0]], symbols[best[1]])}, against "
        f"{fraction(last.pair_count, last.left_count, last.right_count)} for {last.left} + {last.right} (seen "
        f"{'once' if last.pair_count == 1 else f'{last.pair_count:,} times'}), the pair merged. {why.HF}{where}."
    )
    assert bool(where) == (word == "function")  # "th" is made by a step: before step 1 there is no th + ##e
    # The pair merged at the last step had the highest score then: the word's pair scored lower.
    assert last.score > pairs[best] / (symbols[best[0]] * symbols[best[1]])


def test_the_note_without_the_corpus_tells_the_rule_and_the_last_step(english):
    _, trained = english
    last = trained.model.trace[-1]
    note = plain(why.word_note(trained.model, None, "the"))
    assert note.startswith(f"No step merged th + ##e: {why.SCORE}; its last step ({last.step}) merged ")
    assert fraction(last.pair_count, last.left_count, last.right_count) in note and note.endswith(f"{why.HF}.")
    bare = WordPieceModel(["[UNK]", "t", "##h", "##e"])  # a vocabulary without its training
    assert plain(why.word_note(bare, None, "the")).startswith(f"No step merged t + ##h: {why.SCORE}, so ")
    assert why.word_note(bare, None, "t") == ""  # one piece: nothing to explain
    assert why.word_note(bare, None, "x") == ""  # unknown: the card says why


def test_the_unseen_words_hook_gives_the_note_as_a_caption(english):
    _, trained = english
    notes = explorer_family("wordpiece").word_notes(trained.model, trained, "the")
    assert notes == [("caption", why.word_note(trained.model, trained.story, "the"))]
    assert explorer_family("unigram").word_notes(trained.model, trained, "the") == ()  # the default: nothing


def test_the_watch_note_tells_the_flat_curve_with_this_corpus_s_numbers(english):
    text, trained = english
    trace = trained.model.trace
    symbols, pairs = counts_before(text, trace, 1)
    top = min(pairs, key=lambda p: (-pairs[p], p))
    tokens = [sum(counts_before(text, trace, step)[0].values()) for step in (1, len(trace) + 1)]
    median = sorted(s.pair_count for s in trace)[(len(trace) - 1) // 2]
    note = plain(why.watch_note(trained))
    assert note.startswith(f"{why.RULE}: at least half of these {len(trace)} steps merged a pair seen at most "
                           f"{'once' if median == 1 else f'{median:,} times'}, and the corpus's tokens fell by "
                           f"{100 * (tokens[0] - tokens[1]) / tokens[0]:.2g}% ({tokens[0]:,} to {tokens[1]:,}).")
    assert (f"Before the first step {top[0]} + {top[1]}, the most frequent pair, seen {pairs[top]:,} times, scored "
            f"{fraction(pairs[top], symbols[top[0]], symbols[top[1]])}, against {why.one_in(trace[0].score)} for "
            f"{trace[0].left} + {trace[0].right}, the pair merged") in note


def test_hugging_face_s_trainer_merges_the_most_frequent_pair_first(english):
    """What the notes say of `tokenizers`' WordPieceTrainer: it ranks by count, so its first merge is the
    pair the notes name as the most frequent before the first step."""
    tokenizers = require("tokenizers")
    text, trained = english
    tok = tokenizers.Tokenizer(tokenizers.models.WordPiece(unk_token="[UNK]"))
    tok.pre_tokenizer = tokenizers.pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator([text], tokenizers.trainers.WordPieceTrainer(vocab_size=400, special_tokens=["[UNK]"]))
    by_id = sorted(tok.get_vocab().items(), key=lambda item: item[1])
    first_merge = next(t for t, _ in by_id if t != "[UNK]" and len(t.removeprefix("##")) > 1)
    (a, b), _ = next(iter(trained.story.first.pairs.items()))
    assert first_merge == a + b.removeprefix("##")


def test_the_families_page_note():
    from explorer.families import part

    assert part("wordpiece", "families").NOTE == why.FAMILIES_NOTE
    assert "t ##h ##e" in why.FAMILIES_NOTE and why.HF in why.FAMILIES_NOTE
