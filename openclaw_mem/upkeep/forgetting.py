"""Forgetting on request (`mem forget`): a line of MEMORY/USER/AGENTS is deprecated (struck
through, kept) or, with --hard, deleted. A line of a daily log or of HISTORY.md can only be
redacted in place, with --hard, keeping the entry's identity. The text stays in git history
until purged there."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime

from ..errors import NotFound, UsageError
from ..format.curated import workspace_ledger
from ..format.file_lines import safe_path
from ..format.markdown import (
    BULLET_RE,
    MARKER_RE,
    bullet_of,
    bullet_prefix,
    continuation,
    core,
    entry_heading,
    heading,
    is_bullet,
    is_live_bullet,
    is_struck,
    parse_citation,
    source_links,
    sources,
    split_doc,
    strike,
    trailing_comment,
    with_continuation,
)
from ..safety.secrets import redact_excerpt
from ..search.tokenize import shingles, tokenize
from ..store.fsutil import read_text
from ..store.workspace import CURATED_FILES, HISTORY_FILE, Workspace, day_of

DOCUMENTS = CURATED_FILES
_LINE_SPEC_RE = re.compile(r"^(?P<path>[^#:]+\.md):(?P<line>\d+)$")


@dataclass(frozen=True)
class Forgotten:
    path: str
    lines: tuple[int, int]  # 1-based, inclusive
    before: list[str]  # as shown: secrets hidden, read with the lines around them
    after: list[str]  # empty when deleted
    mode: str  # deprecated | deleted | redacted
    # The line's record (format/curated.py) for each line a split left, when mem wrote it:
    # what it knew of the line, and its entries' ids, belong to both halves.
    records: tuple = ()  # HISTORY.md holds them once forget returns (its commit takes it)


def find_line(ws: Workspace, query: str) -> tuple[str, int]:
    """The one live line of MEMORY/USER/AGENTS a query names best. Two equally good
    candidates are not guessed between: the error lists them with PATH:LINE to pick."""
    words = shingles(tokenize(query))
    if not words:
        raise UsageError("the query has no words to match; give PATH:LINE instead")
    scored: list[tuple[float, str, int, str]] = []
    for name in DOCUMENTS:
        path = ws.root / name
        if not path.exists():
            continue
        lines = split_doc(read_text(path, name)).lines
        for n, line in enumerate(lines, 1):
            if not is_live_bullet(line):
                continue
            said = core(with_continuation(lines, n - 1))
            shared = len(words & shingles(tokenize(said)))
            if shared:
                scored.append((shared / len(words), name, n, said))
    if not scored:
        raise NotFound(f"no line of MEMORY.md, USER.md or AGENTS.md matches {query!r}")
    scored.sort(key=lambda x: -x[0])
    if len(scored) > 1 and scored[1][0] >= scored[0][0] - 1e-9:
        options = "; ".join(f"{p}:{n} {t[:50]!r}" for _, p, n, t in scored[:4])
        raise UsageError(f"{query!r} matches several lines equally, pick one: {options}")
    return scored[0][1], scored[0][2]


def place_of(spec: str) -> tuple[str, int, int] | None:
    """(path, first line, last line) when the spec names a place (PATH:LINE, a citation
    PATH#Lx-Ly), else None: it is words."""
    m = _LINE_SPEC_RE.match(spec.strip())
    found = (m["path"], int(m["line"]), int(m["line"])) if m else parse_citation(spec)
    if found and found[0].endswith(".md"):
        path, first, last = found
        if last < first or first < 1:
            raise UsageError(f"{spec}: bad line range")
        return path, first, last
    if _PLACE_LIKE_RE.match(spec.strip()):
        # "USER.md:8:1", "MEMORY.md:+1", "USER.md#8": a place mistyped, not words ("user",
        # "md") that would strike whatever line says them.
        raise UsageError(
            f"{spec.strip()}: not a place mem forget reads; give PATH:LINE (USER.md:8) or a "
            "citation (USER.md#L8-L9)"
        )
    return None


# One of the files forget reads, followed by anything that is not words: "USER.md:8:1",
# "USER.md: 10", "USER.md 10", "memory/2026-11-24.md#8"; "README.md" alone is a word.
_PLACE_LIKE_RE = re.compile(
    r"(?:(?:MEMORY|USER|AGENTS|HISTORY)\.md|memory/[^\s]+\.md)(?:\s*[:#：].*|\s+[\d+-].*)?$",
    re.I,
)


def parse_target(ws: Workspace, spec: str) -> tuple[str, int, int, str | None]:
    """(path, first line, last line, the query when the spec is words, not a place)."""
    found = place_of(spec)
    if found:
        return (*found, None)
    rel, line = find_line(ws, spec)
    return rel, line, line, spec


# Where one fact of a line ends: a sentence's end before what starts a sentence (not
# "e.g. pytest"), or a Chinese sentence's end. A semicolon joins clauses of one fact.
_FACT_END_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“(\u3400-\u9fff])|(?<=[。！？])\s*")


