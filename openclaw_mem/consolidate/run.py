"""`mem consolidate`: log entries in, one reviewable commit per batch out, in stages:

    plan (plan.py: what is pending, noise and repeats left out, secrets redacted, batches
    cut to the model's context) -> ask (ask.py: the provider's answer, asked once more when
    it is unusable) -> judge (judge.py: checks, the firewall, the limits) -> settle
    (settle.py: the edits applied once, what is taken, the HISTORY.md paragraph) -> keep
    (modes.py: a dry run keeps nothing, --propose keeps it for review, a run writes and
    commits it).

Nothing of a batch is written before its answer is judged. A batch with no usable answer is
left pending and the run goes on (`Report.unanswered`); a provider that cannot be reached,
or a file changed twice underneath, stops the run. When no batch could be used at all the
run raises, as before: nothing was written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..errors import ConflictError, ProviderError, UnusableAnswer
from ..format.markdown import ledger_entries
from ..store.workspace import Workspace
from ..text import estimate_tokens
from .ask import Unanswered, again, ask, left
from .judge import judge
from .modes import Apply, DryRun, Propose
from .plan import Batch, plan
from .progress import read_history, read_offers
from .prompt import ANSWER_RESERVE, user_message
from .proposal import PromptEntry, Provider, Request
from .redaction import Redaction
from .settle import settle
from .write import BatchReport, Options, read_docs

BatchProgress = Callable[[int, int], None]  # (batches done, batches in all)


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
    unanswered: list[Unanswered] = field(default_factory=list)  # batches left pending
    rules: bool = False  # the offline rules answered, not a model

    @property
    def partial(self) -> bool:
        """Some batches were settled and others left pending: "partly done" (exit 11)."""
        return bool(self.unanswered) and bool(self.batches)

    @property
    def unused(self) -> bool:
        """The model answered every batch, and nothing in any answer could be used: nothing
        was written and every entry waits (exit 12, so a cron job can tell it from success).
        """
        if self.rules or self.unanswered or not self.batches:
            return False
        return all(b.unused for b in self.batches)


@contextlib.contextmanager
def _exclusive(ws: Workspace) -> Iterator[None]:
    """One consolidation at a time per workspace (a second one is told, not queued)."""
    from ..store.fsutil import lock_file

    held = False
    try:
        with lock_file(ws.state_dir / "consolidate.lock", wait=False):
            held = True
            yield
    except BlockingIOError:
        if held:  # raised by the consolidation itself, not by the lock
            raise
        raise ConflictError("another `mem consolidate` is running in this workspace") from None


def consolidate(
    ws: Workspace,
    provider: Provider,
    opts: Options,
    *,
    dry_run: bool = False,
    auto: bool = False,
    propose: bool = False,
    progress: BatchProgress | None = None,
) -> Report:
    """dry_run: write nothing, show the diff. propose: write nothing either, but keep each
    batch in .mem/proposals/ for `mem review`. Otherwise write and commit each batch."""
    mode = DryRun() if dry_run else Propose() if propose else Apply()
    with _exclusive(ws):
        report = _run(ws, provider, opts, mode, auto, progress)
    report.dry_run = dry_run
    kept = [where for batch in report.batches for where in batch.kept]
    if kept:  # "redacted before anything was sent" is not the whole story: git keeps it
        # The places last: a family's name ("a password in a sentence") followed by the
        # how-to's "PATH:LINE" read as a password and was redacted in the warning itself.
        report.warnings.append(
            "committed verbatim in the log, as log.redact is off (`mem forget --hard "
            "PATH:LINE` redacts it; git history keeps it until rewritten): what looks like a "
            f"secret at {', '.join(kept)}"
        )
    if opts.user_budget and isinstance(mode, Apply):
        report.warnings += _user_budget(ws, opts.user_budget)
    return report


def _run(
    ws: Workspace,
    provider: Provider,
    opts: Options,
    mode: DryRun | Propose | Apply,
    auto: bool,
    progress: BatchProgress | None,
) -> Report:
    report = Report(provider.label, 0, rules=getattr(provider, "rules", False))
    shown = Redaction(opts.redact_extra)
    docs, history = read_docs(ws), read_history(ws)
    safe_docs = shown.docs(docs)
    most = getattr(provider, "batch_entries", 0)
    run = plan(
        ws,
        opts,
        provider.context_tokens,
        safe_docs,
        shown,
        auto=auto,
        warnings=report.warnings,
        most=most,
        # Rules take only what they keep; a model is offered what rules passed over too.
        for_model=not getattr(provider, "rules", False),
    )
    report.pending, report.redacted, report.skipped = run.pending, shown.hidden, run.skipped
    grown: dict[str, int] = {}  # lines this run added to USER.md and AGENTS.md (limits.py)
    offers = read_offers(ws)  # how often each pending entry was shown before (progress.py)
    queue = list(run.batches)
    silence = 0  # requests that timed out: the second stops the run (2 x llm.timeout)
    while queue:
        batch = queue.pop(0)
        if auto and opts.daily_token_budget and batch.prompt:
            stop = _over_budget(history, batch.prompt, safe_docs, opts)
            if stop:
                report.skipped = stop
                break
        try:
            answer = ask(provider, batch, shown.docs(docs), opts.now)
        except UnusableAnswer as exc:
            silence += exc.silent
            if silence > 1:  # a server that let two requests time out will not answer
                _stopped(report, ProviderError(f"{exc.message} twice"), batch, queue)
                break
            retry = again(batch, exc)
            if not retry:
                report.unanswered.append(left(batch, exc))
                mode.offered(ws, batch, set())
            queue[:0] = retry
            continue
        except ProviderError as exc:
            _stopped(report, exc, batch, queue)
            break
        judged = judge(answer, batch.prompt, opts, grown, shown) if answer else None
        settled = settle(
            judged, batch, docs, history, opts, provider.label, shown, mode.review_statuses, offers
        )
        written = mode.save(ws, settled, opts, provider.label)
        mode.offered(ws, batch, set(settled.taken))
        report.batches.append(settled.report)
        docs, history = mode.next_start(ws, settled, history, written)
        if progress:
            progress(len(report.batches) + len(report.unanswered), _total(report, queue))
    report.calls, report.tokens_sent = provider.calls, provider.tokens_sent
    if report.unanswered and not report.batches:
        first = report.unanswered[0].reason
        raise ProviderError(f"{first}; no batch could be used, nothing was written")
    return report


def _total(report: Report, queue: list[Batch]) -> int:
    return len(report.batches) + len(report.unanswered) + len(queue)


def _stopped(report: Report, exc: ProviderError, batch: Batch, queue: list[Batch]) -> None:
    """The provider cannot be reached: the run stops here. Before any batch was saved that
    is the command's error; after, this batch and the rest are left pending, partly done."""
    if not report.batches:
        if batch.why:  # asked again after an unusable answer: say both
            raise ProviderError(f"{batch.why}; asked again: {exc.message}") from None
        raise exc
    for rest in [batch, *queue]:
        report.unanswered.append(
            Unanswered(len(rest.covered), len(rest.prompt), f"not asked: {exc.message}")
        )
    queue.clear()


