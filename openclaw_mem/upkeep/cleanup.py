"""`mem cleanup`: the design notes' rules for forgetting. Lines consolidation wrote (their
record in HISTORY.md's markers, format/curated.py; or an old line's comment) that are stale
move to archive/, which recall does not index: importance below 0.2
and unused for 30 days, deprecated for longer than 90 days, or confidence below 0.5."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..format.markdown import (
    core,
    deprecated_on,
    is_struck,
    split_doc,
)
from ..store import access
from ..store.fsutil import atomic_write_text, read_text
from ..store.workspace import ARCHIVE_DIR, CURATED_FILES, Workspace


@dataclass(frozen=True)
class Stale:
    path: str
    line: int
    text: str
    reason: str


def find_stale(
    ws: Workspace,
    now: datetime,
    *,
    min_importance: float = 0.2,
    unused_days: int = 30,
    deprecated_days: int = 90,
    min_confidence: float = 0.5,
) -> list[Stale]:
    from ..format.chunking import chunk_file
    from ..format.curated import record_of, workspace_ledger

    records = access.load(ws)
    ledger = workspace_ledger(ws)
    out: list[Stale] = []
    for name in CURATED_FILES:
        path = ws.root / name
        if not path.exists():
            continue
        text = read_text(path, name)
        lines = split_doc(text).lines
        last_used: dict[int, datetime] = {}
        for chunk in chunk_file(name, text):
            key = access.chunk_key(name, lines[chunk.start_line - 1 : chunk.end_line])
            found = access.lookup(records, key)
            for n in range(chunk.start_line, chunk.end_line + 1):
                if found:
                    last_used[n] = found.last
        for n, line in enumerate(lines, 1):
            if not core(line):
                continue
            when = deprecated_on(line) if is_struck(line) else None
            if when:
                if (now.date() - when).days > deprecated_days:
                    out.append(Stale(name, n, line, f"deprecated since {when}"))
                continue
            meta = record_of(name.removesuffix(".md"), line, ledger)
            if meta is None or not meta.checked:
                # A line a person wrote has no metadata: never cleaned up. Nor one whose
                # record names no entry here: a synced HISTORY.md can claim anything.
                continue
            importance, confidence, added = meta.importance, meta.confidence, meta.day
            if confidence < min_confidence:
                out.append(Stale(name, n, line, f"low confidence ({confidence:g})"))
                continue
            used = last_used.get(n)
            idle_since = used.date() if used else added
            if importance < min_importance and (now.date() - idle_since).days > unused_days:
                seen = f"last used {used:%Y-%m-%d}" if used else "never used"
                out.append(Stale(name, n, line, f"importance {importance:g}, {seen}"))
    return out


def archive(ws: Workspace, stale: Sequence[Stale], now: datetime) -> str:
    """Move stale lines out of their files into archive/YYYY-MM.md; returns its path."""
    rel = f"{ARCHIVE_DIR}/{now:%Y-%m}.md"
    target = ws.inside(rel)
    existing = read_text(target, rel) if target.exists() else f"# Archive {now:%Y-%m}\n"
    blocks = [existing.rstrip("\n"), "", f"## Cleanup {now:%Y-%m-%d %H:%M}", ""]
    for name in CURATED_FILES:
        mine = [s for s in stale if s.path == name]
        if not mine:
            continue
        doc = split_doc(read_text(ws.root / name, name))
        drop = {s.line for s in mine}
        atomic_write_text(
            ws.root / name, doc.text([x for i, x in enumerate(doc.lines, 1) if i not in drop])
        )
        blocks += [f"From {name}:"]
        blocks += [f"{s.text.rstrip()}  <!-- archived: {s.reason} -->" for s in mine]
        blocks.append("")
    atomic_write_text(target, "\n".join(blocks).rstrip("\n") + "\n")
    return rel
