"""`mem recall --as-of DAY` (memory as it stood then) and `--current` (no deprecated facts)."""

from __future__ import annotations

from datetime import date, datetime

PROFILE = (
    "# USER\n\n## Identity\n\n"
    "- ~~Lives in Shanghai.~~ (deprecated 2026-11-20 → Lives in Hangzhou.) "
    "<!-- identity i=0.8 c=0.9 2026-10-01 -->\n"
    "- Lives in Hangzhou. <!-- identity i=0.8 c=0.9 2026-11-20 -->\n"
)


def where(memory, **options):
    return [
        (h.path, h.start_line, h.snippet)
        for h in memory.recall("where does the user live", **options).hits
    ]


def test_as_of_sees_the_fact_that_was_current_then(memory):
    (memory.root / "USER.md").write_text(PROFILE, encoding="utf-8")
    today = memory.recall("where does the user live").hits
    assert (today[0].path, today[0].start_line) == ("USER.md", 6)  # Hangzhou, then Shanghai
    assert [h.deprecated for h in today] == [False, True]  # weighed half, and marked
    then = where(memory, as_of=date(2026, 11, 1))
    assert then == [("USER.md", 5, "- Lives in Shanghai.")]  # not yet struck, Hangzhou unborn
    assert where(memory, as_of=date(2026, 9, 1)) == []


def test_current_leaves_deprecated_facts_out(memory):
    (memory.root / "USER.md").write_text(PROFILE, encoding="utf-8")
    assert [line for _, line, _ in where(memory, current=True)] == [6]
    # As of a day before the deprecation, the old fact was the current one.
    assert [line for _, line, _ in where(memory, current=True, as_of=date(2026, 11, 10))] == [5]


def test_logs_after_the_day_are_not_yet_written(memory):
    memory.log("The dentist moved to Tuesday.", role="user", at=datetime(2026, 11, 2, 9))
    memory.log("The dentist moved to Friday.", role="user", at=datetime(2026, 11, 5, 9))
    hits = memory.recall("dentist", as_of=date(2026, 11, 3)).hits
    assert [h.path for h in hits] == ["memory/2026-11-02.md"]
    both = memory.recall("dentist").hits
    assert {h.path for h in both} == {"memory/2026-11-02.md", "memory/2026-11-05.md"}


def test_the_cli_marks_a_superseded_line_in_json(ws):
    (ws.root / "USER.md").write_text(PROFILE, encoding="utf-8")
    marked = ws.json("recall", "where does the user live", "--no-daemon")["results"]
    assert [h.get("superseded", False) for h in marked] == [False, True]


def test_a_bad_day_is_a_usage_error(ws):
    result = ws("recall", "x", "--as-of", "2026-13-01", ok=False)
    assert result.exit_code == 2 and "is not an ISO date" in result.stderr


def test_context_as_of_shows_the_profile_and_conversation_of_that_day(ws):
    (ws.root / "USER.md").write_text(PROFILE, encoding="utf-8")
    ws("log", "--role", "user", "--at", "2026-11-02T09:00", "Booked the dentist for Tuesday.")
    ws("log", "--role", "user", "--at", "2026-11-25T09:00", "Moved the dentist to Friday.")
    then = ws("context", "dentist", "--no-daemon", "--as-of", "2026-11-02").stdout
    assert "- Lives in Shanghai." in then and "Hangzhou" not in then
    assert "Tuesday" in then and "Friday" not in then
    now = ws("context", "dentist", "--no-daemon", "--now", "2026-11-25T12:00").stdout
    assert "- Lives in Hangzhou." in now and "Shanghai" not in now and "Friday" in now


def test_one_agent_memory_is_the_same_memory_working_for_it(ws):
    from openclaw_mem.memory import Memory

    mem = Memory.open(ws.root, env={})
    assert mem.agent is None and mem.for_agent("coder").agent == "coder"
    assert mem.for_agent("coder").root == mem.root
