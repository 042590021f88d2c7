"""File primitives every reader and writer goes through: strict UTF-8 reads, atomic
whole-file writes, and appends that many processes can make at once without losing or
mixing bytes.

None of them follows a symlink: a memory file that is a link (to /etc/passwd, to another
workspace, or one that arrived through `mem sync`) is refused with one clear error, never
read, appended to or replaced. Directories on the way are checked by Workspace.inside."""

from __future__ import annotations

import errno
import os
import stat

from ..errors import BadEncoding, ConflictError, UsageError, WriteError, say_waiting

# `mem log` appends through here on every agent turn: no pathlib, contextlib or typing at
# import. Paths may be str or Path; os.path functions take both.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class SymlinkRefused(UsageError):
    """A memory path that is a symlink: mem reads and writes only real files."""

    def __init__(self, path: Path, rel: str | None = None) -> None:
        self.path = path
        super().__init__(
            f"{rel or path} is a symlink; mem reads and writes only real files inside the "
            "workspace (replace the link with the file itself)"
        )


def _refuse_link(path: Path, rel: str | None = None) -> None:
    if os.path.islink(path):
        raise SymlinkRefused(path, rel)


class NotAFile(UsageError):
    """A memory path that is a directory, a FIFO, a device or a socket: mem reads and
    writes only regular files, and says so before any read can block."""

    def __init__(self, path: Path, what: str, rel: str | None = None) -> None:
        self.path = path
        super().__init__(
            f"{rel or path} is {what}, not a regular file; mem reads and writes only regular "
            "files (remove or replace it)"
        )


class TooLarge(UsageError):
    def __init__(self, path: Path, size: int, limit: int, rel: str | None = None) -> None:
        self.path = path
        super().__init__(
            f"{rel or path} is {size / 2**20:.0f} MiB, over the {limit // 2**20} MiB mem reads "
            "of one memory file; split it or move it out of the workspace"
        )


MAX_READ = 64 * 2**20  # the most mem reads of one memory file
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO must not wait for a writer


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _open(path: Path, flags: int, mode: int = 0o666, rel: str | None = None) -> int:
    """A descriptor on the regular file at `path`, never through a link, never blocking on
    a FIFO; anything else is refused in one line."""
    try:
        fd = os.open(path, flags | _NOFOLLOW | _NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP or os.path.islink(path):
            raise SymlinkRefused(path, rel) from None
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise WriteError(path, exc) from None
        if exc.errno in (errno.EISDIR, errno.ENXIO):  # a directory; a FIFO nobody reads
            try:
                kind = _kind(os.lstat(path).st_mode)
            except OSError:
                raise exc from None
            raise NotAFile(path, kind, rel) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotAFile(path, _kind(st.st_mode), rel)
    if _NONBLOCK:
        os.set_blocking(fd, True)
    return fd


def read_bytes(path: Path, rel: str | None = None, limit: int = MAX_READ) -> bytes:
    """A regular file's bytes (at most `limit` of them), refusing a link and anything else."""
    fd = _open(path, os.O_RDONLY, rel=rel)
    with os.fdopen(fd, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise TooLarge(path, size, limit, rel)
        data = f.read(limit + 1)
        if len(data) > limit:
            raise TooLarge(path, len(data), limit, rel)
        return data


def open_bytes(path: Path, rel: str | None = None):
    """A file opened for reading in binary, refusing a symlink (for reading in pieces)."""
    return os.fdopen(_open(path, os.O_RDONLY, rel=rel), "rb")


# A lock another process holds is waited for, not forever: after LOCK_NOTICE seconds mem says
# what it waits for, after LOCK_GIVE_UP it stops (exit 8, nothing written). A hung process
# (an editor, a stopped `mem`) must not hold an agent's turn or a cron job without a word.
LOCK_NOTICE = 3.0
LOCK_GIVE_UP = 30.0


class LockBusy(ConflictError):
    def __init__(self, what: str, waited: float) -> None:
        super().__init__(
            f"{what} has been locked by another process for {waited:.0f} s (a hung or stopped "
            "mem, an editor?); nothing was written: try again, or end that process"
        )


def _wait_for(try_lock: Callable[[], None], what: str) -> None:
    """Take a lock that `try_lock` tries without blocking (BlockingIOError while another
    holds it), polling with backoff, saying so once, giving up at LOCK_GIVE_UP."""
    import time

    try:
        return try_lock()
    except BlockingIOError:
        pass
    start, delay, said = time.monotonic(), 0.002, False
    while True:
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
        try:
            return try_lock()
        except BlockingIOError:
            waited = time.monotonic() - start
            if not said and waited >= LOCK_NOTICE:
                say_waiting(
                    f"waiting for {what}, which another process holds (up to {LOCK_GIVE_UP:g} s)"
                )
                said = True
            if waited >= LOCK_GIVE_UP:
                raise LockBusy(what, waited) from None


try:  # POSIX
    import fcntl

    def _lock(fd: int, wait: bool = True, what: str = "a file") -> None:
        """An exclusive lock; without `wait`, BlockingIOError when another holds it; with,
        LockBusy after LOCK_GIVE_UP seconds."""
        if not wait:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        _wait_for(lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB), what)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)

