// The training animation's player: plays, steps and scrubs frames the server sent for a window of
// steps, and asks for the next window (the "view" event) before the playhead reaches the end of
// what it holds. Every corpus string reaches the page as textContent or a title property, never as
// HTML: the markup below is built with createElement only.

const players = new WeakMap(); // parentElement -> player state, one per mounted component
const NBSP = "\u200b";

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

// A chip; `coloured` says whether the token counts as made by a merge at this point.
function chip(tok, { isNew = false, coloured = true } = {}) {
  const c = el("span", "bpe-chip");
  const birth = tok[1];
  if (birth === null || birth === undefined || !coloured) c.classList.add("bpe-base");
  else c.style.background = `hsl(${hue(birth)},75%,86%)`;
  if (isNew) c.classList.add("bpe-new");
  const made = birth === null || birth === undefined ? "base symbol" : `made at step ${birth + 1}`;
  c.title = `token '${tokenText(tok)}' · ${made}`;
  tokenBody(c, tok);
  return c;
}

// ---- windows of frames -----------------------------------------------------------------------

function findWindow(S, step) {
  for (let i = S.windows.length - 1; i >= 0; i--) {
    const w = S.windows[i];
    if (w.first <= step && step <= w.last) return w;
  }
  return null;
}

// The last step held without a gap from `step` on (or step - 1 when `step` is not held).
function heldUntil(S, step) {
  let end = step - 1;
  for (let guard = 0; guard < S.windows.length + 1; guard++) {
    const w = findWindow(S, end + 1);
    if (!w) break;
    end = w.last;
  }
  return end;
}

function addWindow(S, win) {
  if (!win || !win.frames) return;
  S.windows = S.windows.filter((w) => !(w.first === win.first && w.last === win.last));
  S.windows.push(win);
  if (S.windows.length > 4) S.windows.shift(); // keep memory bounded: the oldest window goes
}

function wordPieces(word, step) {
  let current = word.h[0];
  for (const entry of word.h) {
    if (entry[0] <= step) current = entry;
    else break;
  }
  return current;
}

// ---- drawing one step ------------------------------------------------------------------------

