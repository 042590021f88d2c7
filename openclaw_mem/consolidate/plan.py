"""A run's first stage: which entries it settles and in which batches. Everything pending
(less what waits in `mem review`, and, for `--auto`, less the newest `keep_recent`) is
spread over batches cut to the model's context; noise and repeats ride along in a batch
without being sent, so each batch settles a contiguous run of each log."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

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
    attempt: int = 0  # 1 when it is asked again after an unusable answer
    why: str = ""  # what was wrong with the first answer, when it is asked again


def split(batch: Batch) -> list[Batch]:
    """A batch as two halves, each numbered from E1 and settling a contiguous run of what
    the whole covered (what an answer cut at the token cap is asked again as)."""
    half = len(batch.prompt) // 2
    if half == 0:
        return [batch]
    last = batch.prompt[half - 1].id
    cut = next(i for i, c in enumerate(batch.covered) if c.id == last) + 1
    first = [replace(e, number=i) for i, e in enumerate(batch.prompt[:half], 1)]
    second = [replace(e, number=i) for i, e in enumerate(batch.prompt[half:], 1)]
    return [
        Batch(batch.covered[:cut], first, batch.attempt, batch.why),
        Batch(batch.covered[cut:], second, batch.attempt, batch.why),
    ]


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
    most: int = 0,
    for_model: bool = False,
) -> RunPlan:
    """most: the most entries a batch may send (0: as many as the context takes).
    for_model: a model runs, and is offered what the offline rules passed over too."""
    from .review import waiting_ids

    waiting = waiting_ids(ws)  # entries a proposal holds wait for review
    pending = [p for p in pending_entries(ws, warnings, for_model) if p.id not in waiting]
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
    sent = shown.sent_together([item.entry.text for item in pending])
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
                sent[i],
                agent=item.entry.agent,
                id=item.id,
            )
        )
    cut = batches(prompt, safe_docs, context_tokens, most) if prompt else []
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
