"""`mem commit`, `mem history`, `mem diff`: reviewing memory with git."""

from pathlib import Path
from typing import Annotated

import typer

from ..errors import NotFound, UsageError
from ..text import plural, visible
from .app import app, one_of, state


@app.command("commit")
def commit_cmd(
    ctx: typer.Context,
    message: Annotated[str | None, typer.Option("--message", "-m", help="Commit message.")] = None,
) -> None:
    """Commit the changed memory files (and only those)."""
    info = state(ctx).memory().commit(message)
    if info is None:
        typer.echo("nothing to commit: memory files are clean")
    else:
        typer.echo(
            visible(
                f"committed {info.short} {info.subject} "
                f"({plural(info.files, 'file')}, +{info.insertions} -{info.deletions})"
            )
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
    st = state(ctx)
    mem = st.memory()
    target = None
    if path is not None:
        target = path if path.is_absolute() else (mem.root / path)
        here = st.cwd or Path(".").absolute()
        if not target.exists() and (here / path).exists():
            target = here / path
    commits = mem.history(limit, target)
    if target is not None and not commits and not target.exists():
        raise NotFound(f"{path}: no such file in the workspace, and no commit touched it")
    from . import render

    if as_json:
        render.print_json({"commits": [c.to_json() for c in commits]})
    elif not commits:
        typer.echo(
            f"no commits touch {path}" if target is not None else "no commits touch memory yet"
        )
    else:
        render.history_table(st.term, commits)


@app.command("diff")
def diff_cmd(
    ctx: typer.Context,
    rev: Annotated[str, typer.Argument(help="Compare memory with this revision.")] = "HEAD",
    color: Annotated[
        str,
        typer.Option(
            "--color",
            help="auto | always | never.",
            autocompletion=one_of("auto", "always", "never"),
        ),
    ] = "auto",
) -> None:
    """Show the change to memory files since REV, new files included; coloured on a
    terminal, plain when piped."""
    if color not in ("auto", "always", "never"):
        raise UsageError(f"--color must be auto, always or never, not {color!r}")
    st = state(ctx)
    use_color = color == "always" or (color == "auto" and st.term.color)
    text = st.memory().diff(rev)
    if text:
        from . import render

        render.diff_view(text, use_color)
    else:
        typer.echo(f"no change to memory since {rev}", err=True)


@app.command("trust")
def trust_cmd(ctx: typer.Context) -> None:
    """Trust this workspace's mem.toml as it is now, on this machine: its endpoints, models
    and providers count until the file changes (a synced change must be trusted again)."""
    digest = state(ctx).memory(notices=False).trust()  # what it would say, it settles
    typer.echo(f"trusted mem.toml (sha256 {digest[:12]}) on this machine")


@app.command("doctor")
def doctor_cmd(ctx: typer.Context) -> None:
    """Put right what a plain `git pull` or a hand edit left: memory files a merge left
    conflicted (merged by entry and by line, and staged), citations that no longer point at
    the entry that says them, a clone without the merge driver."""
    done = state(ctx).memory().doctor()
    for what in done.finished:
        typer.echo(f"finished a {what} a kill had interrupted, committed as mem's")
    for path in done.leftovers:
        typer.echo(f"removed {visible(path, lines=False)}, a temp file a kill left")
    for path in done.merged:
        how = "by entry" if path.startswith("memory/") or path == "HISTORY.md" else "by line"
        typer.echo(f"merged {visible(path, lines=False)} {how}")
    if done.held:
        typer.echo(f"lines both sides rewrote wait in `mem review {done.held}`")
    moved, unsourced = done.citations.moved, done.citations.unsourced
    if done.reformatted:
        typer.echo(
            f"rewrote {plural(done.reformatted, 'curated line')} of the older format: sources "
            "as links, the rest in HISTORY.md"
            + (f"; committed {done.commit}" if done.commit else "")
        )
    if moved or unsourced:
        typer.echo(
            f"citations: {plural(moved, 'line')} re-pointed at its entry, "
            f"{unsourced} unsourced (its entry is gone or redacted)"
            + (f"; committed {done.commit}" if done.commit else "")
        )
    if done.wrong:
        shown = ", ".join(visible(w, lines=False) for w in done.wrong[:5])
        typer.echo(
            f"{plural(len(done.wrong), 'line')} whose links cite log lines that do not say it, "
            f"with no record mem could follow: {shown}"
            + (" …" if len(done.wrong) > 5 else "")
            + "; fix their links by hand (mem never rewrites links it did not write)"
        )
    if done.merged:
        typer.echo("finish the merge: git commit (or git rebase --continue)")
    elif done.marked:
        from ..errors import ConflictError

        raise ConflictError(
            f"{', '.join(done.marked)} {'holds' if len(done.marked) == 1 else 'hold'} conflict "
            "markers (<<<<<<< … >>>>>>>) committed as they are, with no merge to finish: keep "
            "the lines you mean, delete the markers and commit (consolidate waits until then)"
        )
    elif not (
        moved or unsourced or done.reformatted or done.wrong or done.finished or done.leftovers
    ):
        typer.echo("nothing to put right: no memory file in conflict, every citation holds")


@app.command("merge-file", hidden=True)
def merge_file_cmd(
    base: Annotated[Path, typer.Argument(help="The common ancestor's version (%O).")],
    ours: Annotated[Path, typer.Argument(help="Ours (%A); the result is written here.")],
    theirs: Annotated[Path, typer.Argument(help="Theirs (%B).")],
    path: Annotated[str, typer.Argument(help="The file's path in the repository (%P).")] = "",
) -> None:
    """git's merge driver for daily logs and HISTORY.md: every entry of both sides once,
    byte for byte, in time order (registered by `mem init` and `mem sync`)."""
    from ..memory import merge_files

    merge_files(base, ours, theirs, path)
