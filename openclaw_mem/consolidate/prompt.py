"""What a model is told: the instructions, the current memory files, the new entries; and
how a backlog is cut into batches that fit the model's context."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

from ..errors import ConfigError
from ..format.markdown import without_sources
from ..text import estimate_tokens
from .proposal import PromptEntry, Request
from .related import related_block

ANSWER_RESERVE = 2000  # tokens left for the tool call itself

# The instructions' one worked example. Small models copy it as if it were the user's data;
# the checks hold any line or summary that repeats it (checks.repeats_example).
EXAMPLE_ENTRIES = (
    "[E1] 2025-03-02 10:00 user: hey, I just started a new job at Acme as a data engineer",
    "[E2] 2025-03-02 10:01 assistant: Congratulations!",
    "[E3] 2025-03-02 10:02 user: thanks! please keep your answers in bullet points",
)
EXAMPLE_ANSWER = {
    "history_entry": "[2025-03-02 10:02] The user started a new job at Acme as a data engineer "
    "and asked for answers in bullet points.",
    "edits": [
        {
            "file": "USER",
            "op": "add",
            "section": "Identity",
            "text": "Works at Acme as a data engineer since 2025-03",
            "target": None,
            "type": "identity",
            "importance": 0.8,
            "confidence": 0.9,
            "sources": [1],
        },
        {
            "file": "AGENTS",
            "op": "add",
            "section": "Rules",
            "text": "Answer the user in bullet points",
            "target": None,
            "type": "rule",
            "importance": 0.7,
            "confidence": 0.9,
            "sources": [3],
        },
    ],
    "skip": [2],
}

SYSTEM = (
    """You maintain an AI agent's long-term memory. It lives in Markdown files that people
also read and edit by hand:
- MEMORY.md: durable facts, projects and tools, decisions (sections Facts, Projects, Decisions)
- USER.md: who the user is (sections Identity, Preferences, Goals)
- AGENTS.md: how the agent should behave (section Rules)

Read the new log entries and call save_memory exactly once with:
- history_entry: 2-5 sentences that start with "[YYYY-MM-DD HH:MM]" (the time of the last
  entry) and say what happened, specific enough to find later with grep: names, numbers,
  dates, decisions, problems and their fixes. A summary, not the log copied.
- edits: durable knowledge only: identity, preferences, goals, projects and tools,
  decisions, rules for the agent. One fact per edit, one short sentence about the user in
  the third person ("Lives in Berlin", not "I live in Berlin"; a rule says "the user").
  Write dates as dates: "next month" said on 2025-06-03 is "in 2025-07". Do not copy a log
  entry and do not add what the files already say.
  - file: MEMORY, USER or AGENTS. op: add (give section), update or deprecate (target is the
    existing line copied exactly; deprecate when a newer statement replaces an older one
    that was once true), delete (only a line that is plainly wrong). <related> names the
    lines an entry may change: replace those rather than add a second line on one subject.
  - type: fact, preference, event, identity, goal or rule. importance and confidence: 0 to 1.
  - sources: the numbers of the entries it comes from ([E3] is 3). Every edit cites the
    entries that say it.
- skip: the numbers of the entries that hold nothing worth keeping (greetings, thanks,
  questions, small talk). Every entry is either cited by an edit or listed in skip.
USER.md is about the user alone: what another speaker says about themselves goes to MEMORY.md
under that person's name, or nowhere.
Never store secrets (keys, tokens, passwords); they appear as [REDACTED].

Example. Entries:
"""
    + "\n".join(EXAMPLE_ENTRIES)
    + """
A good call:
"""
    + json.dumps(EXAMPLE_ANSWER)
)

JSON_ONLY = """Answer with that one JSON object (history_entry, edits, skip) and nothing else."""

CORRECTIVE = (
    "You answered without calling save_memory. Call the save_memory tool now, exactly once, "
    "with history_entry and edits (an empty list if nothing durable was said)."
)


def user_message(request: Request) -> str:
    parts = [f"Today is {request.now:%Y-%m-%d %H:%M}.", ""]
    for name, text in request.documents.items():
        shown = without_sources(text).rstrip("\n")
        parts += [f'<file name="{name}">', shown, "</file>", ""]
    parts.append("<entries>")
    parts += [e.line() for e in request.entries]
    parts.append("</entries>")
    parts += related_block(request.documents, request.entries)
    return "\n".join(parts)


def messages(request: Request, json_only: bool = False) -> list[dict]:
    """The conversation: for a tool call, or (json_only) for an endpoint that takes no tools
    and must answer with the same object in its message."""
    system = f"{SYSTEM}\n\n{JSON_ONLY}" if json_only else SYSTEM
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": user_message(request)},
    ]


# What the prompt costs beyond mem's own estimate of its text, measured against llama.cpp's
# count for Qwen2.5 (bench/consolidate_live.py): the tool's schema goes in the prompt (~500
# tokens), the chat template wraps the messages and the tool in its own words (~300 with a
# tool), and estimate_tokens reads English ~15 % short. A batch cut to the estimate alone
# overflowed a 4,096-token context by up to 400 tokens.
TEMPLATE_TOKENS = 300
UNDERCOUNT = 1.15


def fixed_tokens(documents: dict[str, str]) -> int:
    """What every batch's prompt carries besides its entries: the instructions, the tool's
    schema, the chat template's own words, the memory files and the message's frame."""
    from .schema import TOOL

    text = estimate_tokens(SYSTEM) + sum(estimate_tokens(t) + 10 for t in documents.values())
    return int((text + 50) * UNDERCOUNT) + estimate_tokens(json.dumps(TOOL)) + TEMPLATE_TOKENS


def batches(
    entries: Sequence[PromptEntry],
    documents: dict[str, str],
    context_tokens: int,
    most: int = 0,
) -> list[list[PromptEntry]]:
    """Cut entries, in order, into batches whose whole prompt fits the context with the
    answer's room (CJK counted as about a token a character), `most` entries at most (0: no
    limit). An entry too long for any batch is cut short."""
    fixed = fixed_tokens(documents)
    budget = context_tokens - ANSWER_RESERVE - fixed
    if budget < 200:
        raise ConfigError(
            f"llm.context_tokens = {context_tokens} leaves no room for log entries next to the "
            f"instructions and memory files (~{fixed} tokens); raise it to the model's "
            "context size"
        )
    out: list[list[PromptEntry]] = []
    current: list[PromptEntry] = []
    used = 0
    for entry in entries:
        cost = int((estimate_tokens(entry.line()) + 1) * UNDERCOUNT)
        if cost > budget:
            keep = max(1, len(entry.text) * budget // (cost * 2))
            entry = replace(entry, text=entry.text[:keep] + " …[cut]")
            cost = int((estimate_tokens(entry.line()) + 1) * UNDERCOUNT)
        if current and (used + cost > budget or (most and len(current) >= most)):
            out.append(current)
            current, used = [], 0
        current.append(entry)
        used += cost
    if current:
        out.append(current)
    # Each batch numbers its entries from E1: what the model's `sources` cite.
    return [[replace(e, number=i) for i, e in enumerate(batch, 1)] for batch in out]
