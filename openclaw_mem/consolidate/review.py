"""The review queue: consolidations kept as proposals (`mem consolidate --propose`, or
`--auto` with consolidate.review = true) until a person accepts, rejects or rewords them.

Edits a run could not write wait here too, each with its reason (a citation that does not
say it, a line in the first person, the firewall, a target that is not there): a person
sees them instead of losing them.

A proposal is a JSON file in .mem/proposals/: the HISTORY.md paragraph with its marker (none
for held edits), the edits with the entry ids each cites, the edits the reader refused and
why, and the entry ids it holds back (`waits`: not offered again while it waits).
Accepting applies through the same path as a direct run (write_batch): the edits meet the
files as they are then, and the result is one commit that records what it consolidated.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path

from ..errors import MemError, NotFound, UsageError
from ..store.fsutil import atomic_write_text, lock_file, read_text
from ..store.workspace import Workspace
from .edits import Outcome, apply_edits
from .progress import PROGRESS_FILE, Taken, all_entries, pending_entries, record
from .proposal import Edit
from .write import BatchReport, read_docs, unified_diff, write_batch

FOLDER = "proposals"


@dataclass
class Pending:
    id: str
    created: str
    provider: str
    paragraph: str  # the HISTORY.md paragraph, marker included ("" for edits held back)
    taken: list[dict] = field(default_factory=list)  # {"id", "path", "how"}: what it takes
    edits: list[dict] = field(default_factory=list)  # Edit fields
    rejected: list[dict] = field(default_factory=list)  # {"reason", "summary"}
    entries: int = 0
    day: str = ""  # the date the edits are stamped with
    waits: list[str] = field(default_factory=list)  # entry ids not offered while it waits
    reasons: list[str] = field(default_factory=list)  # per edit: why it was held back
    cites: list[list[dict]] = field(default_factory=list)  # per edit: {"id", "path"} cited
    last_lines: dict[str, int] = field(default_factory=dict)  # proposals of an older mem
    made_ns: int = 0  # when it was saved first: orders proposals made in the same second
    seal: str = ""  # made on this machine (`_seal`): a file from anywhere else is none

    @classmethod
    def make(
        cls,
        provider: str,
        paragraph: str,
        taken: Sequence[Taken],
        edits: Sequence[Edit],
        rejected: Sequence[Outcome],
        entries: int,
        opts,
        *,
        waits: Sequence[str] = (),
        reasons: Sequence[str] = (),
        cites: Sequence[Sequence[tuple[str, str]]] = (),
    ) -> Pending:
        # The suffix tells apart batches made in the same second; drawn from what the batch
        # holds, not from a pid, so a run at a fixed clock names its proposals the same way.
        import hashlib

        taken_json, edits_json = [asdict(t) for t in taken], [_edit_json(e) for e in edits]
        held = json.dumps(
            [taken_json, edits_json, paragraph],
            sort_keys=True,
            default=str,
            ensure_ascii=False,
        )
        suffix = int(hashlib.sha256(held.encode("utf-8")).hexdigest(), 16) % 10000
        stamp = f"{opts.now:%Y%m%d-%H%M%S}-{suffix:04d}"
        return cls(
            id=stamp,
            created=opts.now.isoformat(timespec="seconds"),
            provider=provider,
            paragraph=paragraph,
            taken=taken_json,
            edits=edits_json,
            rejected=[{"reason": o.detail, "summary": o.edit.text} for o in rejected],
            entries=entries,
            day=opts.now.date().isoformat(),
            waits=list(waits),
            reasons=list(reasons),
            cites=[[{"id": i, "path": p} for i, p in c] for c in cites],
        )

    def edit_objects(self) -> list[Edit]:
        out = []
        for d in self.edits:
            fields = dict(d)
            fields["sources"] = tuple(fields.get("sources") or ())
            fields["ids"] = tuple(fields.get("ids") or ())
            fields["claimed"] = tuple(fields.get("claimed") or ())
            fields["on"] = date.fromisoformat(fields["on"]) if fields.get("on") else None
            out.append(Edit(**fields))
        return out

    @property
    def history(self) -> str:
        return self.paragraph.split("\n", 1)[0]


def _edit_json(edit: Edit) -> dict:
    d = asdict(edit)
    d["sources"] = list(edit.sources)
    d["ids"] = list(edit.ids)
    d["claimed"] = list(edit.claimed)
    d["on"] = edit.on.isoformat() if edit.on else None
    return d


def _folder(ws: Workspace) -> Path:
    return ws.state_dir / FOLDER


def _seal(ws: Workspace, pending: Pending) -> str:
    """A keyed digest of a proposal, keyed with what only this machine knows of its .mem/
    folder (its device, inode and user: safety/prebuilt.py's salt_of). A proposal committed
    with `git add -f` and cloned, or written by hand, does not check: it is never offered,
    and its entries are offered again. "" when .mem/ is no real folder."""
    import hashlib
    import hmac

    from ..safety.prebuilt import salt_of

    salt = salt_of(str(ws.state_dir))
    if salt is None:
        return ""
    held = {k: v for k, v in asdict(pending).items() if k != "seal"}
    body = json.dumps(held, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8")
    return hmac.new(salt, body, hashlib.sha256).hexdigest()


def save(ws: Workspace, pending: Pending, *, new: bool = False) -> str:
    base, n = pending.id, 1
    if new:
        import time

        pending.made_ns = time.time_ns()
    while new and (_folder(ws) / f"{pending.id}.json").exists():  # two in one second
        n += 1
        pending.id = f"{base}-{n}"
    path = _folder(ws) / f"{pending.id}.json"
    ws.state_dir.mkdir(parents=True, exist_ok=True)  # the seal is keyed with the folder
    pending.seal = _seal(ws, pending)
    atomic_write_text(path, json.dumps(asdict(pending), ensure_ascii=False, indent=1))
    return pending.id


def load_all(ws: Workspace) -> list[Pending]:
    """The proposals made here (sealed, `_seal`), in the order they were made."""
    import hmac

    out = []
    folder = _folder(ws)
    if not folder.is_dir():
        return out
    made = []
    for path in folder.glob("*.json"):
        # Anything not a sealed proposal (a stray file, bytes that are not UTF-8) is no
        # proposal: skipped, as a tampered one is, never an error of every command.
        with contextlib.suppress(
            OSError, ValueError, TypeError, KeyError, AttributeError, MemError
        ):
            pending = Pending(**json.loads(read_text(path)))
            seal = _seal(ws, pending)
            if _valid(pending, path) and seal and hmac.compare_digest(pending.seal, seal):
                made_ns = pending.made_ns if isinstance(pending.made_ns, int) else 0
                made.append((pending.created, made_ns, path.name, pending))
    # In the order they were made: two of one second have ids that sort by their digest.
    return [pending for *_, pending in sorted(made, key=lambda m: m[:3])]


_ID_RE = re.compile(r"^\d{8}-\d{6}-\d{4}(?:-\d{1,4})?$")
_ENTRY_ID_RE = re.compile(r"^[0-9a-f]{12}$")


def _valid(p: Pending, path: Path) -> bool:
    """A proposal file is read like a model's answer: its id names its own file, its edits
    name a known file and operation, its entries are ids. Anything else (a file planted
    or hand-edited into .mem/proposals/) is not a proposal."""
    from .proposal import Edit
    from .schema import FILES, OPS, TYPES

    if not isinstance(p.id, str) or not _ID_RE.match(p.id) or path.stem != p.id:
        return False
    for e in p.edits:
        if not isinstance(e, dict) or e.get("file") not in FILES or e.get("op") not in OPS:
            return False
        if e.get("type") not in TYPES or set(e) - set(Edit.__dataclass_fields__):
            return False
    ids = [*p.waits, *(t.get("id") for t in p.taken), *(c.get("id") for x in p.cites for c in x)]
    return all(isinstance(i, str) and _ENTRY_ID_RE.match(i) for i in ids)


def load(ws: Workspace, ident: str) -> Pending:
    every = load_all(ws)
    found = [p for p in every if p.id == ident] or [p for p in every if p.id.startswith(ident)]
    if len(found) != 1:
        names = ", ".join(p.id for p in load_all(ws)) or "none"
        what = "no" if not found else "more than one"
        raise NotFound(f"{what} proposal matches {ident!r}; waiting: {names}")
    return found[0]


def drop(ws: Workspace, ident: str) -> Pending:
    """Discard a proposal. The entries its held edits cite are a person's call: they count
    as deliberately dropped (recorded and committed), never offered again. A whole batch
    kept for review (`--propose`) is offered again instead."""
    from ..store.transaction import transaction

    pending = load(ws, ident)
    if not pending.paragraph:
        held = [*pending.waits, *(c["id"] for cited in pending.cites for c in cited)]
        with transaction(ws.root):
            if record(ws, _dropped(ws, held)):
                from ..store import gitrepo

                if gitrepo.open_repo(ws.root) is not None:
                    gitrepo.commit_memory(
                        ws.root, f"consolidate: review dropped {pending.id}", [PROGRESS_FILE]
                    )
    (_folder(ws) / f"{pending.id}.json").unlink(missing_ok=True)
    return pending


def _dropped(ws: Workspace, ids: Sequence[str]) -> list[Taken]:
    """These entries (those the logs still hold), deliberately dropped by a person."""
    known = {e.id: e.path for e in all_entries(ws)}
    return [Taken(i, known[i], "dropped") for i in dict.fromkeys(ids) if i in known]


def waiting_ids(ws: Workspace) -> set[str]:
    """The entry ids waiting proposals hold back."""
    return {i for p in load_all(ws) for i in p.waits}


def count_pending(ws: Workspace) -> int:
    """What the next run would offer: entries held back here wait for a person instead."""
    waiting = waiting_ids(ws)
    return sum(e.id not in waiting for e in pending_entries(ws))


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
    # Under the consolidation's lock, read again: two accepts of one proposal at once both
    # applied it, and HISTORY.md took its paragraph twice.
    with lock_file(ws.state_dir / "consolidate.lock"):
        return _accept(ws, ident, opts, reject)


def _accept(ws: Workspace, ident: str, opts, reject: set[int]):
    pending = load(ws, ident)
    bad = [n for n in reject if not 1 <= n <= len(pending.edits)]
    if bad:
        raise UsageError(f"proposal {pending.id} has edits 1-{len(pending.edits)}, not {bad[0]}")
    chosen = [n for n in range(1, len(pending.edits) + 1) if n not in reject]
    edits = [pending.edit_objects()[n - 1] for n in chosen]
    docs = read_docs(ws)
    day = date.fromisoformat(pending.day)
    # A person accepted these: the confidence threshold was for the model's word alone.
    opts = type(opts)(**{**asdict(opts), "min_confidence": 0.0})
    applied, outcomes = apply_edits(docs, edits, day, opts.min_confidence, opts.redact_extra)
    batch = BatchReport(pending.entries, pending.entries, outcomes, pending.history, "")
    accepted_opts = type(opts)(**{**asdict(opts), "now": datetime.combine(day, opts.now.time())})
    write_batch(
        ws,
        accepted_opts,
        pending.provider,
        edits,
        pending.paragraph,
        _taken_on_accept(ws, pending, chosen, outcomes),
        docs,
        batch,
        applied=applied,
        follow=True,
    )
    (_folder(ws) / f"{pending.id}.json").unlink(missing_ok=True)
    return pending, batch


def _taken_on_accept(
    ws: Workspace, pending: Pending, chosen: Sequence[int], outcomes: Sequence[Outcome]
) -> list[Taken]:
    """What accepting consolidates: what the batch dropped as noise or nothing durable; the
    entries cited by edits that now apply (curated) or that the person rejected (dropped);
    and the held entries a person has now seen. An entry cited only by an edit that no
    longer applies stays pending. A curated id wins over a dropped one (the record keeps the
    first line it is given for an id)."""
    taken = [Taken(**t) for t in pending.taken]
    outcome_of = dict(zip(chosen, outcomes, strict=True))
    for n, cited in enumerate(pending.cites, 1):
        outcome = outcome_of.get(n)
        if outcome is None:  # rejected by the person: what only it drew on is dropped
            how = "dropped"
        elif outcome.status in ("applied", "duplicate"):
            how = "curated"
        else:
            continue  # accepted but it no longer applies: its entries stay pending
        taken += [Taken(c["id"], c["path"], how) for c in cited]
    if not pending.paragraph and pending.waits:
        taken += _dropped(ws, pending.waits)
    taken.sort(key=lambda t: t.how != "curated")
    if pending.last_lines and not taken:  # a proposal written by an older mem
        taken = [
            Taken(e.id, e.path, "curated")
            for e in all_entries(ws)
            if e.entry.start_line <= int(pending.last_lines.get(e.path, 0))
        ]
    return taken


def hold_undecided(ws: Workspace, undecided: Sequence, opts) -> str | None:
    """Lines a sync's merge could not decide wait here: where both machines rewrote one line
    differently (this machine's words stayed), a deprecation of the kept line by the other
    machine's words; where the other removed a line this one rewrote, its removal.
    Accepting takes the other machine's side, dropping keeps this one's. Returns the
    proposal's id (None when there is nothing to hold)."""
    from ..format.curated import record_of, workspace_ledger

    if not undecided:
        return None
    ledger = workspace_ledger(ws)
    edits = []
    for u in undecided:
        meta = record_of(u.path.removesuffix(".md"), u.other_line, ledger)
        edits.append(
            Edit(
                file=u.path.removesuffix(".md"),
                op="deprecate" if u.other else "delete",
                type=meta.type if meta else "fact",
                importance=meta.importance if meta else 0.5,
                confidence=meta.confidence if meta else 0.8,
                section=u.section,
                text=u.other,
                target=u.kept,
            )
        )
    reasons = [
        "both machines rewrote this line; this machine's words were kept"
        if u.other
        else "the other machine removed this line, which this one rewrote; it was kept"
        for u in undecided
    ]
    pending = Pending.make("mem sync", "", [], edits, [], 0, opts, reasons=reasons)
    return save(ws, pending, new=True)
