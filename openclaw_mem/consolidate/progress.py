"""Which log entries are consolidated: a set of entry ids, committed with the workspace.

`memory/.consolidated` holds one line per entry that consolidation has taken:

    3f9a0c1e22b7 curated memory/2026-12-01.md

`curated` (an accepted edit cites it), `dropped` (the model or a person in `mem review` said
it holds nothing durable), `offline` (the offline rules found nothing they keep in it: taken
for the rules, still pending for a model, which a later run with one is offered), `noise`
(an acknowledgement or a repeat, left out before sending), `passed` (shown to a model in
consolidate.max_offers runs that neither cited nor skipped it: passed over, nothing kept;
`mem review --reoffer` takes these lines out again) or `legacy` (covered by a line-number
marker of an older mem). Ids come from each entry's content (logs.entry_ids), so the record
means the same after a merge that moves entries around; the file only grows, so git's union
merge keeps both sides' lines. An entry nobody took stays pending and is offered again:
nothing is consumed unless it was curated, deliberately dropped, or passed over after so
many offers (how often each pending entry was shown is counted in .mem/offered.json:
derived, per machine). `mem undo` reverts a consolidation's lines with its edits.

Workspaces from before this record have HISTORY.md markers naming the last line each run
read (`<!-- consolidated: memory/2026-11-24.md#L19 -->`); they count until the first record
is written, which takes over what they covered.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..errors import BadEncoding
from ..format.logs import Entry, entry_ids, read_entries
from ..format.markdown import citation, covered_lines, markers, stamp_time
from ..store.fsutil import SymlinkRefused, append_locked, read_text
from ..store.workspace import HISTORY_FILE, Workspace, day_of

PROGRESS_FILE = "memory/.consolidated"
HOW = ("curated", "dropped", "noise", "passed", "legacy", "offline")
OFFLINE = "offline"  # passed over by the offline rules: pending still for a model
OFFERS_FILE = "offered.json"  # in .mem/: entry id -> runs that showed it and took nothing
_HEADER = (
    "# mem: the log entries consolidation has taken, one id a line (union-merged; delete a\n"
    "# line to have that entry offered again)\n"
)
_LINE_RE = re.compile(r"^([0-9a-f]{12})\s+(\w+)\b")


@dataclass(frozen=True)
class LogEntry:
    """A daily-log entry with where it lives and its content id."""

    path: str  # workspace-relative
    entry: Entry
    id: str = ""

    @property
    def when(self) -> datetime | None:
        return self.entry.when

    @property
    def cite(self) -> str:
        return citation(self.path, self.entry.start_line, self.entry.end_line)


@dataclass(frozen=True)
class Taken:
    """An entry a consolidation takes, and how."""

    id: str
    path: str
    how: str  # one of HOW


def read_history(ws: Workspace) -> str:
    path = ws.root / HISTORY_FILE
    return read_text(path, HISTORY_FILE) if path.exists() else ""


def last_consolidation(history_text: str) -> str | None:
    """The `[YYYY-MM-DD HH:MM]` stamp of the newest paragraph that carries a marker."""
    last = None
    for para in re.split(r"\n\s*\n", history_text):
        if next(markers(para), None) is not None:
            when = next(filter(None, map(stamp_time, para.split("\n"))), None)
            if when is not None:
                last = f"{when:%Y-%m-%d %H:%M}"
    return last


def taken_ids(ws: Workspace, for_model: bool = False) -> set[str] | None:
    """The ids in the record; None when there is no record yet (an older workspace).
    `for_model`: what a model run counts as taken, which leaves out what only the offline
    rules passed over."""
    try:
        path = ws.inside(PROGRESS_FILE)
    except SymlinkRefused:
        return None  # memory/ is a link: nothing mem reads through it
    if not path.is_file():
        return None
    out = set()
    for line in read_text(path, PROGRESS_FILE).splitlines():
        m = _LINE_RE.match(line)
        if m and not (for_model and m[2] == OFFLINE):
            out.add(m[1])
    return out


def all_entries(ws: Workspace, warnings: list[str] | None = None) -> list[LogEntry]:
    """Every daily-log entry with its id, oldest day first, then in file order."""
    out: list[LogEntry] = []
    for path in ws.day_files():
        rel = ws.rel(path)
        try:
            entries = read_entries(path, day_of(path), rel)
        except BadEncoding as exc:
            if warnings is not None:
                warnings.append(exc.message)
            continue
        out += [LogEntry(rel, e, i) for e, i in zip(entries, entry_ids(entries), strict=True)]
    return out


def _legacy(ws: Workspace, entries: Iterable[LogEntry]) -> list[LogEntry]:
    covered = covered_lines(read_history(ws))
    return [e for e in entries if e.entry.start_line <= covered.get(e.path, 0)]


def pending_entries(
    ws: Workspace, warnings: list[str] | None = None, for_model: bool = False
) -> list[LogEntry]:
    """Entries not yet consolidated, in file order (oldest day first, then line order);
    `for_model`: with those only the offline rules passed over, which a model is offered."""
    entries = _unforgotten(ws, all_entries(ws, warnings))
    taken = taken_ids(ws, for_model)
    if taken is None:
        done = {e.id for e in _legacy(ws, entries)}
        return [e for e in entries if e.id not in done]
    return [e for e in entries if e.id not in taken]


def _unforgotten(ws: Workspace, entries: list[LogEntry]) -> list[LogEntry]:
    """What `mem forget` hid is no one's to consolidate: "I'm allergic to shellfish",
    forgotten before a run, became a live USER.md line and every brief's profile."""
    from ..format.forgotten import hidden_in
    from ..search.tokenize import content_words

    hidden = hidden_in(ws)
    if not hidden:
        return entries
    return [
        e
        for e in entries
        if e.id not in hidden.ids
        and not (e.entry.id and e.entry.id in hidden.ids)
        and not hidden.says(content_words(e.entry.text))
    ]


