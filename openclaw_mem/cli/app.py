"""The `mem` Typer app, its global options, the terminal environment and the one error funnel.

Every failure leaves through `MemGroup.main`: a user error is one line on stderr,
`mem: error: …`, and its documented exit code; `--debug` (or MEM_DEBUG=1) shows the
traceback instead. Command modules register themselves on `app` and call the `Memory`
facade; keep their top-level imports light, since `mem log` and `mem --help` run on every
agent turn.
"""

import os
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from .. import __version__
from ..environment import Environment
from ..errors import ExitCode, UsageError
from ..format.when import parse_day, parse_when
from ..funnel import run, say
from ..funnel import warn as funnel_warn
from ..memory import Memory
from ..serve.argv import VERBATIM, UnknownOption, closest, leading_globals, split

__all__ = ["Environment", "State", "app", "parse_day", "parse_when", "say", "state", "warn"]


def warn(message: str) -> None:
    """Every line mem writes to stderr passes the secret filter and shows control
    characters written out (funnel.py)."""
    funnel_warn(message, sys.stderr)


def _verbatim_text(group: "MemGroup", argv: list[str]) -> list[str]:
    """Strict options, verbatim text (serve/argv.py, the one reader the fast path shares):
    options and words are given back to click as options, `--`, words, so click leaves
    the words alone (it would read `-1 degrees` as a cluster of short options)."""
    i = leading_globals(argv)
    if i >= len(argv) or argv[i] not in VERBATIM or argv[i] not in group.commands:
        return argv
    takes_value, flags = option_names(group.commands[argv[i]])
    try:
        read = split(argv, takes_value, flags)
    except UnknownOption as exc:
        raise UsageError(exc.message) from None
    options = [
        part
        for name, value in read.options
        for part in ((name,) if value is None else (name, value))
    ]
    return [*argv[: i + 1], *options, *(["--", *read.words] if read.words else [])]


def option_names(command) -> tuple[frozenset[str], frozenset[str]]:
    """A click command's options that take a value, and its flags (help included)."""
    takes_value, flags = set(), {"-h", "--help"}
    for param in command.params:
        if getattr(param, "param_type_name", "") != "option":
            continue
        names = [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]
        (flags if param.is_flag else takes_value).update(names)
    return frozenset(takes_value), frozenset(flags)


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
        if "_MEM_COMPLETE" in os.environ:  # a shell asking for completions (mem completion)
            from typer._completion_classes import completion_init

            completion_init()
        debug = "--debug" in argv or os.environ.get("MEM_DEBUG", "") not in ("", "0")

        def invoke() -> int | None:
            try:
                rv = super(MemGroup, self).main(
                    args=_verbatim_text(self, argv),
                    prog_name=prog_name or "mem",
                    complete_var=complete_var,
                    standalone_mode=False,
                    **extra,
                )
            except typer.Abort:
                raise KeyboardInterrupt from None
            except typer.TyperException as exc:  # click's own errors: usage, bad parameters
                msg = " ".join(exc.format_message().split())  # type: ignore[attr-defined]
                # One style with mem's own: "mem: error: no such option …", lower case, and
                # no full stop before the hint.
                if msg[:1].isupper() and msg[1:2].islower():
                    msg = msg[:1].lower() + msg[1:]
                msg = msg.rstrip(".")
                ctx = getattr(exc, "ctx", None)
                # typer's own copy of click: the class is known by its name
                if type(exc).__name__ == "NoSuchOption" and ctx is not None:
                    msg = _no_such_option(exc.option_name, ctx)  # worded as the fast path's
                hint = f" (see `{ctx.command_path} --help`)" if ctx is not None else ""
                code = getattr(exc, "exit_code", ExitCode.USAGE)
                raise UsageError(f"{msg}{hint}", exit_code=ExitCode(code)) from None
            return rv if isinstance(rv, int) and not isinstance(rv, bool) else None

        sys.exit(run(invoke, debug))


def _no_such_option(name: str, ctx: Any) -> str:
    names = {o for p in ctx.command.params for o in (*p.opts, *p.secondary_opts)}
    return f"no such option: {name}{closest(name, names | {'--help', '-h'})}"


def directories(incomplete: str) -> list[str]:
    """A completer for a directory (a workspace): the shell offers the directories whose
    path starts with what was typed, `~` understood."""
    import os

    typed = os.path.expanduser(incomplete)
    head, tail = os.path.split(typed)
    try:
        with os.scandir(head or ".") as found:
            names = sorted(
                e.name for e in found if e.name.startswith(tail) and e.is_dir(follow_symlinks=False)
            )
    except OSError:
        return []
    if not tail.startswith("."):
        names = [n for n in names if not n.startswith(".")]
    prefix = incomplete[: len(incomplete) - len(tail)]
    return [f"{prefix}{n}/" for n in names]


app = typer.Typer(
    cls=MemGroup,
    name="mem",
    help="File-first Markdown memory for AI agents (OpenClaw workspace layout).",
    # Bare `mem` prints the help (see main), rather than a usage error in one long line.
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
    # Plain click help: a third of the start-up time of rich panels, and fewer tokens
    # for the agents that read it.
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@dataclass
class State:
    """What every command needs, resolved once: the memory, the clock, the terminal."""

    workspace_flag: Path | None = None
    debug: bool = False
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    cwd: Path | None = None  # None: the current directory, read only if it is needed
    terminal: Environment | None = None
    _memory: Memory | None = None

    def memory(self, notices: bool = True) -> Memory:
        """The workspace's memory; its settings' notices are said once (`mem status`, which
        says them every time itself, passes notices=False)."""
        if self._memory is None:
            self._memory = Memory.open(self.workspace_flag, env=self.env, cwd=self.cwd)
            self._memory.ensure_merge_driver()
            for message in self._memory.notices() if notices else ():
                warn(message)
        return self._memory

    def reopened(self) -> Memory:
        """The memory opened again: its settings read anew (a `mem watch` whose mem.toml
        changed)."""
        self._memory = None
        return self.memory()

    def now(self) -> datetime:
        return self.memory().now()

    @property
    def term(self) -> Environment:
        if self.terminal is None:
            self.terminal = Environment.detect(self.env)
        return self.terminal


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
            autocompletion=directories,
        ),
    ] = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    given = ctx.obj if isinstance(ctx.obj, Environment) else Environment.detect(dict(os.environ))
    ctx.obj = State(workspace_flag=workspace, debug=debug, env=given.env, terminal=given)
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit()


def one_of(*values: str):
    """A completer for an option or argument that takes one of a few values: the shell
    offers them (mem completion)."""

    def complete(incomplete: str) -> list[str]:
        return [v for v in values if v.startswith(incomplete)]

    return complete


def read_stdin(what: str = "the text") -> str:
    data = typer.get_binary_stream("stdin").read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"standard input is not valid UTF-8; {what} was not read") from None


def text_argument(words: list[str]) -> str:
    """Several words joined with spaces; `-` alone reads standard input."""
    return read_stdin() if words == ["-"] else " ".join(words)
