"""What another clone's records may change here: `mem sync` hands the merge (or the
remote's commit taken as it is) to `vet` before anything is written.

HISTORY.md and memory/.consolidated say what consolidations did; any clone with push
access writes them, so what arrives is a claim about this machine's entries, not an order:
- HISTORY.md only grows by a merge. A paragraph this machine holds that the merge lacks (a
  remote that truncated the file) is put back, unless every line it recorded left the
  curated files with it (a `mem undo` there); one the remote rewrote in place (a `mem
  forget --hard` of its words) keeps the remote's words, as the count of paragraphs under
  its stamp is what it was.
- memory/.consolidated is never deleted by a merge (taken back from this machine's copy),
  and once a merge brings HISTORY.md markers of the older kind (`#L99999`) this machine
  did not have, the record is written, so they never count: the record is what counts.
- A line the remote added to the record for an entry this machine held before the merge
  retires that entry only when this machine can check it: `curated` where a line of the
  merged curated files says it (the entry holds most of the line's words: a line written
  from it, or one it repeats), `noise` where the entry is an acknowledgement
  (format/noise.py) or a repeat.
  `dropped` and `legacy` cannot be checked: left out, the entry stays pending here,
  offered once more, never lost. `offline` and `passed` retire nothing for good (the entry
  stays pending for a model, or `mem review --reoffer` offers it again).
Line records need nothing here: what mem acts on is what an entry here backs
(format/curated.py's `vouched`), whichever clone wrote it; `unbacked` counts those a
merge brought, for the report.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ..format.curated import line_key, read_records, vouched, words
from ..format.logmerge import _in_order, _paragraphs
from ..format.markdown import covered_lines, struck_text
from ..format.noise import is_noise
from ..store.workspace import CURATED_FILES, HISTORY_FILE, Workspace
from .progress import _HEADER, OFFLINE, PROGRESS_FILE

Read = Callable[[str], str | None]
_LINE_RE = re.compile(r"^([0-9a-f]{12})\s+(\w+)\b")


@dataclass(frozen=True)
class Vetted:
    """What a sync set right: HISTORY.md paragraphs put back, the record taken back from
    this machine's copy, marks of this machine's entries left out."""

    paragraphs: int = 0
    record: bool = False
    marks: int = 0

    def __bool__(self) -> bool:
        return bool(self.paragraphs or self.record or self.marks)


def vet(ours: Read, merged: Read, held: dict[str, str]) -> tuple[dict[str, str | None], Vetted]:
    """What to commit over the merge, and what that was. `held`: this machine's entries
    before the merge (id -> text)."""
    changes: dict[str, str | None] = {}
    history = merged(HISTORY_FILE) or ""
    restored, put_back = _history(ours(HISTORY_FILE) or "", history, _lines(merged))
    if put_back:
        changes[HISTORY_FILE] = history = restored
    mine, theirs = ours(PROGRESS_FILE), merged(PROGRESS_FILE)
    record, marks = False, 0
    if theirs is None:
        if mine is not None:
            changes[PROGRESS_FILE], record = mine, True
        elif covered_lines(history) != covered_lines(ours(HISTORY_FILE) or ""):
            changes[PROGRESS_FILE] = _HEADER  # the record exists: old markers no longer count
    else:
        kept, marks = _marks(mine or "", theirs, held, merged)
        if marks:
            changes[PROGRESS_FILE] = kept
    return changes, Vetted(put_back, record, marks)


def _history(ours: str, merged: str, lines: dict[tuple[str, str], str]) -> tuple[str, int]:
    """HISTORY.md as merged, with the paragraphs this machine holds that it lacks put back
    (a stamp keeps as many paragraphs as this machine had under it), and how many. A
    paragraph goes with the lines it wrote (an undo there): one whose every recorded line
    is gone from the merged curated files (`lines`) stays gone."""
    title, mine = _paragraphs(ours)
    other_title, theirs = _paragraphs(merged)
    present = Counter(p for _, p in theirs)
    under = Counter(k for k, _ in theirs)
    missing = []
    for key, paragraph in mine:
        if present[paragraph] > 0:
            present[paragraph] -= 1
        elif under[key] < sum(k == key for k, _ in mine) and not _undone(paragraph, lines):
            under[key] += 1
            missing.append((key, paragraph))
    if not missing:
        return merged, 0
    kept = [(k, n, p) for n, (k, p) in enumerate([*theirs, *missing])]
    blocks = _in_order(kept)
    return (other_title or title) + "\n\n".join(blocks) + "\n", len(missing)


def _undone(paragraph: str, lines: dict[tuple[str, str], str]) -> bool:
    """Whether a paragraph recorded lines and none of them is in the curated files."""
    records = read_records(paragraph)
    return bool(records) and not any(key in lines for key in records)


# Marks that retire nothing for good: `offline` leaves the entry pending for a model, and a
# `passed` one is offered again by `mem review --reoffer`. Leaving them out would not
# converge: the clone that wrote one keeps it, the merge driver unites the records, and
# each sync would take it out again.
_REVERSIBLE = frozenset({OFFLINE, "passed"})


def _marks(mine: str, theirs: str, held: dict[str, str], merged: Read) -> tuple[str, int]:
    """The merged record without the lines it gained for entries this machine held that
    cannot be checked here, and how many those were."""
    had = {m[1] for m in map(_LINE_RE.match, mine.splitlines()) if m}
    said: list[set[str]] | None = None
    repeated = {t for t, n in Counter(held.values()).items() if n > 1}
    kept, left_out = [], 0
    for line in theirs.splitlines(keepends=True):
        m = _LINE_RE.match(line)
        if m is None or m[1] in had or m[1] not in held or m[2] in _REVERSIBLE:
            kept.append(line)  # the entry stays pending, or `mem review --reoffer` brings it
            continue
        text = held[m[1]]
        if m[2] == "noise" and (is_noise(text) or text in repeated):
            kept.append(line)
            continue
        if m[2] == "curated":
            said = _said(merged) if said is None else said
            latin, cjk = words(text)
            if any(len(line_words & (latin | cjk)) * 2 > len(line_words) for line_words in said):
                kept.append(line)  # a line here says it (a new one, or one it repeats)
                continue
        left_out += 1
    return "".join(kept), left_out


def _said(merged: Read) -> list[set[str]]:
    """The words of each line of the merged curated files. An entry is said by a line most
    of whose words it holds: a word in common with any line ("moved", in a file that says
    "Moved to Porto") let a remote retire any entry."""
    out = []
    for line in _lines(merged).values():
        latin, cjk = words(struck_text(line))
        if latin or cjk:
            out.append(latin | cjk)
    return out


def _lines(read: Read) -> dict[tuple[str, str], str]:
    """The curated files' lines by (file, key)."""
    lines: dict[tuple[str, str], str] = {}
    for name in CURATED_FILES:
        for line in (read(name) or "").splitlines():
            if struck_text(line):
                lines.setdefault((name.removesuffix(".md"), line_key(struck_text(line))), line)
    return lines


def unbacked_here(ws: Workspace, before: str) -> int:
    """`unbacked` for the workspace as it stands, from HISTORY.md as it was `before`."""
    from ..store.fsutil import read_text
    from .progress import all_entries

    def read(rel: str) -> str | None:
        path = ws.root / rel
        return read_text(path, rel) if path.is_file() and not path.is_symlink() else None

    held = {e.id: e.entry.text for e in all_entries(ws)}
    return unbacked(before, read(HISTORY_FILE) or "", _lines(read), held)


def unbacked(before: str, after: str, lines: dict[tuple[str, str], str], held) -> int:
    """How many line records HISTORY.md gained between `before` and `after` that claim a
    line the curated files hold and that no entry here backs."""
    old = {(k, r) for k, rs in read_records(before).items() for r in rs}
    new = {k: [r for r in rs if (k, r) not in old] for k, rs in read_records(after).items()}
    new = {k: rs for k, rs in new.items() if rs and k in lines}
    backed = vouched(new, lines, held)
    return sum(len(rs) for k, rs in new.items() if k not in backed or not backed[k].checked)
