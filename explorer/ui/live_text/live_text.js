// Sends a Streamlit text area's text while someone types in it: `delay` ms after the last input
// (a keystroke, a cut), at once after a paste or a drop, as the "text" event of this component.
// The text area is found by its key (Streamlit marks a keyed element's container with the class
// `st-key-<key>`). One listener on the document serves every watcher, so a text area drawn anew is
// still heard.
// A commit of the text area itself (blur, Ctrl+Enter) still goes its own way: a send after it
// carries the same text, which the server already holds (a cheap run), and cancelling the send
// could leave the server with an older text when the box was edited back to its committed one.
//
// A long paste (`EARLY` characters or more) is sent before it is put in the box. A browser lays out a
// box of a megabyte for most of a second before Streamlit's send (a timer) runs, and it pastes over a
// long selection slower still; sent first, the text is encoded while the browser lays it out. The
// box takes the text once the page's socket has passed it on (`bufferedAmount` back to 0, within
// `HOLD_MS`): a browser hands a long message to its network process piece by piece from the page's
// own thread, which the layout would hold. The script puts the paste in the box itself (a browser's
// own insertion of a long text with many lines takes seconds), which a browser cannot undo: Ctrl+Z
// (or Cmd+Z) right after it puts the box back as it was, and Ctrl+Shift+Z or Ctrl+Y puts it back.

const LIVE = globalThis.__bpeLiveText || (globalThis.__bpeLiveText = { watchers: new Map(), installed: false });

function watcherOf(target) {
  if (!(target instanceof HTMLTextAreaElement)) return null;
  for (const w of LIVE.watchers.values()) {
    if (target.closest(w.selector)) return w;
  }
  return null;
}

// A paste, a drop, an undo or a redo is a whole edit: its text (already the box's value) is sent at
// once. Typing waits for a pause.
const WHOLE_EDITS = new Set(["insertFromPaste", "insertFromDrop", "insertFromPasteAsQuotation", "historyUndo",
  "historyRedo"]);
const EARLY = 100000; // characters
const HOLD_MS = 1000; // the longest a long paste waits for the socket before the box takes it

function onInput(event) {
  const w = watcherOf(event.target);
  if (!w) return;
  const box = event.target;
  clearTimeout(w.timer);
  w.timer = null;
  if (!w.editing) w.undo = null; // an edit of the person's own: the script's undo of a long paste is over
  const send = () => {
    if (box.isConnected) w.api.setTriggerValue("text", box.value);
  };
  const sent = w.early;
  w.early = null;
  if (sent != null && box.value === sent) return; // the long paste, sent before it was put in the box
  if (sent != null || WHOLE_EDITS.has(event.inputType)) {
    queueMicrotask(send);
    return;
  }
  w.timer = setTimeout(() => {
    w.timer = null;
    send();
  }, w.delay);
}

const setValue = (box, value) =>
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set.call(box, value);

// The box takes `value` as the script's edit of `inputType`, the selection at `selection` ([start, end]).
// A browser does not scroll to a script's edit as it does to its own: a caret at the end is scrolled to.
function edit(w, box, value, selection, inputType) {
  setValue(box, value);
  box.setSelectionRange(selection[0], selection[1]);
  if (selection[1] === value.length) box.scrollTop = box.scrollHeight;
  w.editing = true;
  try {
    box.dispatchEvent(new InputEvent("input", { bubbles: true, inputType }));
  } finally {
    w.editing = false;
  }
}

function onPaste(event) {
  const w = watcherOf(event.target);
  const box = event.target;
  if (!w) return;
  if (w.pending) w.pending(); // a long paste still waiting goes in first
  if (!event.clipboardData || box.readOnly || box.disabled) return;
  const pasted = event.clipboardData.getData("text/plain").replace(/\r\n?/g, "\n"); // as a box keeps it
  if (pasted.length < EARLY) return; // the browser pastes it, and its input event sends it
  const old = box.value;
  const [start, end] = [box.selectionStart, box.selectionEnd];
  const next = old.slice(0, start) + pasted + old.slice(end);
  if (box.maxLength >= 0 && next.length > box.maxLength) return;
  event.preventDefault();
  clearTimeout(w.timer);
  w.timer = null;
  w.early = next;
  w.api.setTriggerValue("text", next);
  const until = performance.now() + HOLD_MS;
  // `put` puts the paste in the box: once the socket has passed it on, or at once (`now`) when the person
  // acts on the box meanwhile (a key, a click, another paste), so what they do follows the paste.
  const put = (now = false) => {
    if (w.pending !== put) return;
    if (!now && LIVE.socket && LIVE.socket.bufferedAmount > 0 && performance.now() < until) {
      setTimeout(put, 5);
      return;
    }
    w.pending = null;
    const target = box.isConnected ? box : document.querySelector(`${w.selector} textarea`); // drawn anew
    if (!target) {
      w.early = null;
      return;
    }
    const value = target.value.slice(0, start) + pasted + target.value.slice(end);
    w.undo = { before: target.value, after: value, selection: [start, end] };
    edit(w, target, value, [start + pasted.length, start + pasted.length], "insertFromPaste");
  };
  w.pending = put;
  // Timers of the same delay run in the order they were set: the first check runs after Streamlit's send.
  setTimeout(put, 0);
}