# A full stop that ends an abbreviation or an initial ends no fact: "Sees Dr. Okafor at St.
# Mary's clinic" is one, and so is "Uses e.g. Vim" or "Reads J. K. Rowling".
_ABBREVIATIONS = frozenset(
    """dr mr mrs ms prof st mt jr sr vs e.g i.e cf approx inc ltd co corp no nr fig dept
    univ ave rd blvd gen col capt lt sgt rev hon""".split()
)


def facts_of(text: str) -> list[str]:
    """The facts one line states ("Manager: Chen. Partner: Xiaoyu. Cat: Doudou." is three),
    each with its own punctuation."""
    text = text.strip()
    parts, start = [], 0
    for m in _FACT_END_RE.finditer(text):
        said = text[start : m.start()].split()
        before = said[-1] if said else ""
        word = before.rstrip(".").lower()
        # An initial is a capital after a name or another initial ("J. K. Rowling"), not
        # "vitamin D." or "Python 3." ending a fact.
        initial = (
            len(word) == 1 and before[0].isupper() and len(said) > 1 and said[-2][:1].isupper()
        )
        if before.endswith(".") and (word in _ABBREVIATIONS or initial or "." in word):
            continue
        parts.append(text[start : m.start()])
        start = m.end()
    parts.append(text[start:])
    return [part for part in parts if part.strip()]


def _matched_facts(line: str, query: str) -> tuple[list[str], list[str]] | None:
    """(the facts of a line the query names, the others), when it names some but not all;
    None when the line is one fact or the query names every one of them."""
    facts = facts_of(core(line))
    if len(facts) < 2:
        return None
    words = shingles(tokenize(query))
    named = [f for f in facts if words & shingles(tokenize(f))]
    if not named or len(named) == len(facts):
        return None
    return named, [f for f in facts if f not in named]


def forget(
    ws: Workspace,
    spec: str,
    hard: bool,
    now: datetime,
    redact_extra: Sequence[str] = (),
) -> Forgotten:
    """Forget what `spec` names. The file is rewritten under the lock its appenders take:
    an agent logging meanwhile loses nothing. What is shown of the lines before is redacted
    (with redact_extra)."""
    from ..store.fsutil import decode, replace_locked

    today = now.date()
    rel, first, last, query = parse_target(ws, spec)
    path = safe_path(ws, rel)
    done: list[Forgotten] = []
    ledger = workspace_ledger(ws) if query is not None and rel in DOCUMENTS else {}

    def change(current: bytes | None) -> bytes:
        if current is None:
            raise NotFound(f"no file {rel} in the workspace")
        text = decode(current, path, rel)
        text, forgotten = _forgotten(
            rel, path, spec, text, (first, last), hard, today, redact_extra, query, ledger
        )
        done.append(forgotten)
        return text.encode("utf-8")

    replace_locked(path, change)
    if done[0].records:
        _keep_records(ws, done[0], now)
    return done[0]


