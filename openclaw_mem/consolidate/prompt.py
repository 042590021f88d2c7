"""What a model is told: the instructions, the current memory files, the new entries; and
how a backlog is cut into batches that fit the model's context."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..errors import ConfigError
from ..proposal import PromptEntry, Request
from ..text import estimate_tokens

ANSWER_RESERVE = 2000  # tokens left for the tool call itself

SYSTEM = """You maintain an AI agent's long-term memory. It lives in Markdown files that people
also read and edit by hand:
- MEMORY.md: durable facts, projects and tools, decisions (sections such as Facts, Projects,
  Decisions)
- USER.md: who the user is (sections Identity, Preferences, Goals)
- AGENTS.md: how the agent should behave (section Rules)

Read the new log entries and call save_memory exactly once with:
- history_entry: one paragraph of 2-5 sentences that starts with "[YYYY-MM-DD HH:MM]" (the time
  of the last entry) and is specific enough to find later with grep: names, numbers, dates,
  decisions, problems and their fixes.
- edits: durable knowledge only: identity, preferences, goals, projects and tools, decisions,
  rules for the agent. Skip small talk and one-off chatter. One fact per edit, one sentence,
  in the language the user used. Do not add what the files already say.
  - add: a new line; give its section.
  - update: replace a line; target is that line copied exactly from the file.
  - deprecate: a newer statement replaces an older one that was once true (the user switched
    tools, a deadline moved); target is the old line copied exactly, text the new statement.
  - delete: only for a line that is plainly wrong (a mistake, not a change).
  - importance 0-1: how much it will matter later; confidence 0-1: how sure you are that it
    was said rather than guessed.
  - sources: the numbers of the entries it comes from (the entries are numbered [E1], [E2],
    ...; write 3 for E3). An edit must cite at least one entry of this batch.
  - Fields that do not apply are null (section for update, target for add).
USER.md is about the user alone: what another speaker says about themselves goes to MEMORY.md
under that person's name, or nowhere.
Never store secrets (keys, tokens, passwords); they appear as [REDACTED]."""

JSON_ONLY = """Answer with one JSON object and nothing else, of this shape:
{"history_entry": "[YYYY-MM-DD HH:MM] ...", "edits": [{"file": "MEMORY|USER|AGENTS",
"op": "add|update|deprecate|delete", "section": "..." or null, "text": "..." or null,
"target": "..." or null, "type": "fact|preference|event|identity|goal|rule",
"importance": 0.0-1.0, "confidence": 0.0-1.0, "sources": [entry numbers]}]}"""

CORRECTIVE = (
    "You answered without calling save_memory. Call the save_memory tool now, exactly once, "
    "with history_entry and edits (an empty list if nothing durable was said)."
)


def user_message(request: Request) -> str:
    parts = [f"Today is {request.now:%Y-%m-%d %H:%M}.", ""]
    for name, text in request.documents.items():
        parts += [f'<file name="{name}">', text.rstrip("\n"), "</file>", ""]
    parts.append("<entries>")
    parts += [e.line() for e in request.entries]
    parts.append("</entries>")
    return "\n".join(parts)


def messages(request: Request, json_only: bool = False) -> list[dict]:
    """The conversation: for a tool call, or (json_only) for an endpoint that takes no tools
    and must answer with the same object in its message."""
    system = f"{SYSTEM}\n\n{JSON_ONLY}" if json_only else SYSTEM
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": user_message(request)},
    ]


def batches(
    entries: Sequence[PromptEntry], documents: dict[str, str], context_tokens: int
) -> list[list[PromptEntry]]:
    """Cut entries, in order, into batches whose prompt fits the context (CJK counted as
    about a token a character). An entry too long for any batch is cut short."""
    fixed = estimate_tokens(SYSTEM) + sum(estimate_tokens(t) + 10 for t in documents.values()) + 50
    budget = context_tokens - ANSWER_RESERVE - fixed
    if budget < 200:
        raise ConfigError(
            f"llm.context_tokens = {context_tokens} leaves no room for log entries next to the "
            f"memory files (~{fixed} tokens); raise it to the model's context size"
        )
    out: list[list[PromptEntry]] = []
    current: list[PromptEntry] = []
    used = 0
    for entry in entries:
        cost = estimate_tokens(entry.line()) + 1
        if cost > budget:
            keep = max(1, len(entry.text) * budget // (cost * 2))
            entry = replace(entry, text=entry.text[:keep] + " …[cut]")
            cost = estimate_tokens(entry.line()) + 1
        if current and used + cost > budget:
            out.append(current)
            current, used = [], 0
        current.append(entry)
        used += cost
    if current:
        out.append(current)
    # Each batch numbers its entries from E1: what the model's `sources` cite.
    return [[replace(e, number=i) for i, e in enumerate(batch, 1)] for batch in out]
