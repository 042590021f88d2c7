"""`src=` follows its entries. A curated line names the log lines it came from for people
(`src=memory/2026-12-01.md#L12-L13`) and the entries' ids for mem (`eid=…`). The ids are
what a citation means: after a merge moves entries, a redaction or a forget, the line
ranges are rewritten from them, so a citation never points at someone else's words. A line
whose entries are all gone or redacted is left unsourced (its `src=` and `eid=` removed):
no citation is better than a wrong one."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..format.markdown import parse_meta, split_doc
from ..store.fsutil import atomic_write_text, read_text
from ..store.workspace import CURATED_FILES, Workspace
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
    """Rewrite every `src=` whose entries (by `eid=`) now sit at other lines, and unsource
    the lines whose entries no log holds any more, or holds redacted."""
    where = {e.id: e for e in all_entries(ws)}
    done = Citations()
    for name in CURATED_FILES:
        path = ws.root / name
        if not path.is_file() or path.is_symlink():
            continue
        text = read_text(path, name)
        doc = split_doc(text)
        lines = list(doc.lines)
        for n, line in enumerate(lines):
            meta = parse_meta(line)
            if meta is None or not meta.fields.get("eid"):
                continue
            ids = meta.fields["eid"].split(",")
            live = [where[i] for i in ids if i in where and not redacted(where[i])]
            fresh = {"src": ",".join(e.cite for e in live), "eid": ",".join(e.id for e in live)}
            if all(meta.fields.get(k, "") == v for k, v in fresh.items()):
                continue
            old = meta.comment()
            if old not in line:
                continue
            meta.fields.update(fresh)  # an empty value leaves the field out
            lines[n] = line.replace(old, meta.comment())
            if live:
                done.moved += 1
            else:
                done.unsourced += 1
        new = doc.text(lines)
        if new != text:
            atomic_write_text(path, new)
            done.files.append(name)
    return done
