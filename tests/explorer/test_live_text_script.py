"""The Tokenize text area's watcher script (explorer/ui/live_text/live_text.js), run in Node with a
stand-in page: a text typed or pasted before the script was in the page reaches the server when the
watcher starts, and nothing is sent when the box holds the server's text.

A browser cannot be slowed down reliably enough to paste before a component's script runs, so the
script itself is run here; the browser test of typing is tests/browser/test_tokenize_in_browser.py.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from explorer.ui.live_text import box_crc

SCRIPT = Path(__file__).resolve().parents[2] / "explorer" / "ui" / "live_text" / "live_text.js"

# A stand-in page: one text area under the watched key's container; the watcher's events recorded.
HARNESS = """
const box = { value: process.argv[2], closest: () => true };
globalThis.document = {
  addEventListener: () => {},
  querySelector: (selector) => (selector === ".st-key-tokenize_text textarea" ? box : null),
};
globalThis.HTMLTextAreaElement = function () {};
globalThis.CSS = { escape: (s) => s };
const sent = [];
const { default: watch } = await import(process.argv[4]);
const component = (crc) => ({
  data: { watch: "tokenize_text", delay: 300, crc },
  parentElement: { isConnected: true },
  setTriggerValue: (name, value) => sent.push([name, value]),
});
watch(component(Number(process.argv[3])));  // the watcher starts
watch(component(Number(process.argv[3])));  // a later run draws it again
console.log(JSON.stringify(sent));
"""


def run_watcher(box_text: str, server_text: str, tmp_path: Path) -> list[list[str]]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS, encoding="utf-8")
    done = subprocess.run([node, str(harness), box_text, str(box_crc(server_text)), SCRIPT.as_uri()],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("typed", ["hello", "naïve 日本語 😀\nline two", "The quick brown fox. " * 5000])
def test_a_text_typed_before_the_watcher_listened_is_sent_when_it_starts(typed: str, tmp_path: Path) -> None:
    assert run_watcher(typed, "The text the page opened with.", tmp_path) == [["text", typed]]


@pytest.mark.parametrize("text", ["", "hello", "naïve 日本語 😀\nline two", "The quick brown fox. " * 5000])
def test_nothing_is_sent_when_the_box_holds_the_servers_text(text: str, tmp_path: Path) -> None:
    assert run_watcher(text, text, tmp_path) == []


def test_line_ends_count_as_the_browser_keeps_them(tmp_path: Path) -> None:
    """A text area turns "\\r\\n" into "\\n": a link's CRLF text is not sent back as a change."""
    assert run_watcher("one\ntwo\nthree", "one\r\ntwo\rthree", tmp_path) == []


# A stand-in page for a paste: the box's value and caret, the events the script hears and what it
# does, in order (`argv`: the box's text, its selection, the pasted text as a piece and a repeat count).
PASTE_HARNESS = """
const [text, start, end] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const pasted = process.argv[5].repeat(Number(process.argv[6])); // a long text exceeds one argument's limit
const listeners = {};
const log = [];
globalThis.document = { addEventListener: (type, fn) => { listeners[type] = fn; }, querySelector: () => null };
globalThis.CSS = { escape: (s) => s };
globalThis.InputEvent = class { constructor(type, init) { Object.assign(this, init, { type }); } };
function TextArea() {}
let value = text;
Object.defineProperty(TextArea.prototype, "value", {
  get() { return value; }, set(v) { value = v; log.push(["box", v.length]); }, configurable: true });
globalThis.HTMLTextAreaElement = TextArea;
const box = Object.assign(new TextArea(), {
  selectionStart: start, selectionEnd: end, maxLength: -1, isConnected: true, closest: () => true,
  scrollTop: 0, scrollHeight: 0, clientHeight: 0,
  setSelectionRange(a, b) { this.selectionStart = a; this.selectionEnd = b; log.push(["caret", a, b]); },
  dispatchEvent(event) {
    log.push(["input", event.inputType]);
    listeners.input({ target: box, inputType: event.inputType });
  },
});
// The page's socket: what is sent stays buffered for `argv[8]` ms ("none": nothing is sent on a socket).
globalThis.WebSocket = class {
  constructor() { this.bufferedAmount = 0; }
  send(data) { this.bufferedAmount = data.length; }
};
const socket = new WebSocket();
const drain = process.argv[8];
const { default: watch } = await import(process.argv[7]);
watch({ data: { watch: "tokenize_text", delay: 300, crc: null }, parentElement: { isConnected: true },
        setTriggerValue: (name, v) => {
          log.push(["sent", v.length]);
          if (drain === "none") return;
          socket.send(v);
          setTimeout(() => { socket.bufferedAmount = 0; log.push(["drained"]); }, Number(drain));
        } });
// Until the script has nothing left to do: no paste waiting to go in, nothing held by the socket.
const busy = () => [...globalThis.__bpeLiveText.watchers.values()].some((w) => w.pending) || socket.bufferedAmount > 0;
const settle = async () => {
  do await new Promise((done) => setTimeout(done, 10)); while (busy());
};
let prevented = false;
listeners.paste({ target: box, clipboardData: { getData: () => pasted }, preventDefault() { prevented = true; } });
log.push(["pasted", prevented]);
await settle();
const key = (k, shift) => {
  let kept = false;
  listeners.keydown({ target: box, key: k, ctrlKey: true, metaKey: false, altKey: false, shiftKey: shift,
                      preventDefault() { kept = true; } });
  log.push(["key", k, shift, kept]);
};
key("z", false);
await settle();
log.push(["undone", value === text]);
key("z", true);
await settle();
log.push(["redone", value.length]);
console.log(JSON.stringify(log));
"""