except ImportError:  # Windows: lock the first byte; blocking mode retries for ~10 s
    import msvcrt

    def _lock(fd: int, wait: bool = True, what: str = "a file") -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
                return
            except OSError:
                if not wait:
                    raise BlockingIOError("locked by another process") from None

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


def _shown(path: Path) -> str:
    """A lock's or a file's name for a message: `.mem/write.lock`, `memory/2026-11-30.md`."""
    parts = os.fspath(path).split(os.sep)
    return os.sep.join(parts[-2:])


def _mkdirs_for(path: Path) -> None:
    os.makedirs(os.path.dirname(os.fspath(path)) or ".", exist_ok=True)


def _in_the_way(path: Path, exc: OSError) -> OSError:
    """The error of a folder that could not be made because a file has its name ("File
    exists" says nothing of which): the file named, else `exc` as it is."""
    if exc.errno not in (errno.EEXIST, errno.ENOTDIR):
        return exc
    folder = os.path.dirname(os.fspath(path))
    while folder and folder != os.path.dirname(folder):
        if os.path.lexists(folder) and not os.path.isdir(folder):
            return OSError(exc.errno, f"{folder} is a file, not a folder")
        folder = os.path.dirname(folder)
    return exc


# The descriptors this process holds a lock through. A forked child shares each one's lock
# (flock belongs to the open file, not the process), so a build's worker that outlived its
# killed parent held .mem/index.lock for ever: workers close these first (forget_locks).
_HELD: set[int] = set()


def forget_locks() -> None:
    """In a forked child: close the descriptors the parent locks through, without unlocking
    (an unlock would free the parent's lock too), so the locks end with the parent."""
    for fd in list(_HELD):
        try:
            os.close(fd)
        except OSError:  # closed already
            continue
    _HELD.clear()


class lock_file:  # used like a function: `with lock_file(path) as held:`
    """Hold an exclusive lock on a lock file in .mem/ (created if missing) for the block:
    the one way mem serialises its processes. Without `wait`, BlockingIOError when another
    process holds it. `optional`: a lock file that cannot be created (a read-only .mem/)
    yields False and the block runs unserialised; else that is an OSError."""

    __slots__ = ("fd", "optional", "path", "wait")

    def __init__(self, path: Path, *, wait: bool = True, optional: bool = False) -> None:
        self.path, self.wait, self.optional, self.fd = path, wait, optional, -1

    def __enter__(self) -> bool:
        try:
            _mkdirs_for(self.path)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o644)
        except OSError:
            if not self.optional:
                raise
            return False
        try:
            _lock(fd, self.wait, _shown(self.path))
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd
        _HELD.add(fd)
        return True

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            fd, self.fd = self.fd, -1
            _HELD.discard(fd)
            try:
                _unlock(fd)
            except OSError:
                pass
            finally:
                os.close(fd)


def decode(data: bytes, path: Path, rel: str | None = None) -> str:
    """Bytes of a memory file as UTF-8; BadEncoding (reported by path) otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadEncoding(path, rel) from None


def read_text(path: Path, rel: str | None = None) -> str:
    """Read a file as UTF-8 with its line endings untouched; raise BadEncoding otherwise.
    A symlink is refused."""
    return decode(read_bytes(path, rel), path, rel)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def replaceable(path: Path) -> int | None:
    """The file's mode (None if it does not exist yet), or WriteError when a person made it
    read-only: os.replace would swap it anyway, the folder being writable, so the mode is
    honoured here. Callers that write several files ask first, so none is half-done."""
    try:
        mode = os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise WriteError(path, exc) from None
    if not mode & 0o200:
        raise WriteError(path, PermissionError(0, f"it is read-only (mode {mode:04o})"))
    return mode


TEMP_SUFFIX = ".tmp"


def is_write_temp(name: str) -> bool:
    """Whether a file name is one atomic_write_bytes gives its temp file: "." + the file's
    name + "." + mkstemp's eight characters + TEMP_SUFFIX (a kill may leave one behind)."""
    stem = name[1:].removesuffix(TEMP_SUFFIX)
    head, dot, tail = stem.rpartition(".")
    return (
        name.startswith(".")
        and name.endswith(TEMP_SUFFIX)
        and bool(head)
        and bool(dot)
        and len(tail) == 8
        and all(c.isalnum() or c == "_" for c in tail)
    )


def atomic_write_text(path: Path, text: str, private: bool = False) -> None:
    """Replace a file's content so a crash leaves either the old or the new file, whole.
    A new file gets the usual permissions (0666 less the umask), an existing one keeps its
    own; `private`: readable by its owner alone (0600), whatever it was. A symlink is
    refused, not replaced."""
    atomic_write_bytes(path, text.encode("utf-8"), private)


