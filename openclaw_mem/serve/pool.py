"""One resident a user, not one a workspace: the workspaces it answers for, kept open.

A resident started on demand (autostart.py) serves every workspace of the user who started
it over one socket in the user's runtime folder (socket_client.user_socket_file). The
embedding model is loaded once a process (embed/local.py), however many workspaces ask; what
each workspace adds is its settings and the index it reads, so at most LIMIT stay open, the
one asked longest ago closed first. A workspace is opened again when its folder, its
mem.toml or this machine's trust record (`mem trust`) changed since it was opened, as a
`mem watch` reads its settings again then.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..memory import Memory

LIMIT = 4  # workspaces open at once: each holds its settings and its index's maps


def _stamp(root: str) -> tuple | None:
    """What must not change for an open workspace to answer: the folder (a move or a
    removal), the real `.mem/` folder mem keeps there, and mem.toml's stat. None when this
    is not a folder of this user's holding a real `.mem/` (not a workspace mem has used)."""
    try:
        top = os.lstat(root)
        state = os.lstat(os.path.join(root, ".mem"))
    except (OSError, ValueError):
        return None
    if not (stat.S_ISDIR(top.st_mode) and stat.S_ISDIR(state.st_mode)):
        return None
    if top.st_uid != os.getuid() or state.st_uid != os.getuid():
        return None
    return top.st_dev, top.st_ino, state.st_ino, _stat_of(os.path.join(root, "mem.toml"))


def settings_stamp(root: str, env: Mapping[str, str]) -> tuple:
    """What changes when a workspace's settings may have: its mem.toml and which versions
    of it this machine trusts (`mem trust`)."""
    from ..memory import Memory

    return _stat_of(os.path.join(root, "mem.toml")), _stat_of(Memory.trust_record(env))


def settings_changed(root: str, env: Mapping[str, str], since: tuple) -> tuple | None:
    """The settings' stamp now, when it differs from `since` (settings_stamp's) for a
    workspace still there; else None. A workspace that moved or went is no settings change:
    it is the resident's to notice (it stops), with nothing to read again."""
    if not os.path.isdir(root):
        return None
    stamp = settings_stamp(root, env)
    return stamp if stamp != since else None


class Current:
    """A workspace's Memory as its settings are now, for a process that lives as long as
    its agent's session (`mem serve`): opened again (`reopen`) when mem.toml or what `mem
    trust` trusts of it changed since it was opened, as a `mem watch` and the user's
    resident do, so a `recall.min_score` the user just set counts from the next call. A
    mem.toml that no longer reads counts as it does for a new command (the last trusted
    settings stand); an error opening it fails that call in one line and is tried again on
    the next; a workspace that moved is the resident's to notice."""

    def __init__(self, mem: Memory, reopen: Callable[[], Memory]) -> None:
        self._mem, self._reopen = mem, reopen
        self._stamp = settings_stamp(str(mem.root), mem.env)
        self._lock = threading.Lock()

    def __call__(self) -> Memory:
        with self._lock:
            stamp = settings_changed(str(self._mem.root), self._mem.env, self._stamp)
            if stamp is not None:
                # Read before the stamp is kept: a failure leaves the old one, to try again.
                self._mem = self._reopen()
                self._stamp = stamp
            return self._mem


def _stat_of(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


class Pool:
    """The workspaces a user resident has open, at most `limit`, opened with `env` (the
    environment the resident started with: the settings it answers for)."""

    def __init__(self, env: Mapping[str, str], limit: int = LIMIT) -> None:
        from ..memory import Memory

        self.env = dict(env)
        self.limit = limit
        # `mem trust` changes which settings of a mem.toml count: read them again after it.
        self._trusted = Memory.trust_record(self.env)
        self._open: OrderedDict[str, tuple[tuple, Memory]] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, mem: Memory) -> None:
        """Keep a workspace opened elsewhere (the one that started the resident)."""
        root = str(mem.root)
        stamp = self._stamp_of(root)
        if stamp is not None:
            with self._lock:
                self._keep(root, stamp, mem)

    def open_roots(self) -> list[str]:
        """The workspaces open now, the one asked most recently last."""
        with self._lock:
            return list(self._open)

    def handler_for(self, root: object) -> Callable | None:
        """How to answer for the workspace at `root` (its Memory's `answer`), or None when
        `root` is not a canonical path to a workspace of this user's."""
        if not isinstance(root, str) or not os.path.isabs(root) or "\0" in root:
            return None
        if os.path.realpath(root) != root:  # through a link, or not normalised: not ours
            return None
        stamp = self._stamp_of(root)
        if stamp is None:
            return None
        with self._lock:
            kept = self._open.get(root)
            if kept is not None and kept[0] == stamp:
                self._open.move_to_end(root)
                return _served(kept[1])
        from ..errors import MemError
        from ..memory import Memory

        try:  # opened outside the lock: reading settings must not hold up other workspaces
            mem = Memory.open(root, env=self.env)
        except (MemError, OSError):
            return None
        with self._lock:
            self._keep(root, stamp, mem)
        return _served(mem)

    def _stamp_of(self, root: str) -> tuple | None:
        stamp = _stamp(root)
        return None if stamp is None else (*stamp, _stat_of(self._trusted))

    def _keep(self, root: str, stamp: tuple, mem: Memory) -> None:
        self._open[root] = (stamp, mem)
        self._open.move_to_end(root)
        while len(self._open) > self.limit:
            self._open.popitem(last=False)


def _served(mem: Memory) -> Callable | None:
    """The workspace's answers, unless its own settings turn residents off (`watch.idle =
    0`): a resident another workspace started keeps out of it too."""
    return mem.answer if mem.config["watch.idle"] > 0 else None
