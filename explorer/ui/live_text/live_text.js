// Sends a Streamlit text area's text while someone types in it: `delay` ms after the last input
// (a keystroke, a paste, a cut), as the "text" event of this component. The text area is found by
// its key (Streamlit marks a keyed element's container with the class `st-key-<key>`). One
// listener on the document serves every watcher, so a text area drawn anew is still heard.
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

function onInput(event) {
  const w = watcherOf(event.target);
  if (!w) return;
  const box = event.target;
  clearTimeout(w.timer);
  w.timer = setTimeout(() => {
    w.timer = null;
    if (box.isConnected) w.api.setTriggerValue("text", box.value);
  }, w.delay);
}

if (!LIVE.installed) {
  document.addEventListener("input", onInput, true);
  LIVE.installed = true;
}

export default function (component) {
  const { data, parentElement } = component;
  if (!data || !parentElement) return undefined;
  const w = LIVE.watchers.get(data.watch) || { timer: null };
  w.api = component;
  w.delay = Number(data.delay) || 300;
  w.selector = `.st-key-${CSS.escape(data.watch)}`;
  LIVE.watchers.set(data.watch, w);
  // Streamlit calls this when the component goes away, and sometimes for a call overtaken by
  // newer data: only a watcher no longer on the page is dropped.
  return () => {
    if (parentElement.isConnected) return;
    clearTimeout(w.timer);
    if (LIVE.watchers.get(data.watch) === w) LIVE.watchers.delete(data.watch);
  };
}
