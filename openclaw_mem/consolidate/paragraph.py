"""A batch's HISTORY.md paragraph: a summary stamped with the time of the batch's last
entry (never the time the run happened), in the third person, never a copy of the log.

The model's summary is kept when it passes the same kind of checks an edit does: it says
what the entries (or the memory files) say, at least a third of its content words being
theirs; it is not the instructions' example; it speaks of the user, not as them; and it is
not one of the entries copied. Otherwise the paragraph is made of what was kept, and when
nothing was, of what became of the entries, every count true.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..format.markdown import HISTORY_STAMP_RE, core, history_stamp
from ..text import plural
from .checks import content, first_person, repeats_example, same_script
from .progress import LogEntry
from .proposal import Edit

_ROLE_RE = re.compile(r"^(?:\[?E\d+\]?\s*)?(?:user|assistant|system|note)\s*:\s*", re.I)
_CJK_START_RE = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff]")
COPY_RATIO = 0.8  # a summary this alike to one entry's text is that entry copied


@dataclass(frozen=True)
class Fate:
    """What became of a batch's entries: the counts a fallback paragraph states."""

    entries: int
    nothing: int  # dropped by the answer, or noise never sent
    passed: int  # passed over after consolidate.max_offers offers
    pending: int  # stay pending, offered again
    offers: int = 0  # consolidate.max_offers


def paragraph(
    summary: str,
    applied: Sequence[Edit],
    covered: Sequence[LogEntry],
    fate: Fate,
    known: dict[str, str],
    now: datetime,
) -> str:
    """The paragraph (without its marker): the model's `summary` restamped when it fits,
    else one made of the `applied` lines or the batch's `fate`. `known`: the memory files,
    whose names a summary may use."""
    from ..safety.firewall import flagged

    when = max((c.when for c in covered if c.when), default=now)
    stamp = history_stamp(when)
    body = _body(summary)
    if body and flagged(body):
        # HISTORY.md is recalled into prompts like any curated file: a summary that
        # quotes a payload would plant it there. The entries stay in the log.
        return (
            f"{stamp} {plural(fate.entries, 'log entry')}; the summary quoted text that "
            "reads like an instruction to the agent and was left out (`mem audit` lists "
            "such lines)."
        )
    if body and why_not(body, covered, known) is None:
        from ..format.dates import resolve_relative

        return f"{stamp} {resolve_relative(body, when.date())}"  # "yesterday", months later
    told = told_of(applied, covered, fate)
    if told:
        return f"{stamp} {told}"
    return f"{stamp} {_counts(fate)}"


MOST_TOLD = 5  # lines a paragraph retells; the rest are in the commit


def told_of(applied: Sequence[Edit], covered: Sequence[LogEntry], fate: Fate) -> str:
    """The lines kept, retold as history: who they are about named, the user's facts as one
    sentence ("The user moved to Porto, is allergic to peanuts and has a sister named Ana."),
    the rest with their own subjects, and what became of the batch's other entries."""
    from .person import verb_first

    about_user, others = [], []
    # A line the batch took and a later statement of it struck is no fact of the paragraph,
    # which is stamped with the batch's last entry: it would read as the latest word.
    struck = {" ".join(core(e.target).split()) for e in applied if e.op == "deprecate" and e.target}
    kept = [
        e for e in applied if e.text and not (e.op == "add" and " ".join(e.text.split()) in struck)
    ]
    for edit in kept[:MOST_TOLD]:
        text = " ".join(edit.text.split()).rstrip(".。")
        if _CJK_START_RE.match(text) and edit.file == "AGENTS":
            others.append(f"用户要求：{text}")  # a rule for the agent, not a fact of the user
        elif _CJK_START_RE.match(text):
            others.append(text if text.startswith("用户") else f"用户{text}")
        elif edit.file == "AGENTS":
            others.append(f"The user asked the agent: {text[:1].lower()}{text[1:]}")
        elif edit.file == "MEMORY" and text.startswith("User "):
            about_user.append(text[5:])
        elif edit.file == "USER" and verb_first(text):
            about_user.append(text[:1].lower() + text[1:])
        elif edit.file == "USER":
            others.append(f"Of the user: {text}")
        else:
            others.append(text)
    if not about_user and not others:
        return ""
    sentences = []
    if about_user:
        listed = ", ".join(about_user[:-1]) + (" and " if len(about_user) > 1 else "")
        sentences.append(f"The user {listed}{about_user[-1]}")
    sentences += others
    speakers = sorted({c.entry.role for c in covered} - {"user", "assistant", "system", "note"})
    lead = f"Talking with {', '.join(speakers)}: " if speakers else ""
    rest = f" {_counts(fate)}" if fate.nothing or fate.pending or fate.passed else ""
    ends = [f"{x}。" if _CJK_START_RE.match(x[-1:]) else f"{x}." for x in sentences]
    return lead + " ".join(ends) + rest


def _body(summary: str) -> str:
    """The summary without its stamp and a speaker's prefix (the log line itself)."""
    text = " ".join(summary.split())
    m = HISTORY_STAMP_RE.match(text)
    rest = text[m.end() :].strip() if m else text
    return _ROLE_RE.sub("", rest).strip()


def why_not(body: str, covered: Sequence[LogEntry], known: dict[str, str]) -> str | None:
    """Why a summary cannot stand for the batch, or None."""
    if repeats_example(body):
        return "it repeats the instructions' example"
    if first_person(body):
        return "it speaks as the user"
    said = content(body)
    heard = set().union(*(content(c.entry.text) for c in covered)) if covered else set()
    if said and heard and same_script(said, heard):
        named = set().union(*(content(t) for t in known.values())) if known else set()
        if len(said & (heard | named)) * 3 < len(said):
            return "it says little the entries say"
    flat = body.casefold()
    for c in covered:
        text = " ".join(c.entry.text.split()).casefold()
        if len(text) > 40 and difflib.SequenceMatcher(None, flat, text).ratio() >= COPY_RATIO:
            return "it is a log entry copied"
    return None


def _counts(fate: Fate) -> str:
    """What became of the entries, when nothing from them was kept."""
    parts = []
    if fate.nothing:
        parts.append(
            f"{plural(fate.nothing, 'log entry')} of {fate.entries} held nothing to keep "
            "(acknowledgements, fillers, repeats and small talk)"
        )
    if fate.passed:
        parts.append(
            f"{plural(fate.passed, 'log entry')} passed over after {fate.offers} offers "
            "that kept nothing"
        )
    if fate.pending:
        parts.append(f"{plural(fate.pending, 'log entry')} still pending")
    text = "; ".join(parts) or f"{plural(fate.entries, 'log entry')}, nothing kept"
    return text[:1].upper() + text[1:] + "."
