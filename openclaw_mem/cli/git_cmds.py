"""`mem commit`, `mem history`, `mem diff`: reviewing memory with git."""

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from .app import app, state


@app.command("commit")
def commit_cmd(
    ctx: typer.Context,
    message: Annotated[str | None, typer.Option("--message", "-m", help="Commit message.")] = None,
) -> None:
    """Commit the changed memory files (and only those)."""
    from ..gitrepo import commit_memory

    ws = state(ctx).workspace()
    info = commit_memory(ws.root, message)
    if info is None:
        typer.echo("nothing to commit: memory files are clean")
    else:
        typer.echo(
            f"committed {info.short} {info.subject} "
            f"({info.files} files, +{info.insertions} -{info.deletions})"
        )


@app.command("history")
def history_cmd(
    ctx: typer.Context,
    path: Annotated[
        Path | None, typer.Argument(help="Only commits touching this file.", show_default=False)
    ] = None,
    limit: Annotated[int, typer.Option("-n", "--limit", help="How many commits.", min=1)] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the commits that touched memory, newest first, with their short stat."""
    from ..gitrepo import history

    ws = state(ctx).workspace()
    target = None
    if path is not None:
        target = path if path.is_absolute() else (ws.root / path)
        if not target.exists() and (Path.cwd() / path).exists():
            target = Path.cwd() / path
    commits = history(ws.root, limit, target)
    from . import render

    if as_json:
        render.print_json({"commits": [c.to_json() for c in commits]})
    elif not commits:
        typer.echo("no commits touch memory yet")
    else:
        render.history_table(commits)


def _use_color(choice: str) -> bool:
    if choice == "always":
        return True
    if choice == "never" or "NO_COLOR" in os.environ:
        return False
    return sys.stdout.isatty()


@app.command("diff")
def diff_cmd(
    ctx: typer.Context,
    rev: Annotated[str, typer.Argument(help="Compare memory with this revision.")] = "HEAD",
    color: Annotated[str, typer.Option("--color", help="auto | always | never.")] = "auto",
) -> None:
    """Show the change to memory files since REV, new files included; coloured on a
    terminal, plain when piped."""
    from ..gitrepo import diff

    if color not in ("auto", "always", "never"):
        raise UsageError(f"--color must be auto, always or never, not {color!r}")
    ws = state(ctx).workspace()
    text = diff(ws.root, rev, color=_use_color(color))
    if text:
        sys.stdout.write(text)
    else:
        typer.echo(f"no change to memory since {rev}", err=True)
