"""`mem consolidate`: log entries in, one reviewable commit per batch out.

collect what is not consolidated -> drop noise -> redact secrets -> batch to the model's
context -> ask the provider (one save_memory call) -> validate -> apply the edits to the
current files -> write each changed file atomically -> append the HISTORY.md paragraph and
its progress marker -> commit. A provider failure, an invalid answer or a file changed
twice underneath stops the batch before anything is written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

from ..errors import ConflictError, ProviderError
from ..format.markdown import (
    consolidation_marker,
    history_stamp,
    ledger_entries,
    ledger_line,
    without_comments,
)
from ..format.noise import is_noise
from ..safety.secrets import redact
from ..store.workspace import HISTORY_FILE, Workspace
from ..text import estimate_tokens, plural
from .checks import check
from .edits import Outcome, apply_edits
from .limits import first_edits, within
from .progress import LogEntry, Taken, pending_entries, read_history
from .prompt import ANSWER_RESERVE, batches, user_message
from .proposal import Edit, PromptEntry, Proposal, Provider, Request, Usage
from .write import (
    BatchReport,
    Options,
    _with_paragraph,
    read_docs,
    unified_diff,
    write_batch,
)

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
    propose: bool = False,
    progress: BatchProgress | None = None,
) -> Report:
    """dry_run: write nothing, show the diff. propose: write nothing either, but keep each
    batch in .mem/proposals/ for `mem review`. Otherwise write and commit each batch."""
    with _exclusive(ws):
        return _consolidate(ws, provider, opts, dry_run, auto, propose, progress)


def _consolidate(
    ws: Workspace,
    provider: Provider,
    opts: Options,
    dry_run: bool,
    auto: bool,
    propose: bool,
    progress: BatchProgress | None,
) -> Report:
    from . import review

    report = Report(provider.label, 0, dry_run=dry_run)
    waiting = review.waiting_ids(ws)  # entries a proposal holds wait for review
    pending = [p for p in pending_entries(ws, report.warnings) if p.id not in waiting]
    report.pending = len(pending)
    if auto:
        if len(pending) <= opts.memory_window:
            report.skipped = (
                f"{plural(len(pending), 'entry')} not yet consolidated, within the window of "
                f"{opts.memory_window}"
            )
            return report
        pending = pending[: len(pending) - opts.keep_recent]
    if not pending:
        report.skipped = "every log entry is already consolidated" + (
            " or waiting in a proposal (mem review)" if waiting else ""
        )
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
        prompt.append(
            PromptEntry(
                item.cite, item.when, item.entry.role, text, agent=item.entry.agent, id=item.id
            )
        )

    docs = read_docs(ws)
    history = read_history(ws)
    safe_docs = {name: redact(text, opts.redact_extra)[0] for name, text in docs.items()}
    cut = batches(prompt, safe_docs, provider.context_tokens) if prompt else []
    spans = _plan(pending, kept, cut)
    grown: dict[str, int] = {}  # lines this run added to USER.md and AGENTS.md (limits.py)
    for number, span in enumerate(spans, 1):
        batch_prompt = cut[number - 1] if number <= len(cut) else []
        if auto and opts.daily_token_budget and batch_prompt:
            stop = _over_budget(history, batch_prompt, safe_docs, opts)
            if stop:
                report.skipped = stop
                break
        try:
            batch, new_docs, paragraph = _run_batch(
                ws,
                provider,
                opts,
                [pending[i] for i in span],
                batch_prompt,
                docs,
                history,
                "dry-run" if dry_run else "propose" if propose else "apply",
                grown,
            )
        except ProviderError as exc:
            if number > 1 and not dry_run:
                exc.message += (
                    f" (batch {number} of {len(spans)}; the {number - 1} before it were saved)"
                )
            raise
        report.batches.append(batch)
        if dry_run or propose:  # later batches see what earlier ones would have written
            docs, history = new_docs, _with_paragraph(history, paragraph)
        else:
            docs, history = read_docs(ws), read_history(ws)
        if progress:
            progress(number, len(spans))
    report.calls, report.tokens_sent = provider.calls, provider.tokens_sent
    if opts.user_budget and not (dry_run or propose):
        report.warnings += _user_budget(ws, opts.user_budget)
    return report


def _user_budget(ws: Workspace, budget: int) -> list[str]:
    """USER.md is read on every turn: when it outgrows its budget, name the least important
    lines `mem cleanup` could archive. Nothing is truncated."""
    from ..format.markdown import parse_meta, split_doc

    text = read_docs(ws)["USER.md"]
    size = estimate_tokens(text)
    if size <= budget:
        return []
    scored = [
        (meta.importance, n)
        for n, line in enumerate(split_doc(text).lines, 1)
        if (meta := parse_meta(line)) is not None
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


def resolve(edits: Sequence[Edit], prompt: Sequence[PromptEntry]) -> list[Edit]:
    """Each edit with the log lines its sources name (`origin`) and the newest one's date."""
    by_number = {e.number: e for e in prompt}
    out = []
    for edit in edits:
        cited = [by_number[n] for n in edit.sources if n in by_number]
        origin = ",".join(e.cite for e in cited)  # path#Lx-Ly: `mem get` opens it as cited
        dates = [e.when.date() for e in cited if e.when]
        agents = {e.agent for e in cited}
        agent = agents.pop() if len(agents) == 1 else None
        ids = tuple(e.id for e in cited if e.id)
        out.append(
            replace(
                edit, origin=origin, on=max(dates) if dates else None, agent=agent or "", ids=ids
            )
        )
    return out


