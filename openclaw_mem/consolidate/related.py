"""The lines of the curated files a batch's entries may change, shown to the model beside
the entries: a model that is not told which line a new entry bears on adds a second line
where it should replace the first (a small one always does).

A line is related to an entry when the entry updates it (search/currency.py: a word of
change and the same slot or words), or when the two name the same slot ("Lives in Lisbon"
and "I moved to Porto") or share most of the line's words.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..format.markdown import core, is_live_bullet, split_doc
from ..search.currency import read_statement, updates
from .proposal import PromptEntry

PER_ENTRY = 3  # lines shown for one entry
MOST = 15  # lines shown for a batch
SHARED = 0.5  # of a line's words an entry must say to bear on it without a shared slot
USER_ROLES = ("user", "note")


def live_lines(documents: dict[str, str]) -> list[tuple[str, str]]:
    """(file, what the line says) for every live bullet of the curated files."""
    out = []
    for name, text in documents.items():
        for line in split_doc(text).lines:
            if is_live_bullet(line):
                out.append((name.removesuffix(".md"), core(line)))
    return out


def related(
    documents: dict[str, str], entries: Sequence[PromptEntry]
) -> list[tuple[int, str, str]]:
    """(entry number, file, line) for the lines each of the user's entries may change,
    those it updates first."""
    lines = [(f, said, read_statement(said)) for f, said in live_lines(documents)]
    out: list[tuple[int, str, str]] = []
    for entry in entries:
        if entry.role not in USER_ROLES or len(out) >= MOST:
            continue
        said = read_statement(entry.text)
        scored = []
        for file, text, line in lines:
            if said.changes and updates(line, said):
                scored.append((2, file, text))
            elif line.slots & said.slots or (
                line.words and len(line.words & said.words) >= SHARED * len(line.words)
            ):
                scored.append((1, file, text))
        scored.sort(key=lambda x: -x[0])
        out += [(entry.number, f, t) for _, f, t in scored[:PER_ENTRY]]
    return out[:MOST]


def related_block(documents: dict[str, str], entries: Sequence[PromptEntry]) -> list[str]:
    """The prompt's `<related>` section (no lines when nothing is related)."""
    found = related(documents, entries)
    if not found:
        return []
    return [
        "<related>",
        "Lines already in the files that these entries may change. When an entry replaces "
        "such a line, update or deprecate it (target: the line copied exactly) instead of "
        "adding another:",
        *(f"- E{n} may change {file}: {text}" for n, file, text in found),
        "</related>",
    ]
