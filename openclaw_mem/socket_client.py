"""The client half of the resident protocol (see resident.py): find `.mem/mem.sock` and ask.

This runs on every agent turn before anything else is imported, so it imports only `os`,
`stat`, `json` and `_socket`. The `socket` module is a Python wrapper over `_socket` whose
import builds enums of every constant and pulls in `selectors` and `array`: about 2 ms of a
start-up that is otherwise ~10 ms, for nothing a one-shot client uses.
"""

from __future__ import annotations

import _socket
import json
import os
import stat

VERSION = 2  # 2: recall and context take agent, as_of and current
SOCKET = "mem.sock"
CONNECT_TIMEOUT = 0.2
ANSWER_TIMEOUT = 30.0
MAX_PATH = 100  # AF_UNIX paths are short (108 bytes on Linux, 104 on macOS)


def socket_file(root: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(root), ".mem", SOCKET)


def ask(
    root: str | os.PathLike[str], op: str, args: dict, timeout: float = ANSWER_TIMEOUT
) -> dict | None:
    """The resident process's answer, or None when there is none to ask (then answer
    in-process). A domain error comes back as {"error", "code"}."""
    path = socket_file(root)
    try:
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            return None
    except OSError:
        return None
    if len(path) > MAX_PATH:
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        try:
            sock.connect(path)
        except (ConnectionRefusedError, FileNotFoundError):
            # nobody listens: a process that died (contextlib would cost an import here)
            try:  # noqa: SIM105
                os.unlink(path)
            except OSError:
                pass
            return None
        except OSError:
            return None
        sock.settimeout(timeout)
        request = {"v": VERSION, "root": os.fspath(root), "op": op, "args": args}
        sock.sendall(json.dumps(request, ensure_ascii=False).encode("utf-8") + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            if not chunk:
                return None
            data += chunk
        answer = json.loads(data)
    except (OSError, ValueError):
        return None
    finally:
        sock.close()
    if not isinstance(answer, dict) or answer.get("v") != VERSION or answer.get("foreign"):
        return None  # not ours to trust: answer in-process
    return answer


def serving(root: str | os.PathLike[str]) -> bool:
    answer = ask(root, "ping", {}, timeout=1.0)
    return bool(answer and answer.get("ok"))