def atomic_write_bytes(path: Path, data: bytes, private: bool = False) -> None:
    """atomic_write_text for bytes (a merged file is written back exactly as merged)."""
    import tempfile  # not on `mem log`'s path: appends need none

    _refuse_link(path)
    mode = replaceable(path)
    if private:
        mode = 0o600
    folder = os.path.dirname(os.fspath(path)) or "."
    try:
        os.makedirs(folder, exist_ok=True)
        name = os.path.basename(os.fspath(path))
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise WriteError(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, path)
    except OSError as exc:
        _unlink_quietly(tmp)
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC):
            raise WriteError(path, exc) from None
        raise
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _quietly(action, *args, ignore: type[BaseException] = OSError) -> None:
    """`action(*args)`, an `ignore` error left unsaid (contextlib costs `mem log` its import)."""
    try:  # noqa: SIM105 - contextlib.suppress is what this avoids importing
        action(*args)
    except ignore:
        pass


def _unlink_quietly(path: str) -> None:
    _quietly(os.unlink, path, ignore=FileNotFoundError)


def _still_there(fd: int, path: Path) -> bool:
    """Whether the locked descriptor is still the file at `path`. A writer that replaces a
    log (sync, a redaction) does it under this lock; a process that waited for the lock on
    the old file would otherwise append to a file no directory holds any more."""
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_ino, held.st_dev) == (now.st_ino, now.st_dev)


class locked_append_fd:  # used like a function: `with locked_append_fd(p) as fd:`
    """An O_APPEND descriptor on `path` (created if missing) holding an exclusive lock, on
    the file that is at `path` when the lock is taken (never on one replaced meanwhile)."""

    __slots__ = ("fd", "path", "rel")

    def __init__(self, path: Path, rel: str | None = None) -> None:
        self.path, self.rel, self.fd = path, rel, -1

    def __enter__(self) -> int:
        path = self.path
        try:
            _mkdirs_for(path)
        except OSError as exc:
            raise WriteError(path, _in_the_way(path, exc)) from None
        while True:
            fd = _open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666, self.rel)
            try:
                _lock(fd, what=self.rel or _shown(path))
            except BaseException:
                os.close(fd)
                raise
            if _still_there(fd, path):
                break
            _unlock(fd)
            os.close(fd)
        self.fd = fd
        _HELD.add(fd)
        return fd

    def __exit__(self, *exc: object) -> None:
        fd, self.fd = self.fd, -1
        _HELD.discard(fd)
        try:
            _unlock(fd)
        except OSError:
            pass
        finally:
            os.close(fd)


def read_locked(path: Path, rel: str | None = None) -> bytes | None:
    """A file's bytes read under the lock its appenders take (never half an entry); None
    when there is no file."""
    try:
        fd = _open(path, os.O_RDONLY, rel=rel)
    except FileNotFoundError:
        return None
    try:
        while True:
            _lock(fd, what=rel or _shown(path))
            if _still_there(fd, path):
                break
            _unlock(fd)
            os.close(fd)
            try:
                fd = _open(path, os.O_RDONLY, rel=rel)
            except FileNotFoundError:
                fd = -1
                return None
        try:
            return _read_all(fd)
        finally:
            _unlock(fd)
    finally:
        if fd >= 0:
            os.close(fd)


def replace_locked(path: Path, change: Callable[[bytes | None], bytes | None]) -> bool:
    """Replace a file that appenders write to: under the lock `append_locked` takes,
    `change(current bytes, or None when there is no file)` returns the new content (None:
    leave it, b"" with no file before: nothing to create), written atomically. An append
    waiting for the lock lands in the new file, never in the replaced one. Returns whether
    the file changed."""
    _refuse_link(path)
    existed = os.path.exists(path)
    with locked_append_fd(path) as fd:
        current = _read_all(fd) if existed or os.fstat(fd).st_size else None
        try:
            new = change(current)
        except BaseException:
            new = None
            raise
        finally:
            if current is None and not new:  # the lock made an empty file nobody asked for
                _quietly(os.unlink, path)
        if new is None or new == current or (current is None and not new):
            return False
        atomic_write_bytes(path, new)
        return True


def _read_all(fd: int) -> bytes:
    # O_APPEND writes always land at the end, so moving the offset to read is harmless.
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def append_locked(
    path: Path, render: Callable[[bytes], bytes], rel: str | None = None
) -> tuple[bytes, bytes]:
    """Append what `render(existing_bytes)` returns, under the file's lock.

    `render` sees the whole current file so it can decide on a header, a missing final
    newline or duplicates; nobody else can append between that look and the write.
    Returns (existing, appended).
    """
    with locked_append_fd(path, rel) as fd:
        existing = _read_all(fd)
        data = render(existing)
        if data:
            try:
                _write_all(fd, data)
            except OSError as exc:
                # All or nothing: a full disk (or any failure) midway leaves no torn entry.
                # Under the lock nobody else has appended, so the file ends where it did.
                _quietly(os.ftruncate, fd, len(existing))
                raise WriteError(path, exc) from None
        return existing, data
