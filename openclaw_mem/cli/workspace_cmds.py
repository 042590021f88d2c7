"""`mem init`, `mem status`, `mem config`."""

from pathlib import Path
from typing import Annotated

import typer

from .app import app, state, warn


@app.command("init")
def init_cmd(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Argument(
            help="Where (default: -w, $MEM_WORKSPACE, else the current directory).",
            show_default=False,
        ),
    ] = None,
    no_git: Annotated[bool, typer.Option("--no-git", help="Do not touch git.")] = False,
    skill: Annotated[
        bool,
        typer.Option("--skill", help="Also install the OpenClaw skill in skills/openclaw-mem/."),
    ] = False,
) -> None:
    """Create a memory workspace, or add what is missing to an existing (OpenClaw) one.
    Never overwrites a file."""
    from ..scaffold import init_workspace
    from ..workspace import init_target

    st = state(ctx)
    root = init_target(st.workspace_flag, directory, st.env, st.cwd)
    report = init_workspace(root, use_git=not no_git, skill=skill)
    for w in report.warnings:
        warn(w)
    if not report.created and not report.updated:
        typer.echo(f"{root} already has everything a memory workspace needs")
    else:
        typer.echo(f"workspace {root}")
        for name in report.created:
            typer.echo(f"  added   {name}")
        for name in report.updated:
            typer.echo(f"  updated {name} (added .mem/)")
    if report.git == "initialised":
        typer.echo("  git     initialised a repository")
    if report.commit:
        typer.echo(f"  commit  {report.commit} mem init: create memory workspace")


@app.command("status")
def status_cmd(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Workspace path, files and sizes, entries per day for the last 7 days, git state."""
    from ..index import IndexParams
    from ..status import workspace_status

    st = state(ctx)
    params = IndexParams.from_config(st.config())
    status = workspace_status(st.workspace(), st.now().date(), index_params=params)
    for w in status.warnings:
        warn(w)
    from . import render

    if as_json:
        render.print_json(status.to_json())
    else:
        render.status_view(status)


@app.command("config")
def config_cmd(
    ctx: typer.Context,
    key: Annotated[
        str | None, typer.Argument(help="Show only this key.", show_default=False)
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show the effective settings and where each came from (default, mem.toml, env)."""
    from ..config import key as lookup

    cfg = state(ctx).config()
    rows = cfg.rows()
    if key is not None:
        lookup(key)
        rows = [r for r in rows if r[0] == key]
    from . import render

    if as_json:
        render.print_json(
            {name: {"value": value, "source": source} for name, value, source in rows}
        )
    elif key is not None:
        typer.echo(rows[0][1])
    else:
        render.config_table(rows)
