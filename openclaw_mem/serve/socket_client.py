"""The client half of the resident protocol (see resident.py): find a resident and ask.

Two places are asked, in turn: the workspace's `.mem/mem.sock` (a `mem watch` or `mem serve`
a person started there), then the user's own socket (`user_socket_file`: the one resident a
recall starts on demand, serving every workspace of that user; pool.py).

This runs on every agent turn before anything else is imported, so it imports only `os`,
`stat`, `_socket` and `_json`, the C halves of `socket` and `json`. The Python halves cost a
bare interpreter more than the rest of its start-up: `socket` builds enums of every constant
and pulls in `selectors` and `array` (~2 ms); json.decoder and json.encoder import `re` and
with it `enum` (~5 ms). Where `_json` is missing (not CPython), `json` stands in.
"""

from __future__ import annotations

import _socket
import os
import stat

try:
    from _json import encode_basestring as _quote
    from _json import make_scanner as _make_scanner
except ImportError:  # not CPython: json's Python halves stand in
    _quote = _make_scanner = None

# 2: agent, as_of, current; 3: "render"; 4: a greeting; 5: data only, the client renders;
# 6: the caller's settings, which the resident answers for or declines
VERSION = 6
SOCKET = "mem.sock"
CONNECT_TIMEOUT = 0.2
# The resident says this the moment it accepts. A stopped resident, or another program
# listening on the socket, says nothing: the client gives up after GREETING_TIMEOUT and
# answers in-process, instead of waiting out ANSWER_TIMEOUT on every call.
GREETING = b"mem\n"
GREETING_TIMEOUT = 0.25
ANSWER_TIMEOUT = 30.0
MAX_PATH = 100  # AF_UNIX paths are short (108 bytes on Linux, 104 on macOS)


def socket_file(root: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(root), ".mem", SOCKET)


def user_dir() -> str:
    """The user's runtime folder for mem's resident: $XDG_RUNTIME_DIR/openclaw-mem, else
    openclaw-mem-UID in $TMPDIR or /tmp. Whoever creates it makes it 0700 (pool.py). Where
    there are no user ids (not POSIX) there is no user resident: private_dir says no."""
    base = os.environ.get("XDG_RUNTIME_DIR", "")
    if base and os.path.isabs(base):
        return os.path.join(base, "openclaw-mem")
    tmp = os.environ.get("TMPDIR", "")
    uid = os.getuid() if hasattr(os, "getuid") else "none"
    return os.path.join(tmp if os.path.isabs(tmp) else "/tmp", f"openclaw-mem-{uid}")


def private_dir(path: str) -> bool:
    """Whether `path` is a real folder of this user's that nobody else may enter: a folder
    another user made (or a link planted in /tmp) could hold another program's socket."""
    if not hasattr(os, "getuid"):
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def made_private_dir(path: str) -> bool:
    """The user's runtime folder, made 0700 when missing; False when it exists but is not
    a real folder of this user's that only the user may enter (a link planted in /tmp, a
    folder another user made first): then no user resident, and every call answers itself."""
    try:  # noqa: SIM105 (contextlib would cost the per-turn client an import)
        os.mkdir(path, 0o700)
    except OSError:  # there already (checked below), or cannot be made
        pass
    return private_dir(path)


def user_socket_file() -> str:
    return os.path.join(user_dir(), SOCKET)


def real_state_dir(root: str | os.PathLike[str]) -> bool:
    """Whether the workspace's .mem is a real folder: a .mem link a synced repository
    planted could lead to another process's socket or files, which are not this
    workspace's (Workspace.state_dir removes such a link; this client cannot import it)."""
    try:
        return stat.S_ISDIR(os.lstat(os.path.join(os.fspath(root), ".mem")).st_mode)
    except OSError:
        return False


def dumps(value: object, indent: int | None = None, _depth: int = 0) -> str:
    """JSON for the values requests and answers hold (str, int, float, bool, None, lists,
    dicts): one line, or with `indent` the text json.dumps(value, indent=indent,
    ensure_ascii=False) writes, byte for byte, without importing json."""
    if _quote is None:
        import json

        return json.dumps(value, ensure_ascii=False, indent=indent)
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
        return float.__repr__(value)
    if isinstance(value, list | tuple | dict):
        items = (
            [f"{_key(k)}: {dumps(v, indent, _depth + 1)}" for k, v in value.items()]
            if isinstance(value, dict)
            else [dumps(v, indent, _depth + 1) for v in value]
        )
        ends = "{}" if isinstance(value, dict) else "[]"
        if not items:
            return ends
        if indent is None:
            return ends[0] + ", ".join(items) + ends[1]
        inner, outer = "\n" + " " * (indent * (_depth + 1)), "\n" + " " * (indent * _depth)
        return ends[0] + inner + ("," + inner).join(items) + outer + ends[1]
    raise TypeError(f"cannot send a {type(value).__name__}")


