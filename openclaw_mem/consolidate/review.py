"""The review queue: consolidations kept as proposals (`mem consolidate --propose`, or
`--auto` with consolidate.review = true) until a person accepts, rejects or rewords them.

A proposal is a JSON file in .mem/proposals/: the HISTORY.md paragraph with its marker, the
edits (with where they came from), the edits the reader refused and why, and how far it
read each log. Accepting applies through the same path as a direct run (write_batch): the
edits meet the files as they are then, and the result is one commit. Entries a waiting
proposal covers are not proposed again.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path

from ..errors import NotFound, UsageError
from ..fsutil import atomic_write_text, read_text
from ..proposal import Edit
from ..workspace import Workspace
from .edits import Outcome, apply_edits
from .write import BatchReport, read_docs, unified_diff, write_batch

FOLDER = "proposals"


@dataclass
class Pending:
    id: str
    created: str
    provider: str
    paragraph: str  # the HISTORY.md paragraph, marker included
    last_lines: dict[str, int]
    edits: list[dict]  # Edit fields
    rejected: list[dict] = field(default_factory=list)  # {"reason", "summary"}
    entries: int = 0
    day: str = ""  # the date the edits are stamped with

    @classmethod
    def make(cls, provider, paragraph, last_lines, edits, rejected, entries, opts) -> Pending:
        stamp = f"{opts.now:%Y%m%d-%H%M%S}-{os.getpid() % 10000:04d}"
        return cls(
            id=stamp,
            created=opts.now.isoformat(timespec="seconds"),
            provider=provider,
            paragraph=paragraph,
            last_lines=dict(last_lines),
            edits=[_edit_json(e) for e in edits],
            rejected=[{"reason": o.detail, "summary": o.edit.text} for o in rejected],
            entries=entries,
            day=opts.now.date().isoformat(),
        )

    def edit_objects(self) -> list[Edit]:
        out = []
        for d in self.edits:
            fields = dict(d)
            fields["sources"] = tuple(fields.get("sources") or ())
            fields["on"] = date.fromisoformat(fields["on"]) if fields.get("on") else None
            out.append(Edit(**fields))
        return out

    @property
    def history(self) -> str:
        return self.paragraph.split("\n", 1)[0]


def _edit_json(edit: Edit) -> dict:
    d = asdict(edit)
    d["sources"] = list(edit.sources)
    d["on"] = edit.on.isoformat() if edit.on else None
    return d


def _folder(ws: Workspace) -> Path:
    return ws.state_dir / FOLDER


def save(ws: Workspace, pending: Pending) -> str:
    path = _folder(ws) / f"{pending.id}.json"
    atomic_write_text(path, json.dumps(asdict(pending), ensure_ascii=False, indent=1))
    return pending.id


def load_all(ws: Workspace) -> list[Pending]:
    out = []
    folder = _folder(ws)
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.json")):
        with contextlib.suppress(OSError, ValueError, TypeError):
            out.append(Pending(**json.loads(read_text(path))))
    return out


def load(ws: Workspace, ident: str) -> Pending:
    found = [p for p in load_all(ws) if p.id == ident or p.id.startswith(ident)]
    if len(found) != 1:
        names = ", ".join(p.id for p in load_all(ws)) or "none"
        what = "no" if not found else "more than one"
        raise NotFound(f"{what} proposal matches {ident!r}; waiting: {names}")
    return found[0]


def drop(ws: Workspace, ident: str) -> Pending:
    pending = load(ws, ident)
    (_folder(ws) / f"{pending.id}.json").unlink(missing_ok=True)
    return pending


def waiting_lines(ws: Workspace) -> dict[str, int]:
    """Per log, the last line a waiting proposal covers."""
    out: dict[str, int] = {}
    for p in load_all(ws):
        for path, line in p.last_lines.items():
            out[path] = max(out.get(path, 0), int(line))
    return out


def reword(ws: Workspace, ident: str, number: int, text: str) -> Pending:
    """Change edit `number` (1-based) of a proposal to say `text`."""
    pending = load(ws, ident)
    if not 1 <= number <= len(pending.edits):
        raise UsageError(f"proposal {pending.id} has edits 1-{len(pending.edits)}, not {number}")
    text = " ".join(text.split())
    if not text:
        raise UsageError("the new wording is empty; --reject drops an edit")
    pending.edits[number - 1]["text"] = text
    save(ws, pending)
    return pending


def preview(ws: Workspace, pending: Pending, min_confidence: float) -> tuple[str, list[Outcome]]:
    """The diff accepting would make to the files as they are now."""
    docs = read_docs(ws)
    new, outcomes = apply_edits(
        docs, pending.edit_objects(), date.fromisoformat(pending.day), min_confidence
    )
    return unified_diff(docs, new), outcomes


def accept(ws: Workspace, ident: str, opts, reject: set[int] = frozenset()):
    """Apply a proposal (minus the edits numbered in `reject`) as one commit."""
    pending = load(ws, ident)
    bad = [n for n in reject if not 1 <= n <= len(pending.edits)]
    if bad:
        raise UsageError(f"proposal {pending.id} has edits 1-{len(pending.edits)}, not {bad[0]}")
    edits = [e for n, e in enumerate(pending.edit_objects(), 1) if n not in reject]
    docs = read_docs(ws)
    day = date.fromisoformat(pending.day)
    _, outcomes = apply_edits(docs, edits, day, opts.min_confidence, opts.redact_extra)
    batch = BatchReport(pending.entries, pending.entries, outcomes, pending.history, "")
    accepted_opts = type(opts)(**{**asdict(opts), "now": datetime.combine(day, opts.now.time())})
    write_batch(
        ws,
        accepted_opts,
        pending.provider,
        edits,
        pending.paragraph,
        pending.last_lines,
        docs,
        batch,
    )
    (_folder(ws) / f"{pending.id}.json").unlink(missing_ok=True)
    return pending, batch
