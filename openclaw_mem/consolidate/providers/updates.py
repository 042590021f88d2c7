"""What the offline rules do with an update: a statement that changes what a line says
("Changed my mind: spaces everywhere now, no more tabs.", "I moved to Porto", "我搬到深圳
了，不再住在杭州。", "周会改到周三了") deprecates the line it replaces, the same way recall
decides what is superseded (search/currency.py), and says what is true now in its place.

The line replaced is a live line of the curated files, or one this run took from an earlier
entry of the batch (the entries come oldest first): the older statement is kept struck
through with the day and what replaced it, so the change is reviewable. An update that
replaces no line is a fact of its own when it reads as one ("The Atlas launch slipped to
November 17", "Henrik left the company, their new manager is Amara Okafor").
"""

from __future__ import annotations

import re

from ...format.markdown import core
from ...search.currency import Statement, read_statement, slots_of, updates

# Where a fact about a slot goes when no line said it before.
_IDENTITY = {"home", "job", "manager", "partner", "name", "email", "school", "salary"}
_PROJECT = {"meeting", "deadline", "database", "framework", "ci", "hosting", "repo_host", "chat"}
_LEAD_RE = re.compile(
    r"^(?:(?:oh|ok|okay|so|well|hmm|wait|sorry)[\s,!]+)*(?:changed\s+my\s+mind|change\s+of\s+"
    r"plans?|actually|correction|to\s+correct\s+myself|update|quick\s+update(?:\s+about\s+me)?|"
    r"不对|更正|纠正|其实)[\s,，:：!！.。–—-]*",
    re.I,
)


def section_of(text: str) -> tuple[str, str, str]:
    """(file, section, type) for an update that replaces no line, by the slot it names; a
    change said of someone or something else ("The examiner was sick, the test is now on
    November 3") is a fact, never the user's profile."""
    from ..whose import said_of

    slots = slots_of(text)
    if said_of(text, text) is not None:
        return "MEMORY", "Facts", "fact"
    if slots & _IDENTITY:
        return "USER", "Identity", "identity"
    if slots & _PROJECT or not slots:
        return "MEMORY", "Facts", "fact"
    return "USER", "Preferences", "preference"


def said_now(sentence: str) -> str:
    """The update's words as a line: its lead-in ("Changed my mind:", "Actually,", 不对，)
    left off, the first letter raised."""
    text = _LEAD_RE.sub("", " ".join(sentence.split())).strip(" ,，:：;；").rstrip(".。!！")
    return text[:1].upper() + text[1:]


def replaced(said: Statement, existing) -> object | None:
    """The live line (offline.py's _Line) an update replaces: of the lines it updates, the
    one that shares most words with it, the later on a tie (what this run took comes after
    what the files held). A rule for the agent (AGENTS.md) is never a fact a statement
    about oneself replaces."""
    found, best = None, -1
    for line in existing:
        if line.file == "AGENTS":
            continue
        before = read_statement(core(line.text))
        if updates(before, said):
            shared = len(before.words & said.words)
            if shared >= best:
                found, best = line, shared
    return found


def as_update(edit: dict | None, sentence: str, existing, added) -> dict | None:
    """The edit an update makes: the rules' own edit for the sentence (`edit`, None when no
    rule took it) as the deprecation of the line it replaces, or, when it replaces none, a
    line of its own. `added(kind_file_section_type, text)` makes an `add` edit."""
    said = read_statement(sentence)
    if not said.changes:
        return edit
    old = replaced(said, existing)
    if edit is None:
        text = said_now(sentence)
        # Too short to stand as a line: eight letters, or four Chinese characters, which
        # say as much ("搬到深圳了": moved to Shenzhen).
        if len(text) < (4 if re.search(r"[\u4e00-\u9fff]", text) else 8):
            return None
        edit = added(section_of(text), text)
    if old is not None and edit is not None:
        edit = {k: v for k, v in edit.items() if k != "section"}
        edit.update(file=old.file, op="deprecate", target=old.text)
    return edit
