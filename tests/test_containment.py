"""Nothing is read or written outside the workspace, nor through a symlink: one rule for
recall, index, log, consolidate, forget, cleanup, context, MCP and sync. Through the
library; the CLI's warning and error lines where they are the point."""

from __future__ import annotations

import json
import os
from datetime import datetime

import pytest

from openclaw_mem.errors import MemError

OUTSIDE = "root:x:0:0:root:/root:/bin/bash\nsecret-outside-line\n"


@pytest.fixture
def outside(tmp_path):
    target = tmp_path / "outside.md"
    target.write_text(OUTSIDE, encoding="utf-8")
    return target


def _leaks(found) -> bool:
    text = json.dumps([h.to_json() for h in found.hits], ensure_ascii=False)
    return "root:x:0:0" in text or "secret-outside" in text


def test_recall_and_index_skip_a_linked_log(memory, outside):
    memory.log("root cause of the outage was a full disk", at=datetime(2026, 11, 30, 9))
    os.symlink(outside, memory.root / "memory" / "2026-11-29.md")
    found = memory.recall("root")
    assert found.hits and not _leaks(found)
    assert any("memory/2026-11-29.md is a symlink" in w for w in found.warnings)
    assert "memory/2026-11-29.md" not in {h.path for h in found.hits}
    assert any("memory/2026-11-29.md is a symlink" in w for w in memory.index().warnings)


def test_the_cli_warns_of_a_linked_log(ws, outside):
    ws("log", "--at", "2026-11-30T09:00", "root cause of the outage was a full disk")
    os.symlink(outside, ws.root / "memory" / "2026-11-29.md")
    result = ws("recall", "--json", "root")
    assert "root:x:0:0" not in result.stdout and "secret-outside" not in result.stdout
    assert "memory/2026-11-29.md is a symlink" in result.stderr


def test_a_linked_memory_directory_is_not_followed(memory, outside, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "2026-11-01.md").write_text("# 2026-11-01\n\n## 09:00 · user\nfar away note\n")
    (memory.root / "memory").rmdir()
    os.symlink(elsewhere, memory.root / "memory")
    assert memory.recall("far away note").hits == []
    with pytest.raises(MemError, match="memory is a symlink") as refused:
        memory.log("should not land", at=datetime(2026, 11, 1, 10))
    assert refused.value.exit_code == 2
    assert "should not land" not in (elsewhere / "2026-11-01.md").read_text(encoding="utf-8")


def test_log_refuses_a_day_file_that_is_a_link(memory, outside):
    os.symlink(outside, memory.root / "memory" / "2026-11-30.md")
    with pytest.raises(MemError, match="is a symlink") as refused:
        memory.log("appended through a link?", at=datetime(2026, 11, 30, 9))
    assert refused.value.exit_code == 2 and "\n" not in refused.value.message
    assert outside.read_text(encoding="utf-8") == OUTSIDE


def test_the_cli_refuses_a_linked_day_file_in_one_line(ws, outside):
    os.symlink(outside, ws.root / "memory" / "2026-11-30.md")
    result = ws("log", "--at", "2026-11-30T09:00", "appended through a link?", ok=False)
    assert result.exit_code == 2 and "is a symlink" in result.stderr
    assert result.stderr.count("\n") == 1
    assert outside.read_text(encoding="utf-8") == OUTSIDE


@pytest.mark.parametrize("name", ["USER.md", "MEMORY.md", "HISTORY.md"])
def test_consolidate_refuses_linked_curated_files(memory, outside, name):
    memory.log("I prefer short answers", role="user", at=datetime(2026, 11, 30, 9))
    (memory.root / name).unlink()
    os.symlink(outside, memory.root / name)
    with pytest.raises(MemError, match="is a symlink") as refused:
        memory.consolidate(provider="offline")
    assert refused.value.exit_code == 2
    assert outside.read_text(encoding="utf-8") == OUTSIDE


def test_get_forget_and_context_refuse_links(memory, outside):
    os.symlink(outside, memory.root / "notes.md")
    with pytest.raises(MemError, match="symlink") as get:
        memory.get("notes.md")
    assert get.value.exit_code == 2 and "root:x" not in get.value.message
    with pytest.raises(MemError) as forget:
        memory.forget("notes.md:1", hard=True)
    assert forget.value.exit_code == 2 and outside.read_text(encoding="utf-8") == OUTSIDE
    (memory.root / "USER.md").unlink()
    os.symlink(outside, memory.root / "USER.md")
    with pytest.raises(MemError, match="symlink") as context:
        memory.context("who am I")
    assert "root:x" not in context.value.message


def test_mcp_search_never_returns_a_linked_file(memory, outside):
    import asyncio

    from mcp import Client

    from openclaw_mem.serve.mcp_server import build_server

    os.symlink(outside, memory.root / "memory" / "2026-11-29.md")

    async def main():
        server = build_server(memory)
        async with Client(server) as client:
            found = await client.call_tool("memory_search", {"query": "root"})
            got = await client.call_tool("memory_get", {"path": "memory/2026-11-29.md"})
            return found.content[0].text, got

    found, got = asyncio.run(main())
    assert "root:x" not in found and got.is_error and "symlink" in got.content[0].text


def test_a_link_that_arrives_through_sync_is_reported_and_not_followed(tmp_path, outside):
    import subprocess

    from openclaw_mem.memory import Memory, init

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    init(a)
    subprocess.run(["git", "-C", str(a), "remote", "add", "origin", str(remote)], check=True)
    mem = Memory.open(a, env={"MEM_EMBED_PROVIDER": "none", "MEM_WATCH_IDLE": "0"})
    assert mem.sync().warnings == ()
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    (b / "memory").mkdir(exist_ok=True)  # git keeps no empty directory
    os.symlink(outside, b / "memory" / "2026-11-29.md")
    subprocess.run(["git", "-C", str(b), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(b), "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "link"],
        check=True,
    )
    subprocess.run(["git", "-C", str(b), "push", "-q", "origin", "HEAD"], check=True)
    result = mem.sync()
    assert result.pulled == 1
    assert "memory/2026-11-29.md is a symlink; mem never follows it" in result.warnings
    assert not _leaks(mem.recall("root"))
    with pytest.raises(MemError) as appended:
        mem.log("through the link", at=datetime(2026, 11, 29, 9))
    assert appended.value.exit_code == 2 and outside.read_text(encoding="utf-8") == OUTSIDE
