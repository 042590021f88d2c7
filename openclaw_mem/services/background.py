"""The one way mem starts work in the background: a detached `mem …` process of this
interpreter, its output in a log under .mem/, its own session (a Ctrl-C at the terminal
that started it does not reach it). Automatic consolidation and the on-demand resident
both start here."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..store.workspace import Workspace


def program() -> list[str]:
    """This mem as a command: the interpreter it runs on, with `-m openclaw_mem` (what the
    hooks a harness runs fall back to when no `mem` script sits beside the interpreter)."""
    import sys

    return [sys.executable, "-m", "openclaw_mem"]


def spawn(ws: Workspace, args: list[str], log_name: str, env: dict[str, str] | None = None):
    """Start `mem -w ROOT ARGS…` detached; its output goes to .mem/LOG_NAME. Returns the
    process (nobody waits for it)."""
    import subprocess

    state: Path = ws.state_dir
    try:
        state.mkdir(parents=True, exist_ok=True)
        log = (state / log_name).open("ab")
    except OSError as exc:
        raise UsageError(f"cannot write {state}: {exc.strerror}") from None
    with log:
        return subprocess.Popen(
            [*program(), "-w", str(ws.root), *args],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            cwd=ws.root,
            env=env,
        )
