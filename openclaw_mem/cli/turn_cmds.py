"""`mem log`, `mem recall`, `mem context` and `mem get`, built from their one declaration
(serve/turns.py), which the per-turn fast path reads too: the same options, the same
request, the same printed bytes. Only what needs the CLI framework is here: the typer
signature made from the declaration, and recall's table."""

import inspect
import sys
from typing import Annotated

import typer

from ..serve import turns
from .app import app, say, state, warn

_KINDS = {"flag": bool, "int": int, "float": float, "text": str, "day": str}


def _parameters(turn: turns.Turn) -> list[inspect.Parameter]:
    """The typer signature of a declared command: its words, then its options in order."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    # Named as the docs name it (PATH, QUERY…), in the usage line and in "missing argument".
    metavar = "PATH" if turn.name == "get" else turn.argument.upper()
    words = typer.Argument(help=turn.words_help, metavar=metavar, show_default=False)
    shape = str if turn.name == "get" else list[str]
    out = [
        inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context),
        inspect.Parameter("words", keyword, annotation=Annotated[shape, words]),
    ]
    for opt in turn.options:
        limits = {"min": opt.min} if opt.min is not None else {}
        if opt.choices:  # the shell completes them; turns.checked says a wrong one
            limits["autocompletion"] = _completer(opt.choices)
        option = typer.Option(*opt.names, help=opt.help, **limits)
        flag = opt.kind == "flag"
        typ = bool if flag else _KINDS[opt.kind] | None
        out.append(
            inspect.Parameter(
                opt.dest,
                keyword,
                default=False if flag else None,
                annotation=Annotated[typ, option],
            )
        )
    return out


def _completer(choices: tuple[str, ...]):
    def complete(incomplete: str) -> list[str]:
        return [c for c in choices if c.startswith(incomplete)]

    return complete


def _command(turn: turns.Turn):
    def command(ctx: typer.Context, words, **vals) -> None:
        _run(turn.name, [words] if isinstance(words, str) else list(words), vals, ctx)

    command.__signature__ = inspect.Signature(_parameters(turn))
    command.__doc__ = turn.help
    command.__name__ = f"{turn.name}_cmd"
    return command


def _run(name: str, words: list[str], vals: dict, ctx: typer.Context) -> None:
    turns.checked(turns.TURNS[name], vals)
    st = state(ctx)
    if name == "log":
        logged = turns.log(words, vals, st.memory(), st.term)
        typer.echo(logged.citation)
        for w in logged.warnings:
            warn(w)
        return
    mem = st.memory()
    read = turns.request(name, words, vals, st.term)
    data = turns.ask_resident(read, vals, st.term, str(mem.root))
    if data is None:  # no resident process, or one with other settings: the same answer here
        data = turns.answer(read, vals, mem)
    from ..serve.fast_output import recall_format
    from ..serve.fast_output import render as shown

    fmt = recall_format(vals, st.term.stdout_tty) if name == "recall" else ""
    if fmt == "table":
        for w in data["warnings"]:
            warn(w)
        if not data["results"]:  # as grep and rg: nothing found is exit 1, not an error
            say(f"no memories match {read.query.strip()!r}")  # its secrets hidden
            raise typer.Exit(1)
        from . import render

        render.recall_table(st.term, data["results"], read.query, vals["explain"])
        return
    out = shown(
        name, data, fmt or ("json" if vals["json"] else ""), explain=bool(vals.get("explain"))
    )
    for line in out["stderr"]:
        typer.echo(line, err=True)
    sys.stdout.write(out["stdout"])
    if out["exit"]:
        raise typer.Exit(out["exit"])


def declare(name: str) -> None:
    """Register the declared command `name` on the app, where its module stands in the
    help's list."""
    turn = turns.TURNS[name]
    app.command(turn.name, help=turn.help)(_command(turn))
