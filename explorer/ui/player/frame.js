// Drawing one step of the training animation from a window of frames (the format is described in
// explorer/display/frames.py), for any tokenizer family: what differs by family (the texts, the
// facts, the bars) comes in the data, so nothing here knows which family it draws. Every corpus
// string reaches the page as textContent or a title property, never as HTML: the markup below is
// built with createElement only. player.js (appended after this file) plays the steps.

const NBSP = "\u200b";
// Left-to-right isolate (LRI ... PDI) around a token in plain text (a title): the text around it
// keeps its order whatever direction the token's letters have, as an isolated span's does.
const LRI = "\u2066";
const PDI = "\u2069";

function fmt(n) { return Number(n).toLocaleString("en-US"); }
function fmt2(n) { return Number(n).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }); }
function fmt3(n) { return Number(n).toLocaleString("en-US", { minimumFractionDigits: 3, maximumFractionDigits: 3 }); }
function hue(rank) { return (rank * 137 + 200) % 360; }
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// A label's `{name}` filled in from `values` (the step, its plural "s", a count); the rest kept.
function fill(template, values) {
  return String(template || "").replace(/\{(\w+)\}/g, (all, name) => (name in values ? String(values[name]) : all));
}

// ---- tokens and chips ------------------------------------------------------------------------

function tokenText(tok) {
  const shown = tok[0];
  return typeof shown === "string" ? shown : shown.map((s) => s[1]).join("");
}

function tokenBody(parent, tok) {
  const shown = tok[0];
  if (typeof shown === "string") {
    parent.appendChild(document.createTextNode(shown || NBSP));
    return;
  }
  for (const [kind, text] of shown) {
    if (kind === "text") parent.appendChild(document.createTextNode(text));
    else parent.appendChild(el("span", "bpe-" + kind, text));
  }
}

// A chip; `coloured` says whether the token counts as made by a merge at this point. A token the
// family marks (its table entry's third field, e.g. "superword") is ringed and says so in its title.
function chip(L, tok, { isNew = false, coloured = true } = {}) {
  const c = el("span", "bpe-chip");
  const birth = tok[1];
  if (birth === null || birth === undefined || !coloured) c.classList.add("bpe-base");
  else c.style.background = `hsl(${hue(birth)},75%,86%)`;
  if (isNew) c.classList.add("bpe-new");
  const made = birth === null || birth === undefined ? (L.base || "base symbol") : `made at step ${birth + 1}`;
  c.title = `token '${LRI}${tokenText(tok)}${PDI}' · ${made}`;
  if (tok[2]) {
    c.classList.add("bp-marked");
    c.title += ` · ${tok[2]}`;
  }
  tokenBody(c, tok);
  return c;
}

// A frame's bars as [label, value, shown]: pair counts ("p") or any bars ("b").
function barsOf(f) {
  if (f.b) return f.b;
  return (f.p || []).map(([l, r, n]) => [[l, r], n, fmt(n)]);
}

// A bar's label: a pair's tokens, each an isolated span drawn as its chip's text is, or plain text.
function barLabel(T, label) {
  const text = el("span", "bp-bar-label");
  if (!Array.isArray(label)) {
    text.append(el("span", "bp-bar-token", String(label)));
    text.title = LRI + String(label) + PDI;
    return text;
  }
  label.forEach((i, at) => {
    if (at) text.append(el("span", "bp-bar-op", "  +  "));
    const token = el("span", "bp-bar-token");
    tokenBody(token, T[i]);
    text.append(token);
  });
  text.title = label.map((i) => LRI + tokenText(T[i]) + PDI).join("  +  ");
  return text;
}

// ---- drawing one step ------------------------------------------------------------------------

function drawCard(R, L, T, f, step, values) {
  R.card.replaceChildren();
  R.title.textContent = f.h || fill(f.m ? L.title : L.start_title, values);
  if (f.m) {
    const [l, r, t] = f.m;
    const rank = step - 1;
    const merge = el("div", "bpe-merge");
    const part = (i) => chip(L, T[i], { coloured: T[i][1] !== null && T[i][1] < rank });
    merge.append(part(l), el("span", "bpe-op", "+"), part(r), el("span", "bpe-op", "→"), chip(L, T[t], { isNew: true }));
    R.card.append(merge);
  } else if (L.start) {
    const p = el("div", "", L.start);
    const next = barsOf(f)[0];
    if (next && L.first_merge && Array.isArray(next[0]) && next[0].length === 2) {
      const [before, after] = L.first_merge.split("{pair}");
      p.append(before, chip(L, T[next[0][0]]), " + ", chip(L, T[next[0][1]]), fill(after, { value: next[2] }));
    }
    R.card.append(p);
  }
  if (f.c && f.c.length) {
    const row = el("div", "bp-card-chips");
    if (L.chips) row.append(el("span", "bp-card-chips-label", L.chips));
    const chips = el("span", "bpe-chips");
    for (const i of f.c) chips.append(chip(L, T[i]));
    row.append(chips);
    R.card.append(row);
  }
  const facts = el("div", "bpe-facts");
  if (f.m && f.m.length >= 5) {
    const [, , , count, vocab] = f.m;
    const fact = (bold, after, before = "") => {
      const s = el("span");
      if (before) s.append(before);
      s.append(el("b", "", bold), after);
      return s;
    };
    facts.append(fact(fmt(count), count === 1 ? " time" : " times"), fact(fmt(vocab), "", "vocabulary "));
  }
  for (const text of f.f || []) facts.append(el("span", "bp-fact", text));
  if (facts.childNodes.length) R.card.append(facts);
}

