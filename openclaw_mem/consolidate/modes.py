"""A run's last stage, chosen once: what becomes of a settled batch. A dry run keeps
nothing; --propose keeps it in `mem review`; a run applies it (writes, records, commits).
Both that keep something keep the edits that could not be written in `mem review` too.
Each says what the next batch starts from, and whether showing a batch to the model counts
towards passing its entries over (consolidate.max_offers: only a run that applies does)."""

from __future__ import annotations

from collections.abc import Sequence

from ..store.workspace import Workspace
from .plan import Batch
from .progress import count_offers, read_history
from .proposal import Edit
from .redaction import Redaction
from .settle import TO_REVIEW, Settled
from .write import Options, _with_paragraph, read_docs, write_batch

Written = dict[str, str] | None  # the curated files as a batch wrote them


class DryRun:
    """Write nothing: show the diff. Later batches see what earlier ones would have done."""

    review_statuses: Sequence[str] = TO_REVIEW

    def save(self, ws: Workspace, settled: Settled, opts: Options, label: str) -> Written:
        """Keep what this mode keeps; the curated files as written (None: none were)."""
        return None

    def next_start(self, ws: Workspace, settled: Settled, history: str, written: Written):
        return settled.docs, _with_paragraph(history, settled.paragraph)

    def offered(self, ws: Workspace, batch: Batch, taken: set[str]) -> None:
        return None  # a dry run or a proposal changes no count


class Propose(DryRun):
    """Keep each batch for `mem review` (--propose, or --auto with consolidate.review)."""

    review_statuses = ("review",)

    def save(self, ws: Workspace, settled: Settled, opts: Options, label: str) -> Written:
        if settled.used and not settled.edits:
            # Nothing for a person to review: a proposal of 0 edits only waited in `mem
            # review`. Its paragraph and marks are written as a run writes them.
            return Apply().save(ws, settled, opts, label)
        _keep_for_review(ws, settled, opts, label)
        if not settled.used:
            return None
        from .review import Pending, save

        shown = Redaction(opts.redact_extra)
        settled.report.proposal = save(
            new=True,
            ws=ws,
            pending=Pending.make(
                label,
                settled.paragraph,
                [t for t in settled.taken.values() if t.how != "curated"],
                [shown.edit(e) for e in settled.edits],
                [],
                settled.report.entries,
                opts,
                waits=sorted(settled.covered_ids - set(settled.waits)),
                cites=[[settled.entry_of[n] for n in e.sources] for e in settled.edits],
            ),
        )
        return None  # nothing is written until the proposal is accepted


class Apply:
    """Write, record and commit each batch."""

    review_statuses: Sequence[str] = TO_REVIEW

    def save(self, ws: Workspace, settled: Settled, opts: Options, label: str) -> Written:
        _keep_for_review(ws, settled, opts, label)
        if not settled.used:
            return None
        return write_batch(
            ws,
            opts,
            label,
            settled.edits,
            settled.paragraph,
            list(settled.taken.values()),
            settled.before,
            settled.report,
            applied=settled.docs,
        )

    def next_start(self, ws: Workspace, settled: Settled, history: str, written: Written):
        return (written if written is not None else read_docs(ws)), read_history(ws)

    def offered(self, ws: Workspace, batch: Batch, taken: set[str]) -> None:
        if batch.prompt:
            count_offers(ws, [p.id for p in batch.prompt], taken)


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


def _keep_for_review(ws: Workspace, settled: Settled, opts: Options, label: str) -> None:
    """The edits that could not be written, and what the reader refused, wait in `mem
    review` with their reasons; an entry offered again may draw the same edit again: it
    waits once."""
    from .review import Pending, save

    seen = _waiting_edits(ws)
    to_review = [o for o in settled.to_review if _edit_key(o.edit) not in seen]
    rejected = [o for o in settled.rejected if ("?", o.detail, o.edit.text) not in seen]
    if not (to_review or rejected):
        return
    entry_of = settled.entry_of
    settled.report.review = save(
        new=True,
        ws=ws,
        pending=Pending.make(
            label,
            "",
            [],
            [o.edit for o in to_review],
            rejected,
            settled.report.entries,
            opts,
            waits=settled.waits,
            reasons=[o.detail for o in to_review],
            cites=[[entry_of[n] for n in (o.edit.sources or o.edit.claimed)] for o in to_review],
        ),
    )
