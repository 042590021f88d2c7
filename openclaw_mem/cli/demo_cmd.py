"""`mem demo`: the whole loop on a copy of workspace.example/, offline, no API key."""

import shutil
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from .app import app, state

# The example's logs end on 2026-11-27; the demo lives on the morning after, so its output
# is the same whatever day it runs.
DEMO_NOW = datetime(2026, 11, 28, 9, 0)
DEMO_QUERIES = ("Redis 连接超时", "现在主要用什么语言写后端？")
DEMO_TURNS = (
    (
        "09:00",
        "user",
        "周末在 kind 本地集群上把 Atlas API 跑起来了，Services 和 Ingress 都配好了。",
    ),
    ("09:01", "assistant", "很好。下一步可以把 ConfigMap/Secret 接上，再试试 Helm chart。"),
    ("09:03", "user", "Remember: Zhang Lei and I start the Atlas on-call rotation on December 1."),
)


def _step(title: str) -> None:
    from rich.rule import Rule

    from .render import console

    console().print(Rule(f"[bold]$ {title}[/bold]", align="left"))


@app.command("demo")
def demo_cmd(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Argument(
            help="Where to put the demo workspace (default: a new temp dir).", show_default=False
        ),
    ] = None,
) -> None:
    """Copy workspace.example/ somewhere, log a few turns, recall, consolidate, and show
    status, history and diff. Offline; no API key."""
    from ..gitrepo import commit_memory, diff, history
    from ..logs import NewEntry, append_entries
    from ..resources import example_workspace
    from ..scaffold import init_workspace
    from ..status import workspace_status
    from ..workspace import Workspace
    from . import render

    if directory is None:
        root = Path(tempfile.mkdtemp(prefix="mem-demo-"))
    else:
        root = directory.expanduser().resolve()
        if root.exists() and any(root.iterdir()):
            raise UsageError(f"{root} is not empty; give a new directory for the demo")
    shutil.copytree(
        example_workspace(), root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".mem", ".git")
    )
    state(ctx)  # resolve nothing: the demo never touches the user's own workspace
    ws = Workspace(root, "demo")

    _step(f"mem init {root}")
    report = init_workspace(root)
    typer.echo(f"copied workspace.example/ and committed it as {report.commit}")

    for time, role, text in DEMO_TURNS:
        _step(f'mem log --role {role} "{text[:40]}…"')
        when = datetime.combine(DEMO_NOW.date(), datetime.strptime(time, "%H:%M").time())
        path = ws.day_file(when.date())
        result = append_entries(path, when.date(), [NewEntry(when, role, text)], rel=ws.rel(path))
        typer.echo(f"{ws.rel(path)}#L{result.start_line}-L{result.end_line}")

    from ..index import IndexParams
    from ..recall import RecallOptions, recall

    for query in DEMO_QUERIES:
        _step(f'mem recall --now {DEMO_NOW:%Y-%m-%d} -k 3 "{query}"')
        found = recall(ws, query, RecallOptions(k=3, now=DEMO_NOW))
        render.recall_table(found.hits, query, explain=False)

    from ..consolidate.run import Options, consolidate
    from ..providers import choose

    _step(f"mem consolidate --provider offline --now {DEMO_NOW:%Y-%m-%dT%H:%M}")
    report = consolidate(ws, choose("offline", {}, {}), Options(now=DEMO_NOW))
    render.consolidation_view(report)

    _step("mem status")
    render.status_view(workspace_status(ws, DEMO_NOW.date(), index_params=IndexParams()))

    _step("mem diff")
    typer.echo(diff(root, color=False).rstrip("\n"))

    _step('mem commit -m "demo: log three turns"')
    info = commit_memory(root, "demo: log three turns")
    typer.echo(f"committed {info.short} {info.subject}" if info else "nothing to commit")

    _step("mem history")
    render.history_table(history(root, 5))

    typer.echo(f"\nThe demo workspace is {root}; try: mem -w {root} status")
