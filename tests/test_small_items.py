"""Small things issue 44 found, each held here."""

from __future__ import annotations

from datetime import date

from openclaw_mem.format.markdown import ledger_entries, ledger_line


def test_the_ledger_keeps_a_provider_label_with_brackets_whole(ws):
    line = ledger_line(0, 0, date(2026, 11, 30), "offline (rules, no network)", False)
    marker = f"<!-- consolidated: 1 entry of memory/2026-11-30.md; {line} -->"
    assert ledger_entries(marker)[0]["who"] == "offline (rules, no network)"
    ws("log", "--at", "2026-11-30T09:00", "--role", "user", "I moved to Porto last month")
    ws("consolidate", "--now", "2026-11-30T12:00")
    by_model = ws.json("status")["consolidation"]["tokens"]["byModel"]
    assert list(by_model) == ["offline (rules, no network)"]


def test_no_color_on_a_terminal_is_no_escape_sequence_at_all(monkeypatch):
    import io
    import sys

    from openclaw_mem.cli import render
    from openclaw_mem.environment import Environment

    for env, escaped in (({"NO_COLOR": "1"}, False), ({}, True)):
        out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        term = Environment(env, stdout=out, stdout_tty=True, width=80)
        render.console(term).print("[bold]status[/bold] [dim]quiet[/dim] [red]red[/red]")
        assert ("\x1b[" in out.getvalue()) is escaped, (env, out.getvalue())
        assert "status quiet red" in out.getvalue().replace("\x1b[0m", "").replace(
            "\x1b[1m", ""
        ).replace("\x1b[2m", "").replace("\x1b[31m", "")
