"""Writing one consolidation: the edits applied to the curated files as they are at that
moment, the HISTORY.md paragraph and its marker, and the commit. A direct run and an
accepted proposal (`mem review`) both end here."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..errors import ConflictError, MemError
from ..format.curated import with_ledger
from ..format.markdown import appended_paragraph, core
from ..safety.secrets import redact
from ..store import journal
from ..store.commits import COMMIT_CONSOLIDATE, COMMIT_LOG
from ..store.fsutil import append_locked, atomic_write_text, read_text, replaceable
from ..store.workspace import CURATED_FILES, HISTORY_FILE, Workspace
from ..text import article, plural
from .edits import Outcome, apply_edits, records
from .progress import PROGRESS_FILE, Taken, record
from .proposal import Edit

DOCUMENTS = CURATED_FILES


@dataclass(frozen=True)
class Options:
    now: datetime
    min_confidence: float = 0.5
    memory_window: int = 50
    keep_recent: int = 20
    redact_extra: tuple[str, ...] = ()
    commit: bool = True
    daily_token_budget: int = 0  # 0: no limit (automatic runs only)
    user_budget: int = 0  # tokens USER.md may hold before a run says what could go
    max_edits: int = 50  # edits one answer may make (limits.py)
    max_line_chars: int = 400  # the longest line a model may write
    max_new_lines: int = 20  # new lines one run may add to USER.md and AGENTS.md each
    max_offers: int = 3  # runs an entry may be shown and left neither cited nor skipped
    # The local model the firewall's second opinion reads with (safety/meaning.py), when
    # the workspace embeds with it; None: the rules alone.
    firewall_model: object | None = field(default=None, compare=False)


@dataclass
class BatchReport:
    entries: int  # log entries this batch covers
    sent: int  # of which sent to the provider (the rest were noise or repeats)
    outcomes: list[Outcome]
    history_entry: str
    diff: str
    files: list[str] = field(default_factory=list)  # written
    commit: str | None = None  # short sha
    reapplied: list[str] = field(default_factory=list)  # files edited meanwhile
    proposal: str | None = None  # its id in .mem/proposals/, when proposed for review
    taken: int = 0  # entries now consolidated (cited by an accepted edit, dropped, noise)
    dropped: int = 0  # of those, the ones the answer said hold nothing durable
    passed: int = 0  # of those, the ones passed over after consolidate.max_offers offers
    left: int = 0  # entries that stay pending: offered again next time
    unused: bool = False  # the answer held nothing that could be used: nothing written
    review: str | None = None  # the proposal holding edits that could not be written
    # Log lines this batch committed verbatim that hold what looks like a secret (log.redact
    # is off): "memory/2026-11-30.md:12 (a secret assignment)", never the secret itself.
    kept: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        applied = [o.edit for o in self.outcomes if o.applied]
        return {
            # Lines added: a deprecation adds its replacement (its struck line is counted
            # as deprecated, though git shows it removed and added again).
            "added": sum(e.op == "add" or (e.op == "deprecate" and bool(e.text)) for e in applied),
            "updated": sum(e.op == "update" for e in applied),
            "deleted": sum(e.op == "delete" for e in applied),
            "deprecated": sum(e.op == "deprecate" for e in applied),
            "skipped": sum(
                not o.applied and o.status not in ("review", "held") for o in self.outcomes
            ),
            "review": sum(o.status in ("review", "held") for o in self.outcomes),
        }


def read_docs(ws: Workspace) -> dict[str, str]:
    return {
        name: read_text(ws.root / name, name) if (ws.root / name).exists() else ""
        for name in DOCUMENTS
    }


def commit_message(batch: BatchReport, provider: str, redact_extra: Sequence[str] = ()) -> str:
    """The consolidation's commit message: counts, provider, every edit. The subject counts
    curated lines by what happened to them (a deprecation's replacement is a line added:
    "+6 … 2 deprecated" when four facts are new and two replace old ones; git shows each
    struck line as one removed and one added besides); a deprecation names the
    line it strikes and what replaces it; texts are cut at a word, never inside one.
    Whatever a model wrote passes the secret filter first (an edit refused for a secret is
    already withheld)."""
    c = batch.counts()
    lines = [
        f"{COMMIT_CONSOLIDATE} +{c['added']} ~{c['updated']} -{c['deleted']}, "
        f"{c['deprecated']} deprecated",
        "",
        f"provider: {provider}; {plural(batch.entries, 'log entry')} ({batch.sent} sent)",
    ]
    if batch.kept:  # redacted before it was sent, but the log that holds it is committed
        lines.append(
            f"- kept verbatim in the log (log.redact is off): what looks like a secret at "
            f"{', '.join(batch.kept)}"
        )
    held = [o for o in batch.outcomes if o.status == "held"]
    if held:  # their words stay out of the history: they read like instructions
        lines.append(f"- {plural(len(held), 'edit')} held for mem review (firewall)")
    for o in batch.outcomes:
        if o.status == "held":
            continue
        e = o.edit
        if e.op in ("deprecate", "update") and e.target:
            what = (
                f"{_clip(core(e.target), 80)} → {_clip(e.text, 80)}"
                if e.text
                else _clip(core(e.target), 100)
            )
        else:
            what = _clip(e.text or core(e.target), 100)
        state = "" if o.applied else f" [skipped: {o.status}]"
        lines.append(f"- {e.op} {e.file}: {redact(what, redact_extra)[0]}{state}")
    return "\n".join(lines)


def _clip(text: str, limit: int) -> str:
    """The text cut at the last word boundary within `limit` characters, "…" marking the cut
    (a text without spaces, Chinese, is cut at the limit)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:—-") + "…"


