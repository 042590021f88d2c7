"""The `mem` Typer app, its global options and the one error funnel.

Every failure leaves through `MemGroup.main`: a user error is one line on stderr,
`mem: error: …`, and its documented exit code; `--debug` (or MEM_DEBUG=1) shows the
traceback instead. Command modules register themselves on `app`; keep their top-level
imports light, since `mem log` and `mem --help` run on every agent turn.
"""

import os
import sys
import traceback
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from .. import __version__
from ..config import Config, load_config
from ..errors import ExitCode, MemError, UsageError
from ..workspace import Workspace, resolve_workspace


def _echo_err(message: str) -> None:
    typer.echo(message, err=True)


def warn(message: str) -> None:
    _echo_err(f"mem: warning: {message}")


class MemGroup(TyperGroup):
    def main(  # type: ignore[override]
        self,
        args: list[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        debug = "--debug" in argv or os.environ.get("MEM_DEBUG", "") not in ("", "0")
        code: int = ExitCode.OK
        try:
            rv = super().main(
                args=argv,
                prog_name=prog_name or "mem",
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            if isinstance(rv, int) and not isinstance(rv, bool):
                code = rv
        except MemError as exc:
            if debug:
                traceback.print_exc()
            _echo_err(f"mem: error: {exc.message}")
            code = exc.exit_code
        except (typer.Abort, KeyboardInterrupt):
            _echo_err("mem: interrupted")
            code = ExitCode.INTERRUPTED
        except typer.TyperException as exc:  # click's own errors: usage, bad parameters
            msg = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
            ctx = getattr(exc, "ctx", None)
            hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
            _echo_err(f"mem: error: {msg}{hint}")
            code = getattr(exc, "exit_code", ExitCode.USAGE)
        except BrokenPipeError:
            # The reader went away (`mem recall … | head`): not an error worth a line.
            sys.stderr = open(os.devnull, "w")  # noqa: SIM115
            code = ExitCode.OK
        except OSError as exc:
            if debug:
                traceback.print_exc()
            where = f": {exc.filename}" if exc.filename else ""
            _echo_err(f"mem: error: {exc.strerror or exc}{where}")
            code = ExitCode.ERROR
        except Exception as exc:
            if debug:
                traceback.print_exc()
            else:
                _echo_err(
                    f"mem: error: unexpected {type(exc).__name__}: {exc} "
                    "(rerun with --debug for the traceback, and please report it)"
                )
            code = ExitCode.ERROR
        sys.exit(code)


app = typer.Typer(
    cls=MemGroup,
    name="mem",
    help="File-first Markdown memory for AI agents (OpenClaw workspace layout).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    # Plain click help: a third of the start-up time of rich panels, and fewer tokens
    # for the agents that read it.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass
class State:
    """What every command needs, resolved once: workspace, settings, clock, streams."""

    workspace_flag: Path | None = None
    debug: bool = False
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    cwd: Path = field(default_factory=Path.cwd)
    _ws: Workspace | None = None
    _config: Config | None = None

    def workspace(self) -> Workspace:
        if self._ws is None:
            self._ws = resolve_workspace(self.workspace_flag, self.env, self.cwd, Path.home())
        return self._ws

    def config(self) -> Config:
        if self._config is None:
            self._config = load_config(self.workspace().root, self.env)
        return self._config

    @staticmethod
    def now() -> datetime:
        """Local wall-clock time, naive: daily logs are written in local time."""
        return datetime.now().replace(microsecond=0)


def state(ctx: typer.Context) -> State:
    obj = ctx.find_root().obj
    if not isinstance(obj, State):
        obj = State()
        ctx.find_root().obj = obj
    return obj


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mem {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    workspace: Annotated[
        Path | None,
        typer.Option(
            "--workspace",
            "-w",
            help="Workspace directory (else $MEM_WORKSPACE, "
            "the nearest ancestor with MEMORY.md or memory/, ~/.openclaw/workspace).",
            show_default=False,
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    ctx.obj = State(workspace_flag=workspace, debug=debug)


def parse_when(value: str | None, now: datetime) -> datetime:
    """--at / --now: an ISO date or time; a time alone means today; an offset is
    converted to local time."""
    if value is None:
        return now
    text = value.strip()
    try:
        if len(text) <= 8 and ":" in text and "-" not in text:
            t = datetime.strptime(text if text.count(":") == 2 else text + ":00", "%H:%M:%S")
            return now.replace(hour=t.hour, minute=t.minute, second=t.second)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"{value!r} is not an ISO date or time (e.g. 2026-11-30, 2026-11-30T14:05, 14:05)"
        ) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone().replace(tzinfo=None)
    return moment


def parse_day(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value.strip()).date()
    except ValueError:
        raise UsageError(f"{value!r} is not an ISO date (e.g. 2026-11-30)") from None
