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
