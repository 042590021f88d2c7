from __future__ import annotations

import os

import git
import pytest

from openclaw_mem.cli import app
from openclaw_mem.format.logs import read_entries


def test_demo_refuses_a_non_empty_directory(runner, tmp_path):
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["demo", str(tmp_path)])
    assert result.exit_code == 2 and "is not empty" in result.stderr
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.slow
def test_demo_runs_offline_the_same_every_run_and_leaves_nothing_behind(runner, tmp_path):
    import tempfile

    before = set(os.listdir(tempfile.gettempdir()))
    first = runner.invoke(app, ["demo"])
    assert first.exit_code == 0, first.stderr
    assert "temporary and is gone" in first.stdout
    assert {n for n in os.listdir(tempfile.gettempdir()) if n.startswith("mem-demo-")} <= before
    runs = [runner.invoke(app, ["demo", str(tmp_path / name)]) for name in ("a", "b")]
    assert all(r.exit_code == 0 for r in runs), [r.stderr for r in runs]
    same = [
        r.stdout.replace(str(tmp_path / name), "DIR") for r, name in zip(runs, "ab", strict=True)
    ]
    assert same[0] == same[1]  # commit hashes too: the demo's clock dates its commits

    out, target = runs[0].stdout, tmp_path / "a"
    steps = ["mem init", "mem log", "mem diff", "mem commit", "mem recall"]
    steps += ["mem consolidate", "mem status", "mem history"]
    positions = [out.find(f"$ {step}") for step in steps]
    assert -1 not in positions and positions == sorted(positions), positions
    assert max(map(len, out.splitlines())) < 400  # piped: no rule drawn 10,000 wide
    assert "Zhang Lei and the user start the Atlas on-call rotation" in out
    assert "memory/2026-11-05.md#L3-L4" in out  # the Redis 连接超时 incident is recalled
    # Piped, a recall prints as `mem recall` does to a pipe: one hit a line, no header.
    recalled = out.split("$ mem recall")[1].split("\n\n")[0].splitlines()[1:]
    assert [line.split("\t")[0] for line in recalled] == ["1", "2", "3"], recalled
    assert "#\tscore" not in out
    assert "memory/2026-11-24.md#L3-L4" in out  # 我现在主要用Go写后端了
    entries = read_entries(target / "memory" / "2026-11-28.md")
    assert [e.role for e in entries] == ["user", "assistant", "user"]
    repo = git.Repo(target)
    subjects = [c.message.splitlines()[0] for c in repo.iter_commits()]
    assert subjects[0].startswith("consolidate: +")
    assert subjects[1:] == ["demo: log three turns", "mem init: create memory workspace"]
    assert "clean" in out.split("$ mem status")[1]
    memory = (target / "MEMORY.md").read_text(encoding="utf-8")
    assert "Zhang Lei and the user start the Atlas on-call rotation on December 1" in memory
    assert not repo.is_dirty(untracked_files=True)


@pytest.mark.slow
def test_the_demo_honours_the_embedding_provider_and_says_which(runner, tmp_path, monkeypatch):
    """MEM_EMBED_PROVIDER (conftest sets none) reaches the demo, and its third line says
    what recall's vectors came from; a value that cannot be used is said, not swallowed."""
    out = runner.invoke(app, ["demo", str(tmp_path / "a")])
    assert out.exit_code == 0, out.stderr
    said = [line for line in out.stdout.splitlines() if line.startswith("embeddings: ")]
    assert said == [
        "embeddings: none: MinHash pseudo-vectors (embed.provider = none, env MEM_EMBED_PROVIDER)"
    ]
    assert "vectors MinHash" in out.stdout.split("$ mem status")[1]
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "bogus")
    bad = runner.invoke(app, ["demo", str(tmp_path / "b")])
    assert bad.exit_code == 0 and "MEM_EMBED_PROVIDER must be one of" in bad.stderr
