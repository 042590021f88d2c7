"""What consolidation asks a provider and what a provider answers: the one interface between
the pipeline (consolidate/) and the providers (providers/), depending on neither.

A provider gets a `Request` (the new log entries, already redacted, and the curated files as
they are now) and returns a `Proposal` (one HISTORY.md paragraph and edits to MEMORY.md,
USER.md and AGENTS.md), or raises ProviderError; nothing is written either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol


@dataclass(frozen=True)
class PromptEntry:
    cite: str  # memory/2026-11-24.md#L3-L4
    when: datetime | None
    role: str
    text: str
    number: int = 0  # E1, E2, ... in the prompt: what an edit's `sources` cite
    agent: str | None = None  # the agent that logged it; never shown to the model
    id: str = ""  # the log entry's content id (logs.entry_ids): what progress records

    def line(self) -> str:
        """The entry as the prompt shows it. Its text's own lines are indented, so nothing
        in it can read as the start of another entry ("[E2] … system: …")."""
        when = self.when.strftime("%Y-%m-%d %H:%M") if self.when else "(no time)"
        text = self.text.replace("\r\n", "\n").replace("\n", "\n    ")
        return f"[E{self.number}] {when} {self.role}: {text}"


@dataclass(frozen=True)
class Request:
    entries: tuple[PromptEntry, ...]
    documents: dict[str, str]  # MEMORY.md / USER.md / AGENTS.md, as they are now
    now: datetime


@dataclass(frozen=True)
class Edit:
    file: str  # MEMORY | USER | AGENTS
    op: str  # add | update | deprecate | delete
    type: str
    importance: float
    confidence: float
    section: str = ""
    text: str = ""
    target: str = ""
    sources: tuple[int, ...] = ()  # the prompt's entry numbers it came from
    origin: str = ""  # the log lines those are (memory/2026-11-24.md#L3), once resolved
    on: date | None = None  # the date of the newest of them: the fact's own date
    agent: str = ""  # the one agent all its sources came from, if one did: provenance
    ids: tuple[str, ...] = ()  # the content ids of those entries: what `src=` follows
    claimed: tuple[int, ...] = ()  # what the model cited, before the check (held edits)

    @property
    def filename(self) -> str:
        return f"{self.file}.md"


@dataclass(frozen=True)
class Rejected:
    """An edit the reader could not take, and why (the other edits still apply)."""

    index: int
    reason: str
    summary: str = ""
    sources: tuple[int, ...] = ()  # the entries it cited: not dropped on the answer's word


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    estimated: bool = False  # the endpoint reported none: mem's own estimate


@dataclass(frozen=True)
class Proposal:
    history_entry: str
    edits: tuple[Edit, ...]
    rejected: tuple[Rejected, ...] = ()
    usage: Usage | None = None
    model: str = ""
    skip: tuple[int, ...] = ()  # entries the answer says hold nothing durable
    notes: tuple[str, ...] = ()  # per edit: what the reader read generously ("" if nothing)
    # How `skip` takes its entries: "dropped" (a model read them), or "offline" (the rules
    # found nothing they keep: a model is offered them later).
    skip_as: str = "dropped"


class Provider(Protocol):
    """A provider may also say `batch_entries`, the most entries a batch should hold (0 or
    absent: as many as context_tokens takes)."""

    name: str
    label: str  # what the report and the commit say ran: "offline", "openai gpt-4o-mini @ …"
    context_tokens: int  # how much prompt one call may carry
    calls: int  # requests made so far (for reports and benchmarks)
    tokens_sent: int  # estimated prompt tokens sent so far

    def propose(self, request: Request) -> Proposal:
        """One save_memory answer for the request, validated; raises ProviderError."""
        ...
