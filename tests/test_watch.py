from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import settings

from openclaw_mem.index.cache import IndexParams, open_index
from openclaw_mem.index.watch import Watcher, relevant
from openclaw_mem.recall.pipeline import RecallOptions, recall
from openclaw_mem.store.workspace import Workspace

TOPICS = (
    "async Rust runtimes",
    "Kubernetes operator patterns",
    "Postgres query planning",
    "Elixir supervision trees",
    "Go generics in practice",
)


def _wait(condition, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


def _found(ws, query):
    return [h.path for h in recall(ws, query, RecallOptions(k=3), record_access=False).hits]


@pytest.mark.slow
def test_recall_follows_real_file_changes(ws):
    root = ws.root
    w = Workspace(root)
    params = IndexParams()
    refreshes = []
    done = threading.Event()

    def on_refresh(r):
        refreshes.append(r)
        done.set()

    watcher = Watcher(w, params, on_refresh, debounce=0.2)
    watcher.start()
    try:

        def step(action, expect):
            done.clear()
            action()
            assert done.wait(10), "no refresh"
            assert _wait(lambda: expect()), "recall did not follow"

        day = root / "memory" / "2026-11-30.md"
        step(
            lambda: day.write_text(
                "# 2026-11-30\n\n## 09:00 · user\nzebra migration\n", encoding="utf-8"
            ),
            lambda: _found(w, "zebra") == ["memory/2026-11-30.md"],
        )
        step(
            lambda: day.write_text(
                "# 2026-11-30\n\n## 09:00 · user\nquokka rollout\n", encoding="utf-8"
            ),
            lambda: _found(w, "quokka") and not _found(w, "zebra"),
        )
        moved = root / "memory" / "2026-12-01.md"
        step(lambda: day.rename(moved), lambda: _found(w, "quokka") == ["memory/2026-12-01.md"])
        step(lambda: moved.unlink(), lambda: not _found(w, "quokka"))
        count = len(refreshes)
        (root / ".MEMORY.md.swp").write_bytes(b"swap")  # editor noise
        (root / "memory" / "draft.md~").write_text("backup", encoding="utf-8")
        (root / "notes.txt").write_text("not memory", encoding="utf-8")
        time.sleep(0.8)
        assert len(refreshes) == count
    finally:
        watcher.stop()


def test_ignored_paths(tmp_path):
    ws = Workspace(tmp_path)
    params = IndexParams()
    for name, want in [
        ("MEMORY.md", True),
        ("memory/2026-11-30.md", True),
        (".git/index", False),
        (".mem/index/meta.json", False),
        (".MEMORY.md.swp", False),
        ("MEMORY.md~", False),
        ("memory/4913", False),
        ("skills/x/SKILL.md", False),
        ("notes.txt", False),
    ]:
        assert relevant(ws, params, str(tmp_path / name)) is want, name


@pytest.mark.slow
def test_mem_watch_command_and_ctrl_c(ws):
    proc = subprocess.Popen(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "watch", "--debounce", "0.3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = proc.stdout.readline()
        assert first.startswith("watching ")
        start = time.monotonic()
        (ws.root / "MEMORY.md").write_text("# MEMORY\n\n- pangolin facts\n", encoding="utf-8")
        line = proc.stdout.readline()
        latency = time.monotonic() - start
        assert "MEMORY.md: index refresh" in line and latency < 5
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert out.strip().endswith("stopped") and "Traceback" not in err
    assert "pangolin" in Path(ws.root / "MEMORY.md").read_text(encoding="utf-8")
    assert os.path.exists(ws.root / ".mem" / "index" / "meta.json")


@pytest.mark.slow
def test_a_second_watch_only_watches_and_says_so(ws):
    """One resident a workspace: a `mem watch` started beside a serving one keeps the index
    fresh but answers nothing, and its first line says only that it watches."""
    command = [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "watch"]
    procs = []
    try:
        for _ in range(2):
            procs.append(
                subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            )
            procs[-1].first = procs[-1].stdout.readline()
        serving, watching = procs
        assert "answering recall, context and get on .mem/mem.sock" in serving.first
        assert watching.first == f"watching {ws.root} (Ctrl-C stops)\n"
    finally:
        # At once after the first line: a SIGINT between that line and the wait for it ended
        # the process with 130 before the line moved inside the handled stretch.
        for proc in reversed(procs):
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=10)
    assert [proc.returncode for proc in procs] == [0, 0]  # Ctrl-C is how each ends


@pytest.mark.slow
def test_watch_consolidate_runs_the_window(ws):
    settings(ws.root, '[consolidate]\nmemory_window = 3\nkeep_recent = 1\nprovider = "offline"\n')
    ws("commit", "-m", "settings")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "openclaw_mem",
            "-w",
            str(ws.root),
            "watch",
            "--consolidate",
            "--debounce",
            "0.3",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().startswith("watching ")
        day = ws.root / "memory" / "2026-11-30.md"  # an agent writing the log itself
        day.write_text(
            "# 2026-11-30\n\n"
            + "".join(
                f"## 09:0{i} · user\nI plan to learn {topic} this winter.\n\n"
                for i, topic in enumerate(TOPICS)
            ),
            encoding="utf-8",
        )
        lines = [proc.stdout.readline() for _ in range(2)]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=10)
    assert "index refresh" in lines[0] or "index rebuild" in lines[0]
    assert "consolidated 4 entries" in lines[1] and "commit " in lines[1]
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    # Four entries consolidated, the newest waits (keep_recent); a section takes at most
    # three new lines a run from the offline provider.
    assert all(t in user for t in TOPICS[:3]) and TOPICS[4] not in user


@pytest.mark.slow
def test_mem_watch_reads_its_settings_again_when_mem_toml_changes(ws):
    """A `mem watch` answered with the settings it started with until it was restarted, and
    refreshed the index with them: one started before `recall.similarity` changed rebuilt
    the index back each time a command with the new setting had rebuilt it."""
    for i in range(3):
        ws("log", "--at", f"2026-11-30T09:0{i}", f"redis timeout number {i}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "watch", "--debounce", "0.3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout], daemon=True).start()
    try:
        assert "answering recall" in lines.get(timeout=30)
        assert len(ws.json("recall", "--now", "2026-12-01", "redis")["results"]) == 3
        settings(ws.root, '[recall]\nk = 1\nsimilarity = "containment"\n')
        line = lines.get(timeout=10)
        assert line.endswith("mem.toml changed: settings read again\n"), line
        assert _wait(lambda: os.path.exists(ws.root / ".mem" / "mem.sock"))
        assert len(ws.json("recall", "--now", "2026-12-01", "redis")["results"]) == 1
        ws("log", "--at", "2026-11-30T09:05", "redis once more")
        line = lines.get(timeout=10)  # the watcher's refresh, under the new settings
        assert "index refresh" in line or "index delta" in line, line
        index = open_index(Workspace(ws.root), IndexParams(signed=True))
        assert index.stats == {} and index.params.signed  # nobody rebuilt it back
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
    err = proc.stderr.read()
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert lines.get(timeout=5) == "stopped\n"