def _reads_like_instruction(text: str) -> bool:
    from ..safety.firewall import flagged

    return flagged(text)


def _hold_flagged(
    edits: Sequence[Edit], prompt: Sequence[PromptEntry]
) -> tuple[list[Edit], list[tuple[Edit, str]]]:
    """The memory firewall: an edit drawn from an entry that reads like an instruction
    (firewall.py) is held for review, never written by itself. Every curated file counts:
    a planted "fact" in MEMORY.md is recalled into the prompt as surely as an AGENTS rule."""
    from ..safety.firewall import scan

    why = {}
    for entry in prompt:
        flags = scan(entry.text)
        if flags:
            why[entry.number] = ", ".join(f.kind for f in flags)
    keep, held = [], []
    for edit in edits:
        reasons = [why[n] for n in edit.sources if n in why]
        own = scan(f"{edit.text}\n{edit.target}")
        if own:  # the edit is itself an instruction, whatever it cites
            reasons.insert(0, ", ".join(f.kind for f in own))
        if reasons:
            held.append((edit, reasons[0]))
        else:
            keep.append(edit)
    return keep, held


def _rejected_outcomes(proposal: Proposal, redact_extra: Sequence[str]) -> list[Outcome]:
    """The edits the reader refused, as outcomes; what they said passes the secret filter
    like everything else a model wrote."""
    return [
        Outcome(
            Edit(
                file="?",
                op="?",
                type="fact",
                importance=0,
                confidence=0,
                text=redact(r.summary, redact_extra)[0],
                claimed=r.sources,
            ),
            "invalid",
            redact(r.reason, redact_extra)[0],
        )
        for r in proposal.rejected
    ]


def _edit_key(edit: Edit) -> tuple[str, str, str]:
    return (edit.file, edit.op, f"{edit.text}\n{edit.target}")


def _waiting_edits(ws: Workspace) -> set[tuple[str, str, str]]:
    """What already waits in `mem review`: each held edit, and each refused one."""
    from .review import load_all

    out: set[tuple[str, str, str]] = set()
    for p in load_all(ws):
        out |= {(e["file"], e["op"], f"{e['text']}\n{e['target']}") for e in p.edits}
        out |= {("?", r["reason"], r["summary"]) for r in p.rejected}
    return out


def _redacted(edit: Edit, redact_extra: Sequence[str]) -> Edit:
    """An edit that is not written but shown and kept for review: its words pass the secret
    filter like everything else a model wrote."""
    return replace(
        edit,
        text=redact(edit.text, redact_extra)[0],
        target=redact(edit.target, redact_extra)[0],
        section=redact(edit.section, redact_extra)[0],
    )


# Outcomes whose edit a person should see: written nowhere, kept in `mem review` with why.
_TO_REVIEW = ("review", "low-confidence", "missing-target", "ambiguous-target", "conflict")
_TAKES = ("applied", "duplicate")  # the entries such an edit cites are consolidated