def _keep_records(ws: Workspace, done: Forgotten, at: datetime) -> None:
    """A line mem wrote, split by a forget, keeps what mem knew of it: the record, copied
    to each half's words, goes into one HISTORY.md paragraph, so its links still follow
    their entries and `mem cleanup` still judges it."""
    from ..format.curated import keep_records
    from ..text import plural

    said = (
        f"mem forget struck a fact of {done.path}:{done.lines[0]}; what mem knew of the line "
        f"belongs to {plural(len(done.records), 'line')} it left."
    )
    keep_records(ws, at, said, list(done.records))


def _forgotten(
    rel: str,
    path,
    spec: str,
    text: str,
    span: tuple[int, int],
    hard: bool,
    today: date,
    redact_extra: Sequence[str],
    query: str | None = None,
    ledger: dict | None = None,
) -> tuple[str, Forgotten]:
    first, last = span
    doc = split_doc(text)
    lines = list(doc.lines)
    if last > len(lines):
        raise NotFound(f"{rel} has {len(lines)} lines; line {last} does not exist")
    wrapped = _wrapped(lines, first, last) if rel in DOCUMENTS else None
    if wrapped is not None:
        # A wrapped bullet is one fact: any of its lines, or all of them (the citation
        # recall gives), name it; it is struck (or deleted) as one line.
        first, last = wrapped
        before = redact_excerpt(lines, first, last, redact_extra)
        # Joined once its secrets are hidden: a key the wrap cut in two is found only with
        # the break between its halves, and the struck line is forgotten anyway.
        lines[first - 1 : last] = [with_continuation(before, 0)]
        args = (hard, today, redact_extra, query, ledger)
        text, done = _forgotten(rel, path, spec, doc.text(lines), (first, first), *args)
        return text, replace(done, lines=(first, last), before=before)
    # What was there is printed: a key split over two lines, or the body of a private key,
    # is hidden in each line, as `mem get` hides it.
    before = redact_excerpt(lines, first, last, redact_extra)
    is_log = rel.startswith("memory/") and day_of(path) is not None
    if rel in DOCUMENTS:
        return _forget_curated(rel, lines, doc, (first, last), before, hard, today, query, ledger)
    if is_log or rel == HISTORY_FILE or rel.startswith("memory/"):  # and any note under it
        if not hard:
            raise UsageError(
                f"{rel} is a log and logs are never rewritten; `mem forget --hard {spec}` "
                "redacts the line in place"
            )
        stamp = f"[forgotten {today.isoformat()}]"
        if all(_structure(lines[i]) for i in range(first - 1, last)):
            raise UsageError(
                f"{rel}:{first} holds no words to forget (a heading, a blank line or a "
                f"marker); name the lines of an entry's text, or its heading through its last "
                f"line"
            )
        if is_log:
            _keep_identity(lines, doc.text(), first, last)
        after = []
        for i in range(first - 1, last):
            line = lines[i]
            if _structure(line):  # headings keep the log's structure; markers hold no words
                after.append(line)
                continue
            prefix = BULLET_RE.match(line)
            lines[i] = f"{prefix[0] if prefix else ''}{stamp}"
            after.append(lines[i])
        mode = "redacted"
    else:
        raise UsageError(
            f"{rel}: forget works on MEMORY.md, USER.md, AGENTS.md, HISTORY.md and memory/"
        )
    return doc.text(lines), Forgotten(rel, (first, last), before, after, mode)


