"""What `mem forget` hid from recall and context, recorded in HISTORY.md.

A forget is a paragraph of HISTORY.md (so it reaches every clone the way HISTORY.md does,
merged by paragraph) whose comment says what no longer shows:

    [2026-11-30 10:00] mem forget hid what says "salary": 2 log entries, 1 line.
    <!-- forgotten: rec 5be0c1a9d2f4; words salary | earn 85k; ids 3f9a0c1e22b7,81d2c07e5a44 -->

`words` are sets of index tokens (search/tokenize.py, space-separated, sets apart by `|`):
a chunk whose own words hold every token of one set says what was forgotten. `ids` are the
entries it was said in, by the id their heading carries. The paragraph itself holds the
words, so it hides itself. Deleting the paragraph (or `mem undo` of the forget) shows them
again; `mem recall --include-forgotten` shows them to the person who asks. `mem undo` of a
forget also appends `<!-- unforgotten: rec 5be0c1a9d2f4 -->`: a clone that merged the forget
before the undo keeps its paragraph (HISTORY.md only grows), and the record takes it back
there too.

Read by a scan that is linear in HISTORY.md (no pattern that can backtrack over a comment).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from .markdown import appended_paragraph, history_stamp

MARK = "<!-- forgotten:"
UNMARK = "<!-- unforgotten:"  # an undo's record of a forget it took back
_ID_RE = re.compile(r"[0-9a-f]{12}")
_HEADING_ID_RE = re.compile(r"<!--[^>]*?\bid:\s*([0-9a-f]{12})")
MAX_SET = 64  # tokens a set keeps: what a line or an entry says, not a whole page


@dataclass(frozen=True)
class Hidden:
    """Everything forgotten so far: the word sets and the entry ids."""

    words: tuple[frozenset[str], ...] = ()
    ids: frozenset[str] = field(default_factory=frozenset)

    def __bool__(self) -> bool:
        return bool(self.words or self.ids)

    def says(self, tokens: Iterable[str]) -> bool:
        """Whether text with these tokens says something forgotten."""
        have = set(tokens)
        return any(s <= have for s in self.words)


def read_hidden(history: str) -> Hidden:
    """Every forget recorded in HISTORY.md's text that no undo took back. A record names
    itself (`rec`, fresh for each forget); an undo's record names the one it took back, so
    the answer is the same in whatever order clones merged the paragraphs, and forgetting
    the same words again after an undo hides them again."""
    taken = set(bodies(history, UNMARK))
    words: list[frozenset[str]] = []
    ids: set[str] = set()
    for body in bodies(history, MARK):
        if record_name(body) not in taken:
            _fields(body, words, ids)
    return Hidden(tuple(dict.fromkeys(words)), frozenset(ids))


def record_name(body: str) -> str:
    """How an undo names a forget's record: its `rec` field, or (a record written before
    records named themselves) all it holds."""
    for part in body.split(";"):
        name, _, value = part.strip().partition(" ")
        if name == "rec" and value.strip():
            return f"rec {value.strip()}"
    return body


def bodies(history: str, mark: str) -> list[str]:
    """What each record of this kind holds (its comment's text after `mark`), in order."""
    out = []
    start = history.find(mark)
    while start >= 0:
        end = history.find("-->", start)
        if end < 0:
            break  # an unclosed comment records nothing
        out.append(history[start + len(mark) : end].strip())
        start = history.find(mark, end)
    return out


def undone(when: datetime, body: str) -> str:
    """The paragraph with which `mem undo` takes a forget back: it names the forget's
    record, so a clone that still holds that record (HISTORY.md only grows across clones)
    shows what it hid again too."""
    said = "mem undo brought back what a forget hid."
    return f"{history_stamp(when)} {said}\n{UNMARK} {record_name(body)} -->\n"


def _fields(body: str, words: list[frozenset[str]], ids: set[str]) -> None:
    for part in body.split(";"):
        name, _, value = part.strip().partition(" ")
        if name == "words":
            for group in value.split("|"):
                tokens = frozenset(group.split()[:MAX_SET])
                if tokens:
                    words.append(tokens)
        elif name == "ids":
            ids.update(i for i in value.replace(",", " ").split() if _ID_RE.fullmatch(i))


def marker(word_sets: Iterable[Iterable[str]], ids: Iterable[str], before: bytes = b"") -> str:
    """A forget's record. Its name (`rec`) is drawn from HISTORY.md as it stood before the
    record and what the record holds: the same on every run (a reviewable, repeatable
    commit), and another for the same words forgotten again after an undo (HISTORY.md has
    grown by then)."""
    from ..text import blake2b

    sets = [" ".join(sorted(set(s))[:MAX_SET]) for s in word_sets]
    sets = [s for s in dict.fromkeys(sets) if s]
    fields = []
    if sets:
        fields.append("words " + " | ".join(sets))
    ids = sorted(set(ids))
    if ids:
        fields.append("ids " + ",".join(ids))
    body = "; ".join(fields)
    rec = blake2b(before + body.encode("utf-8"), digest_size=6).hexdigest()
    return f"{MARK} {'; '.join([f'rec {rec}', *fields])} -->"


def paragraph(when: datetime, said: str, word_sets, ids, before: bytes = b"") -> str:
    """A forget's HISTORY.md paragraph: what it did, and its record."""
    return f"{history_stamp(when)} {said}\n{marker(word_sets, ids, before)}\n"


def append(path, when: datetime, said: str, word_sets, ids) -> None:
    """Append a forget's paragraph to HISTORY.md under its append lock."""
    from ..store.fsutil import append_locked

    append_locked(
        path,
        lambda existing: appended_paragraph(
            existing, paragraph(when, said, word_sets, ids, existing)
        ),
    )


def heading_id(text: str) -> str | None:
    """The id a log entry's heading carries (`<!-- …id: 3f9a0c1e22b7 -->`), if any."""
    first = text.split("\n", 1)[0]
    if "<!--" not in first:
        return None
    m = _HEADING_ID_RE.search(first)
    return m[1] if m else None


def is_forgotten_line(text: str) -> bool:
    """A curated line struck through by `mem forget` (`~~…~~ (forgotten YYYY-MM-DD)`)."""
    return "~~" in text and "(forgotten " in text


_CACHE: dict[str, tuple[tuple[int, int], Hidden]] = {}


def hidden_in(ws) -> Hidden:
    """What the workspace's HISTORY.md says was forgotten (read again only when it changed:
    a resident process answers many questions between forgets)."""
    import os

    from ..errors import MemError
    from ..store.fsutil import read_bytes
    from ..store.workspace import HISTORY_FILE

    path = ws.root / HISTORY_FILE
    try:
        st = os.stat(path)
    except OSError:
        return Hidden()
    stamp = (st.st_mtime_ns, st.st_size)
    kept = _CACHE.get(str(path))
    if kept and kept[0] == stamp:
        return kept[1]
    try:
        data = read_bytes(path, HISTORY_FILE)
    except (OSError, MemError):  # a link, unreadable: nothing mem reads through it
        return Hidden()
    found = read_hidden(data.decode("utf-8", "replace")) if MARK.encode() in data else Hidden()
    _CACHE[str(path)] = (stamp, found)
    return found