const PLATFORM = globalThis.navigator?.userAgentData?.platform || globalThis.navigator?.platform || "";
const IS_MAC = /Mac|iPhone|iPad/.test(PLATFORM);

// A key on the box while a long paste waits puts the paste in first; the keys of undo and redo (Cmd on
// a Mac, Ctrl elsewhere; by the key's place on non-Latin layouts) undo and redo the long paste the
// script put in the box, until the person edits the box otherwise (the browser's own cover the rest).
function onKeyDown(event) {
  const w = watcherOf(event.target);
  if (!w) return;
  if (w.pending && !["Control", "Meta", "Shift", "Alt"].includes(event.key)) w.pending(true);
  const command = IS_MAC ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
  if (!w.undo || !command || event.altKey) return;
  const key = /^[a-z]$/i.test(event.key) ? event.key.toLowerCase()
    : ({ KeyZ: "z", KeyY: "y" })[event.code] || "";
  const undo = key === "z" && !event.shiftKey;
  const redo = (key === "z" && event.shiftKey) || (key === "y" && !event.shiftKey && !IS_MAC);
  const box = event.target;
  const { before, after, selection } = w.undo;
  if (undo && box.value === after) {
    event.preventDefault();
    edit(w, box, before, selection, "historyUndo");
  } else if (redo && box.value === before) {
    event.preventDefault();
    const caret = selection[0] + after.length - before.length + (selection[1] - selection[0]);
    edit(w, box, after, [caret, caret], "historyRedo");
  }
}

// A click or any other edit (a drop, a word chosen from an input method) on the box while a long paste
// waits: the paste goes in first.
function putPending(event) {
  const w = watcherOf(event.target);
  if (w && w.pending) w.pending(true);
}

if (!LIVE.installed) {
  // The socket Streamlit sends on, known from its sends: a long paste waits until it has passed the text on.
  if (globalThis.WebSocket) {
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (data) {
      LIVE.socket = this;
      return send.call(this, data);
    };
  }
  document.addEventListener("input", onInput, true);
  document.addEventListener("paste", onPaste, true);
  document.addEventListener("keydown", onKeyDown, true);
  document.addEventListener("mousedown", putPending, true);
  document.addEventListener("beforeinput", putPending, true);
  LIVE.installed = true;
}

let crcTable = null;

// CRC-32 of the text's UTF-16LE bytes: Python's zlib.crc32(text.encode("utf-16-le")).
function crc32(text) {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let crc = -1;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    crc = crcTable[(crc ^ unit) & 0xff] ^ (crc >>> 8);
    crc = crcTable[(crc ^ (unit >>> 8)) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ -1) >>> 0;
}

export default function (component) {
  const { data, parentElement } = component;
  if (!data || !parentElement) return undefined;
  const known = LIVE.watchers.get(data.watch);
  const w = known || { timer: null, early: null, undo: null, pending: null, editing: false };
  w.api = component;
  w.delay = Number(data.delay) || 300;
  w.selector = `.st-key-${CSS.escape(data.watch)}`;
  LIVE.watchers.set(data.watch, w);
  if (!known) {
    // Typed or pasted before this script was in the page (a slow first load): no one heard it, so
    // the box holds a text the server does not know (`data.crc` is the server's). Send it now.
    const box = document.querySelector(`${w.selector} textarea`);
    if (box && typeof data.crc === "number" && crc32(box.value) !== data.crc) {
      w.api.setTriggerValue("text", box.value);
    }
  }
  // Streamlit calls this when the component goes away, and sometimes for a call overtaken by
  // newer data: only a watcher no longer on the page is dropped.
  return () => {
    if (parentElement.isConnected) return;
    clearTimeout(w.timer);
    if (LIVE.watchers.get(data.watch) === w) LIVE.watchers.delete(data.watch);
  };
}
