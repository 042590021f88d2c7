"""Apply `save_memory` edits to MEMORY.md, USER.md and AGENTS.md, deterministically.

- add: a bullet under its section (made if missing), unless the same line is already there;
- update: the target line replaced;
- deprecate: the target kept, struck through, with the date and what replaced it, and the
  replacement added right after it (superseded facts stay, and recall weighs them half);
- delete: the target removed (for plain errors only).

A target is an existing line copied exactly (bullet, source links and trailing comment may
be left off). A target that is not there is reported and skipped, never guessed; so is an
edit below the confidence threshold or one that would write a secret. Every other line,
a person's hand edit included, is left exactly as it was. A line written reads as prose
with its sources as links (`- Likes tea [2026-11-30](memory/2026-11-30.md#L3-L4)`); what else
mem knows of it goes into the batch's HISTORY.md marker (format/curated.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date

from ..format.curated import LineRecord, line_key
from ..format.markdown import (
    bullet_prefix,
    core,
    heading,
    source_links,
    split_doc,
    strike,
    struck_text,
)
from ..safety.secrets import has_secret
from ..text import without_controls
from .proposal import Edit

WITHHELD = "[withheld: it held a secret]"
DEFAULT_SECTION = {
    "identity": "Identity",
    "preference": "Preferences",
    "goal": "Goals",
    "fact": "Facts",
    "event": "Events",
    "rule": "Rules",
}


@dataclass(frozen=True)
class Outcome:
    edit: Edit
    status: str  # applied | duplicate | conflict | missing-target | ambiguous-target |
    # low-confidence | secret
    detail: str = ""

    @property
    def applied(self) -> bool:
        return self.status == "applied"


def _key(line: str) -> str:
    return core(line).casefold()


def _said(line: str) -> str:
    """What a line says, struck through or not: a deprecated fact counts as already there."""
    return struck_text(line).casefold()


def _bullet(edit: Edit, indent: str = "", marker: str = "-") -> str:
    """The line as a person would write it, its sources as links an editor opens; what
    else mem knows of it goes into the batch's HISTORY.md marker (`record`). Only a line
    one agent's entries gave says whose it is: private to that agent when
    agents.isolation = isolated."""
    cites = [c for c in edit.origin.split(",") if c] if edit.origin else []
    owner = f" <!-- agent: {edit.agent} -->" if edit.agent else ""
    return f"{indent}{marker} {core(edit.text)}{source_links(cites)}{owner}"


def record(edit: Edit, day: date) -> LineRecord:
    """What the ledger keeps of the line an applied edit wrote (see format/curated.py)."""
    return LineRecord(
        edit.file,
        line_key(core(edit.text)),
        edit.type,
        edit.importance,
        edit.confidence,
        edit.on or day,
        tuple(edit.ids),
    )


def records(applied: Sequence[Edit], day: date) -> list[LineRecord]:
    """The records of the lines these applied edits wrote (an add, an update, a
    replacement)."""
    return [record(e, day) for e in applied if e.text and e.op in ("add", "update", "deprecate")]


def _find_target(lines: list[str], target: str) -> int | str:
    """The index of the one line the target names, or why there is none: a target that
    matches nothing, or several lines, is not guessed at."""
    found = [i for i, line in enumerate(lines) if line.rstrip("\r").strip() == target.strip()]
    if not found:
        want = _key(target)
        found = [
            i
            for i, line in enumerate(lines)
            if want and _key(line) == want and heading(line) is None
        ]
    if not found:
        return "missing-target"
    if len(found) > 1:
        return "ambiguous-target"
    return found[0]


def _section_bounds(lines: list[str], title: str) -> tuple[int, int] | None:
    """(heading index, index of the next heading or len) of the section called title."""
    want = title.casefold().strip()
    for i, line in enumerate(lines):
        h = heading(line)
        if h and h[1].casefold() == want and h[0] > 1:
            for j in range(i + 1, len(lines)):
                h2 = heading(lines[j])
                if h2 and h2[0] <= h[0]:
                    return i, j
            return i, len(lines)
    return None


def _add_line(lines: list[str], section: str, bullet: str) -> None:
    """Insert a bullet at the end of a section (made at the end of the file if missing).
    Only inserts: no existing line, blank ones included, moves or goes."""
    bounds = _section_bounds(lines, section)
    if bounds is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [f"## {section}", "", bullet]
        return
    i, j = bounds
    body = [k for k in range(i + 1, j) if lines[k].strip()]
    if body:
        lines.insert(body[-1] + 1, bullet)
        return
    if i + 1 < len(lines) and not lines[i + 1].strip():
        pos = i + 2
        lines.insert(pos, bullet)
    else:
        lines[i + 1 : i + 1] = ["", bullet]
        pos = i + 2
    if pos + 1 < len(lines) and lines[pos + 1].strip():
        lines.insert(pos + 1, "")  # keep a blank line before the next heading


def apply_to_text(
    text: str,
    edits: Sequence[Edit],
    day: date,
    min_confidence: float = 0.5,
    redact_extra: Sequence[str] = (),
) -> tuple[str, list[Outcome]]:
    """Apply the edits meant for one file to its text."""
    doc = split_doc(text)
    lines = list(doc.lines)
    checked: list[tuple[Edit, str | None, str]] = []
    for edit in edits:
        # A model's (or a log's) escape sequences and bidi controls never enter the file.
        text, section = without_controls(edit.text), without_controls(edit.section)
        edit = replace(edit, text=text, section=section)
        if has_secret(f"{edit.text}\n{edit.target}\n{edit.section}", redact_extra):
            # Withheld here, first, where it is refused: no report, commit message, review
            # proposal or terminal line downstream can quote what it was.
            hidden = replace(edit, text=WITHHELD, target=WITHHELD if edit.target else "")
            checked.append((hidden, "secret", "it held a secret"))
        elif edit.confidence < min_confidence:
            checked.append((edit, "low-confidence", f"confidence {edit.confidence:.2g}"))
        else:
            checked.append((edit, None, ""))
    # A batch that replaces a line and then writes it again contradicts itself: applying
    # it twice would flip-flop, so neither side is applied (and the batch stays
    # idempotent). Writing a line and then replacing it is history, told in order: an
    # earlier entry's fact, struck through by a later entry's update.
    live = [(i, e) for i, (e, status, _) in enumerate(checked) if status is None]
    written = {_key(e.text): i for i, e in reversed(live) if e.text}  # first writer
    replaced = {_key(e.target): i for i, e in live if e.op != "add"}  # last replacer
    outcomes: list[Outcome] = []
    for i, (edit, status, detail) in enumerate(checked):
        if status is None and (
            (edit.op != "add" and written.get(_key(edit.target), -1) >= i)
            or (edit.text and replaced.get(_key(edit.text), len(checked)) < i)
        ):
            status, detail = "conflict", "the batch both writes and replaces this line"
        if status is not None:
            outcomes.append(Outcome(edit, status, detail))
            continue
        section = edit.section or DEFAULT_SECTION[edit.type]
        if edit.op == "add":
            if any(_said(line) == _key(edit.text) for line in lines):
                outcomes.append(Outcome(edit, "duplicate", "already there"))
                continue
            _add_line(lines, section, _bullet(edit))
            outcomes.append(Outcome(edit, "applied"))
            continue
        idx = _find_target(lines, edit.target)
        if isinstance(idx, str):
            detail = "no such line" if idx == "missing-target" else "several lines match"
            outcomes.append(Outcome(edit, idx, f"{detail}: {edit.target[:60]!r}"))
            continue
        old = lines[idx]
        indent, marker = bullet_prefix(old)
        if edit.op in ("update", "deprecate") and _key(old) == _key(edit.text):
            outcomes.append(Outcome(edit, "duplicate", "already says that"))
            continue
        if edit.op == "update":
            if any(_said(line) == _key(edit.text) for line in lines):
                del lines[idx]  # the new wording is already there: the old line just goes
            else:
                lines[idx] = _bullet(edit, indent, marker)
        elif edit.op == "deprecate":
            # Struck on the day the update was said (its newest source), not the run's.
            gone = min(edit.on, day) if edit.on else day
            lines[idx] = strike(old, gone, replacement=core(edit.text) if edit.text else "")
            if edit.text and not any(_said(line) == _key(edit.text) for line in lines):
                lines.insert(idx + 1, _bullet(edit, indent, marker))
        elif edit.op == "delete":
            del lines[idx]
        outcomes.append(Outcome(edit, "applied"))
    _drop_empty_new_sections(lines, doc.lines)
    return doc.text(lines), outcomes


def _drop_empty_new_sections(lines: list[str], before: Sequence[str]) -> None:
    """A section this batch made whose line a later edit of the batch took away again
    (written, then replaced by wording already there) goes too: the file is then what a
    second application of the same edits leaves."""
    had = {heading(x) for x in before if heading(x)}
    for title in [h[1] for x in lines if (h := heading(x)) and h not in had and h[0] > 1]:
        bounds = _section_bounds(lines, title)
        if bounds and not any(x.strip() for x in lines[bounds[0] + 1 : bounds[1]]):
            i, j = bounds
            # The blank lines that set the heading apart, but not those the file ended with
            # before the section was made after them (a person's "# USER\n\n").
            keep = _trailing_blanks(before) if j == len(lines) else 0
            while i > keep and not lines[i - 1].strip() and _trailing_blanks(lines[:i]) > keep:
                i -= 1
            del lines[i:j]


def _trailing_blanks(lines: Sequence[str]) -> int:
    n = 0
    while n < len(lines) and not lines[len(lines) - 1 - n].strip():
        n += 1
    return n


def apply_edits(
    docs: dict[str, str],
    edits: Sequence[Edit],
    day: date,
    min_confidence: float = 0.5,
    redact_extra: Sequence[str] = (),
) -> tuple[dict[str, str], list[Outcome]]:
    """Apply edits to {filename: text}; returns the new texts and one outcome per edit, in
    the order the edits came."""
    new = dict(docs)
    by_edit: dict[int, Outcome] = {}
    for name in docs:
        mine = [(i, e) for i, e in enumerate(edits) if e.filename == name]
        if not mine:
            continue
        base = docs[name] or f"# {name.removesuffix('.md')}\n"  # a missing file starts titled
        new[name], outs = apply_to_text(
            base, [e for _, e in mine], day, min_confidence, redact_extra
        )
        if new[name] == base:
            new[name] = docs[name]
        for (i, _), out in zip(mine, outs, strict=True):
            by_edit[i] = out
    return new, [by_edit[i] for i in range(len(edits))]
