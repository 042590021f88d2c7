"""`mem forget WORDS`: the agent no longer sees what says them, wherever it is said.

What says the words: a curated line, a log entry or a HISTORY.md paragraph whose own words
hold every content word of the query ("salary", "Marcus Feld", "home address", 舍曲林), and
a curated line distilled from such an entry. By default:
- each such curated line is struck through as forgotten (only the facts that say the words,
  when the line says several), and
- the entries and paragraphs stay as they were (logs are never rewritten) but are hidden: a
  HISTORY.md paragraph records the words and the entries' ids (format/forgotten.py), and
  recall, context and MCP leave out what the record names, on every clone it reaches.
With `--hard` the curated lines are deleted and the entries' and paragraphs' lines are
redacted in place (`[forgotten YYYY-MM-DD]`), as `mem forget --hard PATH:LINE` does.

When nothing holds every word, the query names the one curated line sharing most words with
it, as it always did (two equally good lines are listed to pick from).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from ..errors import BadEncoding, UsageError
from ..format.curated import record_of, workspace_ledger
from ..format.forgotten import append as append_record
from ..format.logs import entry_ids, read_entries
from ..format.markdown import (
    HISTORY_STAMP_RE,
    core,
    is_live_bullet,
    split_doc,
    struck_text,
    with_continuation,
)
from ..search.tokenize import content_words
from ..store.fsutil import read_text
from ..store.workspace import CURATED_FILES, HISTORY_FILE, MEMORY_DIR, Workspace, day_of
from .forgetting import Forgotten, _forgotten, _keep_records, facts_of


@dataclass(frozen=True)
class Hid:
    """What a forget by words did: the curated lines it struck (or deleted), the log and
    HISTORY.md lines it redacted (`--hard`), and the places it hid from recall."""

    words: str
    lines: tuple[Forgotten, ...] = ()
    redacted: tuple[Forgotten, ...] = ()
    hidden: tuple[str, ...] = ()  # citations: log entries and HISTORY.md paragraphs
    secret: bool = False  # the words are (part of) a secret: shown nowhere

    @property
    def paths(self) -> list[str]:
        return sorted({f.path for f in (*self.lines, *self.redacted)})


words_of = content_words  # the name this module reads best with


@dataclass(frozen=True)
class _Said:
    path: str
    first: int
    last: int
    id: str | None  # a log entry's id (None for a HISTORY.md paragraph)
    words: frozenset[str]
    text: str = ""


def _entries(ws: Workspace) -> list[_Said]:
    out = []
    for path in ws.day_files():
        rel = ws.rel(path)
        try:
            entries = read_entries(path, day_of(path), rel)
        except BadEncoding:
            continue
        for e, ident in zip(entries, entry_ids(entries), strict=True):
            out.append(_Said(rel, e.start_line, e.end_line, ident, words_of(e.text), e.text))
    return out


def _notes(ws: Workspace) -> list[_Said]:
    """The lines of the other files under memory/ (memory/projects/notes.md): recall and
    context read them, so a forget hides them too (by its record's words)."""
    days = set(ws.day_files())
    out = []
    for path in ws.memory_files((f"{MEMORY_DIR}/**/*.md",)):
        if path in days:
            continue
        rel = ws.rel(path)
        try:
            lines = split_doc(read_text(path, rel)).lines
        except BadEncoding:
            continue
        for n, line in enumerate(lines, 1):
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(_Said(rel, n, n, None, words_of(line), line))
    return out


def _paragraphs(ws: Workspace) -> list[_Said]:
    path = ws.root / HISTORY_FILE
    if not path.is_file():
        return []
    lines = split_doc(read_text(path, HISTORY_FILE)).lines
    out, start = [], None
    for n, line in enumerate([*lines, ""], 1):
        if start is None and HISTORY_STAMP_RE.match(line):
            start = n
        elif start is not None and not line.strip():
            body = " ".join(lines[start - 1 : n - 1])
            out.append(_Said(HISTORY_FILE, start, n - 1, None, words_of(body), body))
            start = None
    return out


def _curated(ws: Workspace, words: frozenset[str], ids: set[str]) -> dict[str, list[int]]:
    """The live lines of each curated file that say the words, or were distilled from an
    entry that does (its record's ids)."""
    ledger = workspace_ledger(ws)
    out: dict[str, list[int]] = {}
    for name in CURATED_FILES:
        path = ws.root / name
        if not path.is_file():
            continue
        lines = split_doc(read_text(path, name)).lines
        for n, line in enumerate(lines, 1):
            if not is_live_bullet(line):
                continue
            record = record_of(name.removesuffix(".md"), line, ledger)
            drawn = record is not None and ids & set(record.ids)
            if words <= words_of(core(with_continuation(lines, n - 1))) or drawn:
                out.setdefault(name, []).append(n)
    return out


def forget_words(
    ws: Workspace, query: str, hard: bool, now: datetime, redact_extra: Sequence[str] = ()
) -> Hid | None:
    """Forget what says the query's words (see the module). None when nothing holds them
    all: the caller then names one curated line by its words, as before."""
    words = words_of(query)
    if not words:
        raise UsageError("the query has no words to match; give PATH:LINE instead")
    entries = [e for e in _entries(ws) if words <= e.words]
    ids = {e.id for e in entries if e.id}
    lines = _curated(ws, words, ids)
    notes = [n for n in _notes(ws) if words <= n.words]
    if not entries and not lines and not notes:
        return None
    entries += notes  # hidden as the entries are, by the record's words
    said_where = [e.text for e in entries] + _lines_text(ws, lines)
    said_where += [p.text for p in _paragraphs(ws) if words <= p.words]
    secret = _names_secret(query, said_where, redact_extra)
    if secret and not hard:
        raise UsageError(
            "that is (part of) a secret: a forget that hides it would write it into HISTORY.md; "
            "`mem forget --hard` deletes it instead"
        )
    struck = _strike(ws, lines, query, hard, now.date(), redact_extra)
    for f in struck:
        if f.done.records:  # a split line's halves keep what mem knew of it
            _keep_records(ws, f.done, now)
    gone = [_forgotten_text(f) for f in struck]
    aliases = _aliases(words, gone)
    if aliases:
        more = [e for e in _entries(ws) if any(a <= e.words for a in aliases)]
        entries += [e for e in more if e not in entries]
        ids |= {e.id for e in entries if e.id}
    # The struck lines' words, their secrets left out: the record is read on every clone.
    said = [words, *aliases, *(words_of(_hidden_text(t, redact_extra)) for t in gone)]
    paragraphs = [p for p in _paragraphs(ws) if any(s and s <= p.words for s in said)]
    places = [*entries, *paragraphs]
    redacted: list[Forgotten] = []
    if hard:
        redacted = _redact(ws, places, query, now.date(), redact_extra)
    else:
        n = len(entries)
        append_record(
            ws.root / HISTORY_FILE,
            now,
            f'mem forget hid what says "{" ".join(query.split())[:80]}": '
            f"{n} log {'entry' if n == 1 else 'entries'}, {len(paragraphs)} HISTORY.md "
            f"paragraph{'s' if len(paragraphs) != 1 else ''}, {len(struck)} curated "
            f"line{'s' if len(struck) != 1 else ''}.",
            said,
            ids | {i for f in struck for i in f.ids},
        )
    hidden = tuple(f"{p.path}#L{p.first}-L{p.last}" for p in places)
    return Hid(query, tuple(f.done for f in struck), tuple(redacted), hidden, secret)


def _hidden_text(text: str, redact_extra: Sequence[str]) -> str:
    from ..safety.secrets import redact

    return redact(text, redact_extra)[0]


def _lines_text(ws: Workspace, lines: dict[str, list[int]]) -> list[str]:
    """The text of these curated lines (each with its wrapped lines)."""
    out = []
    for name, numbers in lines.items():
        doc = split_doc(read_text(ws.root / name, name)).lines
        out += [with_continuation(doc, n - 1) for n in numbers if n <= len(doc)]
    return out


def _names_secret(query: str, texts: list[str], redact_extra: Sequence[str]) -> bool:
    """Whether the query is a secret, or words that only a secret in these texts says (a
    password given alone, "Tr0ub4dor&3xyz", is a secret where the entry says it is)."""
    from ..safety.secrets import redact

    if redact(query, redact_extra)[1]:
        return True
    words = words_of(query)
    for text in texts:
        hidden, n = redact(text, redact_extra)
        if n and not words <= words_of(hidden):
            return True
    return False


# "豆豆 (Doudou)", "陈姐（Chen Jing）": one name in two scripts, as the curated files write them.
_ALIAS_RE = re.compile(r"([^\s:：,，;；()（）]+)\s*[(（]([^()（）]{1,40})[)）]")


def _aliases(words: frozenset[str], texts: list[str]) -> list[frozenset[str]]:
    """The query's words with a name in them given as its other spelling, where a forgotten
    line writes both ("Doudou" forgets what says 豆豆 too): a forget by a name is not
    undone by the name's other script."""
    out: list[frozenset[str]] = []
    for text in texts:
        for a, b in _ALIAS_RE.findall(text):
            for name, other in ((words_of(a), words_of(b)), (words_of(b), words_of(a))):
                if name and other and name <= words and not other <= words:
                    alias = (words - name) | other
                    if alias not in out:
                        out.append(alias)
    return out


@dataclass(frozen=True)
class _Struck:
    done: Forgotten
    ids: tuple[str, ...]


def _forgotten_text(struck: _Struck) -> str:
    gone = [x for x in struck.done.after if "~~" in x] or struck.done.before
    return " ".join(struck_text(x) for x in gone)


def _strike(
    ws: Workspace,
    lines: dict[str, list[int]],
    query: str,
    hard: bool,
    today: date,
    redact_extra: Sequence[str],
) -> list[_Struck]:
    """Strike (or delete) the lines, each file rewritten once under its lock, bottom up
    so a split line does not move the ones still to do."""
    from ..format.file_lines import safe_path
    from ..store.fsutil import decode, replace_locked

    ledger = workspace_ledger(ws)
    out: list[_Struck] = []
    for rel, numbers in lines.items():
        path = safe_path(ws, rel)

        def change(current: bytes | None, rel=rel, path=path, numbers=numbers) -> bytes:
            if current is None:
                return b""
            text = decode(current, path, rel)
            for n in sorted(numbers, reverse=True):
                line = split_doc(text).lines[n - 1]
                record = record_of(rel.removesuffix(".md"), line, ledger)
                ask = query if _some_facts(line, query) else None
                text, done = _forgotten(
                    rel, path, f"{rel}:{n}", text, (n, n), hard, today, redact_extra, ask, ledger
                )
                out.append(_Struck(done, record.ids if record else ()))
            return text.encode("utf-8")

        replace_locked(path, change)
    return out


def _some_facts(line: str, query: str) -> bool:
    """Whether the query's words name some of the line's facts but not all (only those are
    forgotten then)."""
    facts = facts_of(core(line))
    words = words_of(query)
    return len(facts) > 1 and not all(words & words_of(f) for f in facts)


def _redact(
    ws: Workspace, places: list[_Said], query: str, today: date, redact_extra: Sequence[str]
) -> list[Forgotten]:
    """--hard: every line of each place redacted in place, under the file's append lock."""
    from ..format.file_lines import safe_path
    from ..store.fsutil import decode, replace_locked

    out: list[Forgotten] = []
    by_file: dict[str, list[_Said]] = {}
    for p in places:
        by_file.setdefault(p.path, []).append(p)
    for rel, found in by_file.items():
        path = safe_path(ws, rel)

        def change(current: bytes | None, rel=rel, path=path, found=found) -> bytes:
            if current is None:
                return b""
            text = decode(current, path, rel)
            for p in sorted(found, key=lambda x: -x.first):
                body = _body(text, p)
                if body is None:
                    continue
                text, done = _forgotten(rel, path, query, text, body, True, today, redact_extra)
                out.append(done)
            return text.encode("utf-8")

        replace_locked(path, change)
    return out


_HEADING_RE = re.compile(r"^#{1,6}\s")


def _body(text: str, p: _Said) -> tuple[int, int] | None:
    """The lines of a place that hold words (its heading left for the log's structure)."""
    first = p.first + (1 if _HEADING_RE.match(split_doc(text).lines[p.first - 1]) else 0)
    return (first, p.last) if first <= p.last else None


def hide_place(ws: Workspace, rel: str, first: int, last: int, now: datetime) -> Hid:
    """A forget of a log's or HISTORY.md's lines without --hard: the entries (or the
    paragraph) they fall in are hidden from recall and context, their bytes kept."""
    if rel == HISTORY_FILE:
        places = [p for p in _paragraphs(ws) if p.first <= last and p.last >= first]
    else:
        places = [e for e in _entries(ws) if e.path == rel and e.first <= last and e.last >= first]
        places = places or [
            n for n in _notes(ws) if n.path == rel and first <= n.first <= last and n.words
        ]
    if not places:
        raise UsageError(f"{rel}:{first} holds no entry or paragraph to forget")
    ids = {p.id for p in places if p.id}
    # An entry whose heading carries no id is told by its words (recall reads heading ids).
    sets = [p.words for p in places if p.id is None or not _has_heading_id(ws, p)]
    what = "log entr" + ("y" if len(places) == 1 else "ies") if rel != HISTORY_FILE else "paragraph"
    if places[0].id is None and rel != HISTORY_FILE and day_of(rel) is None:
        what = "line" if len(places) == 1 else "lines"
    append_record(
        ws.root / HISTORY_FILE,
        now,
        f"mem forget hid {len(places)} {what} of {rel}.",
        [s for s in sets if s],
        ids,
    )
    hidden = tuple(f"{p.path}#L{p.first}-L{p.last}" for p in places)
    return Hid(f"{rel}:{first}", (), (), hidden)


def _has_heading_id(ws: Workspace, p: _Said) -> bool:
    from ..format.forgotten import heading_id

    lines = split_doc(read_text(ws.root / p.path, p.path)).lines
    return heading_id(lines[p.first - 1]) == p.id