def unified_diff(before: dict[str, str], after: dict[str, str]) -> str:
    out: list[str] = []
    for name in before:
        if before[name] != after[name]:
            out += difflib.unified_diff(
                before[name].splitlines(keepends=True),
                after[name].splitlines(keepends=True),
                f"a/{name}",
                f"b/{name}",
            )
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def write_batch(
    ws: Workspace,
    opts: Options,
    label: str,
    edits: Sequence[Edit],
    paragraph: str,
    taken: Sequence[Taken],
    docs: dict[str, str],
    batch: BatchReport,
    *,
    applied: dict[str, str] | None = None,
    follow: bool = False,
) -> dict[str, str]:
    """Write the edits (`applied`: already applied to `docs`), the HISTORY.md paragraph
    and the record, and commit: one workspace transaction, so a sync's merge never lands
    between the read and the write. A file someone saved since `docs` were read gets the
    edits applied to what it holds now (their text wins). Returns the curated files as
    written. Used by a direct run and by `mem review` accepting a proposal, which `follow`s:
    a proposal's links were taken when it was made, and a sync or a redaction since may
    have moved or emptied the entries they point at."""
    from ..store.transaction import transaction

    with transaction(ws.root):
        committing = False
        if opts.commit:
            from ..store import gitrepo

            committing = gitrepo.open_repo(ws.root) is not None
        finish(ws)  # a consolidation a kill interrupted is finished before this one reads
        written = _write_batch(ws, opts, edits, paragraph, taken, docs, batch, applied, committing)
        if follow:
            written = _follow(ws, batch, written)
        if committing:
            message = commit_message(batch, label, opts.redact_extra)
            try:
                info = gitrepo.commit_memory(ws.root, message, batch.files)
            except MemError as exc:  # written all the same: never "nothing was changed"
                raise MemError(
                    f"{', '.join(batch.files)} written but not committed "
                    f"({exc.message.removesuffix('; nothing was changed')}); "
                    "`mem commit` when git can write again",
                    exit_code=exc.exit_code,
                ) from None
            batch.commit = info.short if info else None
        journal.done(_state(ws), JOURNAL)
        return written


JOURNAL = journal.CONSOLIDATION
FINISHED = f"{COMMIT_CONSOLIDATE} finished after an interruption"


def _state(ws: Workspace):
    from ..errors import UsageError

    try:
        return ws.state_dir
    except UsageError:  # a .mem/ that cannot be made: no journal, as before
        return None


def finish(ws: Workspace) -> list[str]:
    """Finish the consolidation a kill interrupted (its journal in .mem/): curated files
    still as they were before it get what it wrote, its HISTORY.md paragraph and record
    are written if they are not there, and it is committed as mem's. A file a person
    changed since keeps their text. Returns what was finished (files)."""
    import hashlib

    from ..store import gitrepo

    state = _state(ws)
    intent = journal.pending(state, JOURNAL)
    if intent is None:
        return []
    done: list[str] = []
    for name, (before, after) in intent.get("files", {}).items():
        path = ws.root / name
        now = read_text(path, name) if path.is_file() else ""
        if now != after and hashlib.sha1(now.encode("utf-8")).hexdigest() == before:
            atomic_write_text(path, after)
        done.append(name)
    paragraph = intent.get("paragraph", "")
    if paragraph:
        history = ws.root / HISTORY_FILE
        if paragraph not in (read_text(history, HISTORY_FILE) if history.is_file() else ""):
            append_locked(history, lambda existing: appended_paragraph(existing, paragraph))
        done.append(HISTORY_FILE)
    taken = [Taken(*t) for t in intent.get("taken", [])]
    if taken:
        record(ws, taken)  # what is there already is not written twice
        done.append(PROGRESS_FILE)
    if intent.get("commit") and gitrepo.open_repo(ws.root) is not None:
        gitrepo.commit_memory(ws.root, FINISHED, done)
    journal.done(state, JOURNAL)
    return done


