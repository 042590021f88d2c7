"""Which log entries are consolidated, derived from committed Markdown only.

Every HISTORY.md paragraph that `mem consolidate` writes ends with a marker naming, per
daily log, the last line it covered:

    <!-- consolidated: memory/2026-11-24.md#L19 memory/2026-11-25.md#L16 -->

An entry is consolidated when its first line is at or before the highest such line for
its file. Logs are append-only, so this survives a fresh clone on another machine and a
`mem undo` (reverting the paragraph reverts the progress); nothing lives only in .mem/.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..errors import BadEncoding
from ..fsutil import read_text
from ..logs import Entry, read_entries
from ..markdown import MARKER_RE, citation, covered_lines, stamp_time
from ..workspace import HISTORY_FILE, Workspace, day_of


@dataclass(frozen=True)
class LogEntry:
    """A daily-log entry with where it lives."""

    path: str  # workspace-relative
    entry: Entry

    @property
    def when(self) -> datetime | None:
        return self.entry.when

    @property
    def cite(self) -> str:
        return citation(self.path, self.entry.start_line, self.entry.end_line)


def read_history(ws: Workspace) -> str:
    path = ws.root / HISTORY_FILE
    return read_text(path, HISTORY_FILE) if path.exists() else ""


def last_consolidation(history_text: str) -> str | None:
    """The `[YYYY-MM-DD HH:MM]` stamp of the newest paragraph that carries a marker."""
    last = None
    for para in re.split(r"\n\s*\n", history_text):
        if MARKER_RE.search(para):
            when = next(filter(None, map(stamp_time, para.split("\n"))), None)
            if when is not None:
                last = f"{when:%Y-%m-%d %H:%M}"
    return last


def pending_entries(ws: Workspace, warnings: list[str] | None = None) -> list[LogEntry]:
    """Entries not yet consolidated, in file order (oldest day first, then line order), so
    any prefix of the list covers a contiguous run of each file."""
    covered = covered_lines(read_history(ws))
    out: list[LogEntry] = []
    for path in ws.day_files():
        rel = ws.rel(path)
        try:
            entries = read_entries(path, day_of(path), rel)
        except BadEncoding as exc:
            if warnings is not None:
                warnings.append(exc.message)
            continue
        done = covered.get(rel, 0)
        out += [LogEntry(rel, e) for e in entries if e.start_line > done]
    return out


def count_pending(ws: Workspace) -> int:
    return len(pending_entries(ws))