def _user_budget(ws: Workspace, budget: int) -> list[str]:
    """USER.md is read on every turn: when it outgrows its budget, name the least important
    lines `mem cleanup` could archive. Nothing is truncated."""
    from ..format.curated import record_of, workspace_ledger
    from ..format.markdown import split_doc

    text = read_docs(ws)["USER.md"]
    size = estimate_tokens(text)
    if size <= budget:
        return []
    ledger = workspace_ledger(ws)
    scored = [
        (meta.importance, n)
        for n, line in enumerate(split_doc(text).lines, 1)
        if (meta := record_of("USER", line, ledger)) is not None
    ]
    names = ", ".join(f"USER.md:{n} (importance {i:g})" for i, n in sorted(scored)[:3])
    return [
        f"USER.md holds about {size} tokens, over consolidate.user_budget = {budget}"
        + (f"; least important: {names} (mem cleanup archives what is stale)" if names else "")
    ]


def _over_budget(
    history: str, prompt: list[PromptEntry], docs: dict[str, str], opts: Options
) -> str | None:
    """Why an automatic run must stop before this batch (llm.daily_token_budget), or None."""
    today = opts.now.date().isoformat()
    spent = sum(e["prompt"] + e["completion"] for e in ledger_entries(history) if e["day"] == today)
    need = estimate_tokens(user_message(Request(tuple(prompt), docs, opts.now))) + ANSWER_RESERVE
    if spent + need <= opts.daily_token_budget:
        return None
    return (
        f"stopped: today's consolidations used {spent} tokens and the next batch needs about "
        f"{need}, over llm.daily_token_budget = {opts.daily_token_budget}"
    )
