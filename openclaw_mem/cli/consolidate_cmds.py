"""`mem consolidate` and `mem undo`."""

from typing import Annotated

import typer

from .app import app, parse_when, state, warn


@app.command("consolidate")
def consolidate_cmd(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the diff; write nothing.")
    ] = False,
    auto: Annotated[
        bool, typer.Option("--auto", help="Only past the window (consolidate.memory_window).")
    ] = False,
    provider: Annotated[
        str | None, typer.Option("--provider", help="auto | openai | offline.")
    ] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name (llm.model).")] = None,
    base_url: Annotated[
        str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint.")
    ] = None,
    now: Annotated[str | None, typer.Option("--now", help="Date edits as of this time.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print nothing on success.")] = False,
) -> None:
    """Distil new log entries into MEMORY.md, USER.md, AGENTS.md and one HISTORY.md
    paragraph, committed as one reviewable commit per batch."""
    from . import render

    st = state(ctx)
    mem = st.memory()
    when = parse_when(now, mem.now()) if now else None
    bar = not (as_json or quiet) and st.term.stderr_tty
    with render.batch_progress(enabled=bar) as progress:
        report = mem.consolidate(
            provider=provider,
            model=model,
            base_url=base_url,
            dry_run=dry_run,
            auto=auto,
            now=when,
            progress=progress,
        )
    for w in report.warnings:
        warn(w)
    if as_json:
        render.print_json(render.consolidation_json(report))
    elif not quiet:
        render.consolidation_view(st.term, report)


@app.command("undo")
def undo_cmd(ctx: typer.Context) -> None:
    """Revert the last consolidation with a new commit (history is never rewritten)."""
    target, revert = state(ctx).memory().undo()
    typer.echo(f"reverted {target.short} {target.subject}")
    typer.echo(f"committed {revert.short} {revert.subject}")
