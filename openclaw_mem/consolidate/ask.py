"""A run's second stage: the provider asked for one batch's answer, and what follows when it
gives none that can be used.

An answer nothing can be read from (UnusableAnswer: nothing parses, no call, no answer in
time) is asked for once more, as two halves when it was cut at the token cap or the time
limit; a batch that still has no usable answer is left pending with its reason, and the run
goes on with the next one (the command then exits 11, "partly done"). A provider that
cannot be reached at all (a refused key, no server, HTTP errors after the client's retries)
stops the run: every later batch would fail the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from ..errors import UnusableAnswer
from .plan import Batch, split
from .proposal import Proposal, Provider, Request


@dataclass(frozen=True)
class Unanswered:
    """A batch left pending: its entries are offered again by the next run."""

    entries: int  # the log entries it covered
    sent: int  # of which the model was shown
    reason: str


def ask(provider: Provider, batch: Batch, docs: dict[str, str], now: datetime) -> Proposal | None:
    """The provider's answer for a batch (None: nothing to send, the batch is noise)."""
    if not batch.prompt:
        return None
    return provider.propose(Request(tuple(batch.prompt), docs, now))


def again(batch: Batch, exc: UnusableAnswer) -> list[Batch]:
    """What to ask after an unusable answer: the batch once more (two halves when the answer
    was cut), or nothing when it was already asked twice."""
    if batch.attempt or exc.final:
        return []
    parts = split(batch) if exc.cut and len(batch.prompt) > 1 else [batch]
    return [replace(part, attempt=1, why=exc.message) for part in parts]


def left(batch: Batch, exc: UnusableAnswer) -> Unanswered:
    first = f"{batch.why}; asked again: " if batch.why and batch.why != exc.message else ""
    return Unanswered(len(batch.covered), len(batch.prompt), f"{first}{exc.message} (asked twice)")
