"""A writer killed at every step of its transaction: `mem consolidate` (the logs' commit,
each curated file, HISTORY.md's paragraph with the lines' records, the consolidation
record, the commit) and `mem sync` (its commits, each merged file, the move of the branch,
the citations after it). The harness runs the command in a process of its own whose
writing functions count their calls and SIGKILL the process before the Nth one, for every
N up to the number a whole run makes. After each kill the next command (`mem sync`) must
finish what was half done: every link of every curated line on a log line that says it,
no commit of mem's own writes labelled a person's edit, and `mem doctor` with nothing left
to put right."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import git
import pytest
from helpers import Mem, clones, src_problems

CURATED = ("MEMORY.md", "USER.md", "AGENTS.md")

# The process under test: each writing step counts; the Nth is never reached (SIGKILL).
_KILLED = """
import os, signal, sys
from openclaw_mem.store import fsutil, gitrepo, gittree
at, counter = int(os.environ["KILL_AT"]), os.environ["KILL_COUNT"]
calls = [0]
def counted(module, name):
    real = getattr(module, name)
    def step(*args, **kwargs):
        calls[0] += 1
        with open(counter, "w") as f:
            f.write(str(calls[0]))
        if calls[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    setattr(module, name, step)
for module, names in ((fsutil, ("atomic_write_text", "append_locked", "replace_locked")),
                      (gitrepo, ("commit_memory", "commit_snapshot")),
                      (gittree, ("move_head", "commit_tree"))):
    for name in names:
        counted(module, name)
from openclaw_mem.cli import app
sys.argv = ["mem", *sys.argv[1:]]
app()
"""


def _run_killed(root: Path, at: int, counter: Path, *args: str) -> int:
    env = {**os.environ, "KILL_AT": str(at), "KILL_COUNT": str(counter)}
    done = subprocess.run(
        [sys.executable, "-c", _KILLED, "-w", str(root), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode


def _copy(src: Path, dst: Path) -> list[Mem]:
    """The clones and remote under src, copied to dst, each clone's origin re-pointed."""
    shutil.copytree(src, dst, symlinks=True)
    machines = []
    for clone in sorted(dst.glob("m*")):
        git.Repo(clone).remotes.origin.set_url(str(dst / "remote.git"))
        machines.append(Mem(clone))
    return machines


def _settled(machines: list[Mem]) -> None:
    """What must hold once the next command ran after the kill."""
    for m in machines:
        for name in CURATED:
            text = (m.root / name).read_text(encoding="utf-8")
            assert src_problems(m.root, "", text) == [], (m.root.name, name)
        subjects = [c.summary for c in git.Repo(m.root).iter_commits()]
        assert not any("a person's edit" in s for s in subjects), subjects
        doctor = m("doctor").stdout
        assert "nothing to put right" in doctor, doctor


def _steps(base: Path, tmp_path: Path, *args: str) -> int:
    """How many writing steps a whole run of `mem args` on the first clone makes."""
    a, *_ = _copy(base, tmp_path / "count")
    counter = tmp_path / "count.n"
    assert _run_killed(a.root, 0, counter, *args) == 0
    return int(counter.read_text())


def _two_machines(tmp_path: Path) -> Path:
    """Two clones whose logs interleave: B's entries sort before A's once merged, so every
    line A's consolidation cites moves (as in the issue: a kill between USER.md and its
    records left lines that then cited another clone's "ok thanks")."""
    base = tmp_path / "base"
    a, b = clones(base, 2)
    a("log", "--at", "2026-12-01T09:30", "--role", "user", "I live in Kavolu now.")
    a("log", "--at", "2026-12-01T09:31", "--role", "user", "I'm vegetarian.")
    b("log", "--at", "2026-12-01T09:00", "--role", "user", "ok thanks")
    b("log", "--at", "2026-12-01T09:01", "--role", "user", "My cat is called Pepel.")
    b("sync")
    return base


@pytest.mark.slow
def test_a_consolidation_killed_at_any_step_is_finished_by_the_next_sync(tmp_path):
    base = _two_machines(tmp_path)
    args = ("consolidate", "--now", "2026-12-01T10:00")
    steps = _steps(base, tmp_path, *args)
    assert steps >= 5  # the logs' commit, USER.md, HISTORY.md, the record, the commit
    for at in range(1, steps + 1):
        a, b = _copy(base, tmp_path / f"k{at}")
        assert _run_killed(a.root, at, tmp_path / "n", *args) == -9, at
        a("sync")  # the next command: finishes the consolidation, then merges B's entries
        b("sync")
        a("consolidate", "--now", "2026-12-01T10:05")  # whatever was left pending
        a("sync")
        b("sync")
        _settled([a, b])
        user = (a.root / "USER.md").read_text(encoding="utf-8")
        assert "Kavolu" in user and "vegetarian" in user, at


@pytest.mark.slow
def test_a_sync_killed_at_any_step_is_finished_by_the_next_sync(tmp_path):
    base = _two_machines(tmp_path)
    a, b = _copy(base, tmp_path / "ready")
    a("consolidate", "--now", "2026-12-01T10:00")  # A's lines cite A's entries, as logged
    shutil.rmtree(base)
    shutil.copytree(tmp_path / "ready", base, symlinks=True)
    steps = _steps(base, tmp_path, "sync")
    assert steps >= 4  # the merge's commit and files, the branch, the citations
    for at in range(1, steps + 1):
        a, b = _copy(base, tmp_path / f"k{at}")
        assert _run_killed(a.root, at, tmp_path / "n", "sync") == -9, at
        a("sync")
        b("sync")
        a("sync")
        _settled([a, b])


def _consolidations_killed_at_each_step(tmp_path: Path):
    """One clone with two entries, its consolidation killed before each writing step in
    turn: each killed copy, one after another."""
    base = tmp_path / "base"
    (a,) = clones(base, 1)
    a("log", "--at", "2026-12-01T09:30", "--role", "user", "I live in Kavolu now.")
    a("log", "--at", "2026-12-01T09:31", "--role", "user", "I'm vegetarian.")
    args = ("consolidate", "--now", "2026-12-01T10:00")
    steps = _steps(base, tmp_path, *args)
    for at in range(1, steps + 1):
        (a,) = _copy(base, tmp_path / f"k{at}")
        assert _run_killed(a.root, at, tmp_path / "n", *args) == -9, at
        yield a


@pytest.mark.slow
def test_a_consolidation_killed_at_any_step_is_finished_by_doctor(tmp_path):
    """`mem doctor` finishes what a kill left as the next consolidate, review or sync
    would: committed as mem's, every link on a line that says it, nothing left to do."""
    finished = 0
    for a in _consolidations_killed_at_each_step(tmp_path):
        a("doctor")
        repo = git.Repo(a.root)
        finished += repo.head.commit.summary == "consolidate: finished after an interruption"
        assert not repo.is_dirty(path="USER.md") and not repo.is_dirty(path="HISTORY.md"), (
            a.root.name
        )
        _settled([a])
        a("consolidate", "--now", "2026-12-01T10:05")  # whatever was left pending
        user = (a.root / "USER.md").read_text(encoding="utf-8")
        assert user.count("vegetarian") == 1 and user.count("Kavolu") == 1, a.root.name
        _settled([a])
    assert finished >= 2  # kills after the intent was written: doctor committed the rest


@pytest.mark.slow
@pytest.mark.parametrize("then", [("commit",), ("forget", "vegetarian"), ("undo", "--yes")])
def test_a_consolidation_killed_midway_is_finished_by_any_writer_first(tmp_path, then):
    """An outside audit: after a kill mid-consolidation, `mem commit` committed its
    half-written files as an ordinary edit (`mem undo` then found nothing of mem's to undo)
    and `mem forget` labelled them a person's. Every writer finishes it first, as mem's."""
    finished = 0
    for a in _consolidations_killed_at_each_step(tmp_path):
        a(*then, ok=False)
        commits = list(git.Repo(a.root).iter_commits())
        subjects = [c.summary for c in commits]
        assert not any("a person's edit" in s for s in subjects), subjects
        for c in commits:  # a plain commit holds only what was logged, never mem's writes
            if c.summary.startswith("mem: update"):
                files = list(c.stats.files)
                assert all(f.startswith("memory/20") for f in files), (a.root.name, files)
        finished += "consolidate: finished after an interruption" in subjects
        assert "nothing to put right" in a("doctor").stdout, a.root.name
    assert finished >= 2


def test_doctor_removes_the_temp_files_a_kill_left_and_no_write_in_flight(ws):
    """An outside audit: a kill mid-consolidation left `.USER.md.3w8allsf.tmp` in the
    workspace root for good. Doctor removes such files once they are a minute old."""
    old = [ws.root / ".USER.md.3w8allsf.tmp", ws.root / "memory" / ".2026-11-28.md.abcdefgh.tmp"]
    young = ws.root / ".HISTORY.md.zzzzzzzz.tmp"
    for path in (*old, young):
        path.write_text("half", encoding="utf-8")
    for path in old:
        os.utime(path, (path.stat().st_atime - 120, path.stat().st_mtime - 120))
    out = ws("doctor").stdout
    assert all(not p.exists() for p in old) and young.exists()
    assert "removed .USER.md.3w8allsf.tmp, a temp file a kill left" in out
