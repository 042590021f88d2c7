"""`mem demo`: the whole loop on a copy of workspace.example/, offline, no API key."""

import tempfile
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..memory import Memory, copy_example, init
from ..recall.reads import Read
from ..text import visible
from .app import app, directories, state, warn

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


def _step(term, title: str) -> None:
    if not term.stdout_tty:  # piped output is drawn 10,000 wide: a rule would fill it
        typer.echo(f"\n$ {title}")
        return
    from rich.rule import Rule

    from .render import console

    console(term).print(Rule(f"[bold]$ {title}[/bold]", align="left"))


@app.command("demo")
def demo_cmd(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Argument(
            help="Where to put the demo workspace (default: a new temp dir).",
            show_default=False,
            autocompletion=directories,
        ),
    ] = None,
) -> None:
    """Copy workspace.example/ somewhere, log a few turns, recall, consolidate, and show
    status, history and diff. Offline; no API key. Without DIRECTORY it runs in a temporary
    folder that is removed afterwards. Recall's vectors come from the embedding provider
    MEM_EMBED_PROVIDER names (auto: the `local` extra's model when installed, else none),
    and the demo says which it used; with the same one, its output is the same on every
    run and machine."""
    import os
    import shutil

    tmp = None
    if directory is None:
        tmp = tempfile.mkdtemp(prefix="mem-demo-")
        root = Path(tmp) / "workspace"
    else:
        root = directory.expanduser().resolve()
        if root.exists() and any(root.iterdir()):
            raise UsageError(f"{root} is not empty; give a new directory for the demo")
    # Commits dated by the demo's clock, by the demo's author: the same hashes every run.
    saved = {k: os.environ.get(k) for k in _GIT_ENV}
    os.environ.update(_GIT_ENV)
    try:
        _demo(ctx, root, keep=tmp is None)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


_GIT_ENV = {
    "GIT_AUTHOR_NAME": "mem demo",
    "GIT_AUTHOR_EMAIL": "demo@example.invalid",
    "GIT_COMMITTER_NAME": "mem demo",
    "GIT_COMMITTER_EMAIL": "demo@example.invalid",
    "GIT_AUTHOR_DATE": f"{DEMO_NOW:%Y-%m-%dT%H:%M:%S}",
    "GIT_COMMITTER_DATE": f"{DEMO_NOW:%Y-%m-%dT%H:%M:%S}",
}


def _demo_env() -> dict[str, str]:
    """Of this shell's settings, only the embedding provider's (embed.*, and the endpoint
    and key an `openai` provider needs): every other MEM_* variable would make the demo's
    output this machine's own, and its workspace is a copy that trusts no mem.toml."""
    import os

    env = {k: v for k, v in os.environ.items() if k.startswith("MEM_EMBED_")}
    if env.get("MEM_EMBED_PROVIDER") == "openai":
        env.update({k: v for k, v in os.environ.items() if k.startswith("OPENAI_")})
    return env


def _demo(ctx: typer.Context, root: Path, keep: bool) -> None:
    from . import render

    copy_example(root)
    term = state(ctx).term  # the demo never touches the user's own workspace

    _step(term, f"mem init {root}")
    report = init(root)
    typer.echo(f"copied workspace.example/ and committed it as {report.commit}")
    # The workspace as its home: a replayed entry id is drawn from the workspace's place
    # under home (so two clones never share one), the same then for every demo.
    mem = Memory.open(root, env={**_demo_env(), "HOME": str(root)}, clock=lambda: DEMO_NOW)
    for notice in mem.notices():  # a MEM_EMBED_* value that could not be used
        warn(notice)
    typer.echo(f"embeddings: {mem.embeddings()}")

    for time, role, text in DEMO_TURNS:
        _step(term, f'mem log --role {role} "{text[:40]}…"')
        when = datetime.combine(DEMO_NOW.date(), datetime.strptime(time, "%H:%M").time())
        typer.echo(mem.log(text, role=role, at=when).citation)

    _step(term, "mem diff")
    typer.echo(visible(mem.diff().rstrip("\n")) or "no change to memory since HEAD")

    _step(term, 'mem commit -m "demo: log three turns"')
    info = mem.commit("demo: log three turns")
    typer.echo(f"committed {info.short} {info.subject}" if info else "nothing to commit")

    for query in DEMO_QUERIES:
        _step(term, f'mem recall --now {DEMO_NOW:%Y-%m-%d} -k 3 "{query}"')
        found = mem.answer(Read("recall", query=query, k=3))
        if term.stdout_tty:
            render.recall_table(term, found["results"], query, explain=False)
        else:  # as `mem recall` prints to a pipe: one hit a line, no header
            from ..serve.fast_output import render as plain_render

            typer.echo(plain_render("recall", found, "tsv")["stdout"], nl=False)

    _step(term, f"mem consolidate --provider offline --now {DEMO_NOW:%Y-%m-%dT%H:%M}")
    render.consolidation_view(term, mem.consolidate(provider="offline"))

    _step(term, "mem status")
    render.status_view(term, mem.status())

    _step(term, "mem history")
    render.history_table(term, mem.history(5))

    if keep:
        typer.echo(f"\nThe demo workspace is {root}; try: mem -w {root} status")
    else:
        typer.echo("\nThe demo workspace was temporary and is gone; `mem demo DIR` keeps one.")
