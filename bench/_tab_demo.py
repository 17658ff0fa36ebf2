"""subword-nmt and tabs: why its regex rewrite mis-merges symbols that contain a tab, shown on data."""
from __future__ import annotations

import io
import re
from typing import Any

from _common import CASES, no_tqdm


def _merge_symbols(word: tuple[str, ...], pair: tuple[str, str]) -> tuple[str, ...]:
    """The correct result of merging `pair` in a symbol sequence, left to right."""
    out: list[str] = []
    i = 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def tab_demo(code_text: str, merges: int) -> dict[str, Any]:
    """Show subword-nmt's mis-merge of symbols that hold a tab, and how far it carries.

    subword-nmt's `replace_pair` joins a word's symbols with spaces and rewrites
    `first second` with the regex  (?<!\\S)first\\ second(?!\\S) : the look-arounds are meant to
    mean "a symbol boundary" (a space or an end). But its word splitting (line.split(' '))
    leaves tabs inside words, so symbols can hold tabs, and a tab also satisfies
    (?<!\\S) / (?!\\S). The match may then start or end in the middle of a symbol.
    """
    import subword_nmt.learn_bpe as lb

    from bpe_core import Settings
    from bpe_core.trainer import train_counts

    out: dict[str, Any] = {}
    # 1. The smallest case, calling its replace_pair directly.
    word = ("\t\t", "\t\t", "\t", "if</w>")
    pair = ("\t\t", "\t")
    vocab = [(word, 1)]
    changes = lb.replace_pair(pair, vocab, {pair: {0: 1}})
    got = changes[0][1] if changes else word
    out["minimal"] = {
        "word": list(word),
        "pair": list(pair),
        "subword_nmt": list(got),
        "correct": list(_merge_symbols(word, pair)),
        # Its pattern, written with \t for a tab: (?<!\S) + re.escape("first second") + (?!\S)
        "regex": (r"(?<!\S)" + re.escape(pair[0] + " " + pair[1]) + r"(?!\S)").replace("\t", "t"),
        "joined": " ".join(word),
    }

    # 2. A tab-indented copy of the code corpus, split the way subword-nmt splits (on ' ' only).
    tabbed = re.sub(r"(?m)^(?: {4})+", lambda m: "\t" * (len(m.group()) // 4), code_text)
    lines = tabbed.splitlines(keepends=True)
    vocab_counts = lb.get_vocabulary(lines)
    out["tabbed_words"] = len(vocab_counts)
    out["tabbed_words_with_tab"] = sum(1 for w in vocab_counts if "\t" in w)

    original = lb.replace_pair
    state = {"step": 0}
    corrupt: list[dict[str, Any]] = []

    def checked_replace_pair(pair, vocab, indices):  # type: ignore[no-untyped-def]
        changes = original(pair, vocab, indices)
        for _j, new_word, old_word, freq in changes:
            right = _merge_symbols(old_word, pair)
            if right != new_word:
                if not corrupt:
                    corrupt.append(
                        {
                            "rank": state["step"],
                            "pair": list(pair),
                            "word": list(old_word),
                            "subword_nmt": list(new_word),
                            "correct": list(right),
                            "word_count": freq,
                        }
                    )
                out["corrupted_words"] = out.get("corrupted_words", 0) + 1
        state["step"] += 1
        return changes

    saved_tqdm = lb.tqdm
    lb.replace_pair, lb.tqdm = checked_replace_pair, no_tqdm
    try:
        buf = io.StringIO()
        lb.learn_bpe(lines, buf, merges, min_frequency=1)
    finally:
        lb.replace_pair, lb.tqdm = original, saved_tqdm
    theirs = [tuple(line.split(" ")) for line in buf.getvalue().splitlines()[1:]]
    ours = train_counts(vocab_counts, Settings(**CASES["suffix"]["ours"]), merges=merges)
    mine = [(m.left, m.right) for m in ours.trace]
    n = min(len(mine), len(theirs))
    first = next((i for i in range(n) if mine[i] != theirs[i]), None)
    out["merges"] = merges
    out["first_corrupt_replacement"] = corrupt[0] if corrupt else None
    out["first_disagreement"] = (
        None if first is None else {"rank": first, "ours": list(mine[first]), "subword_nmt": list(theirs[first])}
    )
    out["disagreeing_ranks"] = sum(1 for i in range(n) if mine[i] != theirs[i])
    out["merge_sets_differ_by"] = len(set(mine) ^ set(theirs))
    return out


def print_tab_demo(demo: dict[str, Any]) -> None:
    m = demo["minimal"]
    print("\nsubword-nmt and tabs")
    print("--------------------")
    print(
        "Word splitting: subword-nmt splits each line with line.strip('\\r\\n ').split(' '): on the\n"
        "ASCII space only. Tabs (and \\x0b, \\x0c, NBSP, other Unicode spaces) stay inside words;\n"
        "runs of spaces give empty strings, which it drops. Its CLI reads the file with\n"
        "codecs.open, whose lines also end at \\x0b, \\x0c, \\x1c-\\x1e, \\x85, U+2028/9. Our word\n"
        "mode (str.split) splits on all of them, so no word of ours holds whitespace and the\n"
        "is_dict comparison (iii) cannot hit the tab bug. Tie-break: max(stats, key=(count, pair))\n"
        "= highest count, then the greatest (left, right) string pair, as our 'count-pair'."
    )
    print(
        f"\nWhy it mis-merges: replace_pair joins symbols with ' ' and substitutes {m['regex']} (\\t = tab);\n"
        "the look-arounds stand for 'symbol boundary', but a tab inside a symbol satisfies them too.\n"
        f"  symbols {m['word']!r}, merging {tuple(m['pair'])!r}\n"
        f"  subword-nmt -> {m['subword_nmt']!r}\n"
        f"  correct     -> {m['correct']!r}\n"
        "  (the match starts at offset 0 and ends on the first tab of the second '\\t\\t': the next\n"
        "   character is a tab, not a space, and (?!\\S) accepts it). Its pair statistics are then\n"
        "  updated as if the correct merge had happened, so its counts drift from the corpus."
    )
    c = demo["first_corrupt_replacement"]
    print(
        f"\nOn a tab-indented copy of the code corpus ({demo['tabbed_words']:,} distinct words, "
        f"{demo['tabbed_words_with_tab']:,} with a tab), {demo['merges']} merges, both engines on the "
        "same word counts (subword-nmt's own splitting):"
    )
    if c:
        print(
            f"  first corrupted replacement: merge #{c['rank']} {tuple(c['pair'])!r} turned\n"
            f"    {tuple(c['word'])!r} (x{c['word_count']}) into {tuple(c['subword_nmt'])!r};\n"
            f"    correct is {tuple(c['correct'])!r}. Corrupted word rewrites in all: {demo.get('corrupted_words', 0)}"
        )
    else:
        print("  no corrupted replacement in this many merges")
    d = demo["first_disagreement"]
    if d:
        print(
            f"  first merge-list disagreement: #{d['rank']}: ours {tuple(d['ours'])!r}, subword-nmt "
            f"{tuple(d['subword_nmt'])!r}; {demo['disagreeing_ranks']} ranks differ, the merge sets by "
            f"{demo['merge_sets_differ_by']} pairs"
        )
    else:
        print("  the merge lists still agree at this many merges")


# ============================================================================================
# Profile
# ============================================================================================
