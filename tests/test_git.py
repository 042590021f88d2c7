from __future__ import annotations

import json

import git
from helpers import settings


def test_commit_only_memory_files(ws):
    (ws.root / "notes.txt").write_text("not memory", encoding="utf-8")
    (ws.root / "skills").mkdir()
    (ws.root / "skills" / "SKILL.md").write_text("# not memory either", encoding="utf-8")
    ws("log", "--at", "2026-11-30T09:00", "我在用Go")
    (ws.root / "MEMORY.md").write_text("# MEMORY\n- edited in VS Code\n", encoding="utf-8")
    out = ws("commit", "-m", "hand edits").stdout
    assert out.startswith("committed ") and "hand edits" in out
    repo = git.Repo(ws.root)
    files = set(repo.head.commit.stats.files)
    assert files == {"MEMORY.md", "memory/2026-11-30.md"}
    untracked = set(repo.untracked_files)
    assert untracked == {"notes.txt", "skills/SKILL.md"}
    assert ws("commit").stdout.startswith("nothing to commit")


def test_fallback_identity_on_a_machine_without_one(ws):
    # conftest points HOME and GIT_CONFIG_GLOBAL at an empty place: no user.name is set.
    ws("log", "hi")
    ws("commit")
    author = git.Repo(ws.root).head.commit.author
    assert (author.name, author.email) == ("openclaw-mem", "mem@localhost")


def test_history_json_and_table_with_path_filter(ws):
    ws("log", "--at", "2026-11-29T09:00", "one")
    ws("commit", "-m", "day one")
    ws("log", "--at", "2026-11-30T09:00", "two")
    ws("commit", "-m", "day two")
    data = ws.json("history")
    subjects = [c["subject"] for c in data["commits"]]
    assert subjects[:2] == ["day two", "day one"] and subjects[-1].startswith("mem init")
    assert data["commits"][0]["files"] == 1 and data["commits"][0]["insertions"] == 5
    only = ws.json("history", "memory/2026-11-29.md")
    assert [c["subject"] for c in only["commits"]] == ["day one"]
    assert len(ws.json("history", "-n", "1")["commits"]) == 1
    table = ws("history").stdout
    assert "day two" in table and "mem init" in table


def test_diff_shows_new_and_changed_files_plain_when_piped(ws):
    ws("log", "--at", "2026-11-30T09:00", "记住：周五下午不开会")
    with (ws.root / "USER.md").open("a", encoding="utf-8") as f:
        f.write("- likes tea\n")
    out = ws("diff").stdout
    assert "+记住：周五下午不开会" in out and "+- likes tea" in out
    assert "\x1b[" not in out
    colored = ws("diff", "--color", "always").stdout
    assert "\x1b[" in colored
    ws("commit")
    assert ws("diff").stdout == ""
    assert "memory/2026-11-30.md" in ws("diff", "HEAD~1").stdout
    bad = ws("diff", "no-such-rev", ok=False)
    assert bad.exit_code == 4 and "no commit 'no-such-rev'" in bad.stderr


def test_autocommit_log_commits_each_append(ws):
    settings(ws.root, '[git]\nautocommit = "log"\n')
    ws("commit", "-m", "settings")
    ws("log", "--at", "2026-11-30T09:00", "committed at once")
    repo = git.Repo(ws.root)
    assert repo.head.commit.message.startswith("mem log: memory/2026-11-30.md")
    assert not repo.is_dirty(untracked_files=True)


def test_status_reports_git_state(ws):
    data = ws.json("status")
    assert data["git"]["clean"] is True and data["git"]["lastCommit"]["subject"].startswith(
        "mem init"
    )
    ws("log", "x")
    data = ws.json("status")
    assert data["git"]["clean"] is False and data["git"]["dirty"][0].startswith("memory/")
    assert json.dumps(data, ensure_ascii=False)


def test_a_commit_message_holds_no_secret(ws):
    """`mem commit -m "rotated ghp_…"` put the token in the commit, on the terminal and in
    `mem history`."""
    token = "ghp_Zq7Xw3Vr9Tn5Lm1Kp8Hj4Gf2Ds6Aa0Bb3Cc5Dd"
    ws("log", "rotated the CI token today")
    said = ws("commit", "-m", f"rotated {token} today")
    assert token not in said.stdout and "[REDACTED]" in said.stdout
    assert token not in git.Repo(ws.root).head.commit.message
    assert token not in ws("history").stdout
