"""A run's fourth stage: a judged answer applied, once, to the curated files as the run
knows them, and what follows from it: which entries are now taken (cited by an accepted
edit, said to hold nothing durable, or noise never sent) and which stay pending, the
HISTORY.md paragraph, what waits in `mem review`, and the batch's report and diff. Nothing
is written here: the mode (modes.py) decides what is kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..format.markdown import consolidation_marker, history_stamp, ledger_line
from ..store.workspace import HISTORY_FILE
from ..text import plural
from .edits import Outcome, apply_edits
from .judge import Judged
from .plan import Batch
from .progress import LogEntry, Taken
from .proposal import Edit, Usage
from .redaction import Redaction
from .write import BatchReport, Options, _with_paragraph, unified_diff

# Outcomes whose edit a person should see: written nowhere, kept in `mem review` with why.
TO_REVIEW = ("review", "low-confidence", "missing-target", "ambiguous-target", "conflict")
_TAKES = ("applied", "duplicate")  # the entries such an edit cites are consolidated


@dataclass
class Settled:
    report: BatchReport
    docs: dict[str, str]  # the curated files with the edits applied
    paragraph: str  # the HISTORY.md paragraph with its marker ("": nothing could be used)
    edits: list[Edit]  # the edits applied
    taken: dict[str, Taken]  # entry id -> how it is taken
    waits: list[str]  # entry ids held back while a held edit waits
    to_review: list[Outcome]  # edits a person should see, redacted
    rejected: list[Outcome]  # what the reader refused
    entry_of: dict[int, tuple[str, str]] = field(default_factory=dict)  # E3 -> (id, path)
    before: dict[str, str] = field(default_factory=dict)  # the curated files it was applied to
    covered_ids: set[str] = field(default_factory=set)  # every entry the batch settles
    written: dict[str, str] | None = None  # the curated files as a run then wrote them

    @property
    def used(self) -> bool:
        return bool(self.paragraph)


def settle(
    judged: Judged | None,
    batch: Batch,
    docs: dict[str, str],
    history_before: str,
    opts: Options,
    label: str,
    shown: Redaction,
    review_statuses: Sequence[str] = TO_REVIEW,
) -> Settled:
    """One batch's answer (None: nothing was sent, the batch is noise) applied to `docs`.
    Its entries are taken only when an accepted edit cites them, the answer says they hold
    nothing durable, or they were noise left out before sending; every other entry stays
    pending and is offered again."""
    covered, prompt = batch.covered, batch.prompt
    judged = judged or Judged("", [], [], [], [])
    sent = {p.id for p in prompt}
    path_of = {c.id: c.path for c in covered}
    entry_of = {p.number: (p.id, path_of[p.id]) for p in prompt}  # E3 -> (id, log path)
    new_docs, outcomes = apply_edits(
        docs, judged.edits, opts.now.date(), opts.min_confidence, opts.redact_extra
    )
    outcomes += [Outcome(e, "review", why) for e, why in judged.review]
    held = [
        Outcome(e, "held", f"from an entry that reads like an instruction ({why})")
        for e, why in judged.held
    ]
    taken, waits = _taken(judged, outcomes + held, covered, sent, entry_of)
    used = any(t.how != "noise" for t in taken.values()) or not prompt
    summary, paragraph = "", ""
    if used:
        applied = [o.edit for o in outcomes if o.applied]
        summary, paragraph = _paragraph(judged, applied, covered, taken, opts, label)
    else:
        new_docs = docs  # an answer nothing could be used from changes nothing
    # A batch kept for review (--propose) keeps every edit it read; only what the checks or
    # the firewall held back waits apart, with its reason.
    to_review = [
        replace(o, edit=shown.edit(o.edit)) for o in outcomes if o.status in review_statuses
    ] + held
    report = BatchReport(
        len(covered),
        len(prompt),
        outcomes + held + judged.rejected,
        summary,
        unified_diff(
            {**docs, HISTORY_FILE: history_before},
            {**new_docs, HISTORY_FILE: _with_paragraph(history_before, paragraph)},
        ),
        taken=len(taken) if used else 0,
        dropped=sum(t.how == "dropped" for t in taken.values()) if used else 0,
        left=len(covered) - len(taken) - len(waits) if used else len(covered) - len(waits),
        unused=not used,
    )
    return Settled(
        report,
        new_docs,
        paragraph,
        list(judged.edits),
        taken,
        waits,
        to_review,
        judged.rejected,
        entry_of,
        docs,
        {c.id for c in covered},
    )


def _taken(
    judged: Judged,
    outcomes: Sequence[Outcome],
    covered: Sequence[LogEntry],
    sent: set[str],
    entry_of: dict[int, tuple[str, str]],
) -> tuple[dict[str, Taken], list[str]]:
    """Which entries the batch takes (noise never sent, cited by an accepted edit, or said
    to hold nothing durable) and which wait while a held edit waits."""
    taken = {c.id: Taken(c.id, c.path, "noise") for c in covered if c.id not in sent}
    for o in outcomes:
        if o.status in _TAKES:
            for n in o.edit.sources:
                taken[entry_of[n][0]] = Taken(*entry_of[n], "curated")
    # Said to hold nothing durable, unless some edit that was not accepted cites it: then a
    # person decides.
    contested = {
        n
        for o in (*outcomes, *judged.rejected)
        if o.status not in _TAKES
        for n in (*o.edit.sources, *o.edit.claimed)
    }
    for n in judged.skip:
        if n not in contested and entry_of[n][0] not in taken:
            taken[entry_of[n][0]] = Taken(*entry_of[n], "dropped")
    waits = sorted({entry_of[n][0] for e, _ in judged.held for n in e.sources} - set(taken))
    return taken, waits


def _paragraph(
    judged: Judged,
    applied: Sequence[Edit],
    covered: Sequence[LogEntry],
    taken: dict[str, Taken],
    opts: Options,
    label: str,
) -> tuple[str, str]:
    """(the summary, the HISTORY.md paragraph): the summary stamped with the batch's time,
    its agent when one agent's conversation it was, and the marker saying what it took and
    what it cost."""
    history = _history_paragraph(judged.history, applied, covered, opts)
    owners = {i.entry.agent for i in covered}
    if len(owners) == 1 and (owner := owners.pop()):
        # One agent's conversation: its summary is its own (private when agents are
        # isolated).
        first, nl, rest = history.partition("\n")
        history = f"{first} <!-- agent: {owner} -->{nl}{rest}"
    usage: Usage = judged.usage
    ledger = ledger_line(
        usage.prompt_tokens, usage.completion_tokens, opts.now.date(), label, usage.estimated
    )
    counts: dict[str, int] = {}
    for t in taken.values():
        counts[t.path] = counts.get(t.path, 0) + 1
    return history, f"{history}\n{consolidation_marker(counts, ledger)}\n"


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
    from ..safety.firewall import flagged

    when = max((i.when for i in covered if i.when), default=opts.now)
    if flagged(history):
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