def _forget_curated(
    rel: str,
    lines: list[str],
    doc,
    span: tuple[int, int],
    before: list[str],
    hard: bool,
    today: date,
    query: str | None,
    ledger: dict | None,
) -> tuple[str, Forgotten]:
    """Strike (or delete) one bullet of MEMORY.md, USER.md or AGENTS.md, or the facts of it
    the query names."""
    first, last = span
    if first != last:
        raise UsageError("give one line of MEMORY.md, USER.md or AGENTS.md (PATH:LINE)")
    line = lines[first - 1]
    if not core(line):
        raise UsageError(f"{rel}:{first} is blank; nothing to forget")
    # Only a bullet is one remembered line: striking a heading or a line of a paragraph
    # would turn it into a bullet and break the file's structure.
    if _structure(line):
        raise UsageError(f"{rel}:{first} is a heading; give one of the `- ` lines under it")
    if not is_bullet(line):
        raise UsageError(
            f"{rel}:{first} is prose, not a remembered `- ` line; edit it by hand, or "
            "forget the words it holds"
        )
    split = _matched_facts(line, query) if query is not None else None
    if split is not None:  # forget the fact the words name, keep the line's others
        done = _forget_facts(rel, lines, doc, first, before, split, hard, today)
        return done[0], _carried(done[1], line, ledger or {})
    if hard:
        del lines[first - 1]
        after, mode = [], "deleted"
    else:
        if is_struck(line):
            raise UsageError(f"{rel}:{first} is already struck through; --hard deletes it")
        new = strike(line, today, why="forgotten")
        lines[first - 1] = new
        after, mode = [new], "deprecated"
    return doc.text(lines), Forgotten(rel, (first, last), before, after, mode)


def _wrapped(lines: list[str], first: int, last: int) -> tuple[int, int] | None:
    """The lines (1-based) of the wrapped bullet that lines first..last fall within, when
    they name one (a line of it, or all of it); None for a bullet of one line."""
    at = bullet_of(lines, first - 1)
    start = first - 1 if at is None else at
    k = continuation(lines, start) if is_bullet(lines[start]) else 0
    return (start + 1, start + 1 + k) if k and last - 1 <= start + k else None


def _structure(line: str) -> bool:
    """A line that holds no one's words: a heading, a blank line, a progress marker."""
    return bool(
        entry_heading(line)
        or not line.strip()
        or heading(line)
        or MARKER_RE.fullmatch(line.strip())
    )


def _carried(done: Forgotten, line: str, ledger: dict) -> Forgotten:
    """The split line's record, if mem wrote it, copied to the words of each line left."""
    from dataclasses import replace

    from ..format.curated import line_key
    from ..format.markdown import struck_text

    file = done.path.removesuffix(".md")
    known = ledger.get((file, line_key(struck_text(line))))
    if known is None:
        return done
    halves = [replace(known, key=line_key(struck_text(x))) for x in done.after]
    return replace(done, records=tuple(halves))


def _forget_facts(
    rel: str,
    lines: list[str],
    doc,
    n: int,
    before: list[str],
    split: tuple[list[str], list[str]],
    hard: bool,
    today: date,
) -> tuple[str, Forgotten]:
    """Line n keeps the facts the query did not name (its links and comment too; its
    record, when mem wrote it, is carried by `_carried`); the named ones are struck through
    on a line of their own just below it, or, with --hard, gone."""
    named, kept = split
    line = lines[n - 1]
    indent, marker = bullet_prefix(line)
    comment = trailing_comment(line)
    links = source_links(sources(line)) if "](" in line else ""  # both halves came from there
    tail = links + (f" {comment}" if comment else "")
    lines[n - 1] = f"{indent}{marker} {' '.join(kept)}{tail}"
    after = [lines[n - 1]]
    if not hard:
        struck = strike(f"{indent}{marker} {' '.join(named)}{links}", today, why="forgotten")
        lines.insert(n, struck)
        after.append(struck)
    return doc.text(lines), Forgotten(
        rel, (n, n), before, after, "deleted" if hard else "deprecated"
    )


def _keep_identity(lines: list[str], text: str, first: int, last: int) -> None:
    """Before its words go, an entry whose heading carries no `id:` takes its content id
    as one: the redacted entry stays the same entry, so a clone that still holds the
    original gives way to the redaction, and a curated line citing it finds it."""
    from ..format.logs import entry_ids, parse_log, with_id

    entries = parse_log(text)
    for e, ident in zip(entries, entry_ids(entries), strict=True):
        if e.id is None and e.start_line <= last and e.end_line >= first:
            head = lines[e.start_line - 1]
            if entry_heading(head):
                lines[e.start_line - 1] = with_id(head, ident)
