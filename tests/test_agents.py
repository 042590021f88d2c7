"""Several agents in one workspace: each entry knows its agent, each agent recalls its own
conversation, curated facts carry their agent, and agents.isolation keeps them private."""

from __future__ import annotations

import pytest


def paths_and_lines(ws, query, *args):
    out = ws.json("recall", query, "--no-daemon", *args)["results"]
    return [(h["path"], h["startLine"]) for h in out]


def three_voices(ws):
    ws("log", "--agent", "coder", "--role", "user", "--at", "2026-11-24T09:00",
       "The staging database password rotates on Mondays.")  # fmt: skip
    ws("log", "--agent", "writer", "--role", "user", "--at", "2026-11-24T09:05",
       "The blog post about staging is due Friday.")  # fmt: skip
    ws("log", "--role", "user", "--at", "2026-11-24T09:10", "The staging server is in Frankfurt.")


def test_entries_carry_their_agent_and_recall_keeps_to_it(ws, monkeypatch):
    three_voices(ws)
    day = (ws.root / "memory" / "2026-11-24.md").read_text(encoding="utf-8")
    assert "## 09:00 · user <!-- agent: coder -->" in day
    everyone = paths_and_lines(ws, "staging")
    assert len(everyone) == 3
    coder = paths_and_lines(ws, "staging", "--agent", "coder")
    assert sorted(line for _, line in coder) == [3, 9]  # its own entry and the unmarked one
    monkeypatch.setenv("MEM_AGENT", "writer")
    assert sorted(line for _, line in paths_and_lines(ws, "staging")) == [6, 9]
    ctx = ws("context", "staging", "--now", "2026-11-24T12:00").stdout
    assert "blog post" in ctx and "password rotates" not in ctx


def test_a_bad_agent_id_is_refused(ws, monkeypatch):
    result = ws("log", "--agent", "two words", "hello", ok=False)
    assert result.exit_code == 2 and "agent id 'two words'" in result.stderr
    monkeypatch.setenv("MEM_AGENT", "a/b")
    assert ws("recall", "x", "--no-daemon", ok=False).exit_code == 2


def test_consolidated_facts_keep_their_agent_and_isolation_makes_them_private(ws, monkeypatch):
    ws("log", "--agent", "coder", "--role", "user", "--at", "2026-11-24T09:00",
       "I prefer tabs over spaces in Go code.")  # fmt: skip
    ws("consolidate", "--provider", "offline", "--now", "2026-11-24T12:00")
    user = (ws.root / "USER.md").read_text(encoding="utf-8")
    line = next(x for x in user.splitlines() if "tabs over spaces" in x)
    assert "agent=coder" in line
    query = "tabs or spaces in Go"
    assert any(p == "USER.md" for p, _ in paths_and_lines(ws, query, "--agent", "writer"))
    (ws.root / "mem.toml").write_text('[agents]\nisolation = "isolated"\n', encoding="utf-8")
    assert not any(p == "USER.md" for p, _ in paths_and_lines(ws, query, "--agent", "writer"))
    assert any(p == "USER.md" for p, _ in paths_and_lines(ws, query, "--agent", "coder"))
    assert any(p == "USER.md" for p, _ in paths_and_lines(ws, query))  # the person sees all
    history = (ws.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "<!-- agent: coder -->" in history  # one agent's batch: its summary is its own
    monkeypatch.setenv("MEM_AGENT", "writer")
    assert "tabs over spaces" not in ws("context", query, "--no-daemon").stdout
    monkeypatch.setenv("MEM_AGENT", "coder")
    assert "tabs over spaces" in ws("context", query, "--no-daemon").stdout


def test_an_agent_is_read_from_its_own_field_not_from_a_session_id(ws, monkeypatch):
    ws("log", "--session", "x-agent:eve", "--agent", "bob", "--role", "user", "bob walrus note")
    monkeypatch.setenv("MEM_AGENT", "bob")
    assert [p for p, _ in paths_and_lines(ws, "walrus")] == ["memory/" + next(
        p.name for p in (ws.root / "memory").glob("*.md"))]  # fmt: skip
    monkeypatch.setenv("MEM_AGENT", "eve")
    assert paths_and_lines(ws, "walrus") == []


@pytest.mark.slow
def test_a_resident_process_answers_each_caller_as_the_caller_asks(ws):
    from openclaw_mem.memory import Memory
    from openclaw_mem.recall.reads import Read

    three_voices(ws)
    resident = Memory.open(ws.root, env={"MEM_AGENT": "coder"})  # started by one agent
    everyone = resident.answer(Read("recall", query="staging", agent=None))["results"]
    assert len(everyone) == 3  # a caller that names no agent sees all, as in-process
    writer = resident.answer(Read("recall", query="staging", agent="writer"))["results"]
    assert sorted(h["startLine"] for h in writer) == [6, 9]
