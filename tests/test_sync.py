"""mem sync with two clones of one bare remote, all in tmp_path."""

from __future__ import annotations

import git
from helpers import Mem
from typer.testing import CliRunner

from openclaw_mem.cli import app
from openclaw_mem.format.logs import read_entries


def _machines(tmp_path):
    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True)
    a = tmp_path / "laptop"
    assert CliRunner().invoke(app, ["init", str(a)]).exit_code == 0
    repo = git.Repo(a)
    repo.create_remote("origin", str(bare))
    ma = Mem(a)
    ma("sync")
    git.Repo.clone_from(str(bare), tmp_path / "desktop")
    return ma, Mem(tmp_path / "desktop")


def test_init_registers_the_entry_merge_driver(ws):
    text = (ws.root / ".gitattributes").read_text(encoding="utf-8")
    assert "memory/*.md merge=mem-entries" in text and "HISTORY.md merge=mem-entries" in text
    assert "memory/.consolidated merge=union" in text
    config = git.Repo(ws.root).config_reader()
    assert "merge-file %O %A %B %P" in config.get_value('merge "mem-entries"', "driver")
    info = (ws.root / ".git" / "info" / "attributes").read_text(encoding="utf-8")
    assert "memory/*.md merge=mem-entries" in info


def test_two_machines_appending_to_one_day_merge_cleanly(tmp_path):
    laptop, desktop = _machines(tmp_path)
    laptop("log", "--at", "2026-11-30T09:00", "from the laptop: redis tuned")
    desktop("log", "--at", "2026-11-30T09:05", "from the desktop: 跑了 10 公里")
    out = laptop("sync").stdout
    assert "committed " in out and "pushed 1" in out
    out = desktop("sync").stdout
    assert "pulled 1 commit," in out and "pushed 2" in out  # its log, and the merge
    laptop("sync")
    for machine in (laptop, desktop):
        texts = [e.text for e in read_entries(machine.root / "memory" / "2026-11-30.md")]
        assert sorted(texts) == ["from the desktop: 跑了 10 公里", "from the laptop: redis tuned"]
        assert not git.Repo(machine.root).is_dirty(untracked_files=True)
    assert git.Repo(laptop.root).head.commit.hexsha == git.Repo(desktop.root).head.commit.hexsha


def test_lines_both_machines_added_to_one_section_merge_without_a_person(tmp_path):
    laptop, desktop = _machines(tmp_path)
    for machine, text in ((laptop, "- Uses Go.\n"), (desktop, "- Uses Rust.\n")):
        path = machine.root / "MEMORY.md"
        path.write_text(
            path.read_text(encoding="utf-8").replace("## Facts\n", f"## Facts\n{text}"),
            encoding="utf-8",
        )
    laptop("sync")
    result = desktop("sync")
    assert result.stderr == ""
    head = git.Repo(desktop.root).head.commit
    assert len(head.parents) == 2 and head.message.startswith("mem sync: merge ")
    assert head.parents[0].message.startswith("mem sync: a person's edit of MEMORY.md")
    laptop("sync")
    for machine in (laptop, desktop):
        text = (machine.root / "MEMORY.md").read_text(encoding="utf-8")
        assert "- Uses Go." in text and "- Uses Rust." in text and "<<<<<<<" not in text
        assert not git.Repo(machine.root).is_dirty(untracked_files=True)


def test_sync_without_a_remote_says_how_to_add_one_and_writes_nothing(example):
    """It used to take over the example's line markers first, leaving memory/.consolidated
    behind a sync that never started."""
    from helpers import snapshot

    before = snapshot(example.root)
    result = example("sync", ok=False)
    assert result.exit_code == 5 and "git remote add origin URL" in result.stderr
    assert snapshot(example.root) == before