def run_paste(text: str, selection: tuple[int, int], pasted: tuple[str, int], tmp_path: Path,
              drain: str = "none") -> list[list]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    harness = tmp_path / "paste.mjs"
    harness.write_text(PASTE_HARNESS, encoding="utf-8")
    done = subprocess.run([node, str(harness), text, str(selection[0]), str(selection[1]), pasted[0], str(pasted[1]),
                           SCRIPT.as_uri(), drain],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_long_paste_is_sent_before_the_box_takes_it_and_undoes_as_one_edit(tmp_path: Path) -> None:
    """The text is sent in the paste's own task, before the box holds it (the browser would lay the box
    out first); the box then takes it with the caret after it, and its input event sends nothing more.
    Ctrl+Z puts the box back and sends that; Ctrl+Shift+Z puts the paste back and sends it."""
    before, pasted = "start|end", "word " * 30_000  # 150,000 characters replace the "|"
    after = len(before) - 1 + len(pasted)
    assert run_paste(before, (5, 6), ("word ", 30_000), tmp_path) == [
        ["sent", after], ["pasted", True],  # the paste's task: sent, the browser's own paste stopped
        ["box", after], ["caret", 5 + len(pasted), 5 + len(pasted)], ["input", "insertFromPaste"],
        ["box", len(before)], ["caret", 5, 6], ["input", "historyUndo"], ["key", "z", False, True],
        ["sent", len(before)], ["undone", True],
        ["box", after], ["caret", 5 + len(pasted), 5 + len(pasted)], ["input", "historyRedo"], ["key", "z", True, True],
        ["sent", after], ["redone", after]]


def test_a_short_paste_is_left_to_the_browser(tmp_path: Path) -> None:
    """Under 100,000 characters the browser pastes (its own undo) and the input event that follows sends the
    text; the keys then reach the browser's own undo."""
    assert run_paste("start|end", (5, 6), ("a few words", 1), tmp_path) == [
        ["pasted", False], ["key", "z", False, False], ["undone", True], ["key", "z", True, False],
        ["redone", len("start|end")]]


def test_a_long_paste_waits_for_the_socket_to_pass_the_text_on_before_the_box_takes_it(tmp_path: Path) -> None:
    """The browser's layout of the long text would hold the page's thread, which hands the message to the
    network piece by piece: the box takes the text only once the socket's buffer is empty."""
    log = run_paste("", (0, 0), ("word ", 30_000), tmp_path, drain="40")
    assert log[:5] == [["sent", 150_000], ["pasted", True], ["drained"], ["box", 150_000],
                       ["caret", 150_000, 150_000]]


# Steps after a long paste into "start|end" (the "|" selected), on a stand-in page whose socket holds what
# is sent for 200 ms: "key:K:CODE" a key with Ctrl ("key:a" a plain key), "type" a person's own edit (the
# box changed and its input event), "wait" until the script has nothing left to do. Logs as above.
STEPS_HARNESS = PASTE_HARNESS.split("let prevented")[0] + """
listeners.paste({ target: box, clipboardData: { getData: () => pasted }, preventDefault() {} });
for (const step of JSON.parse(process.argv[9])) {
  const [what, k, code] = step.split(":");
  if (what === "wait") await settle();
  if (what === "type") {
    value = value + "!";
    listeners.input({ target: box, inputType: "insertText" });
    log.push(["typed"]);
  }
  if (what === "key") {
    let kept = false;
    listeners.keydown({ target: box, key: k, code: code || "", ctrlKey: k !== "a", metaKey: false, altKey: false,
                        shiftKey: false, preventDefault() { kept = true; } });
    log.push(["key", k, kept]);
  }
}
await settle();
console.log(JSON.stringify(log));
"""


def run_steps(steps: list[str], tmp_path: Path) -> list[list]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed")
    harness = tmp_path / "steps.mjs"
    harness.write_text(STEPS_HARNESS, encoding="utf-8")
    done = subprocess.run([node, str(harness), "start|end", "5", "6", "word ", "30000", SCRIPT.as_uri(), "200",
                           json.dumps(steps)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [entry for entry in json.loads(done.stdout) if entry[0] in ("box", "key", "typed", "drained")]


def test_a_key_pressed_while_a_long_paste_waits_for_the_socket_follows_the_paste(tmp_path: Path) -> None:
    """The paste goes into the box at once, before the key is handled, not after the socket has drained."""
    assert run_steps(["key:a"], tmp_path)[:3] == [["box", 150_008], ["key", "a", False], ["drained"]]


def test_the_script_undoes_its_paste_only_until_the_person_edits_the_box(tmp_path: Path) -> None:
    """Ctrl+Z undoes the long paste (also on a layout whose Z key types "я"); after the person's own edit the
    keys are the browser's own again."""
    undone = [e for e in run_steps(["wait", "key:я:KeyZ"], tmp_path) if e[0] != "drained"]
    assert undone[-2:] == [["box", 9], ["key", "я", True]]
    kept = [e for e in run_steps(["wait", "type", "key:z"], tmp_path) if e[0] != "drained"]
    assert kept[-2:] == [["typed"], ["key", "z", False]]
