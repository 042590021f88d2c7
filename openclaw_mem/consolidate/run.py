"""`mem consolidate`: log entries in, one reviewable commit per batch out.

collect what is not consolidated -> drop noise -> redact secrets -> batch to the model's
context -> ask the provider (one save_memory call) -> validate -> apply the edits to the
current files -> write each changed file atomically -> append the HISTORY.md paragraph and
its progress marker -> commit. A provider failure, an invalid answer or a file changed
twice underneath stops the batch before anything is written.
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..errors import ConflictError, ProviderError
from ..fsutil import append_locked, atomic_write_text, read_text
from ..markdown import COMMIT_CONSOLIDATE, COMMIT_LOG, consolidation_marker, history_stamp
from ..noise import is_noise
from ..proposal import PromptEntry, Provider, Request
from ..secrets import redact
from ..text import plural
from ..workspace import CURATED_FILES, HISTORY_FILE, Workspace
from .edits import Outcome, apply_edits
from .progress import LogEntry, pending_entries, read_history
from .prompt import batches

DOCUMENTS = CURATED_FILES
Progress = Callable[[int, int], None]  # (batches done, batches in all)


@dataclass(frozen=True)
class Options:
    now: datetime
    min_confidence: float = 0.5
    memory_window: int = 50
    keep_recent: int = 20
    redact_extra: tuple[str, ...] = ()
    commit: bool = True


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

    def counts(self) -> dict[str, int]:
        applied = [o.edit for o in self.outcomes if o.applied]
        return {
            "added": sum(e.op == "add" for e in applied),
            "updated": sum(e.op == "update" for e in applied),
            "deleted": sum(e.op == "delete" for e in applied),
            "deprecated": sum(e.op == "deprecate" for e in applied),
            "skipped": sum(not o.applied for o in self.outcomes),
        }


@dataclass
class Report:
    provider: str
    pending: int
    batches: list[BatchReport] = field(default_factory=list)
    skipped: str | None = None  # why nothing ran
    redacted: int = 0
    warnings: list[str] = field(default_factory=list)
    dry_run: bool = False
    calls: int = 0
    tokens_sent: int = 0


@contextlib.contextmanager
def _exclusive(ws: Workspace) -> Iterator[None]:
    """One consolidation at a time per workspace (a second one is told, not queued)."""
    import fcntl

    ws.state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(ws.state_dir / "consolidate.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConflictError("another `mem consolidate` is running in this workspace") from None
        yield
    finally:
        os.close(fd)


def _read_docs(ws: Workspace) -> dict[str, str]:
    return {
        name: read_text(ws.root / name, name) if (ws.root / name).exists() else ""
        for name in DOCUMENTS
    }


def commit_message(batch: BatchReport, provider: str, redact_extra: Sequence[str] = ()) -> str:
    """The consolidation's commit message: counts, provider, every edit. Whatever a model
    wrote passes the secret filter first (an edit refused for a secret is already withheld)."""
    c = batch.counts()
    lines = [
        f"{COMMIT_CONSOLIDATE} +{c['added']} ~{c['updated']} -{c['deleted']}, "
        f"{c['deprecated']} deprecated",
        "",
        f"provider: {provider}; {plural(batch.entries, 'log entry')} ({batch.sent} sent)",
    ]
    for o in batch.outcomes:
        e = o.edit
        what = e.text or e.target
        state = "" if o.applied else f" [skipped: {o.status}]"
        lines.append(f"- {e.op} {e.file}: {redact(what[:100], redact_extra)[0]}{state}")
    return "\n".join(lines)


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


def _plan(
    pending: Sequence[LogEntry], kept: Sequence[int], cut: list[list[PromptEntry]]
) -> list[list[int]]:
    """Spread every pending entry (noise too) over the batches, in order, so each batch's
    marker covers a contiguous run of each file."""
    spans: list[list[int]] = []
    k = 0
    start = 0
    for batch in cut:
        k += len(batch)
        last = kept[k - 1]
        spans.append(list(range(start, last + 1)))
        start = last + 1
    if spans and start < len(pending):
        spans[-1] += list(range(start, len(pending)))
    elif not spans and pending:
        spans.append(list(range(len(pending))))
    return spans


def consolidate(
    ws: Workspace,
    provider: Provider,
    opts: Options,
    *,
    dry_run: bool = False,
    auto: bool = False,
    progress: Progress | None = None,
) -> Report:
    with _exclusive(ws):
        return _consolidate(ws, provider, opts, dry_run, auto, progress)


def _consolidate(
    ws: Workspace,
    provider: Provider,
    opts: Options,
    dry_run: bool,
    auto: bool,
    progress: Progress | None,
) -> Report:
    report = Report(provider.label, 0, dry_run=dry_run)
    pending = pending_entries(ws, report.warnings)
    report.pending = len(pending)
    if auto:
        if len(pending) <= opts.memory_window:
            report.skipped = (
                f"{len(pending)} entries not yet consolidated, within the window of "
                f"{opts.memory_window}"
            )
            return report
        pending = pending[: len(pending) - opts.keep_recent]
    if not pending:
        report.skipped = "every log entry is already consolidated"
        return report

    seen: set[tuple[str, str]] = set()
    kept: list[int] = []
    prompt: list[PromptEntry] = []
    for i, item in enumerate(pending):
        key = (item.entry.role, " ".join(item.entry.text.split()))
        if is_noise(item.entry.text) or key in seen:
            continue
        seen.add(key)
        text, n = redact(item.entry.text, opts.redact_extra)
        report.redacted += n
        kept.append(i)
        prompt.append(PromptEntry(item.cite, item.when, item.entry.role, text))

    docs = _read_docs(ws)
    history = read_history(ws)
    safe_docs = {name: redact(text, opts.redact_extra)[0] for name, text in docs.items()}
    cut = batches(prompt, safe_docs, provider.context_tokens) if prompt else []
    spans = _plan(pending, kept, cut)
    for number, span in enumerate(spans, 1):
        batch_prompt = cut[number - 1] if number <= len(cut) else []
        try:
            batch, new_docs, paragraph = _run_batch(
                ws, provider, opts, [pending[i] for i in span], batch_prompt, docs, history, dry_run
            )
        except ProviderError as exc:
            if number > 1 and not dry_run:
                exc.message += (
                    f" (batch {number} of {len(spans)}; the {number - 1} before it were saved)"
                )
            raise
        report.batches.append(batch)
        if dry_run:  # later batches see what earlier ones would have written
            docs, history = new_docs, _with_paragraph(history, paragraph)
        else:
            docs, history = _read_docs(ws), read_history(ws)
        if progress:
            progress(number, len(spans))
    report.calls, report.tokens_sent = provider.calls, provider.tokens_sent
    return report


def _run_batch(
    ws: Workspace,
    provider: Provider,
    opts: Options,
    covered: list[LogEntry],
    prompt: list[PromptEntry],
    docs: dict[str, str],
    history_before: str,
    dry_run: bool,
) -> tuple[BatchReport, dict[str, str], str]:
    day = opts.now.date()
    last_lines: dict[str, int] = {}
    for item in covered:
        last_lines[item.path] = max(last_lines.get(item.path, 0), item.entry.end_line)
    if prompt:
        safe_docs = {name: redact(text, opts.redact_extra)[0] for name, text in docs.items()}
        proposal = provider.propose(Request(tuple(prompt), safe_docs, opts.now))
        history, edits = redact(proposal.history_entry, opts.redact_extra)[0], proposal.edits
    else:
        when = max((i.when for i in covered if i.when), default=opts.now)
        history = (
            f"{history_stamp(when)} {plural(len(covered), 'log entry')} held nothing to keep "
            "(acknowledgements, fillers and repeats)."
        )
        edits = ()
    new_docs, outcomes = apply_edits(docs, edits, day, opts.min_confidence, opts.redact_extra)
    paragraph = f"{history}\n{consolidation_marker(last_lines)}\n"
    diff = unified_diff(
        {**docs, HISTORY_FILE: history_before},
        {**new_docs, HISTORY_FILE: _with_paragraph(history_before, paragraph)},
    )
    batch = BatchReport(len(covered), len(prompt), outcomes, history, diff)
    if dry_run:
        return batch, new_docs, paragraph

    fresh = _read_docs(ws)
    batch.reapplied = [name for name in DOCUMENTS if fresh[name] != docs[name]]
    if batch.reapplied:  # someone saved a file while the model was thinking: their text wins
        new_docs, batch.outcomes = apply_edits(
            fresh, edits, day, opts.min_confidence, opts.redact_extra
        )
    changed = [name for name in DOCUMENTS if new_docs[name] != fresh[name]]
    if _read_docs(ws) != fresh:
        raise ConflictError(
            "a memory file changed twice while consolidating; nothing was written, run it again"
        )
    repo = None
    if opts.commit:
        from .. import gitrepo

        repo = gitrepo.open_repo(ws.root)
    if repo is not None:
        # The logs read go in a commit of their own first: the marker is about to point
        # into them, and `mem undo` must revert the distilled edits, never the log itself.
        logs = sorted(last_lines)
        gitrepo.commit_memory(ws.root, f"{COMMIT_LOG} {', '.join(logs)[:200]}", logs)
    for name in changed:
        atomic_write_text(ws.root / name, new_docs[name])
    append_locked(ws.root / HISTORY_FILE, lambda existing: _append_bytes(existing, paragraph))
    batch.files = [*changed, HISTORY_FILE]
    if repo is not None:
        message = commit_message(batch, provider.label, opts.redact_extra)
        info = gitrepo.commit_memory(ws.root, message, batch.files)
        batch.commit = info.short if info else None
    return batch, new_docs, paragraph


def _with_paragraph(existing: str, paragraph: str) -> str:
    return (existing.encode("utf-8") + _append_bytes(existing.encode("utf-8"), paragraph)).decode(
        "utf-8"
    )


def _append_bytes(existing: bytes, paragraph: str) -> bytes:
    if not existing:
        head = "# HISTORY\n\n"
    elif existing.endswith(b"\n\n"):
        head = ""
    elif existing.endswith(b"\n"):
        head = "\n"
    else:
        head = "\n\n"
    return (head + paragraph).encode("utf-8")
