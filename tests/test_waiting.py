"""Waiting without a word (issue 40): a lock another process holds, or a model server that
never answers, is said after a few seconds and given up at a documented bound: exit 8 for
a lock (fsutil.LOCK_GIVE_UP, 30 s), exit 7 after two unanswered requests (2 x llm.timeout)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _hold(path, seconds: float = 20.0) -> subprocess.Popen:
    """A process that takes the lock on `path` and hangs, as a stopped `mem` would."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), str(seconds)], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


@pytest.fixture
def short_waits(monkeypatch):
    from openclaw_mem.store import fsutil

    monkeypatch.setattr(fsutil, "LOCK_NOTICE", 0.3, raising=False)
    monkeypatch.setattr(fsutil, "LOCK_GIVE_UP", 1.5, raising=False)


@pytest.mark.parametrize("held", ["workspace", "today's log"])
def test_a_hung_lock_holder_is_named_then_given_up_on(ws, short_waits, held):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I live in Lisbon now.")
    lock = ws.root / ".mem" / "write.lock" if held == "workspace" else None
    holder = _hold(lock or ws.root / "memory" / "2026-11-30.md")
    try:
        start = time.monotonic()
        if lock is not None:
            result = ws(
                "consolidate", "--provider", "offline", "--now", "2026-11-30T10:00", ok=False
            )
        else:
            result = ws("log", "--at", "2026-11-30T09:05", "and I like tea", ok=False)
        took = time.monotonic() - start
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 8, result.stderr
    said = result.stderr.splitlines()
    assert said[0].startswith("mem: warning: waiting for ") and "another process holds" in said[0]
    assert said[-1].startswith("mem: error: ") and "nothing was written" in said[-1]
    assert took < 10
    if lock is None:
        log = (ws.root / "memory" / "2026-11-30.md").read_text(encoding="utf-8")
        assert "and I like tea" not in log  # not acknowledged, not half-written
    ws("log", "--at", "2026-11-30T09:06", "the lock is free again")  # and it works again


@pytest.mark.slow
def test_a_model_server_that_never_answers_costs_two_timeouts_not_nine(ws, llm, monkeypatch):
    from openclaw_mem.consolidate.providers import openai_compat

    monkeypatch.setattr(openai_compat, "WAIT_NOTICE", 0.3, raising=False)
    monkeypatch.setenv("MEM_LLM_TIMEOUT", "2")
    monkeypatch.setenv("MEM_LLM_MAX_RETRIES", "2")
    for i in range(8):
        ws("log", "--at", f"2026-11-30T09:0{i}", "--role", "user", f"I keep {i} bee hives.")
    llm.push(*[("hang", 5)] * 12)
    start = time.monotonic()
    result = ws("consolidate", "--provider", "openai", "--base-url", llm.url, "--model", "m",
                "--now", "2026-11-30T10:00", ok=False)  # fmt: skip
    took = time.monotonic() - start
    assert result.exit_code == 7, result.stderr
    # Two requests, each given up after llm.timeout (before: three tries of each of three
    # requests, 9 x llm.timeout); the rest of the time is starting Python and openai.
    assert len(llm.requests) == 2 and took < 2 * 2 + 8, (len(llm.requests), took)
    assert "waiting for the model at http://127.0.0.1:" in result.stderr
    assert result.stderr.splitlines()[-1].startswith("mem: error: the model did not answer")
