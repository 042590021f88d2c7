"""Every recall answers from the files as they are now, whoever changed them: mem itself,
another program writing in place (no directory changes), a new, deleted or renamed file, an
editor that saves by rename; in this process or in others. And an unchanged workspace is
answered without reading or writing anything but stats."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from openclaw_mem.format.logs import NewEntry, append_entries
from openclaw_mem.index import cache, table, walk
from openclaw_mem.index.cache import IndexParams, open_index
from openclaw_mem.recall.pipeline import RecallOptions, rank_index
from openclaw_mem.store.workspace import Workspace

NOW = datetime(2026, 11, 30, 12)


def _ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    (root / "memory" / "work").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# MEMORY\n\n- Atlas uses Redis Streams.\n", "utf-8")
    for day in range(1, 9):
        path = root / "memory" / f"2026-11-{day:02d}.md"
        text = f"lunch note {day}: noodles again" if day % 2 else f"马拉松 training day {day}"
        when = datetime(2026, 11, day, 9)
        append_entries(path, when.date(), [NewEntry(when, "user", text)])
    (root / "memory" / "work" / "notes.md").write_text("# Work\n\n- kafka lag alerts\n", "utf-8")
    return Workspace(root)


def _found(ws: Workspace, query: str) -> set[str]:
    index = open_index(ws, IndexParams())
    ranked = rank_index(index, query, RecallOptions(now=NOW, k=20))
    pid = index.doc("path_id")
    return {index.paths[int(pid[d])] for d, _ in ranked}


@pytest.fixture
def settled(monkeypatch):
    """Every file's last change long before the walk that reads it (no racy window: only
    the stat can tell a change), as on a workspace edited minutes ago."""
    monkeypatch.setattr(table, "RACY_NS", -(10**18))


def test_an_append_by_mem_is_seen(tmp_path):
    ws = _ws(tmp_path)
    assert _found(ws, "zeppelin") == set()
    path = ws.root / "memory" / "2026-11-03.md"
    when = datetime(2026, 11, 3, 18)
    append_entries(path, when.date(), [NewEntry(when, "user", "zeppelin tour")])
    assert _found(ws, "zeppelin") == {"memory/2026-11-03.md"}


@pytest.mark.parametrize("how", ["append", "same size", "same size, mtime put back"])
def test_an_edit_in_place_by_another_program_is_seen(settled, tmp_path, how):
    """No directory changes: only the file's own stat can tell."""
    ws = _ws(tmp_path)
    assert _found(ws, "zeppelin") == set()
    path = ws.root / "memory" / "2026-11-05.md"
    before = path.stat()
    dir_before = path.parent.stat().st_mtime_ns
    data = path.read_bytes()
    if how == "append":
        with open(path, "ab") as f:
            f.write("\n## 19:00 · user\nzeppelin tour booked\n".encode())
    else:
        new = data.replace(b"noodles again", b"zeppelin ride")
        assert len(new) == len(data)
        with open(path, "r+b") as f:
            f.write(new)
        if how.endswith("put back"):
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
            assert path.stat().st_mtime_ns == before.st_mtime_ns
    assert path.parent.stat().st_mtime_ns == dir_before
    assert _found(ws, "zeppelin") == {"memory/2026-11-05.md"}


def test_a_new_a_deleted_and_a_renamed_file_are_seen(settled, tmp_path):
    ws = _ws(tmp_path)
    assert _found(ws, "noodles") == {f"memory/2026-11-0{d}.md" for d in (1, 3, 5, 7)}
    (ws.root / "memory" / "work" / "trip.md").write_text("- zeppelin over Lake Constance\n")
    (ws.root / "memory" / "2026-11-01.md").unlink()
    os.rename(ws.root / "memory" / "2026-11-03.md", ws.root / "memory" / "work" / "old.md")
    assert _found(ws, "zeppelin") == {"memory/work/trip.md"}
    assert _found(ws, "noodles") == {
        "memory/work/old.md",
        "memory/2026-11-05.md",
        "memory/2026-11-07.md",
    }