def _about_the_batch(history: str, covered: Sequence[LogEntry]) -> bool:
    """Whether a summary says something the entries said ("Today is 2026-12-01 10:00", the
    prompt's own first line, is not a summary of anything)."""
    from .checks import content, same_script

    said = content(history.split("]", 1)[-1])
    heard = set().union(*(content(c.entry.text) for c in covered)) if covered else set()
    return bool(said & heard) or not heard or not same_script(said, heard)


def _history_paragraph(
    history: str, applied: Sequence[Edit], covered: Sequence[LogEntry], opts: Options
) -> str:
    """The model's paragraph when it said something; else one made of what was accepted."""
    when = max((i.when for i in covered if i.when), default=opts.now)
    if _reads_like_instruction(history):
        # HISTORY.md is recalled into prompts like any curated file: a summary that
        # quotes a payload would plant it there. The entries stay in the log.
        return (
            f"{history_stamp(when)} {plural(len(covered), 'log entry')}; the summary "
            "quoted text that reads like an instruction to the agent and was left out "
            "(`mem audit` lists such lines)."
        )
    if history and _about_the_batch(history, covered):
        from ..format.dates import resolve_relative

        return resolve_relative(history, when.date())  # "yesterday" read months later
    said = [f"{' '.join(e.text.split()).rstrip('.。')}." for e in applied if e.text][:5]
    if said:
        return f"{history_stamp(when)} Noted: {' '.join(said)}"
    return (
        f"{history_stamp(when)} {plural(len(covered), 'log entry')} held nothing to keep "
        "(acknowledgements, fillers, repeats and small talk)."
    )


