"""`mem consolidate` and `mem undo`."""

from typing import Annotated

import typer

from ..errors import ExitCode, UsageError
from ..providers import names
from ..text import visible
from .app import app, one_of, parse_when, state, warn


@app.command("consolidate")
def consolidate_cmd(
    ctx: typer.Context,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the diff; write nothing.")
    ] = False,
    auto: Annotated[
        bool, typer.Option("--auto", help="Only past the window (consolidate.memory_window).")
    ] = False,
    propose: Annotated[
        bool, typer.Option("--propose", help="Keep it for `mem review` instead of applying.")
    ] = False,
    provider: Annotated[
        str | None,
        typer.Option(
            "--provider",
            help=f"{' | '.join(names('consolidate'))}.",
            autocompletion=one_of(*names("consolidate")),
        ),
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
            propose=propose,
            now=when,
            progress=progress,
        )
    for w in report.warnings:
        warn(w)
    if as_json:
        render.print_json(render.consolidation_json(report))
    elif not quiet:
        render.consolidation_view(st.term, report)
    if report.partial:
        raise typer.Exit(ExitCode.PARTIAL)
    if report.unused:
        raise typer.Exit(ExitCode.UNUSED)


@app.command("review")
def review_cmd(
    ctx: typer.Context,
    proposal: Annotated[
        str | None, typer.Argument(help="A proposal id (a unique prefix is enough).")
    ] = None,
    accept_all: Annotated[
        bool, typer.Option("--accept-all", help="Apply every edit left, as one commit.")
    ] = False,
    accept: Annotated[
        bool, typer.Option("--accept", help="Apply the edits not rejected, as one commit.")
    ] = False,
    reject: Annotated[
        list[int] | None, typer.Option("--reject", help="Leave out edit N (repeatable).")
    ] = None,
    edit: Annotated[
        int | None, typer.Option("--edit", help="Reword edit N in $EDITOR first.")
    ] = None,
    drop: Annotated[bool, typer.Option("--drop", help="Discard the proposal.")] = False,
    reoffer: Annotated[
        bool,
        typer.Option("--reoffer", help="Offer the entries consolidation passed over again."),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Consolidations waiting for a person: list them, show one as a diff, reword, reject or
    accept its edits (accepting writes one commit, as a direct run would)."""

    st = state(ctx)
    acting = [
        n
        for n, on in (
            ("--accept-all", accept_all),
            ("--accept", accept),
            ("--reject", reject),
            ("--edit", edit is not None),
            ("--drop", drop),
        )
        if on
    ]
    if proposal is None and acting:  # acting on no proposal would only list them, exit 0
        raise UsageError(
            f"{acting[0]} needs a proposal id: `mem review` lists them (see `mem review --help`)"
        )
    if drop and len(acting) > 1:  # which one was meant cannot be told
        raise UsageError(f"--drop discards the proposal; it takes no {acting[0]}")
    if reject and not accept:  # rejecting alone would only show it, exit 0
        raise UsageError(
            "--accept-all applies every edit; --reject N goes with --accept"
            if accept_all
            else "--reject N leaves edit N out of an accept: add --accept"
        )
    mem = st.memory()
    if reoffer:
        if proposal is not None:
            raise UsageError("--reoffer takes no proposal id")
        n, commit, warnings = mem.reoffer()
        for w in warnings:
            warn(w)
        done = f", committed {commit}" if commit else ""
        typer.echo(f"{n} passed-over log entries offered again{done}" if n else "none passed over")
        return
    if proposal is None:
        return _list_waiting(mem, as_json)
    reword = ()
    if edit is not None:
        pending, _, _ = mem.review(proposal)
        if not 1 <= edit <= len(pending.edits):
            raise UsageError(f"proposal {pending.id} has edits 1-{len(pending.edits)}")
        text = _in_editor(pending.edits[edit - 1]["text"] or "", st.env)
        reword = ((edit, text),)
    pending, diff, batch = mem.review(
        proposal,
        accept=accept or accept_all,
        reject=tuple(reject or ()),
        reword=reword,
        drop=drop,
    )
    _show_review(st, pending, diff, batch, drop, as_json)


def _show_review(st, pending, diff: str, batch, drop: bool, as_json: bool) -> None:
    """What a review did, or the proposal itself when it only showed one."""
    from . import render

    if as_json:
        data = render.proposal_json(pending)
        data.update(diff=diff, commit=batch.commit if batch else None, dropped=drop)
        render.print_json(data)
    elif drop:
        again = (
            "its log entries will be proposed again"
            if pending.paragraph
            else ("the log entries its edits cite are recorded as deliberately dropped")
        )
        typer.echo(f"dropped {pending.id}; {again}")
    elif batch is not None:
        typer.echo(
            f"accepted {pending.id}" + (f", committed {batch.commit}" if batch.commit else "")
        )
    else:
        render.proposal_view(st.term, pending, diff)


def _list_waiting(mem, as_json: bool) -> None:
    """The proposals waiting, and how many entries consolidation passed over."""
    from . import render

    waiting, passed = mem.proposals(), mem.passed_over()
    if as_json:
        render.print_json(
            {"proposals": [render.proposal_json(p) for p in waiting], "passedOver": passed}
        )
        return
    if not waiting:
        typer.echo("no consolidation is waiting for review")
    for p in waiting:
        typer.echo(
            visible(
                f"{p.id}  {p.created}  {len(p.edits)} edits, {p.entries} log entries, {p.provider}"
            )
        )
    if passed:
        typer.echo(
            f"{passed} log entries passed over: shown to a model consolidate.max_offers times, "
            "never cited nor skipped, nothing kept (mem review --reoffer offers them again)"
        )


def _in_editor(text: str, env: dict[str, str]) -> str:
    """Let the person reword a line in $VISUAL or $EDITOR (vi when neither is set)."""
    import os
    import shlex
    import subprocess
    import tempfile

    editor = env.get("VISUAL") or env.get("EDITOR") or "vi"
    fd, path = tempfile.mkstemp(suffix=".md", prefix="mem-review-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n")
        try:
            command = shlex.split(editor)
        except ValueError as e:  # EDITOR='vi -x "'
            raise UsageError(f"cannot read the editor command {editor!r}: {e}") from None
        if not command or subprocess.run([*command, path]).returncode != 0:
            raise UsageError(f"{editor} exited with an error; nothing was changed")
        with open(path, encoding="utf-8") as f:
            return " ".join(f.read().split())
    except FileNotFoundError:
        raise UsageError(f"cannot run the editor {editor!r} (set $EDITOR)") from None
    except UnicodeDecodeError:
        raise UsageError(
            f"the editor saved text that is not UTF-8 ({editor!r}); nothing was changed"
        ) from None
    finally:
        os.unlink(path)


@app.command("undo")
def undo_cmd(
    ctx: typer.Context,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes", help="Revert mem's last change even when a person changed memory since."
        ),
    ] = False,
) -> None:
    """Revert the last change mem made (a consolidation, a forget, a cleanup) with a new
    commit; history is never rewritten."""
    target, revert = state(ctx).memory().undo(yes=yes)
    typer.echo(visible(f"reverted {target.short} {target.subject}"))
    typer.echo(visible(f"committed {revert.short} {revert.subject}"))
