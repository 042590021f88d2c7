"""Which directory is the workspace: --workspace, then MEM_WORKSPACE, then the nearest
ancestor holding MEMORY.md or memory/, then ~/.openclaw/workspace.

Strings and os.path only: the per-turn fast path finds the resident's socket through this
before anything imports pathlib (~3 ms on a bare interpreter). `workspace.resolve_workspace`
wraps it, so the rules live here once.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..errors import WorkspaceNotFound

MEMORY_DIR = "memory"
_HINT = "; `mem init` creates one"


def looks_like_workspace(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "MEMORY.md")) or os.path.isdir(
        os.path.join(path, MEMORY_DIR)
    )


def _shown(path: str) -> str:
    """A path as pathlib prints it (no trailing or doubled slashes), for an error."""
    from pathlib import PurePath  # only on the way to an error

    return str(PurePath(path))


def find_root(flag: str | None, env: Mapping[str, str], cwd: str, home: str) -> tuple[str, str]:
    """(the workspace's real absolute path, how it was found)."""
    if flag is not None:
        root = os.path.expanduser(flag)
        if not os.path.isdir(root):
            shown = _shown(root)
            raise WorkspaceNotFound(f"workspace {shown} does not exist{_HINT}: mem init {shown}")
        return os.path.realpath(root), "flag --workspace"
    if env.get("MEM_WORKSPACE"):
        root = os.path.expanduser(env["MEM_WORKSPACE"])
        if not os.path.isdir(root):
            shown = _shown(root)
            raise WorkspaceNotFound(
                f"MEM_WORKSPACE={shown} does not exist{_HINT}: mem init {shown}"
            )
        return os.path.realpath(root), "env MEM_WORKSPACE"
    start = candidate = os.path.abspath(cwd)
    while True:
        if looks_like_workspace(candidate):
            how = "current directory" if candidate == start else "ancestor of the current directory"
            return os.path.realpath(candidate), how
        parent = os.path.dirname(candidate)
        if parent == candidate:
            break
        candidate = parent
    default = os.path.join(home, ".openclaw", "workspace")
    if os.path.isdir(default):
        return os.path.realpath(default), "default ~/.openclaw/workspace"
    raise WorkspaceNotFound(
        "no memory workspace here, in MEM_WORKSPACE or at ~/.openclaw/workspace"
        f"{_HINT} (mem init DIR, or mem -w DIR ...)"
    )
