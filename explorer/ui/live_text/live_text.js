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
  const send = () => {
    if (box.isConnected) w.api.setTriggerValue("text", box.value);
  };
  const sent = w.early ?? null;
  w.early = null;
  if (sent !== null && box.value === sent) return; // the long paste, sent before it was put in the box
  if (sent !== null || WHOLE_EDITS.has(event.inputType)) {
    queueMicrotask(send);
    return;
  }
  w.timer = setTimeout(() => {
    w.timer = null;
    send();
  }, w.delay);
}

const setValue = (box, value) => Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value").set.call(box, value);

// The box takes `value` as an edit of `inputType`, the selection at `selection` ([start, end]), scrolled
// to about where the selection ends (a script's edit is not scrolled to, as a browser's own is).
function edit(box, value, selection, inputType) {
  setValue(box, value);
  box.setSelectionRange(selection[0], selection[1]);
  const at = value.length ? selection[1] / value.length : 0;
  box.scrollTop = Math.max(0, at * box.scrollHeight - box.clientHeight / 2);
  box.dispatchEvent(new InputEvent("input", { bubbles: true, inputType }));
}

function onPaste(event) {
  const w = watcherOf(event.target);
  const box = event.target;
  if (!w || !event.clipboardData || box.readOnly || box.disabled) return;
  const pasted = event.clipboardData.getData("text/plain").replace(/\r\n?/g, "\n"); // as a box keeps it
  if (pasted.length < EARLY) return; // the browser pastes it, and its input event sends it
  const old = box.value;
  const next = old.slice(0, box.selectionStart) + pasted + old.slice(box.selectionEnd);
  if (box.maxLength >= 0 && next.length > box.maxLength) return;
  event.preventDefault();
  clearTimeout(w.timer);
  w.timer = null;
  w.early = next;
  w.api.setTriggerValue("text", next);
  const until = performance.now() + HOLD_MS;
  // Timers of the same delay run in the order they were set: the first check runs after Streamlit's send.
  const put = () => {
    if (!box.isConnected) return;
    if (LIVE.socket && LIVE.socket.bufferedAmount > 0 && performance.now() < until) {
      setTimeout(put, 5);
      return;
    }
    const now = box.value; // as it was, unless a key was handled in between
    const [start, end] = [box.selectionStart, box.selectionEnd];
    const value = now.slice(0, start) + pasted + now.slice(end);
    w.undo = { before: now, after: value, selection: [start, end] };
    edit(box, value, [start + pasted.length, start + pasted.length], "insertFromPaste");
  };
  setTimeout(put, 0);
}

// Undo and redo of the long paste the script put in the box (the browser's own cover other edits).
function onKeyDown(event) {
  const w = watcherOf(event.target);
  if (!w || !w.undo || !(event.ctrlKey || event.metaKey) || event.altKey) return;
  const key = event.key.toLowerCase();
  const undo = key === "z" && !event.shiftKey;
  const redo = (key === "z" && event.shiftKey) || (key === "y" && !event.shiftKey);
  const box = event.target;
  const { before, after, selection } = w.undo;
  if (undo && box.value === after) {
    event.preventDefault();
    edit(box, before, selection, "historyUndo");
  } else if (redo && box.value === before) {
    event.preventDefault();
    const caret = selection[0] + after.length - before.length + (selection[1] - selection[0]);
    edit(box, after, [caret, caret], "historyRedo");
  }
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
  const w = known || { timer: null, early: null, undo: null };
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
