"""Daily logs (L1): append entries verbatim, parse entries back from any daily log.

An entry as `mem log` writes it:

    ## 14:05 · user <!-- session: abc; id: 3f9a0c1e22b7 -->
    the text, byte for byte
    (blank line)

A new day file starts with `# YYYY-MM-DD`. The tool only ever appends to a log (a
`mem forget --hard` redaction and a sync's merge aside, both under the append lock).

`id:` is the entry's identity, drawn at random when it is logged: the same words logged on
two machines in the same minute are two entries, and an entry keeps its identity through
any merge, reorder, rewritten history or redaction. Entries without one (an older mem's, or
notes other agents write free-form) are known by their content (`entry_ids`).
The parser also reads logs that agents write free-form (bullets, paragraphs, no entry
headings), with front matter, CRLF line endings or a BOM.
"""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from pathlib import Path

from . import appending
from .appending import (
    AGENT_RE,
    ROLES,
    SESSION_RE,
    Appended,
    NewEntry,
    check_agent,
    check_label,
    check_session,
    content_id,
    format_entry,
    normalize_text,
    random_id,
    replayable_id,
)
from .appending import line_sum as _line_sum
from .markdown import (
    DAY_TITLE_RE,
    entry_heading,
    front_matter_end,
    is_heading,
    is_top_bullet,
    lines_of,
    strip_bom,
)

# What appending.py holds, still importable from here, where readers of logs look first.
__all__ = [
    "AGENT_RE",
    "ROLES",
    "SESSION_RE",
    "Appended",
    "Entry",
    "NewEntry",
    "append_entries",
    "check_agent",
    "check_label",
    "check_session",
    "content_id",
    "format_entry",
    "normalize_text",
    "parse_log",
    "random_id",
    "read_entries",
    "replayable_id",
]

LEADING_TIME_RE = re.compile(
    r"^(?:[-*+]|\d{1,3}[.)])?[ \t]*(?:\*\*|`)?\[?(\d{1,2}):(\d{2})(?::\d{2})?\]?(?:\*\*|`)?(?=\s|$)"
)
ID_RE = re.compile(r"^[0-9a-f]{12}$")  # an entry id: the same shape as a content id
# A key starts after a non-word character (a run of letters starts one attempt, not one a
# letter) and its value runs greedily to `;`, its spaces stripped after: linear on any line.
_META_RE = re.compile(r"(?<!\w)(\w+)\s*:\s*([^;]*)(?:;|$)")


@dataclass(frozen=True)
class Entry:
    """One log entry with its 1-based line range in the file as it is on disk."""

    day: date | None
    time: str | None  # "HH:MM", None where a free-form note carries no time
    role: str  # user | assistant | system | note, or a speaker's name
    text: str
    start_line: int
    end_line: int
    session: str | None = None
    agent: str | None = None  # which agent logged it (mem log --agent, MEM_AGENT)
    id: str | None = None  # the heading's `id:`, when it carries one
    counted: int | None = None  # body lines a `lines:` count held (blank ones included)

    @cached_property  # chunking asks it of every entry two or three times
    def when(self) -> datetime | None:
        if self.day is None:
            return None
        hour, minute = (self.time or "00:00").split(":")
        return datetime(self.day.year, self.day.month, self.day.day, int(hour), int(minute))


def _honest(body: Sequence[str], declared: str | None) -> bool:
    """Whether a `lines:` count holds: its `sum:` names exactly the lines it covers; or,
    counts written before sums were, it covers no heading that carries an `id:` (which
    only a real entry has). A count planted in a synced log, or one that would take in
    the entries appended after it, is not honoured: the entry ends at the next heading."""
    if declared is not None:
        return declared == _line_sum(body)
    for line in body:
        head = entry_heading(line)
        if head and ID_RE.match(_parse_meta(head["meta"]).get("id", "")):
            return False
    return True


def append_entries(
    path: Path,
    day: date,
    entries: Sequence[NewEntry],
    *,
    skip_existing: bool = False,
    rel: str | None = None,
    draw_id: Callable[[bytes, int, NewEntry], str] = random_id,
) -> Appended:
    """Append entries to one day's log under its lock (appending.py).

    With skip_existing, an entry whose (time, label, text) is already in the file as
    many times as the batch holds it is left out, so ingesting a transcript twice adds
    nothing the second time.
    """
    return appending.append_entries(
        path, day, entries, rel=rel, draw_id=draw_id, keep=_new_ones(day) if skip_existing else None
    )


def _new_ones(day: date) -> Callable[[str, Sequence[NewEntry]], list[NewEntry]]:
    def keep(current: str, entries: Sequence[NewEntry]) -> list[NewEntry]:
        have = Counter((e.time, e.role, e.text) for e in parse_log(current, day))
        todo = []
        for e in entries:
            k = (f"{e.when:%H:%M}", e.label, normalize_text(e.text))
            if have[k] > 0:
                have[k] -= 1
            else:
                todo.append(e)
        return todo

    return keep


# ---------------------------------------------------------------- parsing


def _front_matter_date(text: str) -> date | None:
    import frontmatter

    try:
        meta = frontmatter.loads(text).metadata
    except Exception:  # malformed YAML is the author's business; the log still parses
        return None
    value = meta.get("date")
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def _parse_meta(meta: str | None) -> dict[str, str]:
    return {k.lower(): v.rstrip() for k, v in _META_RE.findall(meta or "")}


