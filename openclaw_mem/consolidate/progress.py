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
from ..workspace import Workspace, day_of

HISTORY_FILE = "HISTORY.md"
MARKER_RE = re.compile(r"<!--\s*consolidated:(?P<body>.*?)-->", re.S)
_CITE_RE = re.compile(r"(\S+?\.md)#L(\d+)")
STAMP_RE = re.compile(r"^\[(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})\]", re.M)


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
        return f"{self.path}#L{self.entry.start_line}-L{self.entry.end_line}"


def covered_lines(history_text: str) -> dict[str, int]:
    """Per daily log, the last line any consolidation covered."""
    covered: dict[str, int] = {}
    for marker in MARKER_RE.finditer(history_text):
        for path, line in _CITE_RE.findall(marker["body"]):
            covered[path] = max(covered.get(path, 0), int(line))
    return covered


def marker(last_lines: dict[str, int]) -> str:
    cites = " ".join(f"{path}#L{line}" for path, line in sorted(last_lines.items()))
    return f"<!-- consolidated: {cites} -->"


def read_history(ws: Workspace) -> str:
    path = ws.root / HISTORY_FILE
    return read_text(path, HISTORY_FILE) if path.exists() else ""


def last_consolidation(history_text: str) -> str | None:
    """The `[YYYY-MM-DD HH:MM]` stamp of the newest paragraph that carries a marker."""
    last = None
    for para in re.split(r"\n\s*\n", history_text):
        if MARKER_RE.search(para):
            m = STAMP_RE.search(para)
            if m:
                last = f"{m[1]} {m[2]}"
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