def test_an_editor_that_saves_by_rename_is_seen(settled, tmp_path):
    """Write a temporary file, rename it over the original: a new inode, maybe the same
    size and the same mtime."""
    ws = _ws(tmp_path)
    path = ws.root / "memory" / "2026-11-07.md"
    before = path.stat()
    assert _found(ws, "zeppelin") == set()
    tmp = path.with_name(".2026-11-07.md.swp")
    tmp.write_bytes(path.read_bytes().replace(b"noodles again", b"zeppelin ride"))
    os.utime(tmp, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(tmp, path)
    assert path.stat().st_size == before.st_size and path.stat().st_ino != before.st_ino
    assert _found(ws, "zeppelin") == {"memory/2026-11-07.md"}


def test_an_edit_from_another_process_is_seen_by_the_next_recall_process(tmp_path, ws):
    """Three processes: `mem index`, a plain Python program that writes in place, and a
    `mem recall` that must find what it wrote."""
    for i in range(3):
        ws("log", "--at", f"2026-11-29T09:0{i}", f"note {i} about lunch and noodles")
    ws("index")
    day = ws.root / "memory" / "2026-11-29.md"
    code = (
        "import sys; f = open(sys.argv[1], 'a', encoding='utf-8'); "
        "f.write('\\n## 10:00 · user\\nzeppelin tour at ten\\n'); f.close()"
    )
    subprocess.run([sys.executable, "-c", code, str(day)], check=True)
    hits = ws.json("recall", "--no-daemon", "--now", "2026-11-30", "zeppelin")["results"]
    assert [h["path"] for h in hits] == ["memory/2026-11-29.md"]


def test_a_change_the_stat_cannot_see_is_read_again_while_racy(tmp_path, monkeypatch):
    """A file written in the same clock tick as it was read keeps its stat through a
    second write (a coarse file system clock). The index read it within RACY_NS of the
    change, so it reads it again, and sees the second write."""
    ws = _ws(tmp_path)
    path = ws.root / "memory" / "2026-11-05.md"
    open_index(ws, IndexParams())  # reads it: changed just now, so racy
    stat = walk.walk(ws, IndexParams().include, ()).stats["memory/2026-11-05.md"]
    data = path.read_bytes()
    path.write_bytes(data.replace(b"noodles again", b"zeppelin ride"))
    real = walk.walk

    def coarse(*args, **kwargs):  # the second write left the stat as it was
        scan = real(*args, **kwargs)
        scan.stats["memory/2026-11-05.md"] = stat
        return scan

    monkeypatch.setattr(cache, "walk", coarse)
    assert _found(ws, "zeppelin") == {"memory/2026-11-05.md"}
    # The control: with no racy window the same coarse stat hides a change (a stale answer).
    monkeypatch.setattr(table, "RACY_NS", -(10**18))
    path.write_bytes(data.replace(b"noodles again", b"zeppelin tour"))
    stat = real(ws, IndexParams().include, ()).stats["memory/2026-11-05.md"]
    open_index(ws, IndexParams())  # read while settled: recorded with this stat
    path.write_bytes(data)
    assert _found(ws, "zeppelin") == {"memory/2026-11-05.md"}  # stale, as the stat says


def test_a_settled_unchanged_workspace_reads_and_writes_nothing(settled, tmp_path, monkeypatch):
    ws = _ws(tmp_path)
    open_index(ws, IndexParams())  # reads every file, records them settled
    store = ws.state_dir / "index"
    before = {p.name: p.stat().st_mtime_ns for p in store.iterdir()}
    reads = []
    real = cache._read
    monkeypatch.setattr(cache, "_read", lambda *a, **k: reads.append(a[1]) or real(*a, **k))
    index = open_index(ws, IndexParams())
    assert index.stats == {} and reads == []
    assert {p.name: p.stat().st_mtime_ns for p in store.iterdir()} == before


def test_a_racy_file_is_read_again_without_writing_until_it_settles(tmp_path, monkeypatch):
    ws = _ws(tmp_path)
    open_index(ws, IndexParams())  # every file was written just now: all racy
    store = ws.state_dir / "index"
    before = {p.name for p in store.iterdir()}
    reads = []
    real = cache._read
    monkeypatch.setattr(cache, "_read", lambda *a, **k: reads.append(a[1]) or real(*a, **k))
    open_index(ws, IndexParams())
    assert "memory/2026-11-05.md" in reads  # read again: its stat cannot vouch yet
    assert {p.name for p in store.iterdir()} == before  # and nothing written
    monkeypatch.setattr(table, "RACY_NS", -(10**18))  # much later: settled now
    open_index(ws, IndexParams())
    assert {p.name for p in store.iterdir()} != before  # recorded as settled, once
    reads.clear()
    open_index(ws, IndexParams())
    assert reads == []


def test_the_walk_finds_what_workspace_scan_finds(tmp_path):
    ws = _ws(tmp_path)
    root = ws.root
    (root / "memory" / "deep" / "er").mkdir(parents=True)
    (root / "memory" / "deep" / "er" / "x.md").write_text("- deep\n")
    (root / "memory" / "notes.txt").write_text("not markdown\n")
    (root / "memory" / ".hidden.md").write_text("- hidden\n")
    (root / "other").mkdir()
    (root / "other" / "skip.md").write_text("- not included\n")
    os.symlink(root / "MEMORY.md", root / "memory" / "link.md")
    os.symlink(root / "other", root / "memory" / "linkdir")
    os.mkdir(root / b"memory/bad-\xff".decode("utf-8", "surrogateescape"))
    params = IndexParams(exclude=("memory/work/**",))
    want = ws.scan(params.include, params.exclude)
    links, odd = list(ws.links), list(ws.odd_names)
    for known in ((), set(want)):
        got = walk.walk(ws, params.include, params.exclude, known)
        assert set(got.stats) == set(want)
        for rel, st in want.items():
            assert got.stats[rel] == (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
        assert sorted(ws.links) == sorted(links) and sorted(ws.odd_names) == sorted(odd)
