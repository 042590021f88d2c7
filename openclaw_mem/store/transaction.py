"""One workspace transaction at a time: every writer that rewrites whole files or commits
(consolidate, review --accept, forget, cleanup, undo, import, doctor, commit, and sync's
merge) holds `.mem/write.lock` for its critical section.

`mem log` does not take it: an append holds only its day file's lock, and every writer that
replaces a log does so under that same lock (fsutil.replace_locked), so an acknowledged
entry lands in the file that stays. That keeps the per-turn append as fast as it was while
a sync or a consolidation runs beside it.

The lock is re-entrant within a thread (a forget that commits takes it once), and a
workspace whose `.mem/` cannot be written still works, unserialised, as before.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "write.lock"
_held = threading.local()


@contextmanager
def transaction(root: Path) -> Iterator[None]:
    """Hold the workspace's write lock for the block (waiting for another holder)."""
    from ..errors import UsageError
    from .fsutil import lock_file
    from .workspace import Workspace

    depth: dict[Path, int] = _held.__dict__.setdefault("depth", {})
    key = root.resolve()
    if depth.get(key):
        depth[key] += 1
        try:
            yield
        finally:
            depth[key] -= 1
        return
    try:
        state = Workspace(root).state_dir  # never through a planted .mem link
    except UsageError:
        state = None
    if state is None:
        yield
        return
    with lock_file(state / LOCK_NAME, optional=True):
        depth[key] = 1
        try:
            yield
        finally:
            depth[key] = 0
