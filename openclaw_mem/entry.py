"""The `mem` command's entry point, with a fast path for the calls agents make on every turn.

`mem log`, `mem recall --json`, `mem context` and `mem get` are declared once
(serve/turns.py); `mem hook`, which agent harnesses run on every turn, is answered here too
(serve/hooks.py). A command line that names one of them, in a form this path can read
(argv.py, the one command-line reader), is answered here without importing the CLI
framework, which costs more than the work itself: a read is asked of a resident process
(`mem watch`, `mem serve`) when one serves this workspace with this caller's settings, and
answered in this process through the facade otherwise; either way it is printed by
fast_output, as the full app prints it. Anything else (--help, --debug, an option this
path cannot read, a recall's table) goes to the typer app before anything has run. Both
leave through the one error funnel (funnel.py).

May import `cli`, `serve`, `memory`, `environment`, `funnel`, `store.workspace_root`,
`errors` and `text`.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `from typing import`: this runs before anything else
if TYPE_CHECKING:
    from .environment import Environment
    from .serve.turns import Turn


def _fast(argv: list[str], env: Environment):
    """A per-turn call read and answered here: its exit code. None hands the command line
    to the full app, before anything has run."""
    from .serve.argv import UnknownOption, leading_globals, split
    from .serve.turns import TURNS, values

    i = leading_globals(argv)
    if i < len(argv) and argv[i] == "hook":
        return _hook(argv, i, env)
    if i >= len(argv) or argv[i] not in TURNS:
        return None
    turn = TURNS[argv[i]]
    try:
        read = split(argv, *turn.table())
    except UnknownOption:
        return None  # the full app says what is wrong, in the same words
    if any(name not in ("-w", "--workspace") or not value for name, value in read.globals):
        return None
    vals = values(turn, read.options)
    if vals is None or not read.words:
        return None
    if turn.name == "recall" and _recall_format(vals, env) == "table":
        return None  # a terminal's table needs rich
    flag = read.globals[-1][1] if read.globals else None
    from .funnel import run

    return run(lambda: _answer(turn, read.words, vals, flag, env))


def _hook(argv: list[str], i: int, env: Environment):
    """`mem hook HARNESS EVENT`, as a harness runs it on every turn: answered here, never
    failing (serve/hooks.py); --help and anything unusual go to the full app."""
    from .serve.argv import UnknownOption, split

    try:
        read = split(argv, frozenset(), frozenset({"--help", "-h"}))
    except UnknownOption:
        return None
    if (
        read.options
        or len(read.words) < 2
        or any(name not in ("-w", "--workspace") or not value for name, value in read.globals)
    ):
        return None
    flag = read.globals[-1][1] if read.globals else None
    from .serve.hooks import run

    return run(read.words[0], read.words[1], read.words[2:], env, flag)


def _answer(turn: Turn, words: list[str], vals: dict, flag: str | None, env: Environment) -> int:
    from .funnel import warn
    from .serve import turns

    if turn.name == "log":
        mem = _memory(flag, env)
        logged = turns.log(words, vals, mem, env)
        print(logged.citation)
        for w in (*mem.notices(), *logged.warnings):
            warn(w)
        return 0
    read = turns.request(turn.name, words, vals, env)
    from .store.workspace_root import find_root

    root = find_root(None if flag is None else os.path.expanduser(flag), env.env, None, env.home)
    data = turns.ask_resident(read, vals, env, root[0])
    if data is None:
        mem = _memory(flag, env)
        for w in mem.notices():
            warn(w)
        data = turns.answer(read, vals, mem)
    from .serve.fast_output import render

    fmt = _recall_format(vals, env) if turn.name == "recall" else "json" if vals["json"] else ""
    shown = render(turn.name, data, fmt, explain=bool(vals.get("explain")))
    for line in shown["stderr"]:
        print(line, file=sys.stderr)
    sys.stdout.write(shown["stdout"])
    return shown["exit"]


def _recall_format(vals: dict, env: Environment) -> str:
    from .serve.fast_output import recall_format

    return recall_format(vals, env.stdout_tty)


def _memory(flag: str | None, env: Environment):
    from .memory import Memory

    mem = Memory.open(flag, env=env.env)
    mem.ensure_merge_driver()
    return mem


def main() -> None:
    import gc  # built into the interpreter: no import cost

    # A per-turn call is a process of ~20 ms that frees everything when it exits; the cycle
    # collector's passes over what its imports allocate cost a `mem log` ~1.2 ms of it (five
    # young and one middle collection). Off for the fast path, on again for the full app,
    # whose commands (index, watch, serve) run long. Not turned on again before the fast
    # path's exit: the count of what was allocated meanwhile would set off one collection
    # of all of it (~0.7 ms). main() is a process's entry point.
    gc.disable()
    from .environment import Environment

    env = Environment()
    argv = sys.argv[1:]
    if not env.flag("MEM_DEBUG"):
        code = _fast(argv, env)
        if code is not None:
            # The interpreter runs one last collection as it exits, over every object the
            # imports made (~2 ms of a mem log): frozen, they are left to the exit, which
            # frees them all anyway (atexit, module teardown and closing files run as usual).
            gc.freeze()
            sys.exit(code)
    gc.enable()
    from .cli import app  # BLAS runs one thread (set in __init__.py, before numpy loads)

    app(prog_name="mem", obj=env)
