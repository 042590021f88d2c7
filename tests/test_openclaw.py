"""A real OpenClaw workspace opens, indexes and recalls unchanged, and the skill ships."""

from __future__ import annotations

import shutil
from pathlib import Path

import frontmatter
from helpers import REPO, Mem, snapshot

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "openclaw_workspace"


def test_openclaw_workspace_recalls_without_conversion(tmp_path, monkeypatch):
    root = tmp_path / "workspace"
    shutil.copytree(FIXTURE, root)
    before = snapshot(root)
    mem = Mem(root)
    monkeypatch.chdir(root / "memory")  # found as an ancestor holding MEMORY.md
    # The day log holds the discussion; MEMORY.md's bullet about the migration may outrank
    # it now that a bullet is a chunk of its own, so the log must be in the top three.
    found = [
        r["path"]
        for r in mem.json("recall", "--now", "2026-11-22", "ECharts 100k points")["results"]
    ]
    assert "memory/2026-11-20.md" in found[:3], found
    for query, path in [
        ("给老板演示物流看板", "memory/2026-11-20.md"),
        ("vercel preview blank page", "memory/2026-11-21-vercel-preview-debugging.md"),
        ("Supabase key env var", "MEMORY.md"),
        ("羽毛球", "USER.md"),
        ("home-server ssh", "TOOLS.md"),
    ]:
        results = mem.json("recall", "--now", "2026-11-22", query)["results"]
        assert results and results[0]["path"] == path, (query, results[:2])
    status = mem.json("status")
    assert status["index"]["files"] == 9 and status["git"] == {"repo": False}
    from typer.testing import CliRunner

    from openclaw_mem.cli import app

    plain = CliRunner().invoke(app, ["recall", "--json", "ECharts"])  # no -w: the ancestor
    assert plain.exit_code == 0 and '"memory/2026-11-20.md"' in plain.stdout
    after = snapshot(root)
    assert {k: v for k, v in after.items() if not k.startswith(".mem")} == before


def test_free_form_entries_get_their_own_lines(tmp_path):
    root = tmp_path / "workspace"
    shutil.copytree(FIXTURE, root)
    hits = Mem(root).json("recall", "--now", "2026-11-22", "-k", "1", "badminton moved Thursday")
    assert hits["results"][0]["startLine"] == hits["results"][0]["endLine"] == 10


def test_init_on_it_adds_only_what_is_missing(tmp_path):
    root = tmp_path / "workspace"
    shutil.copytree(FIXTURE, root)
    before = snapshot(root)
    out = Mem(root)("init", str(root)).stdout
    assert "added   HISTORY.md" in out and "AGENTS.md" not in out and "USER.md" not in out
    after = snapshot(root)
    assert all(after[name] == data for name, data in before.items())


def test_the_skill_teaches_recall_log_and_context():
    skill = frontmatter.load(REPO / "templates" / "skill" / "SKILL.md")
    assert skill.metadata["name"] == "openclaw-mem" and skill.metadata["description"]
    assert "mem" in str(skill.metadata["metadata"])
    for command in ("mem recall", "mem log", "mem context", "mem consolidate"):
        assert command in skill.content


def test_init_can_install_the_skill(tmp_path):
    root = tmp_path / "workspace"
    shutil.copytree(FIXTURE, root)
    out = Mem(root)("init", "--skill", str(root)).stdout
    assert "added   skills/openclaw-mem/SKILL.md" in out
    installed = (root / "skills" / "openclaw-mem" / "SKILL.md").read_text(encoding="utf-8")
    assert installed == (REPO / "templates" / "skill" / "SKILL.md").read_text(encoding="utf-8")