function drawStep(S, step) {
  const w = findWindow(S, step);
  if (!w) return false;
  const D = S.data;
  const f = w.frames[step - w.first];
  const T = w.tokens;
  const R = S.refs;
  const steps = D.steps;
  R.root.dataset.step = String(step);
  R.scrub.value = String(step);
  R.scrubText.textContent = `Merge step (0 to ${fmt(steps)}): drag, or use the arrow keys, Home and End`;
  R.back.disabled = step <= 0;
  R.forward.disabled = step >= steps;

  // The merge just made.
  R.card.replaceChildren();
  if (f.m) {
    const [l, r, t, count, vocab] = f.m;
    const rank = step - 1;
    R.title.textContent = `Step ${fmt(step)} of ${fmt(steps)}: the merge just made`;
    const merge = el("div", "bpe-merge");
    const part = (i) => chip(T[i], { coloured: T[i][1] !== null && T[i][1] < rank });
    merge.append(part(l), el("span", "bpe-op", "+"), part(r), el("span", "bpe-op", "→"), chip(T[t], { isNew: true }));
    const facts = el("div", "bpe-facts");
    const fact = (bold, after, before = "") => {
      const s = el("span");
      if (before) s.append(before);
      s.append(el("b", "", bold), after);
      return s;
    };
    facts.append(fact(fmt(count), count === 1 ? " time" : " times"), fact(fmt(vocab), "", "vocabulary "));
    R.card.append(merge, facts);
  } else {
    R.title.textContent = `Step 0 of ${fmt(steps)}: before any merge`;
    const p = el("div", "", D.passage ? "The text is split into single symbols." : "Every word is split into single symbols.");
    if (f.p.length) {
      const [l, r, n] = f.p[0];
      p.append(" The first merge will be ", chip(T[l]), " + ", chip(T[r]), ` (${fmt(n)} times).`);
    }
    R.card.append(p);
  }

  // Measures: tokens per word only where words exist.
  R.measures.replaceChildren();
  const measure = (label, value) => {
    const m = el("div", "bp-measure");
    m.append(el("span", "bp-measure-label", label), el("span", "bp-measure-value", value));
    R.measures.append(m);
  };
  measure("Tokens in the corpus", fmt(f.t));
  if (D.words) measure("Tokens per word", fmt2(f.t / D.words));
  if (D.characters) measure(`Tokens per ${D.unit}`, fmt3(f.t / D.characters));

  // The most frequent words, or a passage of the text around this merge.
  R.rows.replaceChildren();
  const newToken = f.m ? f.m[2] : -1;
  if (D.passage) {
    if (f.x) {
      const [start, end, pieces] = f.x;
      R.rowsTitle.textContent = `Where this merge applies: characters ${fmt(start + 1)} to ${fmt(end)} of ${fmt(D.length)}, ` +
        `after ${fmt(step)} merge${step === 1 ? "" : "s"} (outlined: the new token)`;
      const box = el("div", "bp-passage");
      const chips = el("span", "bpe-chips");
      for (const i of pieces) chips.append(chip(T[i], { isNew: i === newToken }));
      box.append(chips);
      R.rows.append(box);
    } else {
      R.rowsTitle.textContent = "";
    }
  } else {
    R.rowsTitle.textContent = `The corpus's most frequent words after ${fmt(step)} merge${step === 1 ? "" : "s"} ` +
      "(● marks a word this merge changed)";
    for (const word of w.words) {
      const [from, pieces] = wordPieces(word, step);
      const changed = step >= 1 && from === step;
      const row = el("div", changed ? "bpe-row bpe-changed" : "bpe-row");
      const mark = el("span", "bpe-mark", changed ? "●" : "");
      if (changed) mark.title = "changed by this merge";
      const chips = el("span", "bpe-chips");
      for (const i of pieces) chips.append(chip(T[i], { isNew: changed && i === newToken }));
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

  // The highest pair counts, the chosen one first and in red.
  R.barsTitle.textContent = step ? "Highest pair counts at this step (red: merged)" : "Highest pair counts (red: merged next)";
  R.bars.replaceChildren();
  const top = f.p.length ? Math.max(...f.p.map((p) => p[2])) : 1;
  f.p.forEach(([l, r, n], i) => {
    const row = el("div", i === 0 ? "bp-bar-row bp-chosen" : "bp-bar-row");
    const label = el("span", "bp-bar-label", `${tokenText(T[l])}  +  ${tokenText(T[r])}`);
    label.title = label.textContent;
    const track = el("span", "bp-bar-track");
    const bar = el("span", "bp-bar");
    bar.style.width = `${Math.max(0.5, (88 * n) / top)}%`;
    track.append(bar, el("span", "bp-bar-count", fmt(n)));
    row.append(label, track);
    R.bars.append(row);
  });
  if (!f.p.length) R.bars.append(el("span", "bp-note", "No pair is left to count."));
  S.shown = step;
  return true;
}

function drawControls(S) {
  const R = S.refs;
  R.root.dataset.playing = String(S.playing);
  R.play.textContent = S.playing ? "⏸ Pause" : "▶ Play";
  R.play.setAttribute("aria-label", S.playing ? "Pause" : "Play");
  R.speed.value = String(S.speed);
  R.status.textContent = S.waiting ? `loading step ${fmt(S.step)}…` : "";
}

// ---- talking to the server -------------------------------------------------------------------

function send(S, extra = {}) {
  S.api.setTriggerValue("view", { step: S.step, playing: S.playing, speed: S.speed, need: null, ...extra });
}

// Ask for frames around `step` unless a request for it is already on its way. A jump (a scrub
// far away) asks for a small window, which comes back fastest; playing asks for a full one ahead.
function need(S, step, jump = true) {
  const now = performance.now();
  if (S.asked !== null && Math.abs(S.asked - step) < S.data.prefetch && now - S.askedAt < 4000) return;
  S.asked = step;
  S.askedAt = now;
  send(S, { need: step, jump });
}

function prefetch(S) {
  const held = heldUntil(S, S.step);
  if (held < S.data.steps && held - S.step < S.data.prefetch) need(S, Math.max(S.step, held - 20), false);
}

// ---- playing ---------------------------------------------------------------------------------

function show(S, step) {
  S.step = step;
  S.waiting = !drawStep(S, step);
  drawControls(S);
  if (S.waiting) need(S, step);
  return !S.waiting;
}

function loop(S) {
  S.raf = null;
  if (!S.playing || S.dead || !S.refs.root.isConnected) return;
  const now = performance.now();
  const interval = 1000 / S.speed;
  if (now >= S.nextAt) {
    const next = S.step + 1;
    if (next > S.data.steps) {
      S.playing = false;
      drawControls(S);
      send(S);
      return;
    }
    if (findWindow(S, next)) {
      // One step a tick, never more: if the page fell behind, the schedule slips instead.
      S.nextAt = now - S.nextAt > interval ? now + interval : S.nextAt + interval;
      show(S, next);
      prefetch(S);
    } else {
      S.waiting = true;
      drawControls(S);
      need(S, next, false);
    }
  }
  S.raf = requestAnimationFrame(() => loop(S));
}

function play(S, { tell = true } = {}) {
  if (S.step >= S.data.steps) show(S, 0); // play again from the start
  S.playing = true;
  S.nextAt = performance.now() + 1000 / S.speed;
  drawControls(S);
  if (tell) send(S);
  prefetch(S);
  if (!S.raf) S.raf = requestAnimationFrame(() => loop(S));
}

function pause(S) {
  S.playing = false;
  if (S.raf) cancelAnimationFrame(S.raf);
  S.raf = null;
  drawControls(S);
}

function moveTo(S, step, { tell = true } = {}) {
  pause(S);
  step = Math.max(0, Math.min(S.data.steps, step));
  show(S, step);
  if (tell && !S.waiting) send(S); // when waiting, show() has asked for the frames already
}

// ---- setting up ------------------------------------------------------------------------------

function setup(parentElement, api) {
  const q = (sel) => parentElement.querySelector(sel);
  const R = {
    root: q(".bp-root"), play: q(".bp-play"), back: q(".bp-back"), forward: q(".bp-forward"), speed: q(".bp-speed"),
    status: q(".bp-status"), scrub: q(".bp-scrub"), scrubText: q(".bp-scrub-text"), title: q(".bp-title"),
    card: q(".bp-card"), measures: q(".bp-measures"), rowsTitle: q(".bp-rows-title"), rows: q(".bp-rows"),
    barsTitle: q(".bp-bars-title"), bars: q(".bp-bars"),
  };
  const S = { refs: R, api, windows: [], step: 0, shown: -1, playing: false, speed: 1, nextAt: 0, raf: null,
    asked: null, askedAt: 0, waiting: false, id: null, seq: null, data: null, dead: false };
  R.play.addEventListener("click", () => (S.playing ? (pause(S), send(S)) : play(S)));
  R.back.addEventListener("click", () => moveTo(S, S.step - 1));
  R.forward.addEventListener("click", () => moveTo(S, S.step + 1));
  R.speed.addEventListener("change", () => {
    S.speed = Number(R.speed.value);
    S.nextAt = performance.now() + 1000 / S.speed;
    send(S);
  });
  // Dragging shows each step at once when its frame is here; the server hears of it on release.
  R.scrub.addEventListener("input", () => moveTo(S, Number(R.scrub.value), { tell: false }));
  R.scrub.addEventListener("change", () => { if (!S.waiting) send(S); });
  return S;
}

export default function (component) {
  const { data, parentElement } = component;
  if (!data || !parentElement) return undefined;
  let S = players.get(parentElement);
  if (!S) {
    S = setup(parentElement, component);
    players.set(parentElement, S);
  }
  S.api = component;
  S.dead = false;
  const fresh = S.id !== data.id;
  if (fresh) S.windows = [];
  S.data = data;
  addWindow(S, data.window);
  S.refs.root.classList.toggle("bp-presenter", Boolean(data.presenter));
  if (S.refs.speed.options.length !== data.speeds.length) {
    S.refs.speed.replaceChildren(...data.speeds.map((v) => {
      const o = el("option", "", String(v));
      o.value = String(v);
      return o;
    }));
  }
  S.refs.scrub.max = String(data.steps);
  if (fresh || S.seq !== data.seq) {
    // A new training, a first mount, or the server moved the player (a link, a "jump to step").
    S.id = data.id;
    S.seq = data.seq;
    S.speed = data.speed;
    S.asked = null;
    pause(S);
    show(S, Math.max(0, Math.min(data.steps, data.step)));
    if (data.playing) play(S, { tell: false });
    else drawControls(S);
  } else if (S.waiting || S.shown !== S.step) {
    show(S, S.step); // the frames it was waiting for may have arrived
    if (S.playing && !S.raf) S.raf = requestAnimationFrame(() => loop(S));
  }
  if (S.asked !== null && findWindow(S, S.asked)) S.asked = null;
  // Streamlit calls this when the component goes away, and sometimes for a call that was
  // overtaken by newer data: only a component no longer on the page is stopped.
  return () => {
    if (parentElement.isConnected) return;
    S.dead = true;
    pause(S);
    players.delete(parentElement);
  };
}
