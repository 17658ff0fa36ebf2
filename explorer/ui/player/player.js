// The training animation's player: plays, steps and scrubs frames the server sent for a window of
// steps, and asks for the next window (the "view" event) before the playhead reaches the end of
// what it holds. frame.js, before this file, draws a step (for any family: the texts come in the
// data); nothing here builds HTML from a string.

const players = new WeakMap(); // parentElement -> player state, one per mounted component

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

// ---- drawing one step ------------------------------------------------------------------------

function drawStep(S, step) {
  const w = findWindow(S, step);
  if (!w) return false;
  drawFrame(S, w, step);
  S.shown = step;
  return true;
}

function drawControls(S) {
  const R = S.refs;
  R.root.dataset.playing = String(S.playing);
  R.playText.textContent = S.playing ? "Pause" : "Play"; // the icon follows data-playing (player.css)
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

// The first step the family shows (pruning rounds count from 1, merges from 0).
function firstStep(S) { return S.data.first || 0; }

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
  if (S.step >= S.data.steps) show(S, firstStep(S)); // play again from the start
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
  step = Math.max(firstStep(S), Math.min(S.data.steps, step));
  show(S, step);
  if (tell && !S.waiting) send(S); // when waiting, show() has asked for the frames already
}

// ---- the keyboard: a presentation clicker or the keys themselves -----------------------------
//
// Space plays or pauses, the left and right arrows step, Home and End go to the first and last
// step; in presenter mode Page Up and Page Down step too (what most clickers send). The page's
// other controls keep their keys: nothing happens while the focus is in a text box, a select, a
// slider or any other widget, and a focused button keeps space and Enter for itself.

const STEP_KEYS = { ArrowLeft: -1, ArrowRight: 1 };
const CLICKER_KEYS = { PageUp: -1, PageDown: 1 };
const WIDGETS = "input, textarea, select, [contenteditable]:not([contenteditable=false]), [role=textbox], "
  + "[role=combobox], [role=slider], [role=spinbutton], [role=listbox], [role=option], [role=radio], "
  + "[role=checkbox], [role=switch], [role=tab], [role=menu], [role=menuitem], [role=grid], [role=gridcell]";

function keyAction(S, e) {
  const key = e.key;
  if (key === " " || key === "Spacebar") return "play";
  if (key in STEP_KEYS) return STEP_KEYS[key];
  if (key in CLICKER_KEYS && S.data.presenter) return CLICKER_KEYS[key];
  if (key === "Home") return "first";
  if (key === "End") return "last";
  return null;
}

// Whether the key is the player's: not while another control has the focus (see above).
function forPlayer(S, e, action) {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || S.dead || !S.refs.root.isConnected) return false;
  const target = e.composedPath()[0];
  if (!(target instanceof Element)) return true;
  if (target.closest(WIDGETS)) return target === S.refs.scrub && action === "play"; // the slider's keys are its own
  if (target.closest("button, [role=button]")) return action !== "play" && e.key !== "Enter";
  return true;
}

function onKey(S, e) {
  const action = keyAction(S, e);
  if (action === null || !forPlayer(S, e, action)) return;
  e.preventDefault(); // no scrolling the page as well
  if (action === "play") {
    if (e.repeat) return;
    if (S.playing) {
      pause(S);
      send(S);
    } else play(S);
    return;
  }
  const to = action === "first" ? firstStep(S) : action === "last" ? S.data.steps : S.step + action;
  moveTo(S, to, { tell: false });
  // A key held down steps many times: the server hears of the step it stops on.
  clearTimeout(S.keyTimer);
  S.keyTimer = setTimeout(() => { if (!S.waiting && !S.dead) send(S); }, 250);
}

// ---- setting up ------------------------------------------------------------------------------

function setup(parentElement, api) {
  const q = (sel) => parentElement.querySelector(sel);
  const R = {
    root: q(".bp-root"), play: q(".bp-play"), playText: q(".bp-play-text"), back: q(".bp-back"),
    forward: q(".bp-forward"), speed: q(".bp-speed"),
    status: q(".bp-status"), scrub: q(".bp-scrub"), scrubText: q(".bp-scrub-text"), title: q(".bp-title"),
    card: q(".bp-card"), measures: q(".bp-measures"), rowsTitle: q(".bp-rows-title"), rows: q(".bp-rows"),
    barsTitle: q(".bp-bars-title"), bars: q(".bp-bars"),
  };
  const S = { refs: R, api, windows: [], step: 0, shown: -1, playing: false, speed: 1, nextAt: 0, raf: null,
    asked: null, askedAt: 0, waiting: false, id: null, seq: null, data: null, dead: false, keyTimer: null };
  S.onKey = (e) => onKey(S, e);
  document.addEventListener("keydown", S.onKey);
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
  drawLabels(S);
  if (fresh || S.seq !== data.seq) {
    // A new training, a first mount, or the server moved the player (a link, a "jump to step").
    S.id = data.id;
    S.seq = data.seq;
    S.speed = data.speed;
    S.asked = null;
    pause(S);
    show(S, Math.max(firstStep(S), Math.min(data.steps, data.step)));
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
    clearTimeout(S.keyTimer);
    document.removeEventListener("keydown", S.onKey);
    players.delete(parentElement);
  };
}
