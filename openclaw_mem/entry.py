"""The `mem` command's entry point, with a fast path for the call agents make on every turn.

`mem log TEXT …` (with -w, --role, --speaker, --session, --at, --agent, `-` for stdin) is
recognised here and appended through the `Memory` facade without importing the CLI
framework, which costs more than the append itself; `mem recall … --json`, `mem context`
and `mem get SPEC` are asked of a resident process (`mem watch`, `mem serve`) the same way
when one runs, and answered in this process through the facade when none does. Anything
else, and anything this parser is not sure about (--help, --debug, an unknown option), goes
to the full typer app, which prints and exits exactly as it always does.
"""

from __future__ import annotations

import os
import sys

_LOG_KEYS = {
    "-r": "role",
    "--role": "role",
    "-s": "speaker",
    "--speaker": "speaker",
    "--session": "session",
    "--agent": "agent",
    "--at": "at",
}


def _split(argv: list[str], commands: tuple[str, ...]):
    """The command line read as the full app reads it (serve/argv.py), when it names one of
    `commands` with no global option but -w; None for anything else, errors included (the
    full app says them, in the same words)."""
    from .serve.argv import OPTIONS, UnknownOption, leading_globals, split

    i = leading_globals(argv)
    if i >= len(argv) or argv[i] not in commands:
        return None
    try:
        read = split(argv, *OPTIONS[argv[i]])
    except UnknownOption:
        return None
    if any(name not in ("-w", "--workspace") or not value for name, value in read.globals):
        return None
    return read


def _parse(argv: list[str]) -> dict | None:
    """The options and words of a plain `mem log` call; None for anything else."""
    read = _split(argv, ("log",))
    if read is None or not read.words:
        return None
    opts: dict = {"words": read.words}
    if read.globals:
        opts["workspace"] = read.globals[-1][1]
    for name, value in read.options:
        key = _LOG_KEYS.get(name)
        if key is None or key in opts:
            return None  # --help, or given twice: the full app says what it thinks
        opts[key] = value
    return opts