def _run_batch(
    ws: Workspace,
    provider: Provider,
    opts: Options,
    covered: list[LogEntry],
    prompt: list[PromptEntry],
    docs: dict[str, str],
    history_before: str,
    mode: str,
    grown: dict[str, int],
) -> tuple[BatchReport, dict[str, str], str]:
    """One batch. Its entries are taken only when an accepted edit cites them, the answer
    says they hold nothing durable, or they were noise left out before sending; every other
    entry stays pending and is offered again. Edits that cannot be written wait in
    `mem review` with their reason."""
    day = opts.now.date()
    sent = {p.id for p in prompt}
    path_of = {c.id: c.path for c in covered}
    entry_of = {p.number: (p.id, path_of[p.id]) for p in prompt}  # E3 -> (id, log path)
    taken: dict[str, Taken] = {
        c.id: Taken(c.id, c.path, "noise") for c in covered if c.id not in sent
    }
    rejected: list[Outcome] = []
    held: list[tuple[Edit, str]] = []
    unsure: list[tuple[Edit, str]] = []
    usage = Usage(0, 0)
    history = ""
    edits: list[Edit] = []
    skip: tuple[int, ...] = ()
    if prompt:
        safe_docs = {name: redact(text, opts.redact_extra)[0] for name, text in docs.items()}
        proposal = provider.propose(Request(tuple(prompt), safe_docs, opts.now))
        history = redact(proposal.history_entry, opts.redact_extra)[0]
        # HISTORY.md's markers are mem's grammar: a summary quoting one would forge one.
        history = without_comments(history)
        answered, too_many = first_edits(proposal.edits, opts)
        checked, unsure = check(answered, prompt)
        unsure += too_many
        edits = resolve(checked, prompt)
        unsure = [
            (_redacted(e, opts.redact_extra), why)
            for e, why in zip(
                resolve([e for e, _ in unsure], prompt), [w for _, w in unsure], strict=True
            )
        ]
        rejected = _rejected_outcomes(proposal, opts.redact_extra)
        edits, held = _hold_flagged(edits, prompt)
        held = [(_redacted(e, opts.redact_extra), why) for e, why in held]
        edits, over = within(edits, opts, grown)
        unsure += [(_redacted(e, opts.redact_extra), why) for e, why in over]
        usage = proposal.usage or usage
        skip = proposal.skip
    new_docs, outcomes = apply_edits(docs, edits, day, opts.min_confidence, opts.redact_extra)
    outcomes += [Outcome(e, "review", why) for e, why in unsure]
    held_outcomes = [
        Outcome(e, "held", f"from an entry that reads like an instruction ({why})")
        for e, why in held
    ]
    # What the batch takes: cited by an accepted edit, or said to hold nothing durable
    # (unless some edit that was not accepted cites it: then a person decides).
    for o in outcomes:
        if o.status in _TAKES:
            for n in o.edit.sources:
                taken[entry_of[n][0]] = Taken(*entry_of[n], "curated")
    contested = {
        n
        for o in outcomes + held_outcomes + rejected
        if o.status not in _TAKES
        for n in (*o.edit.sources, *o.edit.claimed)
    }
    for n in skip:
        if n not in contested and entry_of[n][0] not in taken:
            taken[entry_of[n][0]] = Taken(*entry_of[n], "dropped")
    waits = sorted({entry_of[n][0] for e, _ in held for n in e.sources} - set(taken))
    used = any(t.how != "noise" for t in taken.values()) or not prompt
    applied = [o.edit for o in outcomes if o.applied]
    paragraph = ""
    if used:
        history = _history_paragraph(history, applied, covered, opts)
        owners = {i.entry.agent for i in covered}
        if len(owners) == 1 and (owner := owners.pop()):
            # One agent's conversation: its summary is its own (private when agents are
            # isolated).
            first, nl, rest = history.partition("\n")
            history = f"{first} <!-- agent: {owner} -->{nl}{rest}"
        ledger = ledger_line(
            usage.prompt_tokens, usage.completion_tokens, day, provider.label, usage.estimated
        )
        counts: dict[str, int] = {}
        for t in taken.values():
            counts[t.path] = counts.get(t.path, 0) + 1
        paragraph = f"{history}\n{consolidation_marker(counts, ledger)}\n"
    else:
        history, new_docs = "", docs  # an answer nothing could be used from changes nothing
    # A batch kept for review (--propose) keeps every edit it read; only what the checks or
    # the firewall held back waits apart, with its reason.
    review_statuses = ("review",) if mode == "propose" else _TO_REVIEW
    to_review = [
        replace(o, edit=_redacted(o.edit, opts.redact_extra))
        for o in outcomes
        if o.status in review_statuses
    ] + held_outcomes
    diff = unified_diff(
        {**docs, HISTORY_FILE: history_before},
        {**new_docs, HISTORY_FILE: _with_paragraph(history_before, paragraph)},
    )
    batch = BatchReport(
        len(covered),
        len(prompt),
        outcomes + held_outcomes + rejected,
        history,
        diff,
        taken=len(taken) if used else 0,
        dropped=sum(t.how == "dropped" for t in taken.values()) if used else 0,
        left=len(covered) - len(taken) - len(waits) if used else len(covered) - len(waits),
        unused=not used,
    )
    if mode == "dry-run":
        return batch, new_docs, paragraph
    from .review import Pending, save

    # An entry offered again may draw the same held edit again: it waits once.
    seen = _waiting_edits(ws)
    to_review = [o for o in to_review if _edit_key(o.edit) not in seen]
    rejected = [o for o in rejected if ("?", o.detail, o.edit.text) not in seen]
    if to_review or rejected:
        batch.review = save(
            new=True,
            ws=ws,
            pending=Pending.make(
                provider.label,
                "",
                [],
                [o.edit for o in to_review],
                rejected,
                len(covered),
                opts,
                waits=waits,
                reasons=[o.detail for o in to_review],
                cites=[
                    [entry_of[n] for n in (o.edit.sources or o.edit.claimed)] for o in to_review
                ],
            ),
        )
    if mode == "propose":
        if used:
            batch.proposal = save(
                new=True,
                ws=ws,
                pending=Pending.make(
                    provider.label,
                    paragraph,
                    [t for t in taken.values() if t.how != "curated"],
                    [_redacted(e, opts.redact_extra) for e in edits],
                    [],
                    len(covered),
                    opts,
                    waits=sorted({c.id for c in covered} - set(waits)),
                    cites=[[entry_of[n] for n in e.sources] for e in edits],
                ),
            )
        return batch, new_docs, paragraph
    if used:
        write_batch(ws, opts, provider.label, edits, paragraph, list(taken.values()), docs, batch)
    return batch, new_docs, paragraph
