"""The smaller failures a hostile user found: each is one clear line, the right exit code,
and no damage."""

from __future__ import annotations

import errno
import json
import os
import stat

import pytest
from helpers import snapshot


def test_an_absurd_ingest_timestamp_is_no_crash(ws, tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(
        json.dumps({"role": "user", "content": "far future", "timestamp": 99999999999999999})
        + "\n",
        encoding="utf-8",
    )
    result = ws("ingest", str(transcript), "--at", "2026-11-30T09:00")
    assert "ingested 1 of 1 message" in result.stdout


@pytest.fixture
def read_only(monkeypatch, ws):
    """The workspace on a read-only file system (root ignores chmod, so the test says so)."""
    from openclaw_mem.store import fsutil

    real = os.open

    def refuse(path, flags, mode=0o777, **kw):
        if str(path).startswith(str(ws.root)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real(path, flags, mode, **kw)

    monkeypatch.setattr(fsutil.os, "open", refuse)

    def no_mkstemp(*a, **kw):
        raise OSError(errno.EROFS, "Read-only file system")

    import tempfile

    monkeypatch.setattr(tempfile, "mkstemp", no_mkstemp)
    return ws


def test_a_read_only_workspace_is_exit_9_in_one_line(read_only):
    before = snapshot(read_only.root)
    result = read_only("log", "hello", ok=False)
    assert result.exit_code == 9 and "read-only file system" in result.stderr
    assert result.stderr.count("\n") == 1 and "unexpected" not in result.stderr
    assert snapshot(read_only.root) == before


def test_index_rebuild_in_a_read_only_state_dir_says_so(ws):
    ws("log", "hello there")
    state = ws.root / ".mem"
    state.mkdir(exist_ok=True)
    (state / "index.lock").unlink(missing_ok=True)
    os.chmod(state, 0o500)
    try:
        if os.access(state, os.W_OK):  # root: permissions do not bind
            pytest.skip("running as root; the EROFS test above covers the funnel")
        result = ws("index", "--rebuild", ok=False)
        assert result.exit_code == 9 and "cannot write" in result.stderr
    finally:
        os.chmod(state, 0o700)


def test_an_append_to_a_crlf_log_writes_crlf(ws):
    day = ws.root / "memory" / "2026-11-30.md"
    day.write_bytes(b"# 2026-11-30\r\n\r\n## 09:00 \xc2\xb7 user\r\nfrom windows\r\n")
    ws("log", "--at", "2026-11-30T10:00", "from mem\nsecond line")
    data = day.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ends in CRLF
    assert data.endswith(b"## 10:00 \xc2\xb7 note\r\nfrom mem\r\nsecond line\r\n\r\n")


def test_files_made_by_init_have_ordinary_permissions(tmp_path, runner):
    from openclaw_mem.cli import app

    old = os.umask(0o022)
    try:
        runner.invoke(app, ["init", str(tmp_path / "w")])
        runner.invoke(app, ["-w", str(tmp_path / "w"), "log", "x"])
    finally:
        os.umask(old)
    for name in ("USER.md", "mem.toml", ".gitignore", *os.listdir(tmp_path / "w" / "memory")):
        path = tmp_path / "w" / name if not name[0].isdigit() else tmp_path / "w" / "memory" / name
        assert stat.S_IMODE(path.stat().st_mode) == 0o644, name


def test_undo_that_cannot_revert_cleanly_is_one_short_line(ws):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I prefer tea over coffee")
    ws("consolidate", "--provider", "offline", "--now", "2026-11-30T10:00")
    user = ws.root / "USER.md"
    text = user.read_text(encoding="utf-8")
    user.write_text(text.replace("Prefers tea over coffee", "Prefers green tea"), encoding="utf-8")
    ws("commit", "-m", "hand edit of the line the consolidation wrote")
    result = ws("undo", "--yes", ok=False)
    assert result.exit_code == 8 and result.stderr.count("\n") == 1
    assert len(result.stderr) < 250 and "hint:" not in result.stderr
