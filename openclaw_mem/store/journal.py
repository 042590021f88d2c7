"""What a writer is about to do, written down first, so a kill midway is finished by the
next command instead of being taken for someone else's change.

A consolidation writes curated files, then HISTORY.md's paragraph with the lines' records,
then the consolidation record, then commits; a sync writes the merged files, then moves the
branch. Killed between two of those steps, the files said half of it: lines without their
records (their links never followed their entries again) or a merge nobody committed (the
next sync committed it as "a person's edit"). Each writer keeps its intent in `.mem/`
(this machine's) until its last step is done; the next writer of the workspace finishes it
under the same transaction (consolidate/write.py's `finish`, gitsync.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CONSOLIDATION = "consolidation"  # the consolidation's intent (consolidate/write.py)


def _path(state: Path, name: str) -> Path:
    return state / f"{name}.journal"


def is_pending(state: Path | None, name: str) -> bool:
    """Whether an intent is written down and not done (one stat: no file is read)."""
    return state is not None and _path(state, name).exists()


def begin(state: Path | None, name: str, intent: dict[str, Any]) -> None:
    """Write the intent down (atomically) before the first step."""
    from .fsutil import atomic_write_text

    if state is None:
        return
    state.mkdir(parents=True, exist_ok=True)
    atomic_write_text(_path(state, name), json.dumps(intent, ensure_ascii=False))


def pending(state: Path | None, name: str) -> dict[str, Any] | None:
    """The intent of a writer that did not finish, if any (one that cannot be read is
    none: it was being written when the kill came, before any step)."""
    if state is None:
        return None
    try:
        data = json.loads(_path(state, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def done(state: Path | None, name: str) -> None:
    if state is not None:
        _path(state, name).unlink(missing_ok=True)