function drawMeasures(R, D, L, f) {
  R.measures.replaceChildren();
  const measure = (label, value) => {
    const m = el("div", "bp-measure");
    m.append(el("span", "bp-measure-label", label), el("span", "bp-measure-value", value));
    R.measures.append(m);
  };
  measure(L.tokens || "Tokens in the corpus", fmt(f.t));
  if (D.words) measure("Tokens per word", fmt2(f.t / D.words)); // only where words exist
  if (D.characters) measure(`Tokens per ${D.unit}`, fmt3(f.t / D.characters));
}

// The most frequent words (their histories), or a passage of the text around this merge.
function drawRows(R, D, L, w, f, step, values) {
  R.rows.replaceChildren();
  const T = w.tokens;
  const newToken = f.m ? f.m[2] : -1;
  if (D.passage) {
    if (!f.x) {
      R.rowsTitle.textContent = "";
      return;
    }
    const [start, end, pieces] = f.x;
    R.rowsTitle.textContent = fill(L.passage, { ...values, start: fmt(start + 1), end: fmt(end), length: fmt(D.length) });
    const box = el("div", "bp-passage");
    const chips = el("span", "bpe-chips");
    for (const i of pieces) chips.append(chip(L, T[i], { isNew: i === newToken }));
    box.append(chips);
    R.rows.append(box);
    return;
  }
  R.rowsTitle.textContent = fill(L.rows, values);
  const first = D.first || 0;
  for (const word of w.words) {
    const [from, pieces] = piecesAt(word, step);
    const changed = step > first && from === step;
    const row = el("div", changed ? "bpe-row bpe-changed" : "bpe-row");
    const mark = el("span", "bpe-mark", changed ? "●" : "");
    if (changed) mark.title = L.changed || "changed at this step";
    const chips = el("span", "bpe-chips");
    for (const i of pieces) chips.append(chip(L, T[i], { isNew: changed && i === newToken }));
    row.append(mark, el("span", "bpe-count", "×" + fmt(word.n)), chips);
    if (word.cut) {
      const more = el("span", "bpe-more", "…");
      more.title = "only the start of this long piece is shown";
      row.append(more);
    }
    R.rows.append(row);
  }
  if (!w.words.length) R.rows.append(el("em", "", "No words."));
}

// The bars, the chosen one first and in red; widths by size (a negative score by its magnitude).
function drawBars(R, L, T, f) {
  const bars = barsOf(f);
  R.barsTitle.textContent = f.bt || (f.m || !L.start_bars ? L.bars : L.start_bars) || "";
  R.bars.replaceChildren();
  const top = Math.max(...bars.map((b) => Math.abs(b[1])), 0) || 1;
  // The longest bar leaves room beside it for the longest value text (about 0.55em a character),
  // so a value is never squeezed into two lines and every bar keeps its proportion.
  const longest = Math.max(...bars.map((b) => String(b[2]).length), 0);
  const room = `(100% - ${(0.55 * longest + 1).toFixed(2)}em)`;
  bars.forEach(([label, value, shown], i) => {
    const row = el("div", i === 0 ? "bp-bar-row bp-chosen" : "bp-bar-row");
    const text = barLabel(T, label);
    const track = el("span", "bp-bar-track");
    const bar = el("span", "bp-bar");
    bar.style.width = `max(2px, calc(${room} * ${(Math.abs(value) / top).toFixed(4)}))`;
    track.append(bar, el("span", "bp-bar-count", String(shown)));
    row.append(text, track);
    R.bars.append(row);
  });
  if (!bars.length) R.bars.append(el("span", "bp-note", L.no_bars || ""));
}

function piecesAt(word, step) {
  let current = word.h[0];
  for (const entry of word.h) {
    if (entry[0] <= step) current = entry;
    else break;
  }
  return current;
}

// Draw `step` from the window that holds it; false when no window does.
function drawFrame(S, w, step) {
  const D = S.data;
  const L = D.labels || {};
  const f = w.frames[step - w.first];
  const R = S.refs;
  const values = { step: fmt(step), steps: fmt(D.steps), s: step === 1 ? "" : "s" };
  R.root.dataset.step = String(step);
  R.scrub.value = String(step);
  R.back.disabled = step <= (D.first || 0);
  R.forward.disabled = step >= D.steps;
  drawCard(R, L, w.tokens, f, step, values);
  drawMeasures(R, D, L, f);
  drawRows(R, D, L, w, f, step, values);
  drawBars(R, L, w.tokens, f);
}

// The texts that stay the same for a training: the scrub's label, the buttons' titles.
function drawLabels(S) {
  const D = S.data;
  const L = D.labels || {};
  const R = S.refs;
  R.scrubText.textContent = L.scrub || "Step";
  R.back.title = `${L.back || "One step back"} (left arrow)`;
  R.forward.title = `${L.forward || "One step forward"} (right arrow)`;
  R.play.title = "Play or pause (space)";
  R.scrub.min = String(D.first || 0);
  R.scrub.max = String(D.steps);
}
