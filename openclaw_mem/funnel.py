"""The one error funnel every run of `mem` leaves through, the per-turn fast path and the full
CLI alike: a user's error is one line on stderr, `mem: error: …`, and its documented exit
code (errors.py); Ctrl-C is 130; a reader that went away (`mem recall … | head`) is no
error; anything else is a bug, one line asking for `--debug`, or its traceback with it.
Every line passes the secret filter and shows control characters written out.

Standard library only until something goes wrong: the fast path imports it first.
May import `safety.secrets`, `errors` and `text`.
"""

from __future__ import annotations

import os
import sys

from .errors import ExitCode, MemError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def say(message: str, stream=None) -> None:
    """A line on stderr, with its secrets hidden and its control characters shown: an error
    may quote an argument, and the argument may be a key."""
    from .safety.secrets import redact
    from .text import visible

    print(visible(redact(message)[0]), file=stream or sys.stderr)


def warn(message: str, stream=None) -> None:
    say(f"mem: warning: {message}", stream)


def run(action: Callable[[], int | None], debug: bool = False, stream=None) -> int:
    """Run `action` and return the exit code it leaves with."""
    try:
        code = action()
        return ExitCode.OK if code is None else int(code)
    except MemError as exc:
        if debug:
            import traceback

            traceback.print_exc()
        say(f"mem: error: {exc.message}", stream)
        return exc.exit_code
    except KeyboardInterrupt:
        say("mem: interrupted", stream)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        # The reader went away: not an error worth a line (and stdout can take no more).
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return ExitCode.OK
    except OSError as exc:
        if debug:
            import traceback

            traceback.print_exc()
        where = f": {exc.filename}" if exc.filename else ""
        say(f"mem: error: {exc.strerror or exc}{where}", stream)
        return ExitCode.ERROR
    except Exception as exc:
        if debug:
            import traceback

            traceback.print_exc()
        else:
            say(
                f"mem: error: unexpected {type(exc).__name__}: {exc} "
                "(rerun with --debug for the traceback, and please report it)",
                stream,
            )
        return ExitCode.ERROR
