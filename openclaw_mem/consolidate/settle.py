"""A run's fourth stage: a judged answer applied, once, to the curated files as the run
knows them, and what follows from it: which entries are now taken (cited by an accepted
edit, said to hold nothing durable, noise never sent, or passed over after
consolidate.max_offers offers) and which stay pending, the HISTORY.md paragraph
(paragraph.py), what waits in `mem review`, and the batch's report and diff. Nothing is
written here: the mode (modes.py) decides what is kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..format.curated import ledger_field
from ..format.markdown import consolidation_marker, ledger_line
from ..store.workspace import HISTORY_FILE
from .edits import Outcome, apply_edits, records
from .judge import HANDS_OVER, Judged
from .paragraph import Fate, paragraph
from .plan import Batch
from .progress import LogEntry, Taken
from .proposal import Edit, PromptEntry, Usage
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

    @property
    def used(self) -> bool:
        return bool(self.paragraph)


def _held_why(why: str) -> str:
    """The reason a held edit waits: a rule that hands something over says so itself;
    anything else was drawn from an entry the firewall flagged."""
    if why.startswith(HANDS_OVER):
        return why
    return f"from an entry that reads like an instruction ({why})"


def settle(
    judged: Judged | None,
    batch: Batch,
    docs: dict[str, str],
    history_before: str,
    opts: Options,
    label: str,
    shown: Redaction,
    review_statuses: Sequence[str] = TO_REVIEW,
    offers: dict[str, int] | None = None,
) -> Settled:
    """One batch's answer (None: nothing was sent, the batch is noise) applied to `docs`.
    Its entries are taken only when an accepted edit cites them, the answer says they hold
    nothing durable, they were noise left out before sending, or this is the
    consolidate.max_offers-th run that showed them and took nothing (`offers`: how often
    each was shown before); every other entry stays pending and is offered again."""
    covered, prompt = batch.covered, batch.prompt
    judged = judged or Judged("", [], [], [], [])
    sent = {p.id for p in prompt}
    path_of = {c.id: c.path for c in covered}
    entry_of = {p.number: (p.id, path_of[p.id]) for p in prompt}  # E3 -> (id, log path)
    taken = {c.id: Taken(c.id, c.path, "noise") for c in covered if c.id not in sent}
    new_docs, outcomes = apply_edits(
        docs, judged.edits, opts.now.date(), opts.min_confidence, opts.redact_extra
    )
    outcomes += [Outcome(e, "review", why) for e, why in judged.review]
    held = [Outcome(e, "held", _held_why(why)) for e, why in judged.held]
    waits = _take(taken, outcomes, held, judged, entry_of)
    if opts.max_offers and offers is not None:
        _pass_over(taken, prompt, waits, offers, opts.max_offers, path_of)
    used = any(t.how != "noise" for t in taken.values()) or not prompt
    summary, paragraph = "", ""
    if used:
        applied = [o.edit for o in outcomes if o.applied]
        fate = Fate(
            len(covered),
            sum(t.how in ("dropped", "noise", "offline") for t in taken.values()),
            sum(t.how == "passed" for t in taken.values()),
            len(covered) - len(taken) - len(waits),
            opts.max_offers,
        )
        summary, paragraph = _paragraph(judged, applied, covered, taken, fate, docs, opts, label)
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
        dropped=sum(t.how in ("dropped", "offline") for t in taken.values()) if used else 0,
        passed=sum(t.how == "passed" for t in taken.values()) if used else 0,
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


def _pass_over(
    taken: dict[str, Taken],
    prompt: Sequence[PromptEntry],
    waits: Sequence[str],
    offers: dict[str, int],
    max_offers: int,
    path_of: dict[str, str],
) -> None:
    """Entries this run shows for the max_offers-th time and takes nothing from: passed."""
    for p in prompt:
        if p.id not in taken and p.id not in waits and offers.get(p.id, 0) + 1 >= max_offers:
            taken[p.id] = Taken(p.id, path_of[p.id], "passed")


def _take(
    taken: dict[str, Taken],
    outcomes: Sequence[Outcome],
    held: Sequence[Outcome],
    judged: Judged,
    entry_of: dict[int, tuple[str, str]],
) -> list[str]:
    """Record in `taken` the entries an accepted edit cites (curated) and those the answer
    drops; returns the entry ids a firewall hold keeps back."""
    for o in outcomes:
        if o.status in _TAKES:
            for n in o.edit.sources:
                taken[entry_of[n][0]] = Taken(*entry_of[n], "curated")
    # Said to hold nothing durable, unless some edit that was not accepted cites it: then a
    # person decides.
    contested = {
        n
        for o in [*outcomes, *held, *judged.rejected]
        if o.status not in _TAKES
        for n in (*o.edit.sources, *o.edit.claimed)
    }
    for n in judged.skip:
        if n not in contested and entry_of[n][0] not in taken:
            taken[entry_of[n][0]] = Taken(*entry_of[n], judged.skip_as)
    held_from = {n for e, _ in judged.held for n in (e.sources or e.claimed) if n in entry_of}
    return sorted({entry_of[n][0] for n in held_from} - set(taken))


def _paragraph(
    judged: Judged,
    applied: Sequence[Edit],
    covered: Sequence[LogEntry],
    taken: dict[str, Taken],
    fate: Fate,
    docs: dict[str, str],
    opts: Options,
    label: str,
) -> tuple[str, str]:
    """(the summary, the HISTORY.md paragraph): the summary stamped with the batch's time,
    its agent when one agent's conversation it was, and the marker saying what it took and
    what it cost."""
    history = paragraph(judged.history, applied, covered, fate, docs, opts.now)
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
    # What mem knows of each line it wrote, beside the line's words rather than in them.
    lines = ledger_field(records(applied, opts.now.date()))
    return history, f"{history}\n{consolidation_marker(counts, ledger, lines)}\n"
