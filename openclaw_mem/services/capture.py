"""Capture: the turns an agent harness hands over (a prompt, a reply), each appended once.

A harness hands the same message over more than once: a Stop hook and the SessionEnd or
PreCompact sweep of its transcript, a resumed session, Codex's hooks beside its `notify`
program. So each message's entry id is drawn from what the harness calls the message (the
harness, its session, its turn, the role), never from the words or the time: every later
hand-over finds the id already in the log and adds nothing, and the same turn captured on
two machines merges into one entry (the ids are entry ids, format/logs.py).

The id is looked for in the day file the message goes to (under its append lock) and in
the days either side, so a sweep that dates a message a few seconds from its hook, across
midnight, still finds it. `log` runs on every agent turn: nothing heavy is imported.
"""

from __future__ import annotations

from ..format.appending import SESSION_RE, NewEntry, append_entries, check_agent, content_id
from ..store.commits import COMMIT_LOG
from ..store.workspace_root import MEMORY_DIR
from .place import Place

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import date, datetime


class Said:
    """One message a harness handed over: when, who (user or assistant), the text verbatim,
    and what the harness calls it: its session and its turn (a prompt id, a turn id)."""

    __slots__ = ("harness", "role", "session", "text", "turn", "when")

    def __init__(
        self, when: datetime, role: str, text: str, harness: str, session: str, turn: str
    ) -> None:
        self.when, self.role, self.text = when, role, text
        self.harness, self.session, self.turn = harness, session, turn

    @property
    def id(self) -> str:
        return message_id(self.harness, self.session, self.turn, self.role)

    def __repr__(self) -> str:
        return f"Said({self.role!r}, {self.turn!r}, {self.text[:30]!r})"


def message_id(harness: str, session: str, turn: str, role: str) -> str:
    """The entry id of a harness's message: the same message, the same id, wherever it is
    captured."""
    return content_id(f"hook\x1f{harness}\x1f{session}\x1f{turn}\x1f{role}")


class Captured:
    """What a capture did: entries added, entries already there, the files written, and
    warnings (a commit that failed, text that reads like an instruction)."""

    __slots__ = ("added", "already", "files", "warnings")

    def __init__(self, added: int, already: int, files: list[str], warnings: list[str]) -> None:
        self.added, self.already, self.files, self.warnings = added, already, files, warnings

    def to_json(self) -> dict:
        return {"added": self.added, "already": self.already, "files": self.files}


def _ids_in(text: str) -> set[str]:
    from ..format.logs import parse_log

    return {e.id for e in parse_log(text) if e.id}


def _ids_on(place: Place, day: date) -> set[str]:
    """The entry ids of one day's log (none when it does not exist or cannot be read)."""
    from ..errors import MemError
    from ..store.fsutil import read_text

    rel = f"{MEMORY_DIR}/{day.isoformat()}.md"
    try:
        return _ids_in(read_text(place.ws.inside(rel), rel))
    except (FileNotFoundError, MemError, OSError):
        return set()


def captured_ids(place: Place, ids: Sequence[str], around: datetime) -> set[str]:
    """Which of these ids the logs of the day of `around` and the days either side hold."""
    from datetime import timedelta

    wanted, found = set(ids), set()
    for shift in (0, -1, 1):
        found |= wanted & _ids_on(place, (around + timedelta(days=shift)).date())
        if found == wanted:
            break
    return found


def capture(place: Place, said: Sequence[Said], agent: str | None) -> Captured:
    """Append each message not yet in the logs, verbatim, as its role, marked with the
    harness's session and the agent; each lands in the day of its own time."""
    from datetime import timedelta

    check_agent(agent)
    redacting = place.config["log.redact"]  # opt-in, as for `mem log`
    by_day: dict = {}
    for s in said:
        if not s.text.strip():
            continue
        session = s.session if SESSION_RE.fullmatch(s.session or "") else None
        text = s.text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")
        if redacting:
            text = place.redact(text)
        entry = NewEntry(s.when, s.role, text, session, agent, s.id)
        by_day.setdefault(s.when.date(), []).append(entry)
    added = already = 0
    files: list[str] = []
    for day in sorted(by_day):
        entries = by_day[day]
        near = set()
        for shift in (-1, 1):
            near |= _ids_on(place, day + timedelta(days=shift))
        todo = [e for e in entries if e.id not in near]
        rel = f"{MEMORY_DIR}/{day.isoformat()}.md"
        path = place.ws.inside_text(rel)

        def keep(current: str, entries: Sequence[NewEntry]) -> list[NewEntry]:
            have = _ids_in(current)
            return [e for e in entries if e.id not in have]

        result = append_entries(path, day, todo, rel=rel, keep=keep) if todo else None
        written = result.count if result else 0
        added += written
        already += len(entries) - written
        if written:
            files.append(rel)
    warnings: list[str] = []
    if files:
        message = f"{COMMIT_LOG} {', '.join(files)}"
        logged = place.config["git.autocommit"] == "log"  # (the note reads HEAD)
        note = _secret_note(place, said, files) if logged and not redacting else ""
        if note:  # as `mem log` says it: where, never what
            message += f"\n\n{note}"
            warnings.append(f"{note}; `mem forget --hard PATH:LINE` redacts it")
        _, committed = place.after_append(files, message)
        warnings += committed
    return Captured(added, already, files, warnings)


def _secret_note(place: Place, said: Sequence[Said], files: list[str]) -> str:
    """keeping.secret_note for this capture's logs; a plain turn is let through by a cheap
    check, without the secret families."""
    from ..safety.secret_hint import may_hold_secret

    if not place.redact_extra and not any(may_hold_secret(s.text) for s in said):
        return ""
    from .keeping import secret_note

    return secret_note(place, files)
