"""A curated line as a person would write it, and what mem keeps about it elsewhere.

The line is the fact, and after it where it came from, as Markdown links an editor opens at
the entry (VS Code: Ctrl-click):

    - Likes long runs on Saturday mornings. [2026-11-21](memory/2026-11-21.md#L3-L4)

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
from dataclasses import dataclass, replace
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
    # False for a record that names no entry (an older line's, moved by `mem doctor`):
    # nothing here can check it, so `mem cleanup` does not archive on its word.
    checked: bool = True

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


def read_records(history: str) -> dict[tuple[str, str], list[LineRecord]]:
    """Every line record in HISTORY.md's markers, by (file, key), oldest first."""
    if "lines:" not in history:
        return {}
    out: dict[tuple[str, str], list[LineRecord]] = {}
    # Those of the older format that `mem doctor` moved are comments of their own, `<!--
    # lines: … -->` (nothing was taken from the logs), a body without `;` or `>`.
    found = [*markers(history), *comments(history, "lines:", stops=";>")]
    for _, _, body in sorted(found):
        for field in _LEDGER_RE.finditer(body):
            for record in field["body"].split("|"):
                parsed = _parse_record(record)
                if parsed is not None:
                    out.setdefault((parsed.file, parsed.key), []).append(parsed)
    return out


def _parse_record(record: str) -> LineRecord | None:
    parts = record.split()
    if len(parts) != 7:
        return None
    file, key, kind, importance, confidence, day, ids = parts
    try:
        return LineRecord(
            file,
            key,
            kind,
            float(importance),
            float(confidence),
            date.fromisoformat(day),
            tuple(i for i in ids.split(",") if i and i != "-"),
        )
    except ValueError:
        return None  # a record a person broke: the line is theirs now


def read_ledger(history: str) -> dict[tuple[str, str], LineRecord]:
    """Every line record in HISTORY.md's markers, by (file, key); a later one wins. What
    the text claims, unchecked: `workspace_ledger` is what mem acts on."""
    return {k: v[-1] for k, v in read_records(history).items()}


def vouched(
    records: dict[tuple[str, str], list[LineRecord]],
    lines: dict[tuple[str, str], str],
    entries: dict[str, str],
) -> dict[tuple[str, str], LineRecord]:
    """The records mem acts on. HISTORY.md arrives from other clones, so a record is a
    claim: for a line the curated files hold (`lines`: (file, key) -> the line), it counts
    only when one of its entries is here (`entries`: id -> text) and says the line, or was
    redacted here. A claim that cannot be checked neither archives, re-cites nor unsources
    the line (one that names no entry at all stands, marked unchecked, for what it cannot
    do: cite, unsource, or have `mem cleanup` archive). Where several records back one
    line, its links follow all their entries and `mem cleanup` reads the highest importance
    and confidence: a later record cannot make a line stale or take its sources away. A
    record of a line that is not here describes nothing and stands as written (the last)."""
    out: dict[tuple[str, str], LineRecord] = {}
    for key, found in records.items():
        line = lines.get(key)
        if line is None:
            out[key] = found[-1]
            continue
        backed = [r for r in found if any(_backs(entries.get(i), line) for i in r.ids)]
        if not backed:
            # Nothing here says it. A record that names no entry stands, unchecked (it can
            # neither cite nor unsource); else the line is a person's, as far as mem knows.
            bare = [r for r in found if not r.ids]
            if bare:
                out[key] = replace(bare[-1], checked=False)
            continue
        last = backed[-1]
        ids = dict.fromkeys(i for r in (last, *backed) for i in r.ids)
        out[key] = replace(
            last,
            importance=max(r.importance for r in backed),
            confidence=max(r.confidence for r in backed),
            ids=tuple(ids),
        )
    return out


_FORGOTTEN_RE = re.compile(r"^\s*(?:[-*+]\s+)?\[forgotten \d{4}-\d{2}-\d{2}\]\s*$")
_LATIN_RE = re.compile(r"[^\W_]+")
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _backs(entry: str | None, line: str) -> bool:
    if entry is None:
        return False
    said = [x for x in entry.split("\n") if x.strip()]
    if said and all(_FORGOTTEN_RE.match(x) for x in said):
        return True  # its words were forgotten here: what it said cannot be read any more
    return says(entry, struck_text(line))


def says(entry: str, line: str) -> bool:
    """Whether an entry says a line, as far as words can tell: they share a word (its
    first five letters, so "lives" is "live"; two Chinese characters in a row), or the
    line has no word to check, or they are in different scripts (a Chinese entry may say
    an English line). Consolidation cites only entries that share a word with the line
    (consolidate/checks.py), so every line mem wrote passes."""
    lw, lc = words(line)
    if not lw and not lc:
        return True
    ew, ec = words(entry)
    if lw & ew or lc & ec:
        return True
    return bool(lw and not ew and ec) or bool(lc and not ec and ew)


def words(text: str) -> tuple[set[str], set[str]]:
    """(Latin words of four letters or more, cut to five; pairs of Chinese characters)."""
    import unicodedata

    text = unicodedata.normalize("NFKC", text).casefold()
    plain = _CJK_RE.sub(" ", text)
    latin = {w[:5] for w in _LATIN_RE.findall(plain) if len(w) >= 4}
    cjk = set()
    for run in _CJK_RE.findall(text):
        cjk |= {run[i : i + 2] for i in range(max(1, len(run) - 1))}
    return latin, cjk


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


def workspace_ledger(
    ws: Workspace, held: dict[str, str] | None = None
) -> dict[tuple[str, str], LineRecord]:
    """The line records mem acts on in this workspace: those of its HISTORY.md that an
    entry here backs (`vouched`); none when it has no such file. `held`: the entries by id,
    when the caller has read them already."""
    from ..store.fsutil import read_text
    from ..store.workspace import CURATED_FILES, HISTORY_FILE

    path = ws.root / HISTORY_FILE
    records = read_records(read_text(path, HISTORY_FILE)) if path.is_file() else {}
    if not records:
        return {}
    lines: dict[tuple[str, str], str] = {}
    for name in CURATED_FILES:
        curated = ws.root / name
        if curated.is_file() and not curated.is_symlink():
            for line in read_text(curated, name).splitlines():
                if struck_text(line):
                    lines.setdefault((name.removesuffix(".md"), line_key(struck_text(line))), line)
    if held is None:
        held = _held(ws) if any(k in lines for k in records) else {}
    return vouched(records, lines, held)


def _held(ws: Workspace) -> dict[str, str]:
    """Every daily-log entry here, by id: what a record's claim is checked against."""
    from ..errors import BadEncoding
    from ..store.workspace import day_of
    from .logs import entry_ids, read_entries

    out: dict[str, str] = {}
    for path in ws.day_files():
        try:
            entries = read_entries(path, day_of(path), ws.rel(path))
        except BadEncoding:
            continue
        out.update(zip(entry_ids(entries), (e.text for e in entries), strict=True))
    return out


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
