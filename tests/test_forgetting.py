from __future__ import annotations

import json
from datetime import datetime, timedelta

import git

USER = (
    "# USER\n\n## Identity\n\n- Lin Wei, backend engineer in Hangzhou.\n"
    "- Mainly uses Python for backend work. <!-- identity i=0.7 c=0.9 2026-11-02 -->\n"
    "- Has a cat called Doudou.\n\n## Preferences\n\n- Likes Python type hints.\n"
)


def _user(ws):
    (ws.root / "USER.md").write_text(USER, encoding="utf-8")
    ws("commit", "-m", "profile")


def test_forget_deprecates_by_default_and_deletes_with_hard(ws):
    _user(ws)
    out = ws("forget", "USER.md:6").stdout
    assert out.startswith("deprecated USER.md:6") and "committed " in out
    text = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "- ~~Mainly uses Python for backend work.~~ (forgotten" in text
    assert "<!-- identity i=0.7 c=0.9 2026-11-02 -->" in text
    assert git.Repo(ws.root).head.commit.message.startswith("forget: USER.md:6 (deprecated)")
    ws("forget", "--hard", "cat called Doudou")  # a query naming one line
    text = (ws.root / "USER.md").read_text(encoding="utf-8")
    assert "Doudou" not in text and "- Lin Wei, backend engineer in Hangzhou." in text
    assert recall_paths(ws, "Doudou cat") == []


def recall_paths(ws, query):
    return [
        r["path"]
        for r in ws.json("recall", query)["results"]
        if "USER" in r["path"] and "Doudou" in r["snippet"]
    ]


def test_an_ambiguous_query_lists_the_candidates(ws):
    _user(ws)
    result = ws("forget", "Python", ok=False)
    assert result.exit_code == 2
    assert "matches several lines equally" in result.stderr and "USER.md:6" in result.stderr
    assert "USER.md:11" in result.stderr
    assert ws("forget", "quantum chromodynamics", ok=False).exit_code == 4


def test_logs_are_only_redacted_with_hard(ws):
    ws("log", "--at", "2026-11-24T14:45", "my password is hunter2-secret, keep it")
    ws("commit", "-m", "log")
    day = ws.root / "memory" / "2026-11-24.md"
    before = day.read_bytes()
    refused = ws("forget", "memory/2026-11-24.md:4", ok=False)
    assert refused.exit_code == 2 and "logs are never rewritten" in refused.stderr
    assert day.read_bytes() == before
    out = ws("forget", "--hard", "memory/2026-11-24.md#L3-L4").stdout
    assert "redacted memory/2026-11-24.md:3-4" in out and "remains in git history" in out
    assert "git filter-repo" in out
    text = day.read_text(encoding="utf-8")
    assert "hunter2" not in text and "## 14:45 · note\n[forgotten" in text
    assert git.Repo(ws.root).head.commit.message.startswith("forget: memory/2026-11-24.md:3-4")


def test_forget_refuses_other_files_and_escapes(ws):
    (ws.root / "SOUL.md").write_text("# Soul\n- be kind\n", encoding="utf-8")
    assert ws("forget", "--hard", "SOUL.md:2", ok=False).exit_code == 2
    assert ws("forget", "--hard", "../x.md:1", ok=False).exit_code == 2
    assert ws("forget", "MEMORY.md:999", ok=False).exit_code == 4


def test_cleanup_archives_stale_lines_by_the_rules(ws):
    now = datetime.now()
    old = (now - timedelta(days=45)).date().isoformat()
    fresh = (now - timedelta(days=2)).date().isoformat()
    ancient = (now - timedelta(days=120)).date().isoformat()
    (ws.root / "MEMORY.md").write_text(
        "# MEMORY\n\n## Used\n\n"  # recall counts uses per chunk; a section is one here
        f"- Trivia someone recalled lately. <!-- fact i=0.1 c=0.9 {old} -->\n\n## Facts\n\n"
        f"- Trivia nobody asks about. <!-- fact i=0.1 c=0.9 {old} -->\n"
        f"- A guess the model was unsure of. <!-- fact i=0.8 c=0.3 {fresh} -->\n"
        f"- ~~Uses Jenkins for CI.~~ (deprecated {ancient} → GitHub Actions) "
        f"<!-- fact i=0.6 c=0.9 {old} -->\n"
        f"- Important and solid. <!-- fact i=0.9 c=0.9 {old} -->\n"
        "- A line a person wrote, with no metadata.\n",
        encoding="utf-8",
    )
    ws("commit", "-m", "memory")
    ws("recall", "--path", "MEMORY.md", "-k", "1", "trivia recalled lately")  # counts one use
    dry = ws.json("cleanup", "--dry-run")
    reasons = {line["line"]: line["reason"] for line in dry["lines"]}
    assert set(reasons) == {9, 10, 11}, reasons
    assert reasons[9].startswith("importance 0.1, never used")
    assert reasons[10] == "low confidence (0.3)" and reasons[11].startswith("deprecated since")
    assert dry["archive"] is None and "Trivia nobody" in (ws.root / "MEMORY.md").read_text("utf-8")
    out = ws("cleanup").stdout
    assert "committed " in out
    memory = (ws.root / "MEMORY.md").read_text(encoding="utf-8")
    assert "Trivia nobody" not in memory and "Jenkins" not in memory and "A guess" not in memory
    assert "Trivia someone recalled lately" in memory and "A line a person wrote" in memory
    archive = next((ws.root / "archive").glob("*.md")).read_text(encoding="utf-8")
    assert "Trivia nobody asks about" in archive and "archived: low confidence" in archive
    assert not git.Repo(ws.root).is_dirty(untracked_files=True)
    hits = ws.json("recall", "Trivia nobody asks about")["results"]
    assert all(not h["path"].startswith("archive/") for h in hits)
    assert json.loads(ws("cleanup", "--json").stdout)["lines"] == []
