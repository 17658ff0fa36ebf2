"""The Watch page's frames for WordPiece, Unigram and SuperBPE, each in its own terms. Pure: no Streamlit.

* WordPiece, step t (t >= 1: the t-th merge): the pair merged with the counts behind its score
  count(ab) / (count(a) · count(b)), the highest-scoring pairs it was chosen from (the score chart),
  and the most frequent words as training segments them after the merge.
* Unigram, round r (1..rounds): the vocabulary before and after, the corpus log-likelihood, the
  pieces the round removed with their loss (or, in the final cut, their score), and the most
  frequent words as Viterbi segments them with the round's pieces.
* SuperBPE, step t: the merge, its phase, whether it made a superword, the pair counts it was
  chosen from, and the most frequent phase-two pieces segmented after t merges, superword tokens
  highlighted.

Cost stays bounded: a frame draws at most `PAIRS` pairs, `REMOVED_SHOWN` removed pieces and the
words the page asks for; curves are thinned to `charts.MAX_CURVE_POINTS` points.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from bpe_core.families.superbpe import is_superword, phase_one_pieces
from bpe_core.pretokenize import symbols_to_bytes
from explorer.data.family_training import LONG_WORD, SUPERBPE_PRETOKENIZER, Candidate
from explorer.data.training import Trained
from explorer.display.charts import CHOSEN, OTHER, chart_font, figure, label, plotly_text, thin_steps
from explorer.display.render import Chip, WordRow, cap_token, chip_html, escape

PAIRS = 10  # pairs in a chart
REMOVED_SHOWN = 200  # removed pieces listed for one Unigram round
CHUNK_SHOWN = 120  # characters of a SuperBPE phase-two piece segmented and drawn (a piece can be a paragraph)
FAMILY_CSS = """
<style>
.fam-super { display: inline-block; border-radius: 8px; box-shadow: 0 0 0 3px #f2b705; }
.fam-facts { display: flex; gap: 14px; flex-wrap: wrap; color: #333; margin-top: 6px; }
</style>
"""


def first_step(family: str) -> int:
    """The first step a family's frames show: Unigram's rounds count from 1, merges from 0."""
    return 1 if family == "unigram" else 0


def clamp(trained: Trained, step: int) -> int:
    return max(first_step(trained.family), min(int(step), trained.steps))


@dataclass
class FamilyFrame:
    """What one step shows: a headline card (HTML), facts (plain text), the word rows."""

    step: int
    steps: int
    card: str
    facts: list[str]
    rows: list[WordRow]
    superwords: frozenset[str] = field(default_factory=frozenset)


def _births(trained: Trained) -> dict[str, int]:
    """token -> the rank (step - 1) of the merge that made it (WordPiece)."""
    births: dict[str, int] = {}
    for step in trained.model.trace:
        births.setdefault(step.token, step.step - 1)
    return births


def _card(parts: list[str]) -> str:
    return '<div class="bpe-card"><div class="bpe-merge">' + "".join(parts) + "</div></div>"


def _chip(token: str, birth: int | None, *, byte_level: bool = False, new: bool = False) -> str:
    return chip_html(Chip(token, birth=birth, new=new), byte_level=byte_level)


def _rows(words: list[tuple[str, int]], pieces: list[tuple[tuple[str, ...], bool]], births: dict[str, int],
          new_token: str | None) -> list[WordRow]:
    rows = []
    for (word, count), (toks, changed) in zip(words, pieces):
        chips = tuple(Chip(t, birth=births.get(t), new=changed and t == new_token) for t in toks)
        rows.append(WordRow(word=word[:LONG_WORD], count=count, chips=chips, changed=changed,
                            truncated=len(word) > LONG_WORD))
    return rows


# ---- WordPiece ------------------------------------------------------------------------------------

def _history_at(history: list[tuple[int, tuple[str, ...]]], step: int) -> tuple[tuple[str, ...], bool]:
    pieces: tuple[str, ...] = ()
    changed = False
    for at, shown in history:
        if at > step:
            break
        pieces, changed = shown, at == step and at > 0
    return pieces, changed


def wordpiece_candidates(trained: Trained, step: int) -> list[Candidate]:
    """The pairs step `step` was chosen from (at step 0: those the first merge will be chosen
    from), best first; [] past the steps whose runners-up were kept."""
    cands = trained.story.candidates
    index = max(step - 1, 0)
    return cands[index][:PAIRS] if index < len(cands) else []


def wordpiece_frame(trained: Trained, step: int, *, words: int = 14) -> FamilyFrame:
    step = clamp(trained, step)
    births = _births(trained)
    trace = trained.model.trace
    merge = trace[step - 1] if step >= 1 else None
    if merge is None:
        card = _card(["<span>Before the first merge: every word is its characters, "
                      "all but the first with the continuation prefix ##.</span>"])
        facts = [f"{trained.curve.total_tokens[0]:,} tokens in the corpus"]
    else:
        card = _card([_chip(merge.left, births.get(merge.left)), '<span class="bpe-op">+</span>',
                      _chip(merge.right, births.get(merge.right)), '<span class="bpe-op">→</span>',
                      _chip(merge.token, births.get(merge.token), new=True)])
        facts = [
            f"step {step:,} of {trained.steps:,}",
            f"score = count(ab) / (count(a) · count(b)) = {merge.pair_count:,} / ({merge.left_count:,} · "
            f"{merge.right_count:,}) = {merge.score:.6g}",
            f"{trained.curve.total_tokens[step]:,} tokens in the corpus",
        ]
        if not merge.added:
            facts.append("the token was already in the vocabulary (another pair made it): no new entry")
    shown = trained.top_words[:words]
    pieces = [_history_at(h, step) for h in trained.story.histories[:words]]
    return FamilyFrame(step, trained.steps, card, facts, _rows(shown, pieces, births, merge.token if merge else None))


def score_figure(cands: list[Candidate], *, presenter: bool = False):
    """WordPiece's score chart: the best pairs by score, the chosen one red, counts in the hover."""
    ys = list(range(len(cands)))
    labels = [f"{label(c.left)}  +  {label(c.right)}" for c in cands]
    hover = [
        f"{lab}<br>score = {c.pair_count:,} / ({c.left_count:,} · {c.right_count:,}) = {c.score:.6g}"
        f"<br>count(ab) = {c.pair_count:,}<br>count(a) = {c.left_count:,}<br>count(b) = {c.right_count:,}"
        for lab, c in zip(labels, cands)
    ]
    scores = [c.score for c in cands]
    bar = {"type": "bar", "x": scores, "y": ys, "orientation": "h",
           "marker": {"color": [CHOSEN if i == 0 else OTHER for i in ys]},
           "text": [f"{s:.3g}  ({c.pair_count:,} / {c.left_count:,}·{c.right_count:,})" for s, c in zip(scores, cands)],
           "textposition": "outside", "textangle": 0, "cliponaxis": False,
           "hovertext": hover, "hoverinfo": "text"}
    layout = {
        "title": {"text": "Highest scores at this step: count(ab) / (count(a) · count(b))",
                  "font": chart_font(presenter)},
        "font": chart_font(presenter),
        "height": (34 if presenter else 26) * max(1, len(cands)) + 90,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 30},
        "yaxis": {"tickmode": "array", "tickvals": ys, "ticktext": labels, "autorange": "reversed"},
        "xaxis": {"title": {"text": "score"}, "range": [0, max(scores, default=1) * 1.6]},
        "showlegend": False,
    }
    return figure([bar], layout)


def score_rows(cands: list[Candidate]) -> list[dict]:
    """The score chart as table rows (plain values: a table shows them as text)."""
    return [{"pair": f"{c.left} + {c.right}", "score": c.score, "count(ab)": c.pair_count,
             "count(a)": c.left_count, "count(b)": c.right_count} for c in cands]


# ---- Unigram --------------------------------------------------------------------------------------

def unigram_frame(trained: Trained, step: int, *, words: int = 14) -> FamilyFrame:
    step = clamp(trained, step)
    record = trained.model.trace[step - 1]
    segs = trained.story.segmentations
    now = segs[step - 1][:words] if step - 1 < len(segs) else []
    before = segs[step - 2][:words] if step >= 2 and step - 2 < len(segs) else now
    removed = len(record.removed)
    what = "final cut: the lowest scores go" if record.final else f"{removed:,} pieces pruned"
    card = _card([f"<span>Round {step:,} of {trained.steps:,}: {record.vocab_size_before:,} → "
                  f"{record.vocab_size:,} pieces</span>"])
    facts = [what, f"corpus log-likelihood {record.log_likelihood:,.1f}"]
    if record.dropped:
        facts.append(f"{len(record.dropped):,} pieces dropped by EM (expected count below 0.5)")
    pieces = [(tuple(p), tuple(p) != tuple(b)) for p, b in zip(now, before)]
    return FamilyFrame(step, trained.steps, card, facts, _rows(trained.top_words[:words], pieces, {}, None))


def removed_rows(trained: Trained, step: int) -> tuple[list[dict], int]:
    """The pieces round `step` removed, least loss first (at most REMOVED_SHOWN), and how many in all."""
    record = trained.model.trace[clamp(trained, step) - 1]
    what = "score" if record.final else "loss"
    rows = [{"piece": cap_token(piece), what: value} for piece, value in record.removed[:REMOVED_SHOWN]]
    return rows, len(record.removed)


def rounds_figure(trained: Trained, step: int, *, presenter: bool = False):
    """Vocabulary size and corpus log-likelihood, round by round; the round shown marked."""
    trace = trained.model.trace
    xs = [0, *(r.round for r in trace)]
    sizes = [trace[0].vocab_size_before, *(r.vocab_size for r in trace)] if trace else []
    data = [
        {"type": "scatter", "x": xs, "y": sizes, "name": "vocabulary size (left axis)", "mode": "lines+markers",
         "line": {"color": "#1f77b4", "width": 3}},
        {"type": "scatter", "x": xs[1:], "y": [round(r.log_likelihood, 2) for r in trace],
         "name": "corpus log-likelihood (right axis)", "mode": "lines+markers", "yaxis": "y2",
         "line": {"color": "#ff7f0e", "width": 2, "dash": "dot"}},
    ]
    layout = {
        "title": {"text": "Pruning rounds: the vocabulary shrinks, the likelihood falls a little",
                  "font": chart_font(presenter)},
        "font": chart_font(presenter), "height": 380 if not presenter else 460,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": "round (0: the seed vocabulary)"}, "dtick": 1},
        "yaxis": {"title": {"text": "pieces"}, "rangemode": "tozero"},
        "yaxis2": {"title": {"text": "log-likelihood"}, "overlaying": "y", "side": "right", "showgrid": False},
        "legend": {"orientation": "h", "y": -0.25},
        "shapes": [_vline(step, CHOSEN)],
    }
    return figure(data, layout)


# ---- SuperBPE -------------------------------------------------------------------------------------

def _superbpe_pieces(trained: Trained, chunk: str, step: int) -> tuple[str, ...]:
    """A phase-two piece (byte symbols) after `step` merges: within phase one's pre-tokens up to
    the transition, across them after it."""
    tok = trained.tokenizer
    text = chunk_text(chunk)[:CHUNK_SHOWN]
    if step <= trained.story.transition:
        parts = phase_one_pieces(text, SUPERBPE_PRETOKENIZER)
        return tuple(p for part in parts for p in tok.encode_word(part, limit=step))
    return tuple(tok.encode_word(text, limit=step))


def chunk_text(chunk: str) -> str:
    """A phase-two piece's text (byte symbols read as UTF-8)."""
    return symbols_to_bytes(chunk).decode("utf-8", errors="replace")


def superbpe_pairs(trained: Trained, step: int) -> list[tuple[str, str, int]]:
    pairs = trained.story.top_pairs
    index = max(step - 1, 0)
    return list(pairs[index][:PAIRS]) if index < len(pairs) else []


def superbpe_frame(trained: Trained, step: int, *, words: int = 14) -> FamilyFrame:
    step = clamp(trained, step)
    tok = trained.tokenizer
    births = tok.birth
    story = trained.story
    merge = trained.model.trace[step - 1] if step >= 1 else None
    if merge is None:
        card = _card(["<span>Before the first merge: every byte is a token.</span>"])
        facts = [f"phase one: merges 1 to {story.transition:,} (inside pre-tokens); phase two: the rest, "
                 "across spaces"]
    else:
        card = _card([_chip(merge.left, births.get(merge.left), byte_level=True), '<span class="bpe-op">+</span>',
                      _chip(merge.right, births.get(merge.right), byte_level=True), '<span class="bpe-op">→</span>',
                      _chip(merge.token, births.get(merge.token), byte_level=True, new=True)])
        phase = "phase 1 (inside pre-tokens)" if merge.phase == 1 else "phase 2 (across spaces)"
        facts = [f"step {step:,} of {trained.steps:,}", phase, f"pair count {merge.count:,}",
                 f"{trained.curve.total_tokens[step]:,} tokens in the corpus"]
        if merge.superword:
            facts.append("a superword: the token crosses a space")
        if step == story.transition + 1:
            facts.append("the transition: phase two starts here")
    new_token = merge.token if merge else None
    rows = []
    supers: set[str] = set()
    for (text, count), (chunk, _) in zip(trained.top_words[:words], story.chunks[:words]):
        now = _superbpe_pieces(trained, chunk, step)
        changed = step >= 1 and now != _superbpe_pieces(trained, chunk, step - 1)
        supers.update(t for t in now if is_superword(t))
        chips = tuple(Chip(t, birth=births.get(t), new=changed and t == new_token) for t in now)
        rows.append(WordRow(word=text[:CHUNK_SHOWN], count=count, chips=chips, changed=changed,
                            truncated=len(text) > CHUNK_SHOWN))
    return FamilyFrame(step, trained.steps, card, facts, rows, frozenset(supers))


# ---- shared ---------------------------------------------------------------------------------------

def rows_html(frame: FamilyFrame, *, byte_level: bool = False) -> str:
    """The word rows as chips; a superword chip ringed in gold."""
    lines = []
    for row in frame.rows:
        chips = []
        for chip in row.chips:
            html = chip_html(chip, byte_level=byte_level)
            if chip.token in frame.superwords:
                html = f'<span class="fam-super" title="superword: crosses a space">{html}</span>'
            chips.append(html)
        cls = "bpe-row bpe-changed" if row.changed else "bpe-row"
        mark = "●" if row.changed else ""
        more = '<span class="bpe-more">…</span>' if row.truncated else ""
        lines.append(f'<div class="{cls}"><span class="bpe-mark">{mark}</span><span class="bpe-count">×{row.count:,}'
                     f'</span><span class="bpe-chips">{"".join(chips)}</span>{more}</div>')
    if not lines:
        return '<div class="bpe-rows"><em>No words.</em></div>'
    return '<div class="bpe-rows">' + "".join(lines) + "</div>"


def facts_html(frame: FamilyFrame) -> str:
    return '<div class="fam-facts">' + "".join(f"<span>{escape(f)}</span>" for f in frame.facts) + "</div>"


def _vline(x: float, colour: str, dash: str = "solid") -> dict:
    return {"type": "line", "x0": x, "x1": x, "xref": "x", "y0": 0, "y1": 1, "yref": "paper",
            "line": {"color": colour, "width": 2, "dash": dash}}


def curve_figure(trained: Trained, step: int, *, presenter: bool = False):
    """Corpus tokens after each step, the step marked; SuperBPE's transition as a dashed line."""
    curve = trained.curve
    transition = trained.story.transition if trained.family == "superbpe" else None
    xs = thin_steps(curve.steps, keep=[step] + ([transition] if transition is not None else []))
    unit = "words' tokens (most frequent words)" if trained.family == "unigram" else "tokens in the corpus"
    data = [
        {"type": "scatter", "x": xs, "y": [curve.total_tokens[i] for i in xs], "name": unit, "mode": "lines",
         "line": {"color": "#1f77b4", "width": 3}},
        {"type": "scatter", "x": [step], "y": [curve.total_tokens[min(step, curve.steps)]], "mode": "markers",
         "marker": {"color": CHOSEN, "size": 12}, "showlegend": False, "hoverinfo": "text",
         "hovertext": [f"step {step:,}: {curve.total_tokens[min(step, curve.steps)]:,} tokens"]},
    ]
    shapes = [_vline(step, CHOSEN)]
    annotations = []
    if transition is not None:
        shapes.append(_vline(transition, "#f2b705", "dash"))
        annotations.append({"x": transition, "y": 1, "xref": "x", "yref": "paper", "showarrow": False,
                            "text": f"transition after merge {transition:,}: phase two", "xanchor": "right",
                            "yanchor": "top", "font": {"color": "#9a7400", **chart_font(presenter)},
                            "bgcolor": "rgba(255,255,255,0.85)"})
    what = "round" if trained.family == "unigram" else "step (merges)"
    layout = {
        "title": {"text": plotly_text(f"Compression: {unit} after each {what.split()[0]}"),
                  "font": chart_font(presenter)},
        "font": chart_font(presenter), "height": 360 if not presenter else 440,
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "xaxis": {"title": {"text": what}, "range": [0, max(1, curve.steps)]},
        "yaxis": {"title": {"text": "tokens"}, "rangemode": "tozero"},
        "showlegend": False, "shapes": shapes, "annotations": annotations,
    }
    return figure(data, layout)
