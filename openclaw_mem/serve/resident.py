"""A resident index: `mem watch` and `mem serve` keep the index (and the embedding model,
when there is one) in memory and answer recall, context and get over a Unix domain socket,
so an agent's per-turn `mem recall` costs a Python start-up, not an index load.

Protocol, version 5: the client connects to `.mem/mem.sock` (mode 0600, in a real `.mem/`
folder, never a link), waits at most 0.25 s for the server's greeting `mem\n` (a stopped
server, or another program on the socket, says nothing: the command answers in-process),
then writes one JSON object on one line, `{"v": 5, "root": "/abs/workspace", "op": "recall" |
"context" | "get" | "ping", "args": {...}}` (the `Read` request, recall/reads.py); the server
answers with one line, `{"v": 5, "ok": true, "result": ...}` (`Memory.answer`'s data, which
the client renders: fast_output.py) or `{"v": 5, "ok": false, "error": "...", "code": N}`.
A workspace's server (`mem watch`, `mem serve`) answers only for its own workspace; the
user's resident (started on demand, on the user's socket) for any workspace of that user's
(pool.py), each with its own settings. The client side (`ask`, in
socket_client.py) imports nothing heavier than `_socket` and `_json`, and gives up within a
fraction of a second: a socket nobody answers on is a stale one, removed, and the command
answers in-process instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..recall.reads import Read
from .socket_client import (
    ANSWER_TIMEOUT,
    GREETING,
    SOCKET,
    VERSION,
    ask,
    greets,
    made_private_dir,
    serving,
    socket_file,
    user_dir,
    user_socket_file,
)

if TYPE_CHECKING:
    from .pool import Pool

__all__ = ["SOCKET", "VERSION", "Resident", "ask", "serving", "socket_path"]


def _identity(root: Path) -> tuple[int, int] | None:
    """Which folder the workspace is: a move or a removal changes it."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def socket_path(root: Path) -> Path:
    return Path(socket_file(root))


