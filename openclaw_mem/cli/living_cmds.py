"""`mem context`, `mem watch`, `mem forget`, `mem cleanup`, `mem serve`, `mem sync`."""

import sys
from datetime import datetime
from typing import Annotated

import typer

from ..errors import UsageError
from .app import app, parse_when, state, warn


@app.command("context")
def context_cmd(
    ctx: typer.Context,
    query: Annotated[
        list[str], typer.Argument(help="The question at hand; `-` reads stdin.", show_default=False)
    ],
    budget: Annotated[
        int | None, typer.Option("--budget", help="Token budget (context.budget).")
    ] = None,
    now: Annotated[str | None, typer.Option("--now", help="As of this ISO date or time.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The block to put in front of a model: user profile, recalled memories grouped as
    preferences / history / goals, and the recent conversation, within a token budget."""
    from ..context import build_context
    from ..index import IndexParams
    from ..recall import RecallOptions

    st = state(ctx)
    cfg = st.config()
    text = sys.stdin.read() if query == ["-"] else " ".join(query)
    if not text.strip():
        raise UsageError("the query is empty")
    size = budget if budget is not None else cfg["context.budget"]
    if size < 50:
        raise UsageError(f"--budget {size} is too small; give at least 50 tokens")
    when = parse_when(now, st.now())
    block = build_context(
        st.workspace(),
        text,
        size,
        RecallOptions.from_config(cfg),
        IndexParams.from_config(cfg),
        when,
        cfg["context.memories"],
    )
    if as_json:
        from . import render

        render.print_json(block.to_json())
    else:
        sys.stdout.write(block.render())


@app.command("watch")
def watch_cmd(
    ctx: typer.Context,
    consolidate: Annotated[
        bool, typer.Option("--consolidate", help="Also consolidate when the window is exceeded.")
    ] = False,
    debounce: Annotated[
        float | None,
        typer.Option("--debounce", help="Seconds of quiet before a refresh.", min=0.05),
    ] = None,
) -> None:
    """Follow edits to memory files and keep the recall index fresh (Ctrl-C stops)."""
    import threading

    from ..index import IndexParams
    from ..watch import Watcher

    st = state(ctx)
    ws = st.workspace()
    cfg = st.config()

    def report(refresh) -> None:
        stats = refresh.index.stats or {}
        what = ", ".join(refresh.paths[:3]) + (" …" if len(refresh.paths) > 3 else "")
        mode = stats.get("mode", "fresh")
        typer.echo(
            f"{datetime.now():%H:%M:%S} {what}: index {mode}, {refresh.index.n_live} chunks "
            f"({refresh.seconds * 1000:.0f} ms)"
        )
        for w in refresh.index.warnings:
            warn(w)

    after = None
    if consolidate:
        from ..consolidate.run import consolidate as run_consolidation
        from ..errors import MemError
        from ..providers import choose
        from .consolidate_cmds import consolidation_options, provider_settings

        def after() -> None:
            try:
                provider = choose(cfg["consolidate.provider"], provider_settings(st), st.env)
                result = run_consolidation(ws, provider, consolidation_options(st), auto=True)
            except MemError as exc:
                warn(f"consolidation failed: {exc.message}")
                return
            for batch in result.batches:
                c = batch.counts()
                typer.echo(
                    f"{datetime.now():%H:%M:%S} consolidated {batch.entries} entries: "
                    f"+{c['added']} ~{c['updated']} -{c['deleted']}, {c['deprecated']} "
                    f"deprecated" + (f", commit {batch.commit}" if batch.commit else "")
                )

    watcher = Watcher(
        ws,
        IndexParams.from_config(cfg),
        report,
        after,
        on_error=lambda exc: warn(f"refresh failed, will retry on the next change: {exc}"),
        debounce=debounce if debounce is not None else cfg["watch.debounce"],
    )
    watcher.start()
    typer.echo(f"watching {ws.root} (Ctrl-C stops)")
    stop = threading.Event()
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
    typer.echo("stopped")


@app.command("forget")
def forget_cmd(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(help="PATH:LINE, a citation PATH#Lx-Ly, or a query.")],
    hard: Annotated[
        bool,
        typer.Option("--hard", help="Delete the line (MEMORY/USER/AGENTS) or redact it (logs)."),
    ] = False,
) -> None:
    """Forget a line: deprecate it (default) or delete it (--hard) in MEMORY/USER/AGENTS;
    redact it in place in a log (--hard). Commits."""
    from ..forgetting import forget

    st = state(ctx)
    ws = st.workspace()
    done = forget(ws, target, hard, st.now().date())
    lo, hi = done.lines
    where = f"{done.path}:{lo}" + (f"-{hi}" if hi != lo else "")
    typer.echo(f"{done.mode} {where}")
    for line in done.before:
        typer.echo(f"  - {line}")
    for line in done.after:
        typer.echo(f"  + {line}")
    commit = _commit(st, [done.path], f"forget: {where} ({done.mode})")
    if done.mode == "redacted":
        typer.echo(
            "the old text remains in git history"
            + (f" before {commit}" if commit else "")
            + "; to purge it everywhere, rewrite history with git filter-repo --replace-text "
            "(or the BFG), then force-push every clone"
        )


def _commit(st, paths: list[str], message: str) -> str | None:
    if st.config()["git.autocommit"] == "never":
        return None
    from .. import gitrepo

    if gitrepo.open_repo(st.workspace().root) is None:
        return None
    info = gitrepo.commit_memory(st.workspace().root, message, paths)
    if info:
        typer.echo(f"committed {info.short} {info.subject}")
    return info.short if info else None


@app.command("cleanup")
def cleanup_cmd(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would move; write nothing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Move stale lines (unimportant and unused, long deprecated, low confidence) from
    MEMORY/USER/AGENTS to archive/, and commit."""
    from ..forgetting import archive, find_stale

    st = state(ctx)
    ws = st.workspace()
    cfg = st.config()
    now = st.now()
    stale = find_stale(
        ws,
        now,
        min_importance=cfg["cleanup.min_importance"],
        unused_days=cfg["cleanup.unused_days"],
        deprecated_days=cfg["cleanup.deprecated_days"],
        min_confidence=cfg["cleanup.min_confidence"],
    )
    target = None
    if stale and not dry_run:
        target = archive(ws, stale, now)
    if as_json:
        from . import render

        render.print_json(
            {"dryRun": dry_run, "archive": target, "lines": [s.__dict__ for s in stale]}
        )
    else:
        if not stale:
            typer.echo("nothing is stale")
        for s in stale:
            typer.echo(f"{s.path}:{s.line} ({s.reason}) {s.text.strip()[:100]}")
        if dry_run and stale:
            typer.echo(f"dry run: {len(stale)} line(s) would move to archive/")
    if target:
        paths = sorted({s.path for s in stale} | {target})
        _commit(st, paths, f"cleanup: archived {len(stale)} stale line(s) to {target}")


@app.command("serve")
def serve_cmd(
    ctx: typer.Context,
    read_only: Annotated[bool, typer.Option("--read-only", help="No memory_log tool.")] = False,
) -> None:
    """Serve the memory over MCP on stdio: memory_search, memory_get, memory_log."""
    from ..index import IndexParams
    from ..mcp_server import build_server
    from ..recall import RecallOptions

    st = state(ctx)
    cfg = st.config()
    server = build_server(
        st.workspace(),
        IndexParams.from_config(cfg),
        RecallOptions.from_config(cfg),
        read_only=read_only,
        now=st.now,
    )
    server.run("stdio")


@app.command("sync")
def sync_cmd(
    ctx: typer.Context,
    remote: Annotated[
        str | None, typer.Option("--remote", help="Git remote (sync.remote).")
    ] = None,
) -> None:
    """Share memory between machines: commit local memory changes, pull --rebase, push.
    Daily logs and HISTORY.md union-merge; a conflict elsewhere stops with nothing merged."""
    from ..gitrepo import sync

    st = state(ctx)
    cfg = st.config()
    result = sync(st.workspace().root, remote or cfg["sync.remote"], cfg["sync.branch"])
    if result.committed:
        typer.echo(f"committed {result.committed.short} {result.committed.subject}")
    typer.echo(
        f"{result.remote}/{result.branch}: pulled {result.pulled} commit(s), pushed {result.pushed}"
    )
