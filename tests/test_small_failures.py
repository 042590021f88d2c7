"""The smaller failures a hostile user found: each is one clear line, the right exit code,
and no damage. Through the library (`MemError` and its exit code); the CLI's one line on
stderr where that is the point."""

from __future__ import annotations

import errno
import json
import os
import stat
from datetime import datetime

import pytest
from helpers import snapshot, without_ids

from openclaw_mem.errors import ConflictError, WriteError


def test_an_absurd_ingest_timestamp_is_no_crash(memory):
    line = json.dumps({"role": "user", "content": "far future", "timestamp": 99999999999999999})
    report = memory.ingest([line, ""], "t.jsonl", default_time=datetime(2026, 11, 30, 9)).report
    assert (report.added, report.read) == (1, 1)


def _read_only(monkeypatch, root):
    """The workspace on a read-only file system (root ignores chmod, so the test says so)."""
    from openclaw_mem.store import fsutil

    real = os.open

    def refuse(path, flags, mode=0o777, **kw):
        if str(path).startswith(str(root)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real(path, flags, mode, **kw)

    monkeypatch.setattr(fsutil.os, "open", refuse)

    def no_mkstemp(*a, **kw):
        raise OSError(errno.EROFS, "Read-only file system")

    import tempfile

    monkeypatch.setattr(tempfile, "mkstemp", no_mkstemp)


def test_a_read_only_workspace_is_exit_9(memory, monkeypatch):
    _read_only(monkeypatch, memory.root)
    before = snapshot(memory.root)
    with pytest.raises(WriteError) as refused:
        memory.log("hello")
    assert refused.value.exit_code == 9 and "read-only file system" in refused.value.message
    assert "\n" not in refused.value.message
    assert snapshot(memory.root) == before


def test_the_cli_says_a_read_only_workspace_in_one_line(ws, monkeypatch):
    _read_only(monkeypatch, ws.root)
    before = snapshot(ws.root)
    result = ws("log", "hello", ok=False)
    assert result.exit_code == 9 and "read-only file system" in result.stderr
    assert result.stderr.count("\n") == 1 and "unexpected" not in result.stderr
    assert snapshot(ws.root) == before


def test_index_rebuild_in_a_read_only_state_dir_says_so(memory):
    memory.log("hello there")
    state = memory.root / ".mem"
    state.mkdir(exist_ok=True)
    (state / "index.lock").unlink(missing_ok=True)
    os.chmod(state, 0o500)
    try:
        if os.access(state, os.W_OK):  # root: permissions do not bind
            pytest.skip("running as root; the EROFS test above covers the funnel")
        with pytest.raises(WriteError, match="cannot write") as refused:
            memory.index(rebuild=True)
        assert refused.value.exit_code == 9
    finally:
        os.chmod(state, 0o700)


def test_an_append_to_a_crlf_log_writes_crlf(memory):
    day = memory.root / "memory" / "2026-11-30.md"
    day.write_bytes(b"# 2026-11-30\r\n\r\n## 09:00 \xc2\xb7 user\r\nfrom windows\r\n")
    memory.log("from mem\nsecond line", at=datetime(2026, 11, 30, 10))
    data = day.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ends in CRLF
    assert without_ids(data.decode()).endswith("## 10:00 · note\r\nfrom mem\r\nsecond line\r\n\r\n")


def test_files_made_by_init_have_ordinary_permissions(tmp_path):
    from openclaw_mem.memory import Memory, init

    old = os.umask(0o022)
    try:
        init(tmp_path / "w")
        Memory.open(tmp_path / "w", env={"MEM_EMBED_PROVIDER": "none"}).log("x")
    finally:
        os.umask(old)
    for name in ("USER.md", "mem.toml", ".gitignore", *os.listdir(tmp_path / "w" / "memory")):
        path = tmp_path / "w" / name if not name[0].isdigit() else tmp_path / "w" / "memory" / name
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, name


def test_undo_that_cannot_revert_cleanly_is_one_short_line(git_memory):
    git_memory.log("I prefer tea over coffee", role="user", at=datetime(2026, 11, 30, 9))
    git_memory.consolidate(provider="offline", now=datetime(2026, 11, 30, 10))
    user = git_memory.root / "USER.md"
    text = user.read_text(encoding="utf-8")
    user.write_text(text.replace("Prefers tea over coffee", "Prefers green tea"), encoding="utf-8")
    git_memory.commit("hand edit of the line the consolidation wrote")
    with pytest.raises(ConflictError) as refused:
        git_memory.undo(yes=True)
    line = f"mem: error: {refused.value.message}\n"  # what the CLI prints of it
    assert refused.value.exit_code == 8 and line.count("\n") == 1
    assert len(line) < 250 and "hint:" not in line
