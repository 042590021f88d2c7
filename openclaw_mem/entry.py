"""The `mem` command's entry point, with a fast path for the call agents make on every turn.

`mem log TEXT …` (with -w, --role, --speaker, --session, --at, `-` for stdin) is recognised
here and appended through the `Memory` facade without importing the CLI framework, which
costs more than the append itself. Anything else, and anything this parser is not sure
about (--help, --debug, an unknown option), goes to the full typer app, which prints and
exits exactly as it always does.
"""

from __future__ import annotations

import os
import sys

_GLOBAL = {"-w": "workspace", "--workspace": "workspace"}
_LOG = {
    "-r": "role",
    "--role": "role",
    "-s": "speaker",
    "--speaker": "speaker",
    "--session": "session",
    "--at": "at",
}


def _parse(argv: list[str]) -> dict | None:
    """The options and words of a plain `mem log` call; None for anything else."""
    opts: dict = {"words": []}
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        name, _, value = argv[i].partition("=")
        if name not in _GLOBAL:
            return None
        if not value:
            if i + 1 >= len(argv):
                return None
            value, i = argv[i + 1], i + 1
        opts[_GLOBAL[name]] = value
        i += 1
    if i >= len(argv) or argv[i] != "log":
        return None
    i += 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            opts["words"] += argv[i + 1 :]
            break
        name, eq, value = arg.partition("=")
        if name in _LOG:
            if not eq:
                if i + 1 >= len(argv):
                    return None
                value, i = argv[i + 1], i + 1
            if _LOG[name] in opts:
                return None  # given twice: let the full parser say what it thinks
            opts[_LOG[name]] = value
        elif arg.startswith("-") and arg != "-" and not opts["words"]:
            # -h, --debug, or text that starts with a dash: the full app's rules decide.
            return None
        else:
            opts["words"].append(arg)
        i += 1
    return opts if opts["words"] else None


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
            from .when import parse_when

            at = parse_when(opts["at"], mem.now())
        logged = mem.log(
            text,
            role=opts.get("role"),
            speaker=opts.get("speaker"),
            session=opts.get("session"),
            at=at,
        )
    except MemError as exc:
        from .secrets import redact

        print(f"mem: error: {redact(exc.message)[0]}", file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("mem: interrupted", file=sys.stderr)
        return int(ExitCode.INTERRUPTED)
    print(logged.citation)
    for w in logged.warnings:
        print(f"mem: warning: {w}", file=sys.stderr)
    return 0


def main() -> None:
    argv = sys.argv[1:]
    opts = None if os.environ.get("MEM_DEBUG", "") not in ("", "0") else _parse(argv)
    if opts is not None:
        sys.exit(_fast_log(opts))
    from .cli import app

    app(prog_name="mem")
