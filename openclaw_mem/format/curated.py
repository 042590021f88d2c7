"""A curated line as a person would write it, and what mem keeps about it elsewhere.

The line is the fact, and after it where it came from, as Markdown links an editor opens at
the entry (VS Code: Ctrl-click):

    - Likes long runs on Saturday mornings. [11-21](memory/2026-11-21.md#L3-L4)

Everything else mem knows of a line it wrote (its type, importance and confidence, the day
it was written, the ids of the entries it came from) is recorded in the HISTORY.md marker of
the consolidation that wrote it, as `lines: FILE KEY TYPE I C DAY IDS`, one record per
line, keyed by what the line says (`line_key`). So the line stays readable, a consolidation
adds one line where one fact is new, and the record survives merges (HISTORY.md merges by
paragraph) and moves (it is found by the words, not by a line number).

The rule for hand edits: a line a person rewrites says something else, so it has no record
(mem treats it as the person's own: never archived by `mem cleanup`, its links kept as
written); a line a person only moves, re-bullets or re-spaces keeps its record. A line that
is struck through (deprecated, forgotten) keeps its record and its links.

Lines written before links replaced the old trailing comment (`<!-- fact i=0.9 c=0.95
2026-11-05 src=… eid=… -->`) are read too; `mem doctor` rewrites them (services/keeping.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING

from .markdown import (
    LineMeta,
    appended_paragraph,
    comments,
    history_stamp,
    markers,
    parse_meta,
    struck_text,
)

if TYPE_CHECKING:
    from ..store.workspace import Workspace

_LEDGER_RE = re.compile(r"(?:^|;)\s*lines:(?P<body>[^;]*)")
# The records `mem doctor` moved out of lines of the older format, in a comment of their own
# (not a consolidation: nothing was taken from the logs).


def line_key(said: str) -> str:
    """What a line says, as the key of its record: its words, case and spacing aside."""
    import hashlib

    words = " ".join(said.casefold().split())
    return hashlib.sha1(words.encode("utf-8")).hexdigest()[:10]


@dataclass(frozen=True)
class LineRecord:
    """What mem recorded of a curated line it wrote."""

    file: str  # USER, MEMORY or AGENTS
    key: str  # line_key of what the line says
    type: str
    importance: float
    confidence: float
    day: date  # the day of the entries it came from (else of the run)
    ids: tuple[str, ...] = ()  # the entries' content ids: what its links follow

    def text(self) -> str:
        ids = ",".join(self.ids) or "-"
        return (
            f"{self.file} {self.key} {self.type} {self.importance:.2g} {self.confidence:.2g} "
            f"{self.day.isoformat()} {ids}"
        )


def ledger_field(records: Iterable[LineRecord]) -> str:
    """The marker's `lines:` field for these records ("" for none)."""
    body = " | ".join(r.text() for r in records)
    return f"lines: {body}" if body else ""


def with_ledger(paragraph: str, records: Iterable[LineRecord]) -> str:
    """The HISTORY.md paragraph with its marker's `lines:` field saying these records (the
    lines a batch wrote in the end: a person may have reworded or rejected some)."""
    m = next(markers(paragraph), None)
    if m is None:
        return paragraph
    start, end, body = m
    body = _LEDGER_RE.sub("", body).rstrip()
    field = ledger_field(records)
    marker = f"<!-- consolidated:{body}{'; ' + field if field else ''} -->"
    return paragraph[:start] + marker + paragraph[end:]


def read_ledger(history: str) -> dict[tuple[str, str], LineRecord]:
    """Every line record in HISTORY.md's markers, by (file, key); a later one wins."""
    if "lines:" not in history:
        return {}
    out: dict[tuple[str, str], LineRecord] = {}
    # Those of the older format that `mem doctor` moved are comments of their own, `<!--
    # lines: … -->` (nothing was taken from the logs), a body without `;` or `>`.
    found = [*markers(history), *comments(history, "lines:", stops=";>")]
    for _, _, body in sorted(found):
        for field in _LEDGER_RE.finditer(body):
            for record in field["body"].split("|"):
                parts = record.split()
                if len(parts) != 7:
                    continue
                file, key, kind, importance, confidence, day, ids = parts
                try:
                    found = LineRecord(
                        file,
                        key,
                        kind,
                        float(importance),
                        float(confidence),
                        date.fromisoformat(day),
                        tuple(i for i in ids.split(",") if i and i != "-"),
                    )
                except ValueError:
                    continue  # a record a person broke: the line is theirs now
                out[(file, key)] = found
    return out


def record_of(file: str, line: str, ledger: dict[tuple[str, str], LineRecord]) -> LineRecord | None:
    """What mem knows of a curated line of `file` (USER, MEMORY, AGENTS): its record in the
    ledger, else what an old line's trailing comment says; None for a person's own line."""
    key = line_key(struck_text(line))
    found = ledger.get((file, key))
    if found is not None:
        return found
    meta = parse_meta(line)
    return None if meta is None else _from_comment(file, key, meta)


def _from_comment(file: str, key: str, meta: LineMeta) -> LineRecord:
    """The record an older line's trailing comment (`<!-- fact i=… c=… DAY eid=… -->`) gives."""
    ids = tuple(i for i in meta.fields.get("eid", "").split(",") if i)
    return LineRecord(file, key, meta.type, meta.importance, meta.confidence, meta.day, ids)


def moved_records(records: Iterable[LineRecord]) -> str:
    """The comment that carries records outside a consolidation's marker."""
    field = ledger_field(records)
    return f"<!-- {field} -->" if field else ""


def workspace_ledger(ws: Workspace) -> dict[tuple[str, str], LineRecord]:
    """Every line record in the workspace's HISTORY.md (none when it has no such file)."""
    from ..store.fsutil import read_text
    from ..store.workspace import HISTORY_FILE

    path = ws.root / HISTORY_FILE
    return read_ledger(read_text(path, HISTORY_FILE)) if path.is_file() else {}


def keep_records(ws: Workspace, when: datetime, said: str, records: list[LineRecord]) -> None:
    """One HISTORY.md paragraph, `[when] said`, whose comment carries these records: what
    mem knew of lines it rewrote outside a consolidation (`mem doctor`'s older lines, a
    line a forget split), so their links still follow their entries."""
    from ..store.fsutil import append_locked
    from ..store.workspace import HISTORY_FILE

    text = f"{history_stamp(when)} {said}\n{moved_records(records)}\n"
    append_locked(ws.root / HISTORY_FILE, lambda existing: appended_paragraph(existing, text))


def reformat(text: str, file: str) -> tuple[str, list[LineRecord]]:
    """A curated file's lines of the older format (`- fact <!-- fact i=0.9 c=0.95 DAY
    src=… eid=… agent=… -->`) as lines of this one (`- fact [MM-DD](src) <!-- agent: X
    -->`), and the records of what their comments said. Other lines stay as they are."""
    from .markdown import source_links, split_doc, trailing_comment

    doc = split_doc(text)
    lines = list(doc.lines)
    moved: list[LineRecord] = []
    for n, line in enumerate(lines):
        meta = parse_meta(line)
        comment = trailing_comment(line)
        if meta is None or not comment:
            continue
        cites = [c for c in meta.fields.get("src", "").split(",") if c]
        owner = meta.fields.get("agent", "")
        head = line[: line.rindex(comment)].rstrip()
        tail = f" <!-- agent: {owner} -->" if owner else ""
        lines[n] = head + source_links(cites) + tail
        moved.append(_from_comment(file, line_key(struck_text(line)), meta))
    return doc.text(lines), moved
