"""`mem consolidate` and `mem undo`."""

import sys
from typing import Annotated

import typer

from ..errors import UsageError
from .app import State, app, parse_when, state, warn


def provider_settings(st: State, model: str | None = None, base_url: str | None = None) -> dict:
    cfg = st.config()
    return {
        "model": model or cfg["llm.model"],
        "base_url": base_url or cfg["llm.base_url"],
        "timeout": cfg["llm.timeout"],
        "max_retries": cfg["llm.max_retries"],
        "context_tokens": cfg["llm.context_tokens"],
    }


def consolidation_options(st: State, now=None):
    from ..consolidate.run import Options
    from ..errors import ConfigError

    cfg = st.config()
    if cfg["consolidate.memory_window"] < 1 or cfg["consolidate.keep_recent"] < 0:
        raise ConfigError("consolidate.memory_window must be >= 1 and keep_recent >= 0")
    return Options(
        now=now or st.now(),
        min_confidence=cfg["consolidate.min_confidence"],
        memory_window=cfg["consolidate.memory_window"],
        keep_recent=cfg["consolidate.keep_recent"],
        redact_extra=tuple(cfg["consolidate.redact_patterns"]),
        commit=cfg["git.autocommit"] != "never",
    )


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
    from ..consolidate.run import consolidate
    from ..providers import choose

    st = state(ctx)
    ws = st.workspace()
    cfg = st.config()
    chosen = choose(
        provider or cfg["consolidate.provider"], provider_settings(st, model, base_url), st.env
    )
    opts = consolidation_options(st, parse_when(now, st.now()) if now else None)
    from . import render

    with render.batch_progress(enabled=not (as_json or quiet) and sys.stderr.isatty()) as progress:
        report = consolidate(ws, chosen, opts, dry_run=dry_run, auto=auto, progress=progress)
    for w in report.warnings:
        warn(w)
    if as_json:
        render.print_json(render.consolidation_json(report))
    elif not quiet:
        render.consolidation_view(report)


@app.command("undo")
def undo_cmd(ctx: typer.Context) -> None:
    """Revert the last consolidation with a new commit (history is never rewritten)."""
    from ..gitrepo import undo_consolidation

    ws = state(ctx).workspace()
    target, revert = undo_consolidation(ws.root)
    typer.echo(f"reverted {target.short} {target.subject}")
    typer.echo(f"committed {revert.short} {revert.subject}")


def maybe_auto_consolidate(st: State) -> None:
    """After `mem log`: when consolidate.auto_consolidate is on and the window is exceeded,
    start `mem consolidate --auto` in the background, so the agent's turn never waits for a
    model. Its output goes to .mem/consolidate.log."""
    cfg = st.config()
    if not cfg["consolidate.auto_consolidate"]:
        return
    import subprocess

    from ..consolidate.progress import count_pending

    ws = st.workspace()
    if count_pending(ws) <= cfg["consolidate.memory_window"]:
        return
    ws.state_dir.mkdir(parents=True, exist_ok=True)
    try:
        log = (ws.state_dir / "consolidate.log").open("ab")
    except OSError as exc:
        raise UsageError(f"cannot write {ws.state_dir}: {exc.strerror}") from None
    with log:
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "openclaw_mem",
                "-w",
                str(ws.root),
                "consolidate",
                "--auto",
                "--quiet",
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=ws.root,
        )
