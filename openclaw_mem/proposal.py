"""What consolidation asks a provider and what a provider answers: the one interface between
the pipeline (consolidate/) and the providers (providers/), depending on neither.

A provider gets a `Request` (the new log entries, already redacted, and the curated files as
they are now) and returns a `Proposal` (one HISTORY.md paragraph and edits to MEMORY.md,
USER.md and AGENTS.md), or raises ProviderError; nothing is written either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True)
class PromptEntry:
    cite: str  # memory/2026-11-24.md#L3-L4
    when: datetime | None
    role: str
    text: str

    def line(self) -> str:
        when = self.when.strftime("%Y-%m-%d %H:%M") if self.when else "(no time)"
        return f"[{self.cite}] {when} {self.role}: {self.text}"


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

    @property
    def filename(self) -> str:
        return f"{self.file}.md"


@dataclass(frozen=True)
class Proposal:
    history_entry: str
    edits: tuple[Edit, ...]


class Provider(Protocol):
    name: str
    label: str  # what the report and the commit say ran: "offline", "openai gpt-4o-mini @ …"
    context_tokens: int  # how much prompt one call may carry
    calls: int  # requests made so far (for reports and benchmarks)
    tokens_sent: int  # estimated prompt tokens sent so far

    def propose(self, request: Request) -> Proposal:
        """One save_memory answer for the request, validated; raises ProviderError."""
        ...
