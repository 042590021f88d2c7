"""A merge, rebase, cherry-pick or revert in progress, or conflict markers in a memory file:
nothing is written, nothing is staged, exit 8; `mem context` shows neither side as a fact."""

from __future__ import annotations

import subprocess

import pytest
from helpers import snapshot


def _git(root, *args):
    return subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@x", *args],
        capture_output=True,
        text=True,
    )


@pytest.fixture
def conflicted(ws):
    """USER.md conflicted in a merge that is still in progress."""
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I prefer tea over coffee")
    user = ws.root / "USER.md"
    base = user.read_text(encoding="utf-8")
    _git(ws.root, "checkout", "-q", "-b", "other")
    user.write_text(base + "\n- Lives in Hangzhou.\n", encoding="utf-8")
    _git(ws.root, "commit", "-qam", "other side")
    _git(ws.root, "checkout", "-q", "-")
    user.write_text(base + "\n- Lives in Shanghai.\n", encoding="utf-8")
    _git(ws.root, "commit", "-qam", "this side")
    merged = _git(ws.root, "merge", "other")
    assert merged.returncode != 0 and "<<<<<<<" in user.read_text(encoding="utf-8")
    return ws


@pytest.mark.parametrize(
    "args",
    [
        ("consolidate", "--provider", "offline"),
        ("forget", "USER.md:3"),
        ("undo",),
    ],
)
def test_writes_stop_during_a_merge(conflicted, args):
    before = snapshot(conflicted.root)
    status_before = _git(conflicted.root, "status", "--porcelain").stdout
    result = conflicted(*args, ok=False)
    assert result.exit_code == 8, result.stderr
    assert "a merge is in progress" in result.stderr and result.stderr.count("\n") == 1
    assert snapshot(conflicted.root) == before
    assert _git(conflicted.root, "status", "--porcelain").stdout == status_before  # still UU


def test_conflict_markers_without_a_merge_stop_writes_too(ws):
    (ws.root / "MEMORY.md").write_text(
        "# MEMORY\n\n<<<<<<< HEAD\n- A\n=======\n- B\n>>>>>>> other\n", encoding="utf-8"
    )
    ws("commit", "-m", "markers committed by hand")
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "Remember: the VPN is split-tunnel")
    before = snapshot(ws.root)
    result = ws("consolidate", "--provider", "offline", ok=False)
    assert result.exit_code == 8 and "MEMORY.md holds conflict markers" in result.stderr
    assert snapshot(ws.root) == before


def test_context_never_shows_conflict_markers_as_facts(conflicted):
    text = conflicted("context", "where does the user live").stdout
    assert "<<<<<<<" not in text and ">>>>>>>" not in text
    assert "Hangzhou" not in text and "Shanghai" not in text


@pytest.mark.parametrize("head", ["CHERRY_PICK_HEAD", "REVERT_HEAD", "rebase-merge"])
def test_other_operations_in_progress_are_named(ws, head):
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I prefer tea")
    git_dir = ws.root / ".git"
    marker = git_dir / head
    marker.mkdir() if head.startswith("rebase") else marker.write_text("0" * 40 + "\n")
    result = ws("consolidate", "--provider", "offline", ok=False)
    assert result.exit_code == 8
    what = {"CHERRY_PICK_HEAD": "cherry-pick", "REVERT_HEAD": "revert", "rebase-merge": "rebase"}
    assert f"a {what[head]} is in progress" in result.stderr
