"""Apply `save_memory` edits to MEMORY.md, USER.md and AGENTS.md, deterministically.

- add: a bullet under its section (made if missing), unless the same line is already there;
- update: the target line replaced;
- deprecate: the target kept, struck through, with the date and what replaced it, and the
  replacement added right after it (superseded facts stay, and recall weighs them half);
- delete: the target removed (for plain errors only).

A target is an existing line copied exactly (bullet and trailing metadata comment may be
left off). A target that is not there is reported and skipped, never guessed; so is an
edit below the confidence threshold or one that would write a secret. Every other line,
a person's hand edit included, is left exactly as it was. Metadata stays out of the
reader's way in a trailing HTML comment: `<!-- preference i=0.6 c=0.8 2026-11-30 -->`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from .redact import has_secret
from .schema import Edit

DEFAULT_SECTION = {
    "identity": "Identity",
    "preference": "Preferences",
    "goal": "Goals",
    "fact": "Facts",
    "event": "Events",
    "rule": "Rules",
}
BULLET_RE = re.compile(r"^(?P<indent>\s*)(?P<marker>[-*+]|\d{1,3}[.)])\s+")
_COMMENT_RE = re.compile(r"\s*<!--.*?-->\s*$")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


@dataclass(frozen=True)
class Outcome:
    edit: Edit
    status: str  # applied | duplicate | conflict | missing-target | ambiguous-target |
    # low-confidence | secret
    detail: str = ""

    @property
    def applied(self) -> bool:
        return self.status == "applied"


def core(line: str) -> str:
    """A line's content: no bullet marker, no trailing metadata comment, spaces collapsed."""
    text = _COMMENT_RE.sub("", line.rstrip("\r"))
    text = BULLET_RE.sub("", text, count=1)
    return " ".join(text.split())


def _key(line: str) -> str:
    return core(line).casefold()


_STRUCK_RE = re.compile(r"^~~(?P<old>.*?)~~(?:\s*\(deprecated[^)]*\))?$")


def _said(line: str) -> str:
    """What a line says, struck through or not: a deprecated fact counts as already there."""
    k = core(line)
    m = _STRUCK_RE.match(k)
    return (m["old"] if m else k).strip().casefold()


def _meta(edit: Edit, day: date) -> str:
    return f"<!-- {edit.type} i={edit.importance:.2g} c={edit.confidence:.2g} {day.isoformat()} -->"


def _clean(text: str) -> str:
    return core(text).strip()


def _bullet(edit: Edit, day: date, indent: str = "", marker: str = "-") -> str:
    return f"{indent}{marker} {_clean(edit.text)} {_meta(edit, day)}"


def _find_target(lines: list[str], target: str) -> int | str:
    """The index of the one line the target names, or why there is none: a target that
    matches nothing, or several lines, is not guessed at."""
    found = [i for i, line in enumerate(lines) if line.rstrip("\r").strip() == target.strip()]
    if not found:
        want = _key(target)
        found = [
            i
            for i, line in enumerate(lines)
            if want and _key(line) == want and not _HEADING_RE.match(line)
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
        m = _HEADING_RE.match(line)
        if m and m[2].casefold() == want and len(m[1]) > 1:
            level = len(m[1])
            for j in range(i + 1, len(lines)):
                h = _HEADING_RE.match(lines[j])
                if h and len(h[1]) <= level:
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


def split_lines(text: str) -> tuple[list[str], str]:
    """Lines without their endings, and the file's newline ("\\r\\n" or "\\n")."""
    newline = "\r\n" if "\r\n" in text else "\n"
    body = text.replace("\r\n", "\n")
    if body.endswith("\n"):
        body = body[:-1]
    return (body.split("\n") if body else []), newline


def apply_to_text(
    text: str,
    edits: Sequence[Edit],
    day: date,
    min_confidence: float = 0.5,
    redact_extra: Sequence[str] = (),
) -> tuple[str, list[Outcome]]:
    """Apply the edits meant for one file to its text."""
    lines, newline = split_lines(text)
    checked: list[tuple[Edit, str | None, str]] = []
    for edit in edits:
        if edit.confidence < min_confidence:
            checked.append((edit, "low-confidence", f"confidence {edit.confidence:.2g}"))
        elif edit.text and has_secret(edit.text, redact_extra):
            checked.append((edit, "secret", "the text holds a secret"))
        else:
            checked.append((edit, None, ""))
    # A batch that both writes a line and replaces it contradicts itself: applying it twice
    # would flip-flop, so neither side is applied (and the batch stays idempotent).
    live = [e for e, status, _ in checked if status is None]
    written = {_key(e.text) for e in live if e.text}
    replaced = {_key(e.target) for e in live if e.op != "add"}
    outcomes: list[Outcome] = []
    for edit, status, detail in checked:
        if status is None and (
            (edit.op != "add" and _key(edit.target) in written)
            or (edit.text and _key(edit.text) in replaced)
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
            _add_line(lines, section, _bullet(edit, day))
            outcomes.append(Outcome(edit, "applied"))
            continue
        idx = _find_target(lines, edit.target)
        if isinstance(idx, str):
            detail = "no such line" if idx == "missing-target" else "several lines match"
            outcomes.append(Outcome(edit, idx, f"{detail}: {edit.target[:60]!r}"))
            continue
        old = lines[idx].rstrip("\r")
        m = BULLET_RE.match(old)
        indent, marker = (m["indent"], m["marker"]) if m else ("", "-")
        if edit.op in ("update", "deprecate") and _key(old) == _key(edit.text):
            outcomes.append(Outcome(edit, "duplicate", "already says that"))
            continue
        if edit.op == "update":
            if any(_said(line) == _key(edit.text) for line in lines):
                del lines[idx]  # the new wording is already there: the old line just goes
            else:
                lines[idx] = _bullet(edit, day, indent, marker)
        elif edit.op == "deprecate":
            comment = _COMMENT_RE.search(old)
            pointer = f" → {_clean(edit.text)}" if edit.text else ""
            struck = f"{indent}{marker} ~~{core(old)}~~ (deprecated {day.isoformat()}{pointer})"
            lines[idx] = struck + (" " + comment[0].strip() if comment else "")
            if edit.text and not any(_said(line) == _key(edit.text) for line in lines):
                lines.insert(idx + 1, _bullet(edit, day, indent, marker))
        elif edit.op == "delete":
            del lines[idx]
        outcomes.append(Outcome(edit, "applied"))
    new = newline.join(lines) + (newline if lines else "")
    return new, outcomes


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


def is_struck(line: str) -> bool:
    return core(line).startswith("~~")
