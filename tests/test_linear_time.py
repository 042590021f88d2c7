"""Every parser of markers, records and logs takes time linear in its input (issue 40).

Each case is a parser fed the shape that made it quadratic (a regex tried from every start:
unclosed `<!--`, a run without spaces, many links before a word), at 1x, 4x and 16x. The
times are the best of five, and the slope of log(time) over log(size) must stay well under
quadratic (2): below 1.6. The 1x input takes a fraction of a millisecond or more, so a
loaded machine moves all three alike; the bound leaves room for it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from openclaw_mem.consolidate.progress import last_consolidation
from openclaw_mem.format.chunking import owner_of
from openclaw_mem.format.curated import read_ledger
from openclaw_mem.format.logs import parse_log
from openclaw_mem.format.markdown import (
    core,
    covered_lines,
    ledger_entries,
    line_day,
    sources,
    split_sources,
    strip_comments,
    trailing_comment,
    without_comments,
)
from openclaw_mem.safety.secrets import redact


def _image(text: str) -> None:
    from openclaw_mem.format.chunking import _IMAGE_LINE_RE

    _IMAGE_LINE_RE.search(text)


def _meta(text: str) -> None:
    from openclaw_mem.format.logs import _parse_meta

    _parse_meta(text)


def _cite_links(text: str) -> None:
    from openclaw_mem.format.markdown import SOURCE_LINK_RE

    list(SOURCE_LINK_RE.finditer(text))


MARKER = "<!-- consolidated: memory/2026-01-01.md#L1 "
CASES = {
    # HISTORY.md: markers left open, one marker of a megabyte without a space, records.
    "unclosed markers: covered_lines": (covered_lines, lambda n: MARKER * (40 * n)),
    "unclosed markers: ledger_entries": (ledger_entries, lambda n: MARKER * (40 * n)),
    "unclosed markers: last_consolidation": (last_consolidation, lambda n: MARKER * (40 * n)),
    "unclosed markers: read_ledger": (read_ledger, lambda n: "<!-- lines: a" * (80 * n)),
    "marker without spaces": (
        covered_lines,
        lambda n: "<!-- consolidated:" + "a.md" * (400 * n) + " -->",
    ),
    "marker without spaces, unclosed": (
        covered_lines,
        lambda n: "<!-- consolidated:" + "x" * 1600 * n,
    ),
    # Curated lines: comments left open, runs of spaces, links before a word.
    "line of open comments: core": (core, lambda n: "- fact " + "<!-- " * (300 * n) + "-->"),
    "line of spaces: core": (core, lambda n: "- fact" + " " * (1500 * n) + "x-->"),
    "line of spaces: trailing_comment": (trailing_comment, lambda n: "x" + " " * 1500 * n + "y-->"),
    "links before a word: split_sources": (
        split_sources,
        lambda n: "- fact" + " [2026-11-21](memory/2026-11-21.md#L3-L4)" * (40 * n) + " word",
    ),
    "open links: sources": (sources, lambda n: "- fact [a](" + "[a](" * (300 * n)),
    "open links: line_day": (line_day, lambda n: "- fact " + "[a](" * (300 * n) + "<!--"),
    "open links: finditer": (_cite_links, lambda n: "[a](" * (300 * n)),
    "open comments: strip_comments": (strip_comments, lambda n: "<!-- " * (300 * n)),
    "open comments: without_comments": (without_comments, lambda n: "<!-- " * (300 * n)),
    # Daily logs: heading fields, agent ids, image captions, whole logs.
    "a long field name": (_meta, lambda n: "a" * (1500 * n)),
    "agent comments": (owner_of, lambda n: "### 09:00 user <!-- " + "<!--agent" * (400 * n)),
    "open image captions": (_image, lambda n: "[\n" * (700 * n)),
    "open alt texts": (_image, lambda n: "![" * (700 * n)),
    "log of open comments": (
        parse_log,
        lambda n: "# 2026-01-01\n\n- 09:00 user: hi " + "<!-- id:" * (200 * n) + "\n",
    ),
    "log of many headings": (
        parse_log,
        lambda n: "".join(f"### 09:00 user <!-- lines: 999 -->\nx{i}\n" for i in range(30 * n)),
    ),
    "secrets in a line of labels": (redact, lambda n: "password=" * (150 * n)),
}


def _per_call(fn, text: str) -> float:
    """Seconds a call takes: calls repeated for 10 ms at least (a small input's time is
    then not the clock's resolution), the best of five such runs."""
    best = float("inf")
    for _ in range(5):
        calls, start = 0, time.perf_counter()
        while (took := time.perf_counter() - start) < 0.01 or not calls:
            fn(text)
            calls += 1
        best = min(best, took / calls)
    return best


@pytest.mark.parametrize("name", list(CASES))
def test_the_parser_is_linear(name):
    """The slope of log(time) over log(size) through 1x, 4x and 16x (least squares, so one
    point a busy machine slowed moves it less): 1 is linear, 2 quadratic; below 1.6 passes."""
    import math

    fn, build = CASES[name]
    inputs = [build(4 * n) for n in (1, 4, 16)]
    fn(inputs[0])  # warm: compiled patterns, imports
    times = [_per_call(fn, text) for text in inputs]
    xs, ys = [0.0, math.log(4), math.log(16)], [math.log(t) for t in times]
    mx, my = sum(xs) / 3, sum(ys) / 3
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )
    assert slope < 1.6, f"{name}: slope {slope:.2f} ({', '.join(f'{t:.5f}s' for t in times)})"


def _workspace(tmp_path, n: int):
    """A workspace with a bare remote whose HISTORY.md holds 250n unclosed markers and one of
    20n kilobytes without a space."""
    env = {**os.environ, "MEM_NO_DAEMON": "1", "MEM_WATCH_IDLE": "0"}
    root = tmp_path / f"ws{n}"
    bare = tmp_path / f"remote{n}.git"

    def mem(*args: str) -> float:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "-w", str(root), *args],
            env=env, capture_output=True, timeout=600, check=True,
        )  # fmt: skip
        return time.perf_counter() - start

    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    mem("init", str(root))
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", str(bare)], check=True)
    mem("log", "--at", "2026-01-01T09:00", "I like green tea")
    with open(root / "HISTORY.md", "a", encoding="utf-8") as f:
        f.write("\n\n[2026-01-01 10:00] x " + MARKER * (250 * n) + "\n")
        f.write("\n\n[2026-01-01 11:00] y <!-- consolidated:" + "a.md" * (5000 * n) + "\n")
    return mem


@pytest.mark.slow
def test_commands_take_linear_time_on_a_history_of_open_markers(tmp_path):
    """The reproduction of issue 40: 4x the markers took 13x the time, past 90 s."""
    commands = (
        ("status",),
        ("recall", "--json", "green"),
        ("cleanup", "--dry-run"),
        ("consolidate", "--dry-run", "--provider", "offline"),
        ("sync",),
    )
    times = {}
    for n in (1, 16):
        mem = _workspace(tmp_path, n)
        times[n] = [min(mem(*c), mem(*c)) for c in commands]
    for c, t1, t16 in zip(commands, times[1], times[16], strict=True):
        # Most of a command's second is starting Python; the markers must not add to it
        # as their square (on the code before: minutes).
        assert t16 < 4 * t1 + 3, (c, t1, t16)
