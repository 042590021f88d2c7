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

from .workspace import MERGE_DRIVER as DRIVER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

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
        with open(os.path.join(root, ".git", "config"), encoding="utf-8", errors="replace") as f:
            text = f.read()
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
    _, bar, tail = current.partition("|| ")
    if not bar or _FALLBACK not in tail:
        return False
    python = _unquoted(tail.split(_FALLBACK, 1)[0])
    return python is not None and os.path.exists(python)


def _unquoted(word: str) -> str | None:
    """The one word `shlex.quote` wrote (bare, or in single quotes with `'"'"'` for a
    quote), read without importing shlex on every `mem log`; anything else through shlex."""
    if "'" not in word and '"' not in word and "\\" not in word:
        return word.split()[0] if word.split() else None
    import shlex

    try:
        words = shlex.split(word)
    except ValueError:
        return None
    return words[0] if words else None
