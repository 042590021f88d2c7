"""A curated line's source links follow its entries. The line names the log lines it came
from for people (`[2026-12-01](memory/2026-12-01.md#L12-L13)`); its record in HISTORY.md's
markers (format/curated.py) names the entries' ids for mem. The ids are what a citation
means: after a merge moves entries, a redaction or a forget, the links are rewritten from
them, so a citation never points at someone else's words. A line whose entries are all gone
or redacted is left unsourced (its links removed): no citation is better than a wrong one.
Lines of the older format (`<!-- … src=… eid=… -->`) are followed the same way."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from ..errors import MemError
from ..format.curated import LineRecord, keep_records, record_of, workspace_ledger
from ..format.markdown import (
    SOURCE_LINK_RE,
    LineMeta,
    day_of_cite,
    parse_meta,
    source_links,
    split_doc,
    split_sources,
    trailing_comment,
)
from ..store.fsutil import atomic_write_text, read_text
from ..store.workspace import CURATED_FILES, HISTORY_FILE, Workspace
from .progress import LogEntry, all_entries

_FORGOTTEN_RE = re.compile(r"^\s*(?:[-*+]\s+)?\[forgotten \d{4}-\d{2}-\d{2}\]\s*$")


@dataclass
class Citations:
    """What a refresh did: the files it rewrote, and how many lines it re-pointed (their
    entries moved) or left unsourced (their entries are gone or redacted)."""

    files: list[str] = field(default_factory=list)
    moved: int = 0
    unsourced: int = 0


def redacted(entry: LogEntry) -> bool:
    """An entry whose words were forgotten (`mem forget --hard`): only its stamp is left."""
    lines = [x for x in entry.entry.text.split("\n") if x.strip()]
    return bool(lines) and all(_FORGOTTEN_RE.match(x) for x in lines)


def refresh(ws: Workspace) -> Citations:
    """Rewrite every line's links whose entries (by id) now sit at other lines, and unsource
    the lines whose entries no log holds any more, or holds redacted."""
    where = {e.id: e for e in all_entries(ws)}
    ledger = workspace_ledger(ws, {i: e.entry.text for i, e in where.items()})
    done = Citations()
    for name in CURATED_FILES:
        path = ws.root / name
        if not path.is_file() or path.is_symlink():
            continue
        text = read_text(path, name)
        doc = split_doc(text)
        lines = list(doc.lines)
        for n, line in enumerate(lines):
            meta = None if "](" in line else parse_meta(line)
            if meta is not None:
                found = _old_format(line, meta, where)
            else:
                found = _relinked(line, record_of(name.removesuffix(".md"), line, ledger), where)
            if found is None:
                continue
            lines[n], live = found
            if live:
                done.moved += 1
            else:
                done.unsourced += 1
        new = doc.text(lines)
        if new != text:
            atomic_write_text(path, new)
            done.files.append(name)
    return done


def wrong_links(ws: Workspace) -> list[str]:
    """`mem doctor`: the curated lines mem has no record of (so it cannot re-point them)
    whose links into the daily logs cite lines that do not say them (format/curated.py's
    `says`): a person's links gone stale, or mem's line whose record a kill or a forged
    history took. As PATH:LINE."""
    from ..format.curated import says
    from ..format.markdown import parse_citation, sources
    from ..store.fsutil import SymlinkRefused

    ledger = workspace_ledger(ws)
    out: list[str] = []
    logs: dict[str, list[str]] = {}
    for name in CURATED_FILES:
        path = ws.root / name
        if not path.is_file() or path.is_symlink():
            continue
        for n, line in enumerate(split_doc(read_text(path, name)).lines, 1):
            if "](memory/" not in line or record_of(name.removesuffix(".md"), line, ledger):
                continue
            for cite in sources(line):
                found = parse_citation(cite) if _into_a_log(cite) else None
                if found is None:
                    continue
                rel, a, b = found
                if rel not in logs:
                    try:
                        target = ws.inside(rel)  # never outside the workspace, nor a link
                    except (SymlinkRefused, MemError):
                        target = None
                    ok = target is not None and target.is_file()
                    logs[rel] = read_text(target, rel).split("\n") if ok else []
                said = "\n".join(x for x in logs[rel][a - 1 : b] if not x.startswith("## "))
                if not says(said, line):
                    out.append(f"{name}:{n}")
                    break
    return out


def _live(ids: list[str] | tuple[str, ...], where: dict[str, LogEntry]) -> list[LogEntry]:
    return [where[i] for i in ids if i in where and not redacted(where[i])]


def _relinked(
    line: str, known: LineRecord | None, where: dict[str, LogEntry]
) -> tuple[str, bool] | None:
    """(the line with links to where its entries are now, whether any is left); None when
    it is right as it is, or mem knows nothing of it (a person's links stay as written).
    A line with no link gets its entries' back: a merge can bring one machine's unsourced
    line (its entry redacted there) together with the other's record of entries that
    still say it."""
    if known is None or not known.ids:
        return None
    comment = trailing_comment(line)
    rest = line[: line.rindex(comment)].rstrip() if comment else line.rstrip()
    body, cites = split_sources(rest)
    ours = [c for c in cites if _into_a_log(c)]
    live = _live(known.ids, where)
    fresh = [e.cite for e in live]
    if fresh == ours:
        return None
    # Links into anything but a daily log are a person's (a note, a doc): kept as written,
    # where they were; mem's own are replaced where the first of them stood.
    links, placed = [], False
    for m in SOURCE_LINK_RE.finditer(rest[len(body) :]):
        if not _into_a_log(m["cite"]):
            links.append(f" {m[0]}")
        elif not placed:
            links.append(source_links(fresh))
            placed = True
    if not placed:
        links.append(source_links(fresh))
    tail = "".join(links) + (f" {comment}" if comment else "")
    return body + tail, bool(live)


def _into_a_log(cite: str) -> bool:
    """A link mem writes: into a daily log (`memory/2026-11-21.md#L3-L4`)."""
    return cite.startswith("memory/") and day_of_cite(cite) is not None


def _old_format(line: str, meta: LineMeta, where: dict[str, LogEntry]) -> tuple[str, bool] | None:
    """The same for a line of the older format, whose comment holds `src=` and `eid=`."""
    if not meta.fields.get("eid"):
        return None
    live = _live(meta.fields["eid"].split(","), where)
    fresh = {"src": ",".join(e.cite for e in live), "eid": ",".join(e.id for e in live)}
    if all(meta.fields.get(k, "") == v for k, v in fresh.items()):
        return None
    old = meta.comment()
    if old not in line:
        return None
    meta.fields.update(fresh)  # an empty value leaves the field out
    return line.replace(old, meta.comment()), bool(live)


def reformat_old_lines(ws: Workspace, now: datetime) -> tuple[list[str], int]:
    """`mem doctor`: curated lines of the older format rewritten as lines of this one, what
    their comments said moved into one HISTORY.md paragraph's comment. Returns the files
    written and how many lines."""
    from ..format.curated import reformat
    from ..text import plural

    written: list[str] = []
    moved = []
    for name in CURATED_FILES:
        path = ws.root / name
        if not path.is_file() or path.is_symlink():
            continue
        text = read_text(path, name)
        new, records = reformat(text, name.removesuffix(".md"))
        if records:
            atomic_write_text(path, new)
            written.append(name)
            moved += records
    if moved:
        said = (
            f"mem doctor rewrote {plural(len(moved), 'curated line')} of the older format: "
            "each names its sources as links, and what mem knows of it is in the comment below."
        )
        keep_records(ws, now, said, moved)
        written.append(HISTORY_FILE)
    return written, len(moved)
