"""Which directory is the workspace: --workspace, then MEM_WORKSPACE, then the nearest
ancestor holding MEMORY.md or memory/, then ~/.openclaw/workspace.

Strings and os.path only: the per-turn fast path finds the resident's socket through this
before anything imports pathlib (~3 ms on a bare interpreter). `workspace.resolve_workspace`
wraps it, so the rules live here once.
"""

from __future__ import annotations

import os

from ..errors import WorkspaceNotFound

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

MEMORY_DIR = "memory"
DEFAULT_INCLUDE = ("*.md", "memory/**/*.md")  # the memory files, relative to the root
_HINT = "; `mem init` creates one"


def looks_like_workspace(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "MEMORY.md")) or os.path.isdir(
        os.path.join(path, MEMORY_DIR)
    )


# What a workspace named outright (-w, MEM_WORKSPACE) may hold instead: an OpenClaw
# workspace before its first memory still has its bootstrap files. (The search upwards
# keeps to MEMORY.md and memory/: a code repository's AGENTS.md is not a memory.)
_NAMED_MARKERS = ("AGENTS.md", "USER.md", "SOUL.md", "mem.toml")


def _named_workspace(root: str, how: str) -> None:
    if looks_like_workspace(root) or any(
        os.path.isfile(os.path.join(root, name)) for name in _NAMED_MARKERS
    ):
        return
    shown = _shown(root)
    raise WorkspaceNotFound(
        f"{how} {shown} is not a memory workspace (no MEMORY.md, memory/ or AGENTS.md); "
        f"nothing was written. `mem init {shown}` makes it one"
    )


def current_dir() -> str:
    """The current directory, or a one-line error when it was deleted under us."""
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise WorkspaceNotFound(
            "the current directory no longer exists; cd to a workspace or pass -w DIR"
        ) from None


def _shown(path: str) -> str:
    """A path as pathlib prints it (no trailing or doubled slashes), for an error."""
    from pathlib import PurePath  # only on the way to an error

    return str(PurePath(path))


def _missing(how: str, root: str) -> WorkspaceNotFound:
    """The error for a named workspace that is no directory: init's hint only where init
    can make one (a file there would only be refused again)."""
    shown = _shown(root)
    if os.path.lexists(root):
        return WorkspaceNotFound(f"{how}{shown} is not a directory; name a workspace folder")
    return WorkspaceNotFound(f"{how}{shown} does not exist{_HINT}: mem init {shown}")


def find_root(
    flag: str | None, env: Mapping[str, str], cwd: str | None, home: str
) -> tuple[str, str]:
    """(the workspace's real absolute path, how it was found). `cwd` None: the current
    directory, read only when the search needs it (it may have been deleted)."""
    if flag is not None:
        root = os.path.expanduser(flag)
        if not os.path.isdir(root):
            raise _missing("workspace ", root)
        _named_workspace(root, "--workspace")
        return os.path.realpath(root), "flag --workspace"
    if env.get("MEM_WORKSPACE"):
        root = os.path.expanduser(env["MEM_WORKSPACE"])
        if not os.path.isdir(root):
            raise _missing("MEM_WORKSPACE=", root)
        _named_workspace(root, "MEM_WORKSPACE")
        return os.path.realpath(root), "env MEM_WORKSPACE"
    start = candidate = os.path.abspath(cwd if cwd is not None else current_dir())
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
