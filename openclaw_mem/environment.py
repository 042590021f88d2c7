"""Everything a run of `mem` takes from the world, read once at the entry point and passed
down (as httpie's Environment is): the variables, the working directory, the home, the
clock, and the three streams with what they are (a terminal, colour, width). Nothing below
reads os.environ, os.getcwd, sys.stdout or the wall clock on its own; tests build one.

A plain class with nothing heavy to import: the per-turn fast path builds one first.
May import `format.when`, `store.workspace_root`, `errors` and `text`.
"""

from __future__ import annotations

import os
import sys

# Variables that say who asks, or how, but not what the answer holds.
_NOT_SETTINGS = ("MEM_NOW", "MEM_AGENT", "MEM_DEBUG", "MEM_NO_DAEMON", "MEM_WORKSPACE")


def settings_of(env) -> dict[str, str]:
    """The MEM_* variables of an environment that change what a read answers (a setting's
    override, the embedding provider): a resident answers for these, or declines."""
    return {k: v for k, v in env.items() if k.startswith("MEM_") and k not in _NOT_SETTINGS}


def local_now():
    """Local wall-clock time, naive, to the second: daily logs are written in local time."""
    try:
        # CPython's datetime module runs its whole pure-Python version before it swaps in
        # this C one (~2 ms of every `mem log`); the class is the same either way.
        from _datetime import datetime
    except ImportError:  # an interpreter without the C module
        from datetime import datetime

    return datetime.now().replace(microsecond=0)


def fixed_clock(value: str):
    """MEM_NOW: every command runs as if it were this moment; a bad value is a one-line
    error, not a silent wall clock."""
    from .errors import UsageError
    from .format.when import parse_when

    try:
        moment = parse_when(value, local_now()).replace(microsecond=0)
    except UsageError as e:
        raise UsageError(f"MEM_NOW: {e}") from None
    return lambda: moment


class Environment:
    __slots__ = ("_clock", "_cwd", "_tty", "env", "home", "stderr", "stdin", "stdout")

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        cwd: str | None = None,
        home: str | None = None,
        stdin=None,
        stdout=None,
        stderr=None,
        stdout_tty: bool | None = None,
        stderr_tty: bool | None = None,
        color: bool | None = None,
        width: int | None = None,
    ) -> None:
        self.env = dict(os.environ) if env is None else env
        self._cwd = cwd
        self.home = home or os.path.expanduser("~")
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self._clock = None
        # What the terminal is, when a caller (a test) says so; else read when asked.
        self._tty = {"stdout": stdout_tty, "stderr": stderr_tty, "color": color, "width": width}

    @classmethod
    def detect(cls, env: dict[str, str]) -> Environment:
        return cls(env)

    @property
    def cwd(self) -> str:
        """The working directory, read when first asked (it may have been deleted, and most
        commands never need it)."""
        if self._cwd is None:
            from .store.workspace_root import current_dir

            self._cwd = current_dir()
        return self._cwd

    def clock(self):
        """Now, local and naive, to the second: the wall clock, or MEM_NOW's fixed moment
        (reproducible examples and replays). A bad MEM_NOW is a one-line error."""
        if self._clock is None:
            moment = self.env.get("MEM_NOW")
            self._clock = fixed_clock(moment) if moment else local_now
        return self._clock

    def flag(self, name: str) -> bool:
        """A variable set to something other than "" or "0" (MEM_DEBUG, MEM_NO_DAEMON)."""
        return self.env.get(name, "") not in ("", "0")

    @staticmethod
    def _is_tty(stream) -> bool:
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False

    @property
    def stdout_tty(self) -> bool:
        said = self._tty["stdout"]
        return self._is_tty(self.stdout) if said is None else said

    @property
    def stderr_tty(self) -> bool:
        said = self._tty["stderr"]
        return self._is_tty(self.stderr) if said is None else said

    @property
    def color(self) -> bool:
        """NO_COLOR (no-color.org) wins; FORCE_COLOR (force-color.org) colours a pipe too;
        else colour on a terminal."""
        if self._tty["color"] is not None:
            return self._tty["color"]
        if "NO_COLOR" in self.env:
            return False
        return self.stdout_tty or self.flag("FORCE_COLOR")

    @property
    def width(self) -> int | None:
        """None: draw at the terminal's width; piped output is for programs and files,
        never hard-wrapped."""
        if self._tty["width"] is not None:
            return self._tty["width"]
        return None if self.stdout_tty else 10_000

    def settings(self) -> dict[str, str]:
        """The MEM_* variables that change what a read answers (a setting's override, the
        embedding provider): a resident process answers for these, or declines."""
        return settings_of(self.env)
