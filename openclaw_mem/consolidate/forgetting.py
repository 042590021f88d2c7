"""Forgetting on request (`mem forget`) and by the design notes' rules (`mem cleanup`).

forget: a line of MEMORY/USER/AGENTS is deprecated (struck through, kept) or, with --hard,
deleted. A line of a daily log or of HISTORY.md can only be redacted in place, with --hard:
the one time the tool rewrites a log. The text stays in git history until purged there.

cleanup: lines that carry consolidation metadata and are stale move to archive/, which
recall does not index: importance below 0.2 and unused for 30 days, deprecated for longer
than 90 days, or confidence below 0.5.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from ..errors import NotFound, UsageError
from ..format.file_lines import safe_path
from ..format.markdown import (
    BULLET_RE,
    MARKER_RE,
    core,
    deprecated_on,
    entry_heading,
    heading,
    is_live_bullet,
    is_struck,
    parse_citation,
    parse_meta,
    split_doc,
    strike,
)
from ..safety.secrets import redact_excerpt
from ..search.tokenize import shingles, tokenize
from ..store import access
from ..store.fsutil import atomic_write_text, read_text
from ..store.workspace import ARCHIVE_DIR, CURATED_FILES, HISTORY_FILE, Workspace, day_of

DOCUMENTS = CURATED_FILES
_LINE_SPEC_RE = re.compile(r"^(?P<path>[^#:]+\.md):(?P<line>\d+)$")


@dataclass(frozen=True)
class Forgotten:
    path: str
    lines: tuple[int, int]  # 1-based, inclusive
    before: list[str]  # as shown: secrets hidden, read with the lines around them
    after: list[str]  # empty when deleted
    mode: str  # deprecated | deleted | redacted


def find_line(ws: Workspace, query: str) -> tuple[str, int]:
    """The one live line of MEMORY/USER/AGENTS a query names best. Two equally good
    candidates are not guessed between: the error lists them with PATH:LINE to pick."""
    words = shingles(tokenize(query))
    if not words:
        raise UsageError("the query has no words to match; give PATH:LINE instead")
    scored: list[tuple[float, str, int, str]] = []
    for name in DOCUMENTS:
        path = ws.root / name
        if not path.exists():
            continue
        for n, line in enumerate(split_doc(read_text(path, name)).lines, 1):
            if not is_live_bullet(line):
                continue
            mine = shingles(tokenize(core(line)))
            shared = len(words & mine)
            if shared:
                scored.append((shared / len(words), name, n, core(line)))
    if not scored:
        raise NotFound(f"no line of MEMORY.md, USER.md or AGENTS.md matches {query!r}")
    scored.sort(key=lambda x: -x[0])
    if len(scored) > 1 and scored[1][0] >= scored[0][0] - 1e-9:
        options = "; ".join(f"{p}:{n} {t[:50]!r}" for _, p, n, t in scored[:4])
        raise UsageError(f"{query!r} matches several lines equally, pick one: {options}")
    return scored[0][1], scored[0][2]


def parse_target(ws: Workspace, spec: str) -> tuple[str, int, int]:
    m = _LINE_SPEC_RE.match(spec.strip())
    found = (m["path"], int(m["line"]), int(m["line"])) if m else parse_citation(spec)
    if found and found[0].endswith(".md"):
        path, first, last = found
        if last < first or first < 1:
            raise UsageError(f"{spec}: bad line range")
        return path, first, last
    rel, line = find_line(ws, spec)
    return rel, line, line


def forget(
    ws: Workspace, spec: str, hard: bool, today: date, redact_extra: Sequence[str] = ()
) -> Forgotten:
    """Forget what `spec` names. The file is rewritten under the lock its appenders take:
    an agent logging meanwhile loses nothing. What is shown of the lines before is redacted
    (with redact_extra)."""
    from ..store.fsutil import decode, replace_locked

    rel, first, last = parse_target(ws, spec)
    path = safe_path(ws, rel)
    done: list[Forgotten] = []

    def change(current: bytes | None) -> bytes:
        if current is None:
            raise NotFound(f"no file {rel} in the workspace")
        text = decode(current, path, rel)
        text, forgotten = _forgotten(
            rel, path, spec, text, (first, last), hard, today, redact_extra
        )
        done.append(forgotten)
        return text.encode("utf-8")

    replace_locked(path, change)
    return done[0]


def _forgotten(
    rel: str,
    path,
    spec: str,
    text: str,
    span: tuple[int, int],
    hard: bool,
    today: date,
    redact_extra: Sequence[str],
) -> tuple[str, Forgotten]:
    first, last = span
    doc = split_doc(text)
    lines = list(doc.lines)
    if last > len(lines):
        raise NotFound(f"{rel} has {len(lines)} lines; line {last} does not exist")
    # What was there is printed: a key split over two lines, or the body of a private key,
    # is hidden in each line, as `mem get` hides it.
    before = redact_excerpt(lines, first, last, redact_extra)
    is_log = rel.startswith("memory/") and day_of(path) is not None
    if rel in DOCUMENTS:
        if first != last:
            raise UsageError("give one line of MEMORY.md, USER.md or AGENTS.md (PATH:LINE)")
        line = lines[first - 1]
        if not core(line):
            raise UsageError(f"{rel}:{first} is blank; nothing to forget")
        if hard:
            del lines[first - 1]
            after, mode = [], "deleted"
        else:
            if is_struck(line):
                raise UsageError(f"{rel}:{first} is already struck through; --hard deletes it")
            new = strike(line, today, why="forgotten")
            lines[first - 1] = new
            after, mode = [new], "deprecated"
    elif is_log or rel == HISTORY_FILE:
        if not hard:
            raise UsageError(
                f"{rel} is a log and logs are never rewritten; `mem forget --hard {spec}` "
                "redacts the line in place"
            )
        stamp = f"[forgotten {today.isoformat()}]"
        if is_log:
            _keep_identity(lines, doc.text(), first, last)
        after = []
        for i in range(first - 1, last):
            line = lines[i]
            if entry_heading(line) or not line.strip() or heading(line):
                after.append(line)  # headings keep the log's structure
                continue
            if MARKER_RE.fullmatch(line.strip()):
                after.append(line)  # progress markers carry no content
                continue
            prefix = BULLET_RE.match(line)
            lines[i] = f"{prefix[0] if prefix else ''}{stamp}"
            after.append(lines[i])
        mode = "redacted"
    else:
        raise UsageError(
            f"{rel}: forget works on MEMORY.md, USER.md, AGENTS.md, HISTORY.md and daily logs"
        )
    return doc.text(lines), Forgotten(rel, (first, last), before, after, mode)


def _keep_identity(lines: list[str], text: str, first: int, last: int) -> None:
    """Before its words go, an entry whose heading carries no `id:` takes its content id
    as one: the redacted entry stays the same entry, so a clone that still holds the
    original gives way to the redaction, and a curated line citing it finds it."""
    from ..format.logs import entry_ids, parse_log, with_id

    entries = parse_log(text)
    for e, ident in zip(entries, entry_ids(entries), strict=True):
        if e.id is None and e.start_line <= last and e.end_line >= first:
            head = lines[e.start_line - 1]
            if entry_heading(head):
                lines[e.start_line - 1] = with_id(head, ident)


# ----------------------------------------------------------------- cleanup


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

    records = access.load(ws)
    out: list[Stale] = []
    for name in DOCUMENTS:
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
            meta = parse_meta(line)
            if meta is None:
                continue  # a line a person wrote has no metadata: never cleaned up
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
    for name in DOCUMENTS:
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
