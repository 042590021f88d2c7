"""The merge driver git runs for daily logs and HISTORY.md on a plain `git pull`: its
command, and whether a clone still has a working one.

git keeps drivers out of versioned files (.git/config), so a clone made with `git clone`
has none until a mem command registers it; every command that opens a workspace at the
root of its repository checks (a read of .git/config, a few microseconds), and the
registration itself happens in gitrepo.register_merge_driver. The command prefers the
`mem` on PATH and falls back to the interpreter that registered it, so it survives a
recreated virtualenv on one side and a missing PATH entry on the other; a fallback that
no longer exists is registered anew.
"""

from __future__ import annotations

import os
from pathlib import Path

from .workspace import MERGE_DRIVER as DRIVER

ARGS = "merge-file %O %A %B %P"
_FALLBACK = " -P -m openclaw_mem "


def command(python: str) -> str:
    import shlex

    # -P: the repository's own files never shadow the package the fallback imports.
    return f"mem {ARGS} 2>/dev/null || {shlex.quote(python)}{_FALLBACK}{ARGS}"


def needs_driver(root: Path) -> bool:
    """Whether the repository at `root` lacks a driver that can run. False when `root` is
    not the top of a repository with a plain .git folder (the git commands see to those).
    Plain string work: this runs before every `mem log`."""
    try:
        text = (root / ".git" / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    start = text.find(f'[merge "{DRIVER}"]')
    if start < 0:
        return True
    body = text[start:].split("\n[", 1)[0]
    for line in body.splitlines()[1:]:
        key, _, value = line.partition("=")
        if key.strip() == "driver":
            return not works(value.strip().strip('"'))
    return True


def works(current: str) -> bool:
    """Whether a registered driver command is this module's, with a fallback interpreter
    that still exists (an older mem's command named one interpreter, nothing else)."""
    import shlex

    _, bar, tail = current.partition("|| ")
    if not bar or _FALLBACK not in tail:
        return False
    try:
        python = shlex.split(tail.split(_FALLBACK, 1)[0])[0]
    except (ValueError, IndexError):
        return False
    return os.path.exists(python)