class Resident:
    """The server: a thread per connection, answers from `handle(read, defer) -> result`
    (a `Read`, recall/reads.py, checked as it arrives); what the handler passes to `defer`
    runs once the answer is sent. With a `pool` instead of a root it is the user's resident:
    on the user's socket, answering for each workspace the pool opens."""

    def __init__(
        self,
        root: Path | None,
        handle: Callable[[Read, Callable], object] | None = None,
        settings: dict[str, str] | None = None,
        *,
        pool: Pool | None = None,
    ) -> None:
        self.root = root
        self.handle = handle
        self.pool = pool
        # The MEM_* overrides this process answers with: a caller with others is declined
        # (a recall with another embedding provider, another k) and answers itself.
        self.settings = settings or {}
        self.path = socket_path(root) if root is not None else Path(user_socket_file())
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.gone = threading.Event()  # the workspace moved or disappeared: no more answers
        self.last_request = time.monotonic()  # for a resident that exits when idle
        self._place = _identity(root if root is not None else self.path.parent)
        self._bound: tuple[int, int] | None = None

    def start(self) -> bool:
        """Listen; False when another resident process already serves this workspace (or,
        the user's, this user), the path is too long for a Unix socket, or the user's
        runtime folder is not private to the user."""
        if len(str(self.path)) > 100:
            return False
        if self.root is None:
            if not made_private_dir(user_dir()) or greets(str(self.path)):
                return False
            self._place = _identity(self.path.parent)
        elif serving(self.root, user=False):  # the user's resident gives way to this one
            return False
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self._listen():
            return False
        self._thread = threading.Thread(target=self._serve, name="mem-resident", daemon=True)
        self._thread.start()
        return True

    def _serve(self) -> None:
        checked = time.monotonic()
        while not self._stop.is_set():
            if time.monotonic() - checked > 1.0:
                checked = time.monotonic()
                moved = _identity(self.root or self.path.parent) != self._place
                if not moved and self.root is not None and not os.path.lexists(self.path):
                    self._rebind()  # .mem/ was deleted under it: answer again where asked
                if moved or not self._mine():
                    # Answers for a folder that is no longer there (or is another one now)
                    # would be wrong ones: stop, and let the host process exit.
                    self.gone.set()
                    self._stop.set()
                    with contextlib.suppress(OSError):
                        self._sock.close()
                    return
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                conn.sendall(GREETING)  # at once: a client waits a moment for it, no more
            except OSError:
                conn.close()
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        from ..errors import MemError, UsageError

        with conn:
            conn.settimeout(ANSWER_TIMEOUT)
            data = b""
            try:
                while not data.endswith(b"\n"):
                    chunk = conn.recv(1 << 16)
                    if not chunk:
                        return
                    data += chunk
                request = json.loads(data)
            except (OSError, ValueError, RecursionError):  # not a request of mem's: no answer
                return
            reply: dict = {"v": VERSION}
            later: list[Callable[[], None]] = []
            if not isinstance(request, dict) or request.get("v") != VERSION:
                reply.update(ok=False, error="protocol version mismatch", code=2)
            elif request.get("op") != "ping" and request.get("settings", {}) != self.settings:
                # Before the workspace is looked up: a caller declined opens nothing.
                reply.update(ok=False, declined=True, error="this process serves other settings")
            elif (handle := self._handler(request.get("root"))) is None:
                reply.update(ok=False, foreign=True, error="this process serves another workspace")
            else:
                try:
                    try:
                        read = Read.from_json(request.get("op"), request.get("args"))
                    except ValueError as exc:
                        raise UsageError(str(exc)) from None
                    op = read.op
                    if op != "ping":  # asking whether it serves is not using it
                        self.last_request = time.monotonic()
                    result = handle(read, later.append)
                    reply.update(ok=True, result=result)
                    if op == "ping":
                        reply["pid"] = os.getpid()  # which process answers (mem status)
                except MemError as exc:
                    reply.update(ok=False, error=exc.message, code=int(exc.exit_code))
                except Exception as exc:  # an answer, never a hung client
                    reply.update(ok=False, error=f"{type(exc).__name__}: {exc}", code=1)
            with contextlib.suppress(OSError):
                conn.sendall(json.dumps(reply, ensure_ascii=False, default=str).encode() + b"\n")
        for job in later:  # bookkeeping (access counts): the client has its answer already
            with contextlib.suppress(OSError, MemError):  # best effort, as it is in-process
                job()

    def _listen(self) -> bool:
        """Bind and listen at the socket's path. Bound under a name of its own, then
        renamed into place: a client that came between bind and listen would find nobody
        listening and remove the socket as a dead one's; two starting at once leave one
        socket, the later's. A socket listening before (see `_rebind`) is closed."""
        fresh = self.path.with_name(f"{self.path.name}.{os.getpid():x}")
        with contextlib.suppress(FileNotFoundError):
            fresh.unlink()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)  # the socket is born 0600: only its owner may ask
        try:
            sock.bind(str(fresh))
        except OSError:
            sock.close()
            return False
        finally:
            os.umask(old)
        try:
            sock.listen(16)
            bound = fresh.lstat()
            os.replace(fresh, self.path)
        except OSError:
            sock.close()
            with contextlib.suppress(OSError):
                fresh.unlink()
            return False
        sock.settimeout(0.2)
        before, self._sock, self._bound = self._sock, sock, (bound.st_dev, bound.st_ino)
        if before is not None:
            with contextlib.suppress(OSError):
                before.close()
        return True

    def _rebind(self) -> None:
        """Listen again where asked: the socket's file is gone (`.mem/` deleted under a
        running `mem watch`); on failure the old socket stays, answering nobody."""
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(exist_ok=True)  # .mem/ only: never the workspace itself
            self._listen()

    def _mine(self) -> bool:
        """Whether the socket file is still the one this process bound (a user resident
        started beside this one in the same instant may have replaced it)."""
        if self.root is not None:
            return True
        try:
            st = self.path.lstat()
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self._bound

    def _handler(self, root: object) -> Callable | None:
        if self.pool is not None:
            return self.pool.handler_for(root)
        return self.handle if root == str(self.root) else None

    def stop(self) -> None:
        self._stop.set()
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
        with contextlib.suppress(OSError):
            st = self.path.lstat()
            # Only the socket this process bound: a socket made there since is another's.
            if (st.st_dev, st.st_ino) == self._bound:
                self.path.unlink()
        if self._thread is not None:
            self._thread.join(timeout=2)
