"""`mem hooks install|uninstall|status HARNESS` (serve/harnesses.py) and `mem hook HARNESS
EVENT`, what the installed hooks run (serve/hooks.py; the per-turn fast path answers it
without this module, which serves --help and --debug)."""

import os
from pathlib import Path
from typing import Annotated

import typer

from ..serve import harnesses, hooks
from .app import app, one_of, state

hooks_app = typer.Typer(
    help="Plug mem into an agent harness: Claude Code, Codex (hooks) or OpenClaw (a check).",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(hooks_app, name="hooks")

Harness = Annotated[
    str,
    typer.Argument(
        help="claude-code, codex or openclaw.",
        autocompletion=one_of(*harnesses.HARNESSES),
        show_default=False,
    ),
]
Scope = Annotated[
    str,
    typer.Option(
        "--scope",
        help="user (every project), project (DIR's shared settings) or local (DIR's "
        "settings of this machine only; claude-code).",
        autocompletion=one_of(*harnesses.SCOPES),
    ),
]
Directory = Annotated[
    Path | None,
    typer.Option(
        "--dir",
        help="The project for --scope project or local (default: here).",
        show_default=False,
    ),
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _where(ctx: typer.Context, harness: str, scope: str, directory: Path | None, need: bool = True):
    """(the workspace, the settings file, HOME). Without `need` (uninstall, status) the
    workspace is None when there is none: hooks whose workspace was deleted still go."""
    from ..errors import UsageError, WorkspaceNotFound

    if harness not in harnesses.HARNESSES:
        raise UsageError(f"unknown harness {harness!r}; one of {', '.join(harnesses.HARNESSES)}")
    st = state(ctx)
    try:
        mem = st.memory()
    except WorkspaceNotFound:
        if need or harness == "openclaw":
            raise
        mem = None
    home = st.env.get("HOME") or os.path.expanduser("~")
    if harness == "openclaw":
        return mem, None, home
    # Absolute: the install's record is keyed by the file, and an uninstall from another
    # folder (or with the default) must find it.
    folder = os.path.abspath(os.path.join(st.term.cwd, directory or ""))
    if scope != "user" and not os.path.isdir(folder):  # a typo would make a new tree
        raise UsageError(f"--dir {folder} is not a project folder (no such directory)")
    return mem, harnesses.settings_path(harness, scope, st.env, home, folder), home


def _show(report: harnesses.Report, as_json: bool, what: str) -> None:
    from . import render

    if as_json:
        render.print_json(report.to_json())
        return
    where = f"{report.path} ({report.scope})" if report.path else "nothing to install"
    typer.echo(f"{report.harness}  {where}")
    if what:
        typer.echo(f"  {what}")
    if report.command:
        typer.echo(f"  runs    {report.command}")
    for note in report.notes:
        typer.echo(f"  note    {note}")


@hooks_app.command("install")
def install_cmd(
    ctx: typer.Context,
    harness: Harness,
    scope: Scope = "user",
    directory: Directory = None,
    as_json: AsJson = False,
) -> None:
    """Add mem's hooks to the harness's settings: the memory brief at session start, recall
    for each prompt, every prompt and reply logged once. Your other hooks stay as they are;
    a second install changes nothing."""
    mem, path, home = _where(ctx, harness, scope, directory)
    env = state(ctx).env
    if path is None:
        report = harnesses.openclaw(mem.root, env, home)
        _show(report, as_json, _openclaw_said(report))
        raise typer.Exit(0 if report.events else 1)
    report = harnesses.install(harness, path, scope, mem.root, env, home)
    events = ", ".join(report.events)
    _show(report, as_json, f"added   {events}" if report.changed else "already installed: "
          "nothing changed")  # fmt: skip


@hooks_app.command("uninstall")
def uninstall_cmd(
    ctx: typer.Context,
    harness: Harness,
    scope: Scope = "user",
    directory: Directory = None,
    as_json: AsJson = False,
) -> None:
    """Take mem's hooks out: the file as it was before the install, byte for byte (removed
    if there was none), unless something else changed it since; then only mem's go."""
    mem, path, home = _where(ctx, harness, scope, directory, need=False)
    if path is None:
        _show(harnesses.openclaw(mem.root, state(ctx).env, home), as_json, "nothing to uninstall")
        return
    report = harnesses.uninstall(harness, path, scope, state(ctx).env, home)
    said = {
        "bytes": "removed mem's hooks: the file is as it was before the install",
        "removed": "removed mem's hooks: the file did not exist before the install, and is gone",
        "edited": "removed mem's hooks; the file changed since the install, the rest is kept",
        "": "not installed: nothing changed",
    }
    _show(report, as_json, said[report.restored])


@hooks_app.command("status")
def status_cmd(
    ctx: typer.Context,
    harness: Harness,
    scope: Scope = "user",
    directory: Directory = None,
    as_json: AsJson = False,
) -> None:
    """Which of mem's hooks the harness's settings hold, the workspace they write to, and
    what the last hook calls did (.mem/hooks.log). Exit 1 when none is installed."""
    mem, path, home = _where(ctx, harness, scope, directory, need=False)
    env = state(ctx).env
    if path is None:
        report = harnesses.openclaw(mem.root, env, home)
        _show(report, as_json, _openclaw_said(report))
        raise typer.Exit(0 if report.events else 1)
    root = mem.root if mem is not None else None
    report = harnesses.status(harness, path, scope, root, env, home)
    calls = [c for c in (hooks.journal(root) if root else []) if c.get("harness") == harness]
    if not as_json and report.events:
        _show(report, False, f"hooks   {', '.join(report.events)}")
        if calls:
            last = calls[-1]
            typer.echo(f"  last    {last.get('at')} {last.get('event')}, {last.get('ms')} ms")
            errors = [c for c in calls if c.get("error")]
            if errors:
                e = errors[-1]
                typer.echo(f"  error   {e.get('at')} {e.get('event')}: {e.get('error')}")
    elif not as_json:
        _show(report, False, "not installed (mem hooks install " + harness + ")")
    else:
        data = report.to_json()
        data["calls"] = calls[-20:]
        from . import render

        render.print_json(data)
    raise typer.Exit(0 if report.events else 1)


def _openclaw_said(report: harnesses.Report) -> str:
    if report.events:
        return (
            f"OpenClaw reads this workspace itself ({report.workspace}): "
            "MEMORY.md, USER.md and memory/*.md"
        )
    return "OpenClaw does not read this workspace"


@app.command("hook", hidden=False)
def hook_cmd(
    ctx: typer.Context,
    harness: Annotated[str, typer.Argument(help="claude-code or codex.", show_default=False)],
    event: Annotated[
        str,
        typer.Argument(
            help="SessionStart, UserPromptSubmit, Stop, SessionEnd, PreCompact or notify.",
            show_default=False,
        ),
    ],
    payload: Annotated[
        list[str] | None,
        typer.Argument(help="notify: the JSON Codex passes.", show_default=False),
    ] = None,
) -> None:
    """What mem's installed hooks run: reads the harness's JSON on stdin, prints what to
    inject, logs the turn. Never fails the agent (exit 0; errors in .mem/hooks.log)."""
    st = state(ctx)
    flag = str(st.workspace_flag) if st.workspace_flag is not None else None
    raise typer.Exit(hooks.run(harness, event, payload or [], st.term, flag))
