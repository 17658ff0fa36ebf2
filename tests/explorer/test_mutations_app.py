"""Bugs planted in the app that the other tests let through (issue 20, "The tests"), one test each.

- the worker's time limit must run from the start of the training, not restart at every message
  the worker sends (a training sends progress every 0.1 s, so a restarting limit never fires);
- a link asking for exactly the most the app allows gets it, with no notice (`>` not `>=`);
- `md_escape` escapes a backtick and `|` (a code span, a table), checked with a real Markdown
  renderer, and the page checker (`plain_text.constructs`) reports outside text in a code span.
"""
from __future__ import annotations

import string
import time

import pytest
from plain_text import OUTSIDE, constructs, shown

from bpe_core import Settings
from explorer.data.tasks import time_message
from explorer.data.training import TrainRequest
from explorer.data.worker import WorkerPool
from explorer.display.render import md_escape
from explorer.ui import link, state
from sample_corpora import load_corpus
from tests.conftest import require


def finish(job, seconds: float):
    """Wait for the job, a second at a time: each wait keeps it watched (the pool stops a job
    nobody has waited for in `abandon_after` seconds)."""
    deadline = time.monotonic() + seconds
    while not job.wait(1.0):
        assert time.monotonic() < deadline, f"the job did not finish in {seconds} s (stage {job.stage})"
    return job


# ---- the worker's time limit ---------------------------------------------------------------------

def test_the_time_limit_runs_from_the_start_while_progress_keeps_coming():
    """Bytes mode on the 5 MB English sample, 50,000 merges: 5 s of training or more that reports
    progress several times a second, so a limit restarted at each message would let it finish."""
    pool = WorkerPool(workers=1, time_limit=1.5)
    request = TrainRequest(Settings(mode="bytes"), "merges", state.MAX_APP_MERGES)
    job = finish(pool.train("key", [load_corpus("english")], request), 60.0)
    assert job.count_total > 0  # the worker did send progress before the limit
    assert (job.stage, job.result) == ("failed", None)
    assert job.error == time_message(1.5)
    assert job.lasting and pool.running == 0


# ---- a link at the app's limits --------------------------------------------------------------------

@pytest.mark.parametrize(("name", "key"), [("merges", state.W_MERGES), ("vocab", state.W_VOCAB),
                                           ("transition", state.W_TRANSITION)])
def test_a_link_asking_for_exactly_the_most_gets_it_without_a_notice(name, key):
    most = state.MAX_APP_MERGES
    values, problems = link.values_from_url({name: str(most)}, samples=set())
    assert (values[key], problems) == (most, [])
    values, problems = link.values_from_url({name: str(most + 1)}, samples=set())
    assert values[key] == most
    assert len(problems) == 1 and problems[0].startswith(f"{name}={most + 1} in the link is more than")


def test_the_minimum_count_may_be_exactly_its_largest():
    values, problems = link.values_from_url({"minfreq": str(state.MAX_INPUT)}, samples=set())
    assert (values, problems) == ({state.W_MINFREQ: state.MAX_INPUT}, [])
    values, problems = link.values_from_url({"minfreq": str(state.MAX_INPUT + 1)}, samples=set())
    assert state.W_MINFREQ not in values and len(problems) == 1


# ---- md_escape: backticks and pipes ------------------------------------------------------------------

def test_md_escape_escapes_a_backtick_and_a_pipe():
    assert md_escape("a|b") == "a\\|b"
    assert md_escape("| a | b |") == "\\| a \\| b \\|"
    assert md_escape("`code`") == "\\`code\\`"
    assert md_escape("``x``") == "\\`\\`x\\`\\`"


@pytest.mark.parametrize("char", list(string.punctuation))
def test_md_escape_escapes_every_ascii_punctuation_mark(char):
    escaped = md_escape(f"a{char}b")
    assert escaped.replace("\u2060", "") == f"a\\{char}b"
    assert shown(escaped) == f"a{char}b"


@pytest.mark.parametrize(("text", "tag"), [
    ("`code` and `x|y`", "<code>"),
    ("a | b\n--- | ---\nc | d", "<table>"),  # two lines, each escaped: still no table
    ("| a | b |\n|---|---|\n| c | d |", "<table>"),
])
def test_escaped_text_renders_as_its_own_characters(text, tag):
    """A CommonMark renderer with GFM tables (markdown-it, which Streamlit's `rich` brings)
    draws no code span or table from escaped outside text, line by line."""
    markdown_it = require("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark").enable("table")
    escaped = "\n".join(md_escape(line) for line in text.split("\n"))
    assert tag in renderer.render(text)  # the raw text would draw one
    html = renderer.render(escaped)
    assert tag not in html
    assert html == f"<p>{text}</p>\n"  # one paragraph of the text's own characters


# ---- the page checker and code spans ------------------------------------------------------------------

def test_the_checker_keeps_the_apps_own_code_spans():
    assert constructs("Load it here or with `python -m bpe_core`.") == []
    assert constructs("With `</w>`, **st**`</w>` can only end a word") == []
    assert constructs(md_escape(OUTSIDE)) == []
    assert constructs(md_escape("a `b` c ```")) == []


def test_the_checker_reports_outside_text_in_a_code_span():
    # md_escape(OUTSIDE) as it would be if backticks were left alone: a code span holding escapes.
    unescaped_backticks = md_escape(OUTSIDE).replace("\\`", "`")
    assert "`c\\*de`" in unescaped_backticks
    assert constructs(unescaped_backticks) == ["`c\\*de`"]
    assert constructs("see `a\\_b` here") == ["`a\\_b`"]
    assert constructs("x\u2060`y`") == [] and constructs("`www\u2060.x`") == ["`www\u2060.x`"]


def test_the_checker_reports_a_stray_backtick():
    assert constructs("one ` stray") == ["`"]
    assert constructs("`own` and a stray ` here") == ["`"]
    assert constructs(md_escape("a ` b").replace("\\`", "`")) == ["`"]
