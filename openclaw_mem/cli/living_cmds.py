"""`mem watch`, `mem forget`, `mem cleanup`, `mem audit`, `mem serve`, `mem sync`."""

from typing import Annotated

import typer

from .. import serve
from ..errors import ExitCode
from ..text import plural, visible
from .app import app, state, warn


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
    idle: Annotated[
        float | None,
        typer.Option(
            "--idle",
            help="Exit after this many seconds without a request.",
            min=1,
        ),
    ] = None,
) -> None:
    """Follow edits to memory files and keep the recall index fresh (Ctrl-C stops)."""
    mem = state(ctx).memory()
    # Started on demand: be worth starting (the model loaded) before the socket says so,
    # and be nothing at all if another resident already serves.
    if idle is not None and not serve.prepare_on_demand(mem):
        return
    first = True
    while True:
        again = _watch(mem, consolidate, debounce, idle, first)
        if not again:
            break
        first = False
        mem = state(ctx).reopened()
        typer.echo(f"{mem.now():%H:%M:%S} mem.toml changed: settings read again")
    typer.echo("stopped")


def _watch(mem, consolidate: bool, debounce: float | None, idle: float | None, first: bool) -> bool:
    """Watch and serve with this memory's settings until stopped; True when it stopped
    because they changed (mem.toml, or what `mem trust` trusts of it): they are read again
    rather than answered and indexed with old ones, which would also rebuild the index
    in turn with a command that reads the new ones."""
    from ..serve.pool import settings_changed, settings_stamp

    settings = settings_stamp(str(mem.root), mem.env)
    watcher = serve.watcher(
        mem,
        lambda refresh: _report_refresh(mem, refresh),
        on_error=lambda exc: warn(f"will retry on the next change: {exc}"),
        debounce=debounce,
        consolidate=consolidate,
        on_consolidated=lambda result: _report_consolidated(mem, result),
    )
    resident = None
    try:
        watcher.start()
        resident = serve.start_resident(mem)
    finally:
        if idle is not None and first:  # serving or not, the marker that held others back goes
            serve.on_demand_started(mem)
    if idle is not None and resident is None:
        watcher.stop()
        return False
    serves = " and answering recall, context and get on .mem/mem.sock" if resident else ""

    def changed() -> bool:
        return settings_changed(str(mem.root), mem.env, settings) is not None

    try:
        # Inside the try: a Ctrl-C that lands just after this line is a stop, not exit 130.
        if first:
            typer.echo(f"watching {mem.root}{serves} (Ctrl-C stops)")
        return _serve_until_stopped(mem, resident, idle, changed) == "settings"
    except KeyboardInterrupt:
        return False
    finally:
        watcher.stop()
        if resident is not None:
            resident.stop()


@app.command("resident", hidden=True)
def resident_cmd(
    ctx: typer.Context,
    idle: Annotated[
        float, typer.Option("--idle", help="Exit after this many seconds without a request.", min=1)
    ] = 600.0,
) -> None:
    """Answer recall, context and get for every workspace of this user on the user's socket
    (what a recall starts when the embedding model is slow to load; serve/autostart.py)."""
    mem = state(ctx).memory()
    try:
        resident = serve.start_user_resident(mem)
    finally:  # serving or not, the marker that held others back goes
        serve.on_demand_started(mem)
    if resident is None:
        return
    typer.echo(f"answering recall, context and get on {resident.path} for this user's workspaces")
    try:
        _serve_until_stopped(mem, resident, idle)
    except KeyboardInterrupt:
        pass
    finally:
        resident.stop()
    typer.echo("stopped")


def _report_refresh(mem, refresh) -> None:
    stats = refresh.index.stats or {}
    what = visible(", ".join(refresh.paths[:3]) + (" …" if len(refresh.paths) > 3 else ""))
    mode = stats.get("mode", "fresh")
    typer.echo(
        f"{mem.now():%H:%M:%S} {what}: index {mode}, "
        f"{plural(refresh.index.n_live, 'chunk')} ({refresh.seconds * 1000:.0f} ms)"
    )
    for w in refresh.index.warnings:
        warn(w)


def _report_consolidated(mem, result) -> None:
    for batch in result.batches:
        c = batch.counts()
        typer.echo(
            f"{mem.now():%H:%M:%S} consolidated {plural(batch.entries, 'entry')}: "
            f"+{c['added']} ~{c['updated']} -{c['deleted']}, {c['deprecated']} deprecated"
            + (f", commit {batch.commit}" if batch.commit else "")
        )


def _serve_until_stopped(mem, resident, idle: float | None, changed=None) -> str:
    """Wait for Ctrl-C, the workspace going away, (started on demand) idle seconds without
    a request, or `changed()` (the settings): says which ("settings" for the last)."""
    import threading
    import time

    stop = threading.Event()
    try:
        while not stop.wait(0.5):
            if resident is not None and resident.gone.is_set():
                gone = mem.root if resident.root is not None else resident.path
                warn(f"{gone} moved or was removed; stopping")
                return "gone"
            if idle is not None and time.monotonic() - resident.last_request > idle:
                return "idle"
            if changed is not None and changed():
                return "settings"
    except KeyboardInterrupt:
        pass
    return "stopped"


