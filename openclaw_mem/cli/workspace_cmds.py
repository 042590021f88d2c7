"""`mem init`, `mem status`, `mem config`."""

import json
from pathlib import Path
from typing import Annotated

import typer

from .. import serve
from ..memory import init
from ..serve import hooks
from .app import app, directories, one_of, state, warn


@app.command("init")
def init_cmd(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Argument(
            help="Where (default: -w, $MEM_WORKSPACE, else the current directory).",
            show_default=False,
            autocompletion=directories,
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
    st = state(ctx)
    report = init(
        directory,
        workspace_flag=st.workspace_flag,
        env=st.env,
        cwd=st.cwd,
        use_git=not no_git,
        skill=skill,
    )
    root = report.root
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
    st = state(ctx)
    mem = st.memory(notices=False)
    status = mem.status()
    status.socket = serve.answering_on(mem.root)
    status.resident = status.socket is not None
    status.autostart = 0 if status.resident else serve.on_demand_idle(mem)
    status.hooks = hooks.summary(mem.root)
    for w in status.warnings:
        warn(w)
    from . import render

    if as_json:
        render.print_json(status.to_json())
    else:
        render.status_view(st.term, status)


@app.command("config")
def config_cmd(
    ctx: typer.Context,
    key: Annotated[
        str | None, typer.Argument(help="Show only this key.", show_default=False)
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show the effective settings and where each came from (default, mem.toml, env)."""
    st = state(ctx)
    cfg = st.memory(notices=False).config
    # Every time, each on its own line: this is where a person looks for what went wrong.
    wrong = [f"not used: {message}" for _, message, _ in cfg.problems]
    said = [w for w in cfg.warnings if not w.startswith("not used: ")]
    for message in (*said, *wrong):
        warn(message)
    rows = cfg.rows()
    if key is not None:
        cfg[key]  # an unknown key is an error with a suggestion
        rows = [r for r in rows if r[0] == key]
    from . import render

    if as_json:
        render.print_json(
            {name: {"value": value, "source": source} for name, value, source in rows}
        )
    elif key is not None:  # as the table and mem.toml write it (true, not Python's True)
        value = rows[0][1]
        typer.echo(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    else:
        render.config_table(st.term, rows)


@app.command("completion")
def completion_cmd(
    shell: Annotated[
        str, typer.Argument(help="bash, zsh or fish.", autocompletion=one_of("bash", "zsh", "fish"))
    ],
) -> None:
    """Print the shell completion script: eval "$(mem completion bash)" in ~/.bashrc
    (zsh: ~/.zshrc; fish: mem completion fish > ~/.config/fish/completions/mem.fish)."""
    from typer._completion_shared import get_completion_script

    from ..errors import UsageError

    if shell not in ("bash", "zsh", "fish"):
        raise UsageError(f"no completion for {shell!r}; use bash, zsh or fish")
    typer.echo(get_completion_script(prog_name="mem", complete_var="_MEM_COMPLETE", shell=shell))


@app.command("help")
def help_cmd(
    ctx: typer.Context,
    command: Annotated[str | None, typer.Argument(help="The command to explain.")] = None,
) -> None:
    """What a command does and its options, as `mem COMMAND --help` prints them."""
    from ..errors import UsageError

    root = ctx.find_root()
    if command is None:
        typer.echo(root.get_help())
        return
    found = root.command.get_command(root, command)
    if found is None:
        import difflib

        close = difflib.get_close_matches(command, root.command.list_commands(root), 1, 0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UsageError(f"no such command: {command}{hint}; `mem help` lists them")
    sub = found.make_context(command, ["--help"], parent=root, resilient_parsing=True)
    typer.echo(found.get_help(sub))