def _follow(ws: Workspace, batch: BatchReport, written: dict[str, str]) -> dict[str, str]:
    """The links of the lines just written re-pointed at where their entries are now."""
    from .citations import refresh

    moved = refresh(ws).files
    batch.files += [name for name in moved if name not in batch.files]
    return {**written, **{name: read_text(ws.root / name, name) for name in moved}}


def _write_batch(
    ws: Workspace,
    opts: Options,
    edits: Sequence[Edit],
    paragraph: str,
    taken: Sequence[Taken],
    docs: dict[str, str],
    batch: BatchReport,
    applied: dict[str, str] | None,
    committing: bool,
) -> dict[str, str]:
    day = opts.now.date()
    fresh = read_docs(ws)
    batch.reapplied = [name for name in DOCUMENTS if fresh[name] != docs[name]]
    if applied is not None and not batch.reapplied:
        new_docs = applied  # the files are as the edits met them: applied once
    else:
        new_docs, outcomes = apply_edits(fresh, edits, day, opts.min_confidence, opts.redact_extra)
        if batch.reapplied:  # someone saved a file while the model was thinking
            batch.outcomes = outcomes + [o for o in batch.outcomes if o.status == "invalid"]
    changed = [name for name in DOCUMENTS if new_docs[name] != fresh[name]]
    if read_docs(ws) != fresh:
        raise ConflictError(
            "a memory file changed twice while consolidating; nothing was written, run it again"
        )
    for name in changed:  # a read-only file stops the batch before anything is written
        replaceable(ws.root / name)
    if committing:
        from ..store import gitrepo

        # What a person saved in the files since the last commit goes in a commit of its
        # own: `mem undo` of this run must revert the distilled edits, never their edit.
        gitrepo.commit_hand_edits(ws.root, [*DOCUMENTS, HISTORY_FILE])
        # The logs read go in a commit of their own first: the marker is about to point
        # into them, and `mem undo` must revert the distilled edits, never the log itself.
        logs = sorted({t.path for t in taken})
        batch.kept = kept_secrets(ws.root, logs, opts.redact_extra)

        def message(committed: list[str]) -> str:  # the logs that changed, not all read
            said = f"{COMMIT_LOG} {gitrepo.paths_said(committed)}"
            if batch.kept:  # lines added over HEAD: in the logs committed here
                kept = ", ".join(batch.kept)
                said += f"\n\nholds what looks like a secret (log.redact is off): {kept}"
            return said

        gitrepo.commit_memory(ws.root, message, logs)
    if paragraph:  # a held edit accepted later has no paragraph of its own: a person's line
        # What mem knows of each line this batch wrote in the end (reapplied, reworded).
        written = records([o.edit for o in batch.outcomes if o.applied], day)
        paragraph = with_ledger(paragraph, written)
    _begin(ws, {n: (fresh[n], new_docs[n]) for n in changed}, paragraph, taken, committing)
    for name in changed:
        atomic_write_text(ws.root / name, new_docs[name])
    if paragraph:
        append_locked(
            ws.root / HISTORY_FILE, lambda existing: appended_paragraph(existing, paragraph)
        )
    recorded = record(ws, taken) if taken else False
    batch.files = [
        *changed,
        *([HISTORY_FILE] if paragraph else []),
        *([PROGRESS_FILE] if recorded else []),
    ]
    return new_docs


def _begin(
    ws: Workspace, files: dict, paragraph: str, taken: Sequence[Taken], committing: bool
) -> None:
    """The batch's journal: what a kill before its commit leaves for `finish`."""
    import hashlib

    intent = {
        "files": {
            name: [hashlib.sha1(old.encode("utf-8")).hexdigest(), new]
            for name, (old, new) in files.items()
        },
        "paragraph": paragraph,
        "taken": [[t.id, t.path, t.how] for t in taken],
        "commit": committing,
    }
    journal.begin(_state(ws), JOURNAL, intent)


def _with_paragraph(existing: str, paragraph: str) -> str:
    before = existing.encode("utf-8")
    return (before + appended_paragraph(before, paragraph)).decode("utf-8")


def kept_secrets(root: Path, logs: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
    """ "path:line (a kind)" for each line a commit of `logs` adds (over HEAD) that holds
    what looks like a secret: a log keeps what was said, and its commit says so."""
    from ..safety.secrets import scan_lines
    from ..store import gitrepo

    found = []
    for rel in logs:
        path = root / rel
        if not path.is_file():
            continue
        text = read_text(path, rel)
        before = gitrepo.file_at(root, "HEAD", rel) or ""
        first = before.count("\n") + 1 if text.startswith(before) else 1
        for n, (_, kinds) in enumerate(scan_lines(text, first, extra=extra), first):
            if kinds:
                found.append(f"{rel}:{n} ({article(kinds[0])})")
    return found
