"""What an appended log entry is and how it is written: its heading (`## 14:05 · user
<!-- session: …; id: … -->`), the checks on its label, session and agent, its id, and the
append itself, under the day file's lock.

`mem log` runs through here on every agent turn, so this module imports nothing it does
not use on the way: no re (a pattern compiles only when a body line starts like a heading),
no dataclasses, no pathlib. Parsing logs back is logs.py's.
"""

from __future__ import annotations

from ..errors import BadEncoding, UsageError
from ..text import Lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import date, datetime
    from pathlib import Path

ROLES = ("user", "assistant", "system", "note")
LOG_SEPARATOR = "·"
# Lenient on purpose: people and other agents write `## 09:30 - Alice` or `### [9:30] user`.
ENTRY_HEADING_RE = Lazy(
    r"^#{2,3}[ \t]+\[?(?P<h>\d{1,2}):(?P<m>\d{2})(?::\d{2})?\]?"
    r"(?:[ \t]*[·•|—–:-][ \t]*|[ \t]+|$)(?P<label>.*?)[ \t]*"
    r"(?:<!--(?P<meta>.*?)-->)?[ \t]*$"
)
SESSION_RE = Lazy(r"^[\w.:/@+=-]{1,128}$")
AGENT_RE = Lazy(r"^[\w.-]{1,64}$")


# Headings met lately: parsing, chunking and indexing a log ask about each heading line
# four or five times. Bounded: cleared when full.
_HEADS: dict = {}


def entry_heading(line: str):
    """A log entry heading (`## 14:05 · user`) with groups h, m, label, meta (a re.Match);
    else None."""
    if not line.startswith("##"):  # most lines: no pattern compiled, none run
        return None
    m = _HEADS.get(line, _HEADS)
    if m is not _HEADS:
        return m
    m = ENTRY_HEADING_RE.match(line.removesuffix("\r"))
    m = m if m and int(m["h"]) < 24 and int(m["m"]) < 60 else None
    if len(_HEADS) >= 4096:
        _HEADS.clear()
    _HEADS[line] = m
    return m


def citation(path: str, start: int, end: int | None = None) -> str:
    """Where lines are: `memory/2026-12-01.md#L3-L4` (or `#L3`)."""
    return f"{path}#L{start}" + (f"-L{end}" if end is not None else "")


# OpenClaw's memory search keeps out of what it indexes and shows every comment that opens
# with one of its annotations (`<!-- importance: …`, `trigger:`, `project:`) and closes on
# the same line, and takes an importance that is no number from 1 to 10 for none. So an
# entry's comment opens with an empty one: OpenClaw, reading the same workspace, shows the
# entry without mem's session and id. The key is read like any other (logs.py), and a
# comment without it (an older mem's) is read as before.
CARRIER = "importance: -"


def entry_heading_text(when: datetime, label: str, meta: str = "") -> str:
    head = f"## {when:%H:%M} {LOG_SEPARATOR} {label}"
    return head + (f" <!-- {CARRIER}; {meta} -->" if meta else "")


class NewEntry:
    """What a caller asks to append; `id` is drawn when appended, unless the caller brings
    one. Immutable; `with_id` gives a copy with an id."""

    __slots__ = ("agent", "id", "label", "session", "text", "when")

    def __init__(
        self,
        when: datetime,
        label: str,
        text: str,
        session: str | None = None,
        agent: str | None = None,
        id: str | None = None,
    ) -> None:
        values = (agent, id, label, session, text, when)
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"NewEntry is read-only: cannot set {name}")

    def _key(self) -> tuple:
        return (self.when, self.label, self.text, self.session, self.agent, self.id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NewEntry) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "NewEntry({})".format(", ".join(repr(v) for v in self._key()))

    def with_id(self, ident: str) -> NewEntry:
        return NewEntry(self.when, self.label, self.text, self.session, self.agent, ident)


class Appended:
    """Where an append landed: the file, the 1-based lines of what was written, how many
    entries were (ingest may skip ones already there), and those entries with their ids."""

    __slots__ = ("count", "end_line", "path", "start_line", "written")

    def __init__(
        self,
        path: Path | str,
        start_line: int,
        end_line: int,
        count: int,
        written: tuple[NewEntry, ...] = (),
    ) -> None:
        self.path, self.start_line, self.end_line = path, start_line, end_line
        self.count, self.written = count, written

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Appended):
            return NotImplemented
        mine = (self.path, self.start_line, self.end_line, self.count, self.written)
        return mine == (other.path, other.start_line, other.end_line, other.count, other.written)

    def __repr__(self) -> str:
        return f"Appended({self.path!r}, {self.start_line}, {self.end_line}, {self.count})"


def normalize_text(text: str) -> str:
    """The text as it is stored: byte for byte, but without the one final newline that
    shells and editors add."""
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text


def check_label(label: str) -> str:
    if label in ROLES:
        return label
    clean = label.strip()
    if (
        not clean
        or clean != label
        or len(clean) > 80
        or any(c in clean for c in "\r\n")
        or "<!--" in clean
        or "-->" in clean
        or clean.startswith(("·", "#"))
    ):
        raise UsageError(
            f"speaker {label!r} must be one line of 1-80 characters without '<!--' or '-->'"
        )
    return clean


