"""Several agents in one workspace: each entry knows its agent, each agent recalls its own
conversation, curated facts carry their agent, and agents.isolation keeps them private.
Through the library; the CLI's --agent and MEM_AGENT at the end."""

from __future__ import annotations

from datetime import datetime

import pytest
from helpers import settings, without_ids

from openclaw_mem.errors import UsageError
from openclaw_mem.memory import Memory


def reopened(memory, agent: str | None = None) -> Memory:
    """The workspace opened again (settings read anew), as a process with MEM_AGENT=agent."""
    env = {k: v for k, v in memory.env.items() if k != "MEM_AGENT"}
    return Memory.open(memory.root, env={**env, "MEM_AGENT": agent} if agent else env)


def paths_and_lines(memory, query, **options):
    return [(h.path, h.start_line) for h in memory.recall(query, **options).hits]


def three_voices(memory):
    memory.log("The staging database password rotates on Mondays.",
               role="user", at=datetime(2026, 11, 24, 9, 0), agent="coder")  # fmt: skip
    memory.log("The blog post about staging is due Friday.",
               role="user", at=datetime(2026, 11, 24, 9, 5), agent="writer")  # fmt: skip
    memory.log("The staging server is in Frankfurt.", role="user", at=datetime(2026, 11, 24, 9, 10))


def test_entries_carry_their_agent_and_recall_keeps_to_it(memory):
    three_voices(memory)
    day = (memory.root / "memory" / "2026-11-24.md").read_text(encoding="utf-8")
    assert "## 09:00 · user <!-- agent: coder -->" in without_ids(day)
    everyone = paths_and_lines(memory, "staging")
    assert len(everyone) == 3
    coder = paths_and_lines(memory, "staging", agent="coder")
    assert sorted(line for _, line in coder) == [3, 9]  # its own entry and the unmarked one
    writer = reopened(memory, "writer")  # MEM_AGENT=writer
    assert sorted(line for _, line in paths_and_lines(writer, "staging")) == [6, 9]
    ctx = writer.context("staging", now=datetime(2026, 11, 24, 12)).render()
    assert "blog post" in ctx and "password rotates" not in ctx


def test_a_bad_agent_id_is_refused(memory):
    with pytest.raises(UsageError, match="agent id 'two words'") as refused:
        memory.log("hello", agent="two words")
    assert refused.value.exit_code == 2
    assert not list((memory.root / "memory").glob("*.md"))  # nothing was logged
    with pytest.raises(UsageError) as bad_env:
        reopened(memory, "a/b").recall("x")  # MEM_AGENT=a/b
    assert bad_env.value.exit_code == 2


def test_consolidated_facts_keep_their_agent_and_isolation_makes_them_private(memory):
    memory.log("I prefer tabs over spaces in Go code.",
               role="user", at=datetime(2026, 11, 24, 9, 0), agent="coder")  # fmt: skip
    memory.consolidate(provider="offline", now=datetime(2026, 11, 24, 12))
    user = (memory.root / "USER.md").read_text(encoding="utf-8")
    line = next(x for x in user.splitlines() if "tabs over spaces" in x)
    assert line.endswith("<!-- agent: coder -->")  # whose it is; its sources are links
    query = "tabs or spaces in Go"
    assert any(p == "USER.md" for p, _ in paths_and_lines(memory, query, agent="writer"))
    settings(memory.root, '[agents]\nisolation = "isolated"\n')
    isolated = reopened(memory)
    assert not any(p == "USER.md" for p, _ in paths_and_lines(isolated, query, agent="writer"))
    assert any(p == "USER.md" for p, _ in paths_and_lines(isolated, query, agent="coder"))
    assert any(p == "USER.md" for p, _ in paths_and_lines(isolated, query))  # the person sees all
    history = (memory.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "<!-- agent: coder -->" in history  # one agent's batch: its summary is its own
    assert "tabs over spaces" not in reopened(memory, "writer").context(query).render()
    assert "tabs over spaces" in reopened(memory, "coder").context(query).render()


def test_a_batch_that_mixes_agents_writes_a_shared_history_paragraph(memory):
    memory.log("I prefer tabs over spaces in Go code.",
               role="user", at=datetime(2026, 11, 24, 9, 0), agent="coder")  # fmt: skip
    memory.log("I am allergic to peanuts.",
               role="user", at=datetime(2026, 11, 24, 9, 5), agent="writer")  # fmt: skip
    memory.consolidate(provider="offline", now=datetime(2026, 11, 24, 12))
    user = (memory.root / "USER.md").read_text(encoding="utf-8")
    tabs = next(x for x in user.splitlines() if "tabs over spaces" in x)
    peanuts = next(x for x in user.splitlines() if "peanuts" in x)
    assert tabs.endswith("<!-- agent: coder -->") and peanuts.endswith("<!-- agent: writer -->")
    history = (memory.root / "HISTORY.md").read_text(encoding="utf-8")
    assert "[2026-11-24 09:05]" in history and "agent:" not in history  # everyone's


def test_an_agent_is_read_from_its_own_field_not_from_a_session_id(memory):
    memory.log("bob walrus note", role="user", session="x-agent:eve", agent="bob")
    day = next(p.name for p in (memory.root / "memory").glob("*.md"))
    assert [p for p, _ in paths_and_lines(reopened(memory, "bob"), "walrus")] == [f"memory/{day}"]
    assert paths_and_lines(reopened(memory, "eve"), "walrus") == []


def test_the_cli_takes_the_agent_from_its_option_and_from_mem_agent(ws, monkeypatch):
    def lines(*args):
        out = ws.json("recall", "staging", "--no-daemon", *args)["results"]
        return sorted(h["startLine"] for h in out)

    ws("log", "--agent", "coder", "--role", "user", "--at", "2026-11-24T09:00",
       "The staging database password rotates on Mondays.")  # fmt: skip
    ws("log", "--agent", "writer", "--role", "user", "--at", "2026-11-24T09:05",
       "The blog post about staging is due Friday.")  # fmt: skip
    ws("log", "--role", "user", "--at", "2026-11-24T09:10", "The staging server is in Frankfurt.")
    day = (ws.root / "memory" / "2026-11-24.md").read_text(encoding="utf-8")
    assert "## 09:00 · user <!-- agent: coder -->" in without_ids(day)
    assert lines() == [3, 6, 9] and lines("--agent", "coder") == [3, 9]
    monkeypatch.setenv("MEM_AGENT", "writer")
    assert lines() == [6, 9]
    ctx = ws("context", "staging", "--now", "2026-11-24T12:00").stdout
    assert "blog post" in ctx and "password rotates" not in ctx
    monkeypatch.delenv("MEM_AGENT")
    result = ws("log", "--agent", "two words", "hello", ok=False)
    assert result.exit_code == 2 and "agent id 'two words'" in result.stderr
    monkeypatch.setenv("MEM_AGENT", "a/b")
    assert ws("recall", "x", "--no-daemon", ok=False).exit_code == 2


@pytest.mark.slow
def test_a_resident_process_answers_each_caller_as_the_caller_asks(memory):
    from openclaw_mem.recall.reads import Read

    three_voices(memory)
    resident = reopened(memory, "coder")  # started by one agent
    everyone = resident.answer(Read("recall", query="staging", agent=None))["results"]
    assert len(everyone) == 3  # a caller that names no agent sees all, as in-process
    writer = resident.answer(Read("recall", query="staging", agent="writer"))["results"]
    assert sorted(h["startLine"] for h in writer) == [6, 9]
