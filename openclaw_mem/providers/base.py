"""The one interface a consolidation provider has."""

from __future__ import annotations

from typing import Protocol

from ..consolidate.prompt import Request
from ..consolidate.schema import Proposal


class Provider(Protocol):
    name: str
    label: str  # what the report and the commit say ran: "offline", "openai gpt-4o-mini @ …"
    context_tokens: int  # how much prompt one call may carry
    calls: int  # requests made so far (for reports and benchmarks)
    tokens_sent: int  # estimated prompt tokens sent so far

    def propose(self, request: Request) -> Proposal:
        """One save_memory answer for the request, validated; raises ProviderError."""
        ...
