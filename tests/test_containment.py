"""Nothing is read or written outside the workspace, nor through a symlink: one rule for
recall, index, log, consolidate, forget, cleanup, context, MCP and sync."""

from __future__ import annotations

import json
import os

import pytest

OUTSIDE = "root:x:0:0:root:/root:/bin/bash\nsecret-outside-line\n"


@pytest.fixture
def outside(tmp_path):
    target = tmp_path / "outside.md"
    target.write_text(OUTSIDE, encoding="utf-8")
    return target


def test_recall_and_index_skip_a_linked_log(ws, outside):
    ws("log", "--at", "2026-11-30T09:00", "root cause of the outage was a full disk")
    os.symlink(outside, ws.root / "memory" / "2026-11-29.md")
    result = ws("recall", "--json", "root")
    assert "root:x:0:0" not in result.stdout and "secret-outside" not in result.stdout
    assert "memory/2026-11-29.md is a symlink" in result.stderr
    assert "memory/2026-11-29.md" not in {r["path"] for r in json.loads(result.stdout)["results"]}


def test_a_linked_memory_directory_is_not_followed(ws, outside, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "2026-11-01.md").write_text("# 2026-11-01\n\n## 09:00 · user\nfar away note\n")
    (ws.root / "memory").rmdir()
    os.symlink(elsewhere, ws.root / "memory")
    assert json.loads(ws("recall", "--json", "far away note").stdout)["results"] == []
    result = ws("log", "--at", "2026-11-01T10:00", "should not land", ok=False)
    assert result.exit_code == 2 and "memory is a symlink" in result.stderr
    assert "should not land" not in (elsewhere / "2026-11-01.md").read_text(encoding="utf-8")


def test_log_refuses_a_day_file_that_is_a_link(ws, outside):
    os.symlink(outside, ws.root / "memory" / "2026-11-30.md")
    result = ws("log", "--at", "2026-11-30T09:00", "appended through a link?", ok=False)
    assert result.exit_code == 2 and "is a symlink" in result.stderr
    assert result.stderr.count("\n") == 1
    assert outside.read_text(encoding="utf-8") == OUTSIDE


@pytest.mark.parametrize("name", ["USER.md", "MEMORY.md", "HISTORY.md"])
def test_consolidate_refuses_linked_curated_files(ws, outside, name):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I prefer short answers")
    (ws.root / name).unlink()
    os.symlink(outside, ws.root / name)
    result = ws("consolidate", "--provider", "offline", ok=False)
    assert result.exit_code == 2 and "is a symlink" in result.stderr
    assert outside.read_text(encoding="utf-8") == OUTSIDE


def test_get_forget_and_context_refuse_links(ws, outside):
    os.symlink(outside, ws.root / "notes.md")
    get = ws("get", "notes.md", ok=False)
    assert get.exit_code == 2 and "symlink" in get.stderr and "root:x" not in get.stdout
    forget = ws("forget", "--hard", "notes.md:1", ok=False)
    assert forget.exit_code == 2 and outside.read_text(encoding="utf-8") == OUTSIDE
    (ws.root / "USER.md").unlink()
    os.symlink(outside, ws.root / "USER.md")
    context = ws("context", "who am I", ok=False)
    assert "root:x" not in context.stdout and "symlink" in context.stderr


def test_mcp_search_never_returns_a_linked_file(ws, outside):
    import asyncio

    from mcp import Client

    from openclaw_mem.memory import Memory
    from openclaw_mem.serve.mcp_server import build_server

    os.symlink(outside, ws.root / "memory" / "2026-11-29.md")

    async def main():
        server = build_server(Memory.open(ws.root, env=dict(os.environ)))
        async with Client(server) as client:
            found = await client.call_tool("memory_search", {"query": "root"})
            got = await client.call_tool("memory_get", {"path": "memory/2026-11-29.md"})
            return found.content[0].text, got

    found, got = asyncio.run(main())
    assert "root:x" not in found and got.is_error and "symlink" in got.content[0].text


def test_a_link_that_arrives_through_sync_is_reported_and_not_followed(tmp_path, outside):
    import subprocess

    from helpers import Mem
    from typer.testing import CliRunner

    from openclaw_mem.cli import app

    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    a, b = tmp_path / "a", tmp_path / "b"
    assert CliRunner().invoke(app, ["init", str(a)]).exit_code == 0
    subprocess.run(["git", "-C", str(a), "remote", "add", "origin", str(remote)], check=True)
    Mem(a)("sync")
    subprocess.run(["git", "clone", "-q", str(remote), str(b)], check=True)
    (b / "memory").mkdir(exist_ok=True)  # git keeps no empty directory
    os.symlink(outside, b / "memory" / "2026-11-29.md")
    subprocess.run(["git", "-C", str(b), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(b), "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "link"],
        check=True,
    )
    subprocess.run(["git", "-C", str(b), "push", "-q", "origin", "HEAD"], check=True)
    result = Mem(a)("sync")
    assert "memory/2026-11-29.md is a symlink; mem never follows it" in result.stderr
    recalled = Mem(a)("recall", "--json", "root")
    assert "root:x" not in recalled.stdout
    appended = Mem(a)("log", "--at", "2026-11-29T09:00", "through the link", ok=False)
    assert appended.exit_code == 2 and outside.read_text(encoding="utf-8") == OUTSIDE
