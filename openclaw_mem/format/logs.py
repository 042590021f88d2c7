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
from pathlib import Path

from ..errors import BadEncoding, UsageError
from .markdown import (
    DAY_TITLE_RE,
    entry_heading,
    entry_heading_text,
    front_matter_end,
    is_heading,
    is_top_bullet,
    lines_of,
    strip_bom,
)

ROLES = ("user", "assistant", "system", "note")

LEADING_TIME_RE = re.compile(
    r"^(?:[-*+]|\d{1,3}[.)])?[ \t]*(?:\*\*|`)?\[?(\d{1,2}):(\d{2})(?::\d{2})?\]?(?:\*\*|`)?(?=\s|$)"
)
SESSION_RE = re.compile(r"^[\w.:/@+=-]{1,128}$")
AGENT_RE = re.compile(r"^[\w.-]{1,64}$")
ID_RE = re.compile(r"^[0-9a-f]{12}$")  # an entry id: the same shape as a content id
_META_RE = re.compile(r"(\w+)\s*:\s*([^;]*?)\s*(?:;|$)")


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

    @property
    def when(self) -> datetime | None:
        if self.day is None:
            return None
        hour, minute = (int(x) for x in (self.time or "00:00").split(":"))
        return datetime(self.day.year, self.day.month, self.day.day, hour, minute)


@dataclass(frozen=True)
class NewEntry:
    """What a caller asks to append."""

    when: datetime
    label: str
    text: str
    session: str | None = None
    agent: str | None = None
    id: str | None = None  # drawn when appended, unless the caller brings one


@dataclass(frozen=True)
class Appended:
    path: Path
    start_line: int
    end_line: int
    count: int  # entries written (ingest may skip ones already there)
    written: tuple[NewEntry, ...] = ()


def normalize_text(text: str) -> str:
    """The text as it is stored: byte for byte, but without the one final newline that
    shells and editors add."""
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text


def check_label(label: str) -> str:
    if label in ROLES:
        return label
    clean = label.strip()
    if (
        not clean
        or clean != label
        or len(clean) > 80
        or any(c in clean for c in "\r\n")
        or "<!--" in clean
        or "-->" in clean
        or clean.startswith(("·", "#"))
    ):
        raise UsageError(
            f"speaker {label!r} must be one line of 1-80 characters without '<!--' or '-->'"
        )
    return clean


def check_agent(agent: str | None) -> str | None:
    if agent is not None and not AGENT_RE.fullmatch(agent):
        raise UsageError(f"agent id {agent!r} may hold only letters, digits and . - _ (at most 64)")
    return agent


def check_session(session: str | None) -> str | None:
    if session is not None and not SESSION_RE.fullmatch(session):
        raise UsageError(
            f"session id {session!r} may hold only letters, digits and . : / @ + = - _ "
            "(at most 128)"
        )
    return session


def format_entry(entry: NewEntry) -> str:
    text = normalize_text(entry.text)
    meta = []
    if entry.session:
        meta.append(f"session: {entry.session}")
    if entry.agent:
        meta.append(f"agent: {entry.agent}")
    if entry.id:
        meta.append(f"id: {entry.id}")
    body = text.split("\n")
    if any(entry_heading(line) for line in body):
        # The text holds a line that reads like an entry heading: say how long the
        # entry is so the parser does not split it there.
        meta.append(f"lines: {len(body)}; sum: {_line_sum(body)}")
    heading = entry_heading_text(entry.when, entry.label, "; ".join(meta))
    return f"{heading}\n{text}\n\n"


IdDraw = Callable[[bytes, int, "NewEntry"], str]  # (the file so far, n in the batch, entry)


def random_id(existing: bytes, n: int, entry: NewEntry) -> str:
    """A fresh entry id: 48 random bits, so no two machines ever draw the same one."""
    import os

    return os.urandom(6).hex()


def replayable_id(existing: bytes, n: int, entry: NewEntry) -> str:
    """An id drawn from where and what the entry is, for a replayed clock (MEM_NOW): the
    same commands give the same files, byte for byte."""
    return content_id(f"{len(existing)}\x1f{n}\x1f{entry.when}\x1f{entry.label}\x1f{entry.text}")


def content_id(key: str) -> str:
    import hashlib

    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:12]


def _line_sum(body: Sequence[str]) -> str:
    return content_id("\n".join(x.removesuffix("\r") for x in body))[:8]


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


def _separator_for(existing: bytes, nl: bytes) -> bytes:
    if not existing or existing.endswith((b"\n\n", b"\r\n\r\n")):
        return b""
    if existing.endswith(b"\n"):
        return nl
    return nl + nl


def append_entries(
    path: Path,
    day: date,
    entries: Sequence[NewEntry],
    *,
    skip_existing: bool = False,
    rel: str | None = None,
    draw_id: IdDraw = random_id,
) -> Appended:
    """Append entries to one day's log under its lock.

    With skip_existing, an entry whose (time, label, text) is already in the file as
    many times as the batch holds it is left out, so ingesting a transcript twice adds
    nothing the second time.
    """
    from ..store.fsutil import append_locked

    for e in entries:
        if not normalize_text(e.text).strip():
            raise UsageError("nothing to log: the text is empty")
        if "\x00" in e.text:  # no Markdown file, editor or model can carry it: refused here
            raise UsageError("the text holds a NUL byte, which a daily log cannot keep")
        check_label(e.label)
        check_session(e.session)
        check_agent(e.agent)
    written: list[NewEntry] = []
    heads: list[bytes] = []

    def render(existing: bytes) -> bytes:
        try:
            current = existing.decode("utf-8")
        except UnicodeDecodeError:
            raise BadEncoding(path, rel) from None
        todo = list(entries)
        if skip_existing and current:
            have = Counter((e.time, e.role, e.text) for e in parse_log(current, day))
            todo = []
            for e in entries:
                k = (f"{e.when:%H:%M}", e.label, normalize_text(e.text))
                if have[k] > 0:
                    have[k] -= 1
                else:
                    todo.append(e)
        from dataclasses import replace

        todo = [e if e.id else replace(e, id=draw_id(existing, n, e)) for n, e in enumerate(todo)]
        written[:] = todo
        if not todo:
            return b""
        # A file written with CRLF (an editor on Windows) stays CRLF, every line of it. Its
        # first line tells; a CRLF inside someone's verbatim text further down does not.
        first = existing.split(b"\n", 1)[0]
        nl = b"\r\n" if b"\n" in existing and first.endswith(b"\r") else b"\n"
        head = _separator_for(existing, nl) if existing else f"# {day.isoformat()}\n\n".encode()
        body = "".join(format_entry(e) for e in todo).encode("utf-8")
        if nl == b"\r\n":
            body = body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        heads.append(head)
        return head + body

    existing, data = append_locked(path, render, rel)
    if not written:
        line = existing.count(b"\n") + 1
        return Appended(path, line, line, 0)
    start = (existing + heads[0]).count(b"\n") + 1
    end = (existing + data).rstrip(b"\r\n").count(b"\n") + 1
    return Appended(path, start, end, len(written), tuple(written))


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
    return {k.lower(): v for k, v in _META_RE.findall(meta or "")}


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
        line = line[: line.rindex("<!--")] + f"<!-- {meta}; id: {ident} -->"
    else:
        line = f"{line} <!-- id: {ident} -->"
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