def _key(k: object) -> str:
    """A dict key as json.dumps writes it: true/false/null, a number's JSON text, quoted."""
    if isinstance(k, str):
        return _quote(k)
    if k is None or isinstance(k, bool | int | float):
        return _quote(dumps(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


def loads(text: str) -> object:
    """One JSON value, the whole of `text` (as json.loads)."""
    if _make_scanner is None:
        import json

        return json.loads(text)
    text = text.strip(" \t\n\r")  # JSON's whitespace, which the scanner does not skip
    try:
        scan = _make_scanner(_Decoding)
    except Exception:  # a CPython whose private scanner wants something else: the slow way
        import json

        return json.loads(text)
    try:
        value, end = scan(text, 0)
    except StopIteration:  # the scanner's way of saying "no value here"
        raise ValueError("not JSON") from None
    except RecursionError:  # nested deeper than Python's stack: not an answer of ours
        raise ValueError("JSON nested too deep") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


class _Decoding:
    """What the C scanner reads off a json.JSONDecoder: its defaults."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = staticmethod(
        {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.__getitem__
    )


def ask(
    root: str | os.PathLike[str],
    op: str,
    args: dict,
    settings: dict | None = None,
    timeout: float = ANSWER_TIMEOUT,
    *,
    user: bool = True,
) -> dict | None:
    """The resident process's answer, or None when there is none to ask, or it declines
    because it serves other settings than `settings` (the caller's MEM_* overrides): then
    answer in-process. A domain error comes back as {"error", "code"}. The answer is data
    (`Memory.answer`'s); the asking process renders it (fast_output). The workspace's own
    resident is asked first, then (unless `user` is False) the user's."""
    answer = None
    if real_state_dir(root):
        answer = _ask_at(socket_file(root), root, op, args, settings, timeout)
    if answer is None and user and private_dir(user_dir()):
        answer = _ask_at(user_socket_file(), root, op, args, settings, timeout)
    return answer


def _ask_at(
    path: str, root: str | os.PathLike[str], op: str, args: dict, settings, timeout: float
) -> dict | None:
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
        sock.settimeout(GREETING_TIMEOUT)
        hello = b""
        while len(hello) < len(GREETING):
            chunk = sock.recv(len(GREETING) - len(hello))
            if not chunk:
                return None
            hello += chunk
        if hello != GREETING:
            return None
        sock.settimeout(timeout)
        request = {
            "v": VERSION,
            "root": os.fspath(root),
            "op": op,
            "args": args,
            "settings": _settings(settings),
        }
        sock.sendall(dumps(request).encode("utf-8") + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(1 << 16)
            if not chunk:
                return None
            data += chunk
        answer = loads(data.decode("utf-8"))
    except (OSError, ValueError, TypeError):
        return None
    finally:
        sock.close()
    if not isinstance(answer, dict) or answer.get("v") != VERSION or answer.get("foreign"):
        return None  # not ours to trust: answer in-process
    if answer.get("declined"):
        return None  # it serves other settings: answer in-process, with ours
    return answer


def _settings(given: dict | None) -> dict:
    if given is not None:
        return given
    from ..environment import settings_of

    return settings_of(os.environ)


def serving(root: str | os.PathLike[str], *, user: bool = True) -> bool:
    """Whether a resident answers for this workspace: its own (`mem watch`), or the user's
    unless `user` is False."""
    answer = ask(root, "ping", {}, None, timeout=1.0, user=user)
    return bool(answer and answer.get("ok"))


def greets(path: str) -> bool:
    """Whether a resident listens on the socket at `path` (it greets at once), whatever
    workspaces it answers for: a second user resident must not take over the first's."""
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        sock.settimeout(GREETING_TIMEOUT)
        hello = b""
        while len(hello) < len(GREETING):
            chunk = sock.recv(len(GREETING) - len(hello))
            if not chunk:
                break
            hello += chunk
        return hello == GREETING
    except OSError:
        return False
    finally:
        sock.close()