def record(ws: Workspace, taken: Sequence[Taken]) -> bool:
    """Append the entries taken to the record (the first record also takes over what the
    older line markers covered). Returns whether anything was written."""
    path = ws.inside(PROGRESS_FILE)  # never through a link
    todo = list(taken)
    if taken_ids(ws) is None:
        todo = [Taken(e.id, e.path, "legacy") for e in _legacy(ws, all_entries(ws))] + todo

    def render(existing: bytes) -> bytes:
        have: dict[str, str] = {}  # id -> how it was taken (any way but offline wins)
        for m in map(_LINE_RE.match, existing.decode("utf-8", "replace").splitlines()):
            if m and have.get(m[1]) in (None, OFFLINE):
                have[m[1]] = m[2]
        lines = []
        for t in todo:
            # An entry the offline rules passed over is taken again by a model's run.
            if t.id not in have or (have[t.id] == OFFLINE and t.how != OFFLINE):
                have[t.id] = t.how
                lines.append(f"{t.id} {t.how} {t.path}\n")
        if not lines:
            return b""
        head = _HEADER if not existing else ("" if existing.endswith(b"\n") else "\n")
        return (head + "".join(lines)).encode("utf-8")

    _, data = append_locked(path, render)
    return bool(data)


def read_offers(ws: Workspace) -> dict[str, int]:
    """How many runs showed each entry to a model and took nothing from it."""
    import json

    path = ws.state_dir / OFFERS_FILE
    try:
        data = json.loads(read_text(path, OFFERS_FILE))
    except (OSError, ValueError, BadEncoding):  # none yet, or unreadable: counted afresh
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, int) and v > 0}


def count_offers(ws: Workspace, shown: Iterable[str], taken: set[str]) -> None:
    """One more offer for each entry shown and not taken; taken entries are forgotten."""
    import json

    from ..store.fsutil import atomic_write_text

    offers = read_offers(ws)
    for i in shown:
        if i not in taken:
            offers[i] = offers.get(i, 0) + 1
    kept = {k: v for k, v in offers.items() if k not in taken}
    try:
        ws.state_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(ws.state_dir / OFFERS_FILE, json.dumps(kept, sort_keys=True))
    except OSError:
        pass  # a read-only .mem/: the count starts again next time, nothing is lost


def left_for_model(ws: Workspace) -> int:
    """How many entries only the offline rules took (they kept nothing of them): a run with
    a model is offered them."""
    hows: dict[str, set[str]] = {}
    for ident, how in _record(ws):
        hows.setdefault(ident, set()).add(how)
    return sum(h == {OFFLINE} for h in hows.values())


def _record(ws: Workspace) -> list[tuple[str, str]]:
    try:
        path = ws.inside(PROGRESS_FILE)
    except SymlinkRefused:
        return []
    if not path.is_file():
        return []
    return [
        (m[1], m[2]) for m in map(_LINE_RE.match, read_text(path, PROGRESS_FILE).splitlines()) if m
    ]


def passed_ids(ws: Workspace) -> list[str]:
    """The entries recorded as passed over, in the record's order."""
    return [ident for ident, how in _record(ws) if how == "passed"]


def unpass(ws: Workspace) -> int:
    """Take the `passed` lines out of the record: those entries are offered again. Returns
    how many."""
    from ..store.fsutil import atomic_write_text

    path = ws.inside(PROGRESS_FILE)
    if not path.is_file():
        return 0
    lines = read_text(path, PROGRESS_FILE).splitlines(keepends=True)
    kept = [x for x in lines if not ((m := _LINE_RE.match(x)) and m[2] == "passed")]
    if len(kept) != len(lines):
        atomic_write_text(path, "".join(kept))
        offers = read_offers(ws)
        if offers:  # offered afresh: counted from nothing
            atomic_write_text(ws.state_dir / OFFERS_FILE, "{}")
    return len(lines) - len(kept)
