"""`mem log` (declared in serve/turns.py), `mem ingest` and `mem import`: what appends to
the daily logs. Keep imports here cheap."""

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..text import plural
from .app import app, one_of, parse_when, read_stdin, state, warn
from .turn_cmds import declare

declare("log")


@app.command("ingest")
def ingest_cmd(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="A JSONL transcript file, or `-` for stdin.")],
    session: Annotated[
        str | None, typer.Option("--session", help="Session id for every message.")
    ] = None,
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            help="Time for messages without a timestamp "
            "(default: the file's modification time, or now for stdin).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Append a transcript (OpenAI-style messages or an OpenClaw session JSONL) to the
    daily logs, each message into its own day; messages already there are skipped."""
    mem = state(ctx).memory()
    if source == "-":
        lines = read_stdin("the transcript").split("\n")
        default = None
        name = "<stdin>"
    else:
        path = Path(source).expanduser()
        if not path.is_file():
            raise UsageError(f"no transcript file at {source}")
        try:
            lines = path.read_bytes().decode("utf-8").split("\n")
        except UnicodeDecodeError:
            raise UsageError(f"{source} is not valid UTF-8; nothing was ingested") from None
        default = datetime.fromtimestamp(path.stat().st_mtime).replace(microsecond=0)
        name = source
    if at is not None:
        default = parse_when(at, mem.now())
    done = mem.ingest(lines, name, session=session, default_time=default)
    _appended(done, as_json, "ingested", "line", "skipped (tools, thinking, empty)")


def _appended(done, as_json: bool, verb: str, unit: str, left: str) -> None:
    """The report of `mem ingest` and `mem import`: what was added, what was there."""
    report = done.report
    if as_json:
        from . import render

        render.print_json(report.__dict__)
    else:
        typer.echo(
            f"{verb} {report.added} of {plural(report.read, 'message')} into "
            f"{plural(len(report.files), 'day file')}; {report.already_there} already there, "
            f"{plural(report.skipped, unit)} {left}"
        )
        if verb == "imported" and report.added:
            typer.echo(
                f"about {report.tokens:,} tokens to consolidate: `mem consolidate --dry-run` "
                "shows the batches first"
            )
    for w in done.warnings:
        warn(w)


@app.command("import")
def import_cmd(
    ctx: typer.Context,
    kind: Annotated[
        str,
        typer.Argument(
            help="chatgpt | claude | claude-code.",
            autocompletion=one_of("chatgpt", "claude", "claude-code"),
        ),
    ],
    source: Annotated[
        Path,
        typer.Argument(
            help="The export: a ChatGPT or claude.ai .zip, its folder or conversations.json; "
            "a Claude Code session .jsonl or its project folder (~/.claude/projects/NAME).",
            show_default=False,
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Start from your history: append a chat export to the daily logs, each message into its
    own day, verbatim; a repeat import adds nothing. Then `mem consolidate` distils it."""
    mem = state(ctx).memory()
    done = mem.import_export(kind, source.expanduser())
    _appended(
        done, as_json, "imported", "record", "left out (system, tools, thinking, old branches)"
    )