def _fast_log(opts: dict) -> int:
    from .errors import ExitCode, MemError
    from .memory import Memory

    try:
        mem = Memory.open(opts.get("workspace"))
        words = opts["words"]
        if words == ["-"]:
            data = sys.stdin.buffer.read()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                from .errors import UsageError

                raise UsageError(
                    "standard input is not valid UTF-8; the text was not read"
                ) from None
        else:
            text = " ".join(words)
        at = None
        if "at" in opts:
            from .format.when import parse_when

            at = parse_when(opts["at"], mem.now())
        logged = mem.log(
            text,
            role=opts.get("role"),
            speaker=opts.get("speaker"),
            session=opts.get("session"),
            at=at,
            agent=opts.get("agent"),
        )
    except MemError as exc:
        from .safety.secrets import redact
        from .text import visible

        print(visible(f"mem: error: {redact(exc.message)[0]}"), file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("mem: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    print(logged.citation)
    said = (*mem.notices(), *logged.warnings)
    if said:
        from .text import visible

        for w in said:
            print(visible(f"mem: warning: {w}"), file=sys.stderr)
    return 0


_ASK_KEYS = {"-k": "k", "--budget": "budget", "--json": "json", "--no-daemon": "no_daemon"}


def _parse_ask(argv: list[str]) -> dict | None:
    """`mem recall QUERY… --json [-k N] [--no-daemon]`, `mem context QUERY… [--json]
    [--budget N] [--no-daemon]` or `mem get SPEC [--json] [--no-daemon]`: the per-turn reads
    whose output needs no rendering library. None for anything else."""
    read = _split(argv, ("recall", "context", "get"))
    if read is None:
        return None
    op = read.command
    opts: dict = {"op": op, "words": read.words, "json": False, "no_daemon": False}
    if read.globals:
        opts["workspace"] = read.globals[-1][1]
    for name, value in read.options:
        key = _ASK_KEYS.get(name)
        if key is None:
            return None  # an option only the full app answers
        if value is None:
            opts[key] = True
        elif value.isascii() and value.isdigit():
            opts[key] = int(value)
        else:
            return None  # the full app says what is wrong with the number
    if "-" in read.words and op != "get":
        return None  # the query on stdin
    if not " ".join(read.words).strip() or (op == "recall" and not opts["json"]):
        return None  # a recall's table needs rich
    if op == "get" and len(read.words) != 1:
        return None  # one spec; the full app says what is wrong with more
    return opts


def _read(opts: dict, now: str, agent: str | None):
    """The `Read` the full command sends for these options (cli/recall_cmds.py)."""
    from .recall.reads import Read

    if opts["op"] == "get":
        return Read("get", spec=opts["words"][0])
    text = " ".join(opts["words"])
    if opts["op"] == "recall":
        return Read("recall", query=text, k=opts.get("k"), now=now, agent=agent)
    return Read("context", query=text, budget=opts.get("budget"), now=now, agent=agent)


def _fast_ask(opts: dict) -> int | None:
    """Answer without the CLI framework: from the resident process when one runs, else in
    this process through the facade; print what the full command prints. None hands the
    call to the full app (it says every error in its own words)."""
    env = os.environ
    agent = env.get("MEM_AGENT") or None
    if agent is not None:
        import re

        if not re.fullmatch(r"[\w.-]{1,64}", agent):
            return None  # the full app says what is wrong with it
    from .errors import ExitCode, MemError

    flag = os.path.expanduser(opts["workspace"]) if "workspace" in opts else None
    from .serve.fast_output import render

    data = None
    daemon = not opts["no_daemon"] and env.get("MEM_NO_DAEMON", "") in ("", "0")
    if daemon:
        import time

        from .serve.socket_client import ask
        from .store.workspace_root import find_root

        try:
            root = find_root(flag, env, None, os.path.expanduser("~"))[0]
            # local, to the second, as mem.now(); MEM_NOW is checked by the resident
            now = env.get("MEM_NOW") or time.strftime("%Y-%m-%dT%H:%M:%S")
            read = _read(opts, now, agent)
            reply = ask(root, read.op, read.to_json())
            if reply is None:
                from .serve.autostart import coming

                if coming(root):
                    reply = ask(root, read.op, read.to_json())
        except (MemError, OSError):
            return None
        except KeyboardInterrupt:
            print("mem: interrupted", file=sys.stderr)
            return int(ExitCode.INTERRUPTED)
        if reply is not None:
            data = reply.get("result") if reply.get("ok") else None
            if not isinstance(data, dict):
                return None  # an error, or not what we asked for: the full app decides
    mem = None
    if data is None:
        from .memory import Memory

        try:
            mem = Memory.open(flag)
            now = mem.now().replace(microsecond=0).isoformat()
            data = mem.answer(_read(opts, now, mem.agent))
        except MemError:
            return None
        except Exception:  # a bug: the full app reports it through its one error funnel
            return None
        except KeyboardInterrupt:
            print("mem: interrupted", file=sys.stderr)
            return int(ExitCode.INTERRUPTED)
    try:
        shown = render(opts["op"], data, opts["json"])
    except (KeyError, TypeError, ValueError):
        return None  # an answer not of the shape asked for: the full app decides
    for line in shown["stderr"]:
        print(line, file=sys.stderr)
    sys.stdout.write(shown["stdout"])
    if daemon and mem is not None:  # answered here: if the model was slow, the next is not
        sys.stdout.flush()
        from .serve import start_when_slow

        start_when_slow(mem)
    return 0


def main() -> None:
    argv = sys.argv[1:]
    debug = os.environ.get("MEM_DEBUG", "") not in ("", "0")
    opts = None if debug else _parse(argv)
    if opts is not None:
        sys.exit(_fast_log(opts))
    # mem multiplies small matrices (a query's candidates, a batch of vectors): OpenBLAS's
    # thread pool costs more than it saves, ~90 ms of CPU to start a process on two cores,
    # and in a resident process its spinning threads doubled a query's wall time.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    asked = None if debug else _parse_ask(argv)
    if asked is not None:
        code = _fast_ask(asked)
        if code is not None:
            sys.exit(code)
    from .cli import app

    app(prog_name="mem")
