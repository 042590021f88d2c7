"""`src=` follows its entries. A curated line names the log lines it came from for people
(`src=memory/2026-12-01.md#L12-L13`) and the entries' content ids for mem (`eid=…`); when a
merge moves entries (another machine's entries sorted in before them), the line ranges are
rewritten from the ids, so a citation never points at someone else's words."""

from __future__ import annotations

from ..format.markdown import parse_meta, split_doc
from ..store.fsutil import atomic_write_text, read_text
from ..store.workspace import CURATED_FILES, Workspace
from .progress import all_entries


def refresh(ws: Workspace) -> list[str]:
    """Rewrite every `src=` whose entries (by `eid=`) now sit at other lines; the curated
    files changed, workspace-relative. An id no log holds any more (a redacted entry)
    leaves its citation as it was."""
    where = {e.id: e.cite for e in all_entries(ws)}
    changed = []
    for name in CURATED_FILES:
        path = ws.root / name
        if not path.is_file() or path.is_symlink():
            continue
        text = read_text(path, name)
        doc = split_doc(text)
        lines = list(doc.lines)
        for n, line in enumerate(lines):
            meta = parse_meta(line)
            if meta is None or not meta.fields.get("eid") or not meta.fields.get("src"):
                continue
            cites = [where.get(i) for i in meta.fields["eid"].split(",")]
            if not all(cites):
                continue
            fresh = ",".join(c for c in cites if c)
            if fresh != meta.fields["src"]:
                old = meta.comment()
                meta.fields["src"] = fresh
                if old in line:
                    lines[n] = line.replace(old, meta.comment())
        new = doc.text(lines)
        if new != text:
            atomic_write_text(path, new)
            changed.append(name)
    return changed
