from __future__ import annotations

import multiprocessing
from datetime import date, datetime
from pathlib import Path

import pytest

from openclaw_mem.format.logs import NewEntry, append_entries, read_entries

DAY = date(2026, 11, 30)
PROCS, APPENDS = 8, 200


def _writer(path: str, proc: int) -> None:
    for i in range(APPENDS):
        # Several lines, CJK and a code fence, so a torn or interleaved write would show.
        text = f"proc {proc} seq {i}\n第{i}条 来自进程{proc} 😀\n```\ncode {proc}-{i}\n```"
        append_entries(
            Path(path), DAY, [NewEntry(datetime(2026, 11, 30, 12, i % 60), "user", text)]
        )


@pytest.mark.slow
def test_eight_processes_append_1600_entries_intact(tmp_path):
    path = tmp_path / "memory" / "2026-11-30.md"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), p)) for p in range(PROCS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# 2026-11-30\n\n## ")
    assert text.count("# 2026-11-30\n") == 1  # one title, though all raced to create the file
    entries = read_entries(path)
    assert len(entries) == PROCS * APPENDS
    expected = {
        f"proc {p} seq {i}\n第{i}条 来自进程{p} 😀\n```\ncode {p}-{i}\n```"
        for p in range(PROCS)
        for i in range(APPENDS)
    }
    assert {e.text for e in entries} == expected
    for p in range(PROCS):  # each writer's own entries stay in its order
        seqs = [int(e.text.split()[3]) for e in entries if e.text.startswith(f"proc {p} ")]
        assert seqs == list(range(APPENDS))