def parse_log(text: str, day: date | None = None) -> list[Entry]:
    """Every entry of a daily log, in file order, with exact 1-based line ranges."""
    text = strip_bom(text)
    lines = lines_of(text, keep_cr=True)
    if not lines:
        return []
    start = front_matter_end(lines)
    day = _log_day(text, lines, start, day)

    entries: list[Entry] = []
    block: list[int] = []  # indexes of a free-form block's lines

    def flush() -> None:
        if len(block) == 1 and is_heading(lines[block[0]]):
            block.clear()  # a bare section heading is structure, not an entry
        if block:
            raw = [lines[k].removesuffix("\r") for k in block]
            m = LEADING_TIME_RE.match(raw[0])
            time = f"{int(m[1]):02d}:{m[2]}" if m and int(m[1]) < 24 else None
            entries.append(Entry(day, time, "note", "\n".join(raw), block[0] + 1, block[-1] + 1))
            block.clear()

    i, n = start, len(lines)
    while i < n:
        line = lines[i].removesuffix("\r")
        m = entry_heading(line)
        if m:
            flush()
            entry, i = _headed_entry(lines, i, m, day)
            entries.append(entry)
            continue
        if not line.strip():
            flush()
        elif DAY_TITLE_RE.match(line) or (line.startswith("# ") and not entries and not block):
            flush()  # the day's title is not an entry
        elif is_heading(line) or (is_top_bullet(line) and block):
            flush()
            block.append(i)
        else:
            block.append(i)
        i += 1
    flush()
    return entries


def _log_day(text: str, lines: list[str], start: int, day: date | None) -> date | None:
    """The day a log is about: given, else its front matter's, else its `# YYYY-MM-DD` title's."""
    if start and day is None:
        day = _front_matter_date(text)
    if day is None:
        for line in lines[start:]:
            m = DAY_TITLE_RE.match(line)
            if m:
                with contextlib.suppress(ValueError):
                    day = date.fromisoformat(m[1])
                break
    return day


def _headed_entry(
    lines: list[str], i: int, m: re.Match[str], day: date | None
) -> tuple[Entry, int]:
    """The entry whose heading is line `i`, and the index of the line after it.

    An honest `lines: N` (its `sum:` matches) bounds the body exactly, so a body may hold
    lines that look like headings; otherwise the body runs to the next entry heading.
    """
    n = len(lines)
    crlf = lines[i].endswith("\r")
    meta = _parse_meta(m["meta"])
    count = meta.get("lines", "")
    counted = None
    if count.isdigit():
        j = min(n, i + 1 + int(count))
        body = lines[i + 1 : j]
        if _honest(body, meta.get("sum")):
            counted = len(body)
            nxt = j + 1 if j < n and lines[j].removesuffix("\r") == "" else j
    if counted is None:
        j = i + 1
        while j < n and not entry_heading(lines[j]):
            j += 1
        body = lines[i + 1 : j]
        if body and body[-1].removesuffix("\r") == "":
            body = body[:-1]  # the blank line that separates entries
        nxt = j
    if crlf:
        body = [b.removesuffix("\r") for b in body]
    entry_text = "\n".join(body)
    shown = entry_text.rstrip("\n")
    end = i + 1 + (len(shown.split("\n")) if shown.strip() else 0)
    label = m["label"].strip()
    role = label.lower() if label.lower() in ROLES else (label or "note")
    entry = Entry(
        day,
        f"{int(m['h']):02d}:{m['m']}",
        role,
        entry_text,
        i + 1,
        end,
        meta.get("session") or None,
        meta.get("agent") or None,
        meta["id"] if ID_RE.match(meta.get("id", "")) else None,
        counted,
    )
    return entry, nxt


def with_id(heading_line: str, ident: str) -> str:
    """An entry heading that carries `id: ident` (added to its comment, or a new one)."""
    m = entry_heading(heading_line)
    if m is None or ID_RE.match(_parse_meta(m["meta"]).get("id", "")):
        return heading_line
    cr = "\r" if heading_line.endswith("\r") else ""
    line = heading_line.removesuffix("\r").rstrip()
    if m["meta"] is not None:
        meta = m["meta"].strip()
        if "importance" not in _parse_meta(meta):
            meta = f"{appending.CARRIER}; {meta}"
        line = line[: line.rindex("<!--")] + f"<!-- {meta}; id: {ident} -->"
    else:
        line = f"{line} <!-- {appending.CARRIER}; id: {ident} -->"
    return line + cr


def read_entries(path: Path, day: date | None = None, rel: str | None = None) -> list[Entry]:
    from ..store.fsutil import read_text

    return parse_log(read_text(path, rel), day)


def entry_ids(entries: Sequence[Entry]) -> list[str]:
    """A stable id for each entry of one log: the `id:` its heading carries, else one from
    what it is, not where it is: its day, time, speaker, agent, session and text, plus how
    many identical entries came before it in the file (a true repeat gets an id of its
    own). Editing such an entry's text makes it a new entry; moving it (a merge, a
    reorder) does not. An `id:` a person copied onto a second entry counts once."""
    seen: Counter[str] = Counter()
    claimed = set()
    out = []
    for e in entries:
        if e.id and e.id not in claimed:
            claimed.add(e.id)
            out.append(e.id)
            continue
        key = "\x1f".join(
            (
                e.day.isoformat() if e.day else "",
                e.time or "",
                e.role,
                e.agent or "",
                e.session or "",
                e.text.rstrip("\n"),
            )
        )
        n = seen[key]
        seen[key] += 1
        out.append(content_id(f"{key}\x1e{n}"))
    return out
