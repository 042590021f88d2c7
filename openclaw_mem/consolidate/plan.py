"""A run's first stage: which entries it settles and in which batches. Everything pending
(less what waits in `mem review`, and, for `--auto`, less the newest `keep_recent`) is
spread over batches cut to the model's context; noise and repeats ride along in a batch
without being sent, so each batch settles a contiguous run of each log."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..format.noise import is_noise
from ..store.workspace import Workspace
from ..text import plural
from .progress import LogEntry, pending_entries
from .prompt import batches
from .proposal import PromptEntry
from .redaction import Redaction
from .write import Options


@dataclass
class Batch:
    covered: list[LogEntry]  # every pending entry this batch settles, noise included
    prompt: list[PromptEntry]  # what the provider is shown of them, redacted


@dataclass
class RunPlan:
    pending: int
    batches: list[Batch] = field(default_factory=list)
    skipped: str | None = None  # why nothing runs


def plan(
    ws: Workspace,
    opts: Options,
    context_tokens: int,
    safe_docs: dict[str, str],
    shown: Redaction,
    *,
    auto: bool,
    warnings: list[str],
) -> RunPlan:
    from .review import waiting_ids

    waiting = waiting_ids(ws)  # entries a proposal holds wait for review
    pending = [p for p in pending_entries(ws, warnings) if p.id not in waiting]
    run = RunPlan(len(pending))
    if auto:
        if len(pending) <= opts.memory_window:
            run.skipped = (
                f"{plural(len(pending), 'entry')} not yet consolidated, within the window of "
                f"{opts.memory_window}"
            )
            return run
        pending = pending[: len(pending) - opts.keep_recent]
    if not pending:
        run.skipped = "every log entry is already consolidated" + (
            " or waiting in a proposal (mem review)" if waiting else ""
        )
        return run
    seen: set[tuple[str, str]] = set()
    kept: list[int] = []
    prompt: list[PromptEntry] = []
    for i, item in enumerate(pending):
        key = (item.entry.role, " ".join(item.entry.text.split()))
        if is_noise(item.entry.text) or key in seen:
            continue
        seen.add(key)
        kept.append(i)
        prompt.append(
            PromptEntry(
                item.cite,
                item.when,
                item.entry.role,
                shown.sent(item.entry.text),
                agent=item.entry.agent,
                id=item.id,
            )
        )
    cut = batches(prompt, safe_docs, context_tokens) if prompt else []
    for number, span in enumerate(_spans(pending, kept, cut), 1):
        run.batches.append(
            Batch([pending[i] for i in span], cut[number - 1] if number <= len(cut) else [])
        )
    return run


def _spans(
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
