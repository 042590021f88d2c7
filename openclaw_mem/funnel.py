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


# A disk that is full, a file at the size limit (RLIMIT_FSIZE), a quota, a read-only mount:
# the workspace cannot be written (exit 9), whichever write met it.
_UNWRITABLE = ("ENOSPC", "EFBIG", "EDQUOT", "EROFS")
_DISK_FULL = ("No space left", "Out of diskspace", "File too large", "Disk quota exceeded")
# A path given that cannot be one ("mem demo FILE", a name longer than the system takes):
# bad input, not a bug.
_BAD_PATH = ("ENOTDIR", "ENAMETOOLONG", "ELOOP")


def say(message: str, stream=None) -> None:
    """A line on stderr, with its secrets hidden and its control characters shown: an error
    may quote an argument, and the argument may be a key."""
    from .safety.secrets import redact
    from .text import visible

    # One line: a newline a message quotes (a file name's) cannot start a line of its own.
    print(visible(redact(message)[0], lines=False), file=stream or sys.stderr)


def warn(message: str, stream=None) -> None:
    say(f"mem: warning: {message}", stream)


def run(action: Callable[[], int | None], debug: bool = False, stream=None) -> int:
    """Run `action` and return the exit code it leaves with. A long wait inside it (a lock,
    a model) is said as a warning on the way."""
    from . import errors

    errors.waiting = lambda message: warn(message, stream)
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
        import errno

        if exc.errno in {getattr(errno, name, None) for name in _UNWRITABLE}:
            return ExitCode.UNWRITABLE
        if exc.errno in {getattr(errno, name, None) for name in _BAD_PATH}:
            return ExitCode.USAGE
        return ExitCode.ERROR
    except Exception as exc:
        if debug:
            import traceback

            traceback.print_exc()
        elif type(exc).__name__ == "GitCommandError":  # a git call no caller expected to fail
            return _git_failed(exc, stream)
        else:
            say(
                f"mem: error: unexpected {type(exc).__name__}: {exc} "
                "(rerun with --debug for the traceback, and please report it)",
                stream,
            )
        return ExitCode.ERROR


def _git_failed(exc: Exception, stream) -> int:
    """git stopped: exit 9 when the disk or the file-size limit stopped it (a signal, for
    the limit: git does not ignore SIGXFSZ), else exit 5."""
    import signal

    said = str(getattr(exc, "stderr", "") or "").strip().removeprefix("stderr:")
    said = " ".join(said.strip().strip("'").split())[:300]
    if getattr(exc, "status", None) == -getattr(signal, "SIGXFSZ", 25):
        said = "the file-size limit (ulimit -f) stopped it"
    full = said.startswith("the file-size limit") or any(w in said for w in _DISK_FULL)
    say(f"mem: error: git failed: {said or exc}", stream)
    return ExitCode.UNWRITABLE if full else ExitCode.GIT
