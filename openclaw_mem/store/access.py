"""Reinforcement: when each chunk was last recalled or injected, and how often.

Kept in .mem/access.json (derived, git-ignored), never in Markdown: recall must not dirty
the git tree. A chunk is keyed by its path and the text of its lines, so the count follows
the words, not a line number that an edit above would shift.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..errors import MemError
from ..text import sha1
from .fsutil import atomic_write_text
from .workspace import Workspace

ACCESS_FILE = "access.json"
MAX_RECORDS = 50_000  # beyond this the least recently used are forgotten


def chunk_key(path: str, lines: Iterable[str]) -> str:
    body = "\n".join(line.rstrip("\r") for line in lines)
    return sha1(f"{path}\n{body}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Access:
    count: int
    last: datetime


def _path(ws: Workspace) -> Path:
    return ws.state_dir / ACCESS_FILE


def load(ws: Workspace) -> dict[str, dict]:
    try:
        data = json.loads(_path(ws).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # a missing or broken cache: start counting again


def lookup(records: dict[str, dict], key: str) -> Access | None:
    rec = records.get(key)
    if not rec:
        return None
    try:
        return Access(int(rec["count"]), datetime.fromisoformat(rec["last"]))
    except (KeyError, ValueError, TypeError):
        return None


def record(ws: Workspace, hits: Iterable[tuple[str, str, int, int]], now: datetime) -> None:
    """Count one use of each (key, path, start, end). Best effort: a read-only workspace
    still recalls, it just does not learn."""
    from .fsutil import lock_file

    hits = list(hits)
    if not hits:
        return
    try:
        with lock_file(ws.state_dir / "access.lock", optional=True) as held:
            if not held:
                return
            records = load(ws)
            stamp = now.isoformat(timespec="seconds")
            for key, path, start, end in hits:
                rec = records.get(key) or {"count": 0}
                rec.update(
                    count=int(rec.get("count", 0)) + 1, last=stamp, path=path, lines=[start, end]
                )
                records[key] = rec
            if len(records) > MAX_RECORDS:
                keep = sorted(records.items(), key=lambda kv: kv[1].get("last", ""))
                records = dict(keep[-MAX_RECORDS:])
            with contextlib.suppress(OSError, MemError):  # a full disk: recall still answers
                atomic_write_text(_path(ws), json.dumps(records, ensure_ascii=False))
    except (OSError, MemError):
        return
