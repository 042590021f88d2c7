"""A resident process started on demand, as a build daemon is.

When the embedding model takes a second or two to load (`local`), answering recall or
context in a fresh process pays that on every agent turn. After such an answer, mem
starts `mem resident --idle N` in the background, detached: one process a user, not one a
workspace. It loads the model once, serves the user's socket (socket_client.user_dir,
0700) for every workspace of that user, at most pool.LIMIT of them open at a time, and
exits after N idle seconds (`watch.idle`, default 600; 0 turns this off, as
MEM_NO_DAEMON=1 does). The calls that follow, in any workspace, are answered by it. A
marker file beside the socket keeps two calls in a row from starting two.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..memory import Memory

STARTING = "resident.starting"  # beside the user's socket: a resident is on its way
GRACE = 60.0  # seconds a marker holds: longer than any model takes to load


def worth_it(mem: Memory) -> bool:
    """Whether this memory's answers are worth a resident: its embedder is slow to load,
    and neither the settings nor the environment turned resident processes off."""
    if os.name != "posix" or mem.env.get("MEM_NO_DAEMON", "") not in ("", "0"):
        return False
    if mem.config["watch.idle"] <= 0:
        return False
    from .socket_client import MAX_PATH, user_socket_file

    if len(user_socket_file()) > MAX_PATH:  # no resident can listen there: none to start
        return False
    return bool(getattr(mem.embedder, "slow_start", False))


def maybe_start(mem: Memory) -> bool:
    """Start a resident in the background when worth_it and none serves or is starting.
    True when one was started. Never raises: this is an optimisation."""
    try:
        if not worth_it(mem):
            return False
        from .socket_client import serving

        if serving(mem.root):
            return False
        from .socket_client import greets, made_private_dir, user_dir, user_socket_file

        if not made_private_dir(user_dir()):
            return False
        if greets(user_socket_file()):  # it serves, just not this workspace (pool.py says
            return False  # which it declines): another would only load the model to exit
        marker = Path(user_dir()) / STARTING
        try:
            if time.time() - marker.lstat().st_mtime < GRACE and _alive(marker):
                return False
            marker.unlink()  # left by a start that failed
        except FileNotFoundError:
            pass
        flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(marker, flags, 0o600)
        except FileExistsError:  # another call got here first
            return False
        from ..errors import MemError
        from ..services.background import spawn

        idle = ("--idle", str(mem.config["watch.idle"]))
        try:
            child = spawn(mem.ws, ["resident", *idle], "resident.log")
        except (OSError, MemError):
            os.close(fd)
            marker.unlink()
            return False
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(str(child.pid))  # for coming(): a starter that died is not waited for
        return True
    except Exception:  # a resident is an optimisation, never a failure
        return False


def coming(root: str | os.PathLike[str], timeout: float = 3.0) -> bool:
    """When a resident is on its way (a fresh marker), wait up to `timeout` for it to
    serve: it is loading the model already, so waiting beats loading it a second time.
    True once it serves. Standard library only: the per-turn client calls this."""
    from .socket_client import private_dir, serving, user_dir

    if not private_dir(user_dir()):  # never read or remove a file through a planted link
        return False
    marker = Path(user_dir()) / STARTING
    try:
        if time.time() - marker.lstat().st_mtime >= GRACE:
            return False
    except OSError:
        return False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if serving(root):
            return True
        if not marker.exists():  # it gave up (another serves, or it failed)
            return serving(root)
        if not _alive(marker):  # it died before it could serve: stop waiting, and clear
            with contextlib.suppress(OSError):
                marker.unlink()
            return False
        time.sleep(0.05)
    return False


def _alive(marker: Path) -> bool:
    """Whether the process a marker names still runs (a marker not yet holding its pid,
    or one that cannot be read, counts as alive: GRACE bounds it)."""
    try:
        pid = int(marker.read_text(encoding="ascii") or "0")
    except (OSError, ValueError):
        return True
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    # A child that exited but was not reaped yet (its starter is still running) is a zombie.
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return True


def started() -> None:
    """The resident serves (or gave up): the marker has done its job."""
    from .socket_client import private_dir, user_dir

    if private_dir(user_dir()):
        with contextlib.suppress(OSError):
            (Path(user_dir()) / STARTING).unlink()
