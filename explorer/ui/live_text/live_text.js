// Sends a Streamlit text area's text while someone types in it: `delay` ms after the last input
// (a keystroke, a cut), at once after a paste or a drop, as the "text" event of this component.
// The text area is found by its key (Streamlit marks a keyed element's container with the class
// `st-key-<key>`). One listener on the document serves every watcher, so a text area drawn anew is
// still heard.
// A commit of the text area itself (blur, Ctrl+Enter) still goes its own way: a send after it
// carries the same text, which the server already holds (a cheap run), and cancelling the send
// could leave the server with an older text when the box was edited back to its committed one.

const LIVE = globalThis.__bpeLiveText || (globalThis.__bpeLiveText = { watchers: new Map(), installed: false });

function watcherOf(target) {
  if (!(target instanceof HTMLTextAreaElement)) return null;
  for (const w of LIVE.watchers.values()) {
    if (target.closest(w.selector)) return w;
  }
  return null;
}

// A paste or a drop is a whole edit: its text (already the box's value) is sent at once. Typing waits
// for a pause.
const WHOLE_EDITS = new Set(["insertFromPaste", "insertFromDrop", "insertFromPasteAsQuotation"]);

function onInput(event) {
  const w = watcherOf(event.target);
  if (!w) return;
  const box = event.target;
  clearTimeout(w.timer);
  w.timer = null;
  const send = () => {
    if (box.isConnected) w.api.setTriggerValue("text", box.value);
  };
  if (WHOLE_EDITS.has(event.inputType)) {
    queueMicrotask(send);
    return;
  }
  w.timer = setTimeout(() => {
    w.timer = null;
    send();
  }, w.delay);
}

if (!LIVE.installed) {
  document.addEventListener("input", onInput, true);
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
  const w = known || { timer: null };
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
