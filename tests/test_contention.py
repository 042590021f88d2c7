"""Commits under contention: many agents logging with git.autocommit = "log", and another
git process holding index.lock. A write that landed is never reported as failed."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from helpers import settings

from openclaw_mem.format.logs import read_entries


@pytest.mark.slow
def test_eight_writers_with_autocommit_never_fail_a_landed_write(ws):
    settings(ws.root, '[git]\nautocommit = "log"\n')
    ws("commit", "-m", "settings")

    def log(i: int) -> subprocess.CompletedProcess:
        args = ["-w", str(ws.root), "log", "--at", "2026-11-30T09:00", f"entry {i}"]
        return subprocess.run(
            [sys.executable, "-m", "openclaw_mem", *args],
            capture_output=True,
            text=True,
        )

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(log, range(40)))
    assert [r.returncode for r in results] == [0] * 40, [r.stderr for r in results if r.stderr]
    assert not any("warning" in r.stderr for r in results)
    entries = read_entries(ws.root / "memory" / "2026-11-30.md")
    assert sorted(e.text for e in entries) == sorted(f"entry {i}" for i in range(40))
    assert ws.json("status")["git"]["clean"]


@pytest.mark.slow
def test_a_commit_waits_for_another_gits_index_lock(ws):
    settings(ws.root, '[git]\nautocommit = "log"\n')
    ws("commit", "-m", "settings")
    lock = ws.root / ".git" / "index.lock"
    lock.write_text("")

    def release() -> None:
        time.sleep(0.6)
        lock.unlink()

    threading.Thread(target=release).start()
    result = ws("log", "--at", "2026-11-30T09:00", "written while git was busy")
    assert "warning" not in result.stderr
    assert ws.json("status")["git"]["clean"]


def test_a_commit_that_cannot_be_made_is_a_warning_not_a_failure(ws, monkeypatch):
    from openclaw_mem.store import gitrepo

    monkeypatch.setattr(gitrepo, "RETRY_SECONDS", 0.2)
    settings(ws.root, '[git]\nautocommit = "log"\n')
    ws("commit", "-m", "settings")
    (ws.root / ".git" / "index.lock").write_text("")  # held for good
    result = ws("log", "--at", "2026-11-30T09:00", "landed anyway")
    assert result.exit_code == 0 and result.stdout.startswith("memory/2026-11-30.md#L")
    assert "written but not committed" in result.stderr and result.stderr.count("\n") == 1
    (ws.root / ".git" / "index.lock").unlink()
    assert ws.json("status")["git"]["dirty"] == ["memory/2026-11-30.md"]


def test_each_consolidation_commit_holds_its_own_edits(ws):
    settings(ws.root, '[git]\nautocommit = "log"\n')
    ws("commit", "-m", "settings")
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I prefer tea over coffee")
    ws("consolidate", "--provider", "offline", "--now", "2026-11-30T10:00")
    ws("log", "--at", "2026-11-30T11:00", "--role", "user", "I plan to run a marathon in May")
    ws("consolidate", "--provider", "offline", "--now", "2026-11-30T12:00")
    import git

    commits = [c for c in git.Repo(ws.root).iter_commits() if c.message.startswith("consolidate")]
    first, second = commits[1], commits[0]
    assert "tea" in first.message and "marathon" not in first.message
    assert "marathon" in second.message and "tea" not in second.message
