"""All terminal rendering: rich tables for people, JSON for programs. Imported lazily."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..gitrepo import CommitInfo
from ..status import Status


def console() -> Console:
    # Read sys.stdout at call time so CliRunner's captured stream is used.
    return Console(file=sys.stdout, highlight=False, soft_wrap=False)


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def history_table(commits: list[CommitInfo]) -> None:
    table = Table(title=None, show_edge=False, pad_edge=False)
    table.add_column("commit", style="yellow", no_wrap=True)
    table.add_column("date", no_wrap=True)
    table.add_column("author")
    table.add_column("subject")
    table.add_column("files", justify="right")
    table.add_column("+", justify="right", style="green")
    table.add_column("-", justify="right", style="red")
    for c in commits:
        table.add_row(
            c.short,
            c.date[:16].replace("T", " "),
            escape(c.author),
            escape(c.subject),
            str(c.files),
            str(c.insertions),
            str(c.deletions),
        )
    console().print(table)


def status_view(st: Status) -> None:
    out = console()
    out.print(f"[bold]workspace[/bold] {escape(st.root)}  [dim]({st.found_by})[/dim]")
    logs = [f for f in st.files if f.kind == "log"]
    table = Table(show_edge=False, pad_edge=False, box=None)
    table.add_column("file")
    table.add_column("size", justify="right")
    for f in st.files:
        if f.kind != "log":
            table.add_row(escape(f.path), human_size(f.size))
    table.add_row(f"memory/ ({len(logs)} daily logs)", human_size(sum(f.size for f in logs)))
    out.print(table)
    days = "  ".join(f"{d:%m-%d} {n}" for d, n in st.days)
    out.print(f"[bold]entries, last {len(st.days)} days[/bold]  {days}")
    git = st.git
    if git is None:
        return
    if not git["repo"]:
        out.print("[bold]git[/bold] no repository ([italic]mem init[/italic] adds one)")
        return
    state = (
        "[green]clean[/green]" if git["clean"] else f"[red]dirty[/red] ({len(git['dirty'])} files)"
    )
    last = git["lastCommit"]
    when = (
        f"{last['short']} {last['date'][:16].replace('T', ' ')} {escape(last['subject'])}"
        if last
        else "none"
    )
    out.print(f"[bold]git[/bold] {git['branch'] or 'detached'} {state}, last commit {when}")


def config_table(rows: list[tuple[str, Any, str]]) -> None:
    table = Table(show_edge=False, pad_edge=False)
    table.add_column("key")
    table.add_column("value")
    table.add_column("from", style="dim")
    for name, value, source in rows:
        table.add_row(name, escape(json.dumps(value, ensure_ascii=False)), source)
    console().print(table)
