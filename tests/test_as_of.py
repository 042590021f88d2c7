"""`mem recall --as-of DAY` (memory as it stood then) and `--current` (no deprecated facts)."""

from __future__ import annotations

PROFILE = (
    "# USER\n\n## Identity\n\n"
    "- ~~Lives in Shanghai.~~ (deprecated 2026-11-20 → Lives in Hangzhou.) "
    "<!-- identity i=0.8 c=0.9 2026-10-01 -->\n"
    "- Lives in Hangzhou. <!-- identity i=0.8 c=0.9 2026-11-20 -->\n"
)


def where(ws, *args):
    return [
        (h["path"], h["startLine"], h["snippet"])
        for h in ws.json("recall", "where does the user live", "--no-daemon", *args)["results"]
    ]


def test_as_of_sees_the_fact_that_was_current_then(ws):
    (ws.root / "USER.md").write_text(PROFILE, encoding="utf-8")
    today = where(ws)
    assert today[0][:2] == ("USER.md", 6)  # Hangzhou first, Shanghai after it, weighed half
    marked = ws.json("recall", "where does the user live", "--no-daemon")["results"]
    assert [h.get("superseded", False) for h in marked] == [False, True]  # marked by default
    then = where(ws, "--as-of", "2026-11-01")
    assert then == [("USER.md", 5, "- Lives in Shanghai.")]  # not yet struck, Hangzhou unborn
    assert where(ws, "--as-of", "2026-09-01") == []


def test_current_leaves_deprecated_facts_out(ws):
    (ws.root / "USER.md").write_text(PROFILE, encoding="utf-8")
    assert [line for _, line, _ in where(ws, "--current")] == [6]
    # As of a day before the deprecation, the old fact was the current one.
    assert [line for _, line, _ in where(ws, "--current", "--as-of", "2026-11-10")] == [5]


def test_logs_after_the_day_are_not_yet_written(ws):
    ws("log", "--role", "user", "--at", "2026-11-02T09:00", "The dentist moved to Tuesday.")
    ws("log", "--role", "user", "--at", "2026-11-05T09:00", "The dentist moved to Friday.")
    hits = ws.json("recall", "dentist", "--no-daemon", "--as-of", "2026-11-03")["results"]
    assert [h["path"] for h in hits] == ["memory/2026-11-02.md"]
    both = ws.json("recall", "dentist", "--no-daemon")["results"]
    assert {h["path"] for h in both} == {"memory/2026-11-02.md", "memory/2026-11-05.md"}


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
