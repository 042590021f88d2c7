"""How `mem` reads a command line, once, for the per-turn fast path (entry.py) and the full
typer app (cli/app.py) alike: strict options and verbatim text, as git and ripgrep have them.

A word that starts with `-` and is none of the command's options is an error naming the
option it was probably meant to be, never text: `mem log --rol user x` must not log
"--rol user x". Text that starts with a dash goes after `--` or on stdin; a word holding
whitespace ("- buy milk", "-1 degrees") can be no option, so it is text as it is. An option
after a word of text is still an option.

Standard library only: this runs before anything else on every agent turn.
"""

from __future__ import annotations

GLOBAL_WITH_VALUE = ("-w", "--workspace")
# Commands whose text arguments are taken verbatim (`mem recall "-1 degrees"` is text).
VERBATIM = ("log", "recall", "context")


class UnknownOption(ValueError):
    """A dash-word that is no option of the command: `message` is the one line to print."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Split:
    """A command line taken apart: global options, the command, its options, its words.
    (A plain class: dataclasses cost an import on the per-turn path.)"""

    __slots__ = ("command", "globals", "options", "words")

    def __init__(
        self,
        globals_: list[tuple[str, str]],
        command: str | None,
        options: list[tuple[str, str | None]],  # (name, value); a flag's value is None
        words: list[str],
    ) -> None:
        self.globals = globals_
        self.command = command
        self.options = options
        self.words = words


def leading_globals(argv: list[str]) -> int:
    """The index of the command word, past the global options before it."""
    i = 0
    while i < len(argv) and argv[i].startswith("-"):
        i += 2 if argv[i] in GLOBAL_WITH_VALUE else 1
    return i


def split(argv: list[str], takes_value: frozenset[str], flags: frozenset[str]) -> Split:
    """Read `argv` (without the program name) for a command with these options. Raises
    UnknownOption for a dash-word that is none of them."""
    i = leading_globals(argv)
    globals_: list[tuple[str, str]] = []
    j = 0
    while j < i:
        arg = argv[j]
        if arg in GLOBAL_WITH_VALUE:
            globals_.append((arg, argv[j + 1] if j + 1 < len(argv) else ""))
            j += 2
            continue
        if arg.startswith("--"):  # --workspace=DIR
            name, eq, value = arg.partition("=")
            globals_.append((name, value if eq else ""))
        elif arg[:2] in GLOBAL_WITH_VALUE and len(arg) > 2:  # -wDIR, as click reads it
            globals_.append((arg[:2], arg[2:]))  # (so `-w=DIR` is the folder "=DIR")
        else:
            globals_.append((arg, ""))
        j += 1
    if i >= len(argv):
        return Split(globals_, None, [], [])
    command = argv[i]
    options: list[tuple[str, str | None]] = []
    words: list[str] = []
    j = i + 1
    while j < len(argv):
        arg = argv[j]
        name, eq, value = arg.partition("=")
        if arg == "--":
            words += argv[j + 1 :]
            break
        if arg in takes_value:
            if j + 1 >= len(argv):  # click would be handed `--` as its value
                raise UnknownOption(
                    f"Option '{arg}' requires an argument. (see `mem {command} --help`)"
                )
            options.append((arg, argv[j + 1]))
            j += 2
            continue
        if arg in flags:
            options.append((arg, None))
        elif arg.startswith("--") and eq and name in takes_value:
            options.append((name, value))
        elif not arg.startswith("--") and arg[:2] in takes_value and len(arg) > 2:  # -k5
            options.append((arg[:2], arg[2:]))
        elif arg.startswith("-") and arg != "-" and not any(c.isspace() for c in arg):
            raise UnknownOption(unknown_option(command, arg, set(takes_value) | set(flags)))
        else:
            words.append(arg)
        j += 1
    return Split(globals_, command, options, words)


def closest(name: str, names: set[str] | list[str]) -> str:
    """ " (did you mean --role?)" for the option `name` was probably meant to be, else "":
    a long option spelled nearly so, or the short option a `--k` doubles the dash of."""
    import difflib

    if name.startswith("--") and len(name) == 3 and name[1:] in names:
        return f" (did you mean {name[1:]}?)"
    long = sorted(n for n in names if n.startswith("--"))
    close = difflib.get_close_matches(name, long, 1, 0.75)
    return f" (did you mean {close[0]}?)" if close else ""


def unknown_option(command: str, arg: str, names: set[str]) -> str:
    """The one line for a word that starts with `-` and is no option of `command`."""
    name = arg.split("=", 1)[0]
    hint = closest(name, names)
    looks = len(name) > 1 and (name[1].isalpha() or (name[1] == "-" and name[2:3].isalpha()))
    what = f"no such option: {name}{hint}" if looks else f"{arg!r} starts with '-'"
    return (
        f"{what}; text that starts with '-' goes after --: mem {command} -- {arg!r} "
        f"(or on stdin: mem {command} -)"
    )
