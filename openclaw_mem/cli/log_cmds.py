"""`mem log` and `mem ingest`: the per-turn write path. Keep imports here cheap."""

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from ..errors import UsageError
from ..logs import ROLES, NewEntry, append_entries, check_label
from .app import app, parse_when, state, warn


def _read_stdin() -> str:
    data = typer.get_binary_stream("stdin").read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("standard input is not valid UTF-8; nothing was logged") from None


def _check_utf8(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("the text is not valid UTF-8; nothing was logged") from None
    return text


@app.command("log")
def log_cmd(
    ctx: typer.Context,
    text: Annotated[
        list[str],
        typer.Argument(
            help="The text to append, kept byte for byte; `-` reads standard input.",
            show_default=False,
        ),
    ],
    role: Annotated[
        str | None, typer.Option("--role", "-r", help="user | assistant | system | note.")
    ] = None,
    speaker: Annotated[
        str | None, typer.Option("--speaker", "-s", help="A name written instead of a role.")
    ] = None,
    session: Annotated[
        str | None, typer.Option("--session", help="Session id, kept as an HTML comment.")
    ] = None,
    at: Annotated[
        str | None, typer.Option("--at", help="ISO time to log at instead of now (local).")
    ] = None,
) -> None:
    """Append one entry to today's daily log, memory/YYYY-MM-DD.md."""
    st = state(ctx)
    ws = st.workspace()
    cfg = st.config()
    if role is not None and speaker is not None:
        raise UsageError("give --role or --speaker, not both")
    if role is not None and role not in ROLES:
        raise UsageError(f"--role must be one of {', '.join(ROLES)}, not {role!r}")
    label = check_label(speaker) if speaker is not None else (role or cfg["log.default_role"])
    body = _read_stdin() if text == ["-"] else _check_utf8(" ".join(text))
    when = parse_when(at, st.now())
    path = ws.day_file(when.date())
    result = append_entries(
        path, when.date(), [NewEntry(when, label, body, session)], rel=ws.rel(path)
    )
    typer.echo(f"{ws.rel(path)}#L{result.start_line}-L{result.end_line}")
    _after_append(st, [ws.rel(path)], f"mem log: {ws.rel(path)}")


def _after_append(st, paths: list[str], message: str) -> None:
    """Honour git.autocommit = log and consolidate.auto_consolidate after an append."""
    if st.config()["git.autocommit"] == "log":
        from .. import gitrepo

        if gitrepo.open_repo(st.workspace().root) is None:
            warn(
                "git.autocommit is 'log' but the workspace has no git repository; "
                "`mem init` adds one"
            )
        else:
            gitrepo.commit_memory(st.workspace().root, message, paths=paths)
    from .consolidate_cmds import maybe_auto_consolidate

    maybe_auto_consolidate(st)


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
    from ..ingest import ingest

    st = state(ctx)
    ws = st.workspace()
    if source == "-":
        lines = _read_stdin().split("\n")
        default = st.now()
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
        default = parse_when(at, st.now())
    report = ingest(ws, lines, name, default_time=default, session=session)
    if as_json:
        typer.echo(json.dumps(report.__dict__, ensure_ascii=False, indent=2))
    else:
        typer.echo(
            f"ingested {report.added} of {report.read} messages into "
            f"{len(report.files)} day file(s); {report.already_there} already there, "
            f"{report.skipped} lines skipped (tools, thinking, empty)"
        )
    if report.files:
        _after_append(st, report.files, f"mem ingest: {name}")
