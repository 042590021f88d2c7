"""Everything a run of `mem` takes from the world, read once at the entry point and passed
down (as httpie's Environment is): the variables, the working directory, the home, the
clock, and the three streams with what they are (a terminal, colour, width). Nothing below
reads os.environ, os.getcwd, sys.stdout or the wall clock on its own; tests build one.

A plain class with nothing heavy to import: the per-turn fast path builds one first.
"""

from __future__ import annotations

import os
import sys


def local_now():
    """Local wall-clock time, naive, to the second: daily logs are written in local time."""
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
    __slots__ = ("_clock", "_cwd", "env", "home", "stderr", "stdin", "stdout")

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        cwd: str | None = None,
        home: str | None = None,
        stdin=None,
        stdout=None,
        stderr=None,
    ) -> None:
        self.env = dict(os.environ) if env is None else env
        self._cwd = cwd
        self.home = home or os.path.expanduser("~")
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self._clock = None

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

    def tty(self, stream) -> bool:
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False

    @property
    def color(self) -> bool:
        """NO_COLOR (no-color.org) wins; FORCE_COLOR (force-color.org) colours a pipe too;
        else colour on a terminal."""
        if "NO_COLOR" in self.env:
            return False
        return self.tty(self.stdout) or self.flag("FORCE_COLOR")

    def settings(self) -> dict[str, str]:
        """The MEM_* variables that change what a read answers (a setting's override, the
        embedding provider): a resident process answers for these, or declines."""
        skip = ("MEM_NOW", "MEM_AGENT", "MEM_DEBUG", "MEM_NO_DAEMON", "MEM_WORKSPACE")
        return {k: v for k, v in self.env.items() if k.startswith("MEM_") and k not in skip}