def _word_chars(text: str, most: int, also: str) -> bool:
    """What `^[\\w<also>]{1,most}$` accepts: \\w is a character str.isalnum() accepts, or
    `_` (re's own definition for str patterns), so no pattern need compile per turn."""
    return 0 < len(text) <= most and all(c.isalnum() or c == "_" or c in also for c in text)


def check_agent(agent: str | None) -> str | None:
    if agent is not None and not _word_chars(agent, 64, ".-"):
        raise UsageError(f"agent id {agent!r} may hold only letters, digits and . - _ (at most 64)")
    return agent


def check_session(session: str | None) -> str | None:
    if session is not None and not _word_chars(session, 128, ".:/@+=-"):
        raise UsageError(
            f"session id {session!r} may hold only letters, digits and . : / @ + = - _ "
            "(at most 128)"
        )
    return session


def format_entry(entry: NewEntry) -> str:
    text = normalize_text(entry.text)
    meta = []
    if entry.session:
        meta.append(f"session: {entry.session}")
    if entry.agent:
        meta.append(f"agent: {entry.agent}")
    if entry.id:
        meta.append(f"id: {entry.id}")
    body = text.split("\n")
    if any(entry_heading(line) for line in body):
        # The text holds a line that reads like an entry heading: say how long the
        # entry is so the parser does not split it there.
        meta.append(f"lines: {len(body)}; sum: {line_sum(body)}")
    heading = entry_heading_text(entry.when, entry.label, "; ".join(meta))
    return f"{heading}\n{text}\n\n"


def random_id(existing: bytes, n: int, entry: NewEntry) -> str:
    """A fresh entry id: 48 random bits, so no two machines ever draw the same one."""
    import os

    return os.urandom(6).hex()


def replayable_id(existing: bytes, n: int, entry: NewEntry) -> str:
    """An id drawn from where and what the entry is, for a replayed clock (MEM_NOW): the
    same commands give the same files, byte for byte."""
    return replayable_in("")(existing, n, entry)


def replayable_in(workspace: str) -> Callable[[bytes, int, NewEntry], str]:
    """`replayable_id` for one workspace (`workspace`: where it is). Two clones that log the
    same words at the same replayed moment into the same log would otherwise draw one id,
    and a merge keeps one entry of the two acknowledged."""

    def draw(existing: bytes, n: int, entry: NewEntry) -> str:
        said = f"{len(existing)}\x1f{n}\x1f{entry.when}\x1f{entry.label}\x1f{entry.text}"
        return content_id(f"{workspace}\x1f{said}" if workspace else said)

    return draw


def content_id(key: str) -> str:
    import hashlib

    # surrogatepass: a lone surrogate (a harness's JSON may hold one) has an id too, and
    # any other text the same one as before.
    return hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def line_sum(body: Sequence[str]) -> str:
    """The `sum:` of a `lines:` count: which lines it covers, so a planted count does not
    hold (logs.py reads it)."""
    return content_id("\n".join(x.removesuffix("\r") for x in body))[:8]


def _separator_for(existing: bytes, nl: bytes) -> bytes:
    if not existing or existing.endswith((b"\n\n", b"\r\n\r\n")):
        return b""
    if existing.endswith(b"\n"):
        return nl
    return nl + nl


def append_entries(
    path: Path | str,
    day: date,
    entries: Sequence[NewEntry],
    *,
    rel: str | None = None,
    draw_id: Callable[[bytes, int, NewEntry], str] = random_id,
    keep: Callable[[str, Sequence[NewEntry]], list[NewEntry]] | None = None,
) -> Appended:
    """Append entries to one day's log under its lock. `keep(current text, entries)`, when
    given, says which of them to write after seeing the file (ingest leaves out what is
    already there); the rest are checked and written whole, or nothing is."""
    from ..store.fsutil import append_locked

    for e in entries:
        if not normalize_text(e.text).strip():
            raise UsageError("nothing to log: the text is empty")
        if "\x00" in e.text:  # no Markdown file, editor or model can carry it: refused here
            raise UsageError("the text holds a NUL byte, which a daily log cannot keep")
        check_label(e.label)
        check_session(e.session)
        check_agent(e.agent)
    written: list[NewEntry] = []
    heads: list[bytes] = []

    def render(existing: bytes) -> bytes:
        try:
            current = existing.decode("utf-8")
        except UnicodeDecodeError:
            raise BadEncoding(path, rel) from None
        todo = list(entries) if keep is None or not current else keep(current, entries)
        todo = [e if e.id else e.with_id(draw_id(existing, n, e)) for n, e in enumerate(todo)]
        written[:] = todo
        if not todo:
            return b""
        # A file written with CRLF (an editor on Windows) stays CRLF, every line of it. Its
        # first line tells; a CRLF inside someone's verbatim text further down does not.
        first = existing.split(b"\n", 1)[0]
        nl = b"\r\n" if b"\n" in existing and first.endswith(b"\r") else b"\n"
        head = _separator_for(existing, nl) if existing else f"# {day.isoformat()}\n\n".encode()
        body = "".join(format_entry(e) for e in todo).encode("utf-8")
        if nl == b"\r\n":
            body = body.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        heads.append(head)
        return head + body

    existing, data = append_locked(path, render, rel)
    if not written:
        line = existing.count(b"\n") + 1
        return Appended(path, line, line, 0)
    start = (existing + heads[0]).count(b"\n") + 1
    end = (existing + data).rstrip(b"\r\n").count(b"\n") + 1
    return Appended(path, start, end, len(written), tuple(written))
