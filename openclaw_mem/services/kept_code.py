"""What a per-turn process compiles, kept for the next one: `.mem/prebuilt.bin`
(safety/prebuilt.py says what it holds and why it is never trusted blindly). `mem log` and
an in-process recall or context read it before their first pattern is compiled and write it
after, when they compiled something it lacked."""

from __future__ import annotations

from ..errors import UsageError
from ..store.workspace import STATE_DIR

TYPE_CHECKING = False  # not `from typing import`: mem log passes through here
if TYPE_CHECKING:
    from .place import Place


def prebuilt_file(place: Place) -> str | None:
    """Where what the secret scan and the firewall compile is kept (.mem/prebuilt.bin, read
    the first time a pattern is compiled); None when .mem/ is not a real folder (a link is
    never read or written through)."""
    import os

    from ..safety.prebuilt import FILE, read_from, salt_of
    from ..store.fsutil import read_bytes

    state = os.path.join(place.ws.top, STATE_DIR)
    path = os.path.join(state, FILE)
    salt = salt_of(state)  # None: no real folder (a link, or none yet)
    if salt is None:
        return None if os.path.lexists(state) else path  # none yet: made when kept

    def read() -> bytes | None:
        try:
            return read_bytes(path, limit=_PREBUILT_LIMIT)
        except (UsageError, OSError):  # none yet, a link, too large: compiled as without
            return None

    read_from(read, salt)
    return path


_PREBUILT_LIMIT = 16 * 2**20  # far above what the patterns and tables take (~0.5 MB)


def keep_prebuilt(path: str | None) -> None:
    """Write what this process compiled or built for the next one, when it was not kept
    already; a .mem/ that cannot be written (read-only, a link) keeps nothing."""
    from ..safety.prebuilt import changed, dump, salt_of, saved

    if path is None or not changed():
        return
    import os

    from ..store.fsutil import atomic_write_bytes

    state = os.path.dirname(path)
    try:
        os.makedirs(state, exist_ok=True)
        salt = salt_of(state)  # None for a link: nothing is written through one
        data = dump(salt) if salt is not None else None
        saved()
        if data is None:
            return
        atomic_write_bytes(path, data)
    except (UsageError, OSError):
        pass  # compiled again next time: nothing is lost