@app.command("forget")
def forget_cmd(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Argument(help="Words to forget wherever they are said, PATH:LINE or PATH#Lx-Ly.")
    ],
    hard: Annotated[
        bool,
        typer.Option("--hard", help="Delete curated lines and redact log lines in place."),
    ] = False,
) -> None:
    """Forget what words say, wherever it is said: curated lines struck through, log
    entries and HISTORY.md paragraphs hidden from recall and context (--hard: lines deleted,
    logs redacted in place). Or one place: PATH:LINE, a citation. Commits."""
    mem = state(ctx).memory()
    result = mem.forget(target, hard=hard)
    for done in result.lines:
        lo, hi = done.lines
        typer.echo(visible(f"{done.mode} {done.path}:{lo}" + (f"-{hi}" if hi != lo else "")))
        for line in done.before:  # what was redacted is not printed in full either
            typer.echo(f"  - {visible(mem.redact(line))}")
        for line in done.after:
            typer.echo(f"  + {visible(mem.redact(line))}")
    for cite in result.hidden:
        typer.echo(visible(f"hidden {cite}"))
    if result.hidden:
        typer.echo(
            "hidden from recall and context, kept in the files (`mem recall "
            "--include-forgotten` shows them; `mem forget --hard` redacts them)"
        )
    if result.commit:
        typer.echo(f"committed {result.commit}")
    for w in result.warnings:
        warn(w)
    if any(done.mode == "redacted" for done in result.lines):
        typer.echo(
            "the old text remains in git history"
            + (f" before {result.commit}" if result.commit else "")
            + "; to purge it everywhere, rewrite history with git filter-repo --replace-text "
            "(or the BFG), then force-push every clone"
        )


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
    result = state(ctx).memory().cleanup(dry_run=dry_run)
    if as_json:
        from . import render

        render.print_json(
            {
                "dryRun": dry_run,
                "archive": result.archive,
                "commit": result.commit,
                "lines": [s.__dict__ for s in result.stale],
            }
        )
    else:
        if not result.stale:
            typer.echo("nothing is stale")
        for s in result.stale:
            typer.echo(visible(f"{s.path}:{s.line} ({s.reason}) {s.text.strip()[:100]}"))
        if dry_run and result.stale:
            typer.echo(f"dry run: {plural(len(result.stale), 'line')} would move to archive/")
        if result.commit:
            typer.echo(f"committed {result.commit}")
    for w in result.warnings:
        warn(w)


@app.command("audit")
def audit_cmd(
    ctx: typer.Context,
    history: Annotated[
        bool, typer.Option("--history", help="Also every line any commit ever added.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List lines that read like an instruction to the agent (prompt injection) or hold a
    secret, in every memory file; exit 10 when there are any. Secrets are shown redacted."""
    result = state(ctx).memory().audit(history=history)
    if as_json:
        from . import render

        render.print_json(
            {
                "files": result.files,
                "findings": [f.to_json() for f in result.findings],
                "history": [f.to_json() for f in result.history],
            }
        )
    else:
        for f in result.findings:
            where = visible(f"{f.path}:{f.line}", lines=False)
            typer.echo(f"{where} {visible(f'{f.kind} ({f.detail}): {f.excerpt}')}")
        gone = [f for f in result.history if not f.current]
        for f in gone:
            typer.echo(
                visible(
                    f"{f.commit} {f.path}:{f.line} {f.kind} ({f.detail}), since removed: "
                    f"{f.excerpt}",
                    lines=False,
                )
            )
        summary = f"{plural(len(result.findings), 'finding')} in {plural(result.files, 'file')}"
        if history:
            summary += f"; {len(gone)} more only in git history"
        typer.echo(summary)
    for w in result.warnings:
        warn(w)
    if result.findings or any(not f.current for f in result.history):
        raise typer.Exit(ExitCode.FINDINGS)


@app.command("serve")
def serve_cmd(
    ctx: typer.Context,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="No memory_log or memory_forget tool.")
    ] = False,
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="Serve one agent: its log tag and its recall (MEM_AGENT)."),
    ] = None,
) -> None:
    """Serve the memory over MCP on stdio: memory_search, memory_get, memory_context,
    memory_status, memory_log and memory_forget."""
    serve.serve_mcp(state(ctx).memory(), read_only=read_only, agent=agent)


@app.command("sync")
def sync_cmd(
    ctx: typer.Context,
    remote: Annotated[
        str | None, typer.Option("--remote", help="Git remote (sync.remote).")
    ] = None,
) -> None:
    """Share memory between machines: commit local memory changes, merge the remote's,
    push. Daily logs merge by entry, curated files by line; agents may log meanwhile."""
    result = state(ctx).memory().sync(remote)
    if result.committed:
        typer.echo(visible(f"committed {result.committed.short} {result.committed.subject}"))
    typer.echo(
        f"{result.remote}/{result.branch}: pulled {plural(result.pulled, 'commit')}, "
        f"pushed {result.pushed}"
    )
    if result.followed:
        typer.echo(f"committed {result.followed.short} {result.followed.subject}")
    for w in result.warnings:
        warn(w)
