"""Three-way merges that know what an entry is: daily logs and HISTORY.md (through
merge.py's `merge_file`, for `mem sync`, `mem undo` and git's merge driver).

A line-based merge joins lines, not entries: two entries logged on two machines in the same
minute under the same heading came back as one heading over both texts, and entries came
back out of time order with the blank line between them gone. Here each side is cut into
its entries (a daily log: heading through text; HISTORY.md: one paragraph), and the result
holds every entry of either side exactly once, byte for byte, in time order.

An entry with an `id:` (every entry `mem log` writes) is one entry wherever it appears:
both sides' entries are kept, whatever either side's history lost (a rewritten or
force-pushed remote). An acknowledged entry's words are never replaced: where the two
sides hold different words under one id, a redaction (`mem forget --hard`) wins, and
otherwise both versions stay, this machine's under the id and the other's beside it as a
second version (its id drawn from the first's and its words, so every clone draws the same
one, and the clone that sees that second version already there keeps the other words
under the id: the clones agree). A change of the heading's metadata alone (a count) goes
to the side that changed it. An entry redacted before it had an id takes its content id
as `id:`, so the redaction wins over the original on any clone that still holds it.

An entry without an id (an older mem's, or a note another agent wrote free-form) is known
by its text, counted:

    count(entry) = max(0, ours + theirs - base)

(an entry both sides kept stays once, one added on either side comes in, one removed on
either side goes; the same text logged on both machines is two entries). When the other
side's history was rewritten, what it lacks was lost, not removed: max(ours, theirs,
ours + theirs - base). Ties in time keep theirs (the remote's) first, then ours, each in its
own order.
What comes before the first entry (the day's title, front matter) is ours.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .logs import entry_ids, parse_log
from .markdown import entry_heading

_STAMP_RE = re.compile(r"^\[(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}):(\d{2}))?\]")


@dataclass(frozen=True)
class _Block:
    key: str  # where it sorts: its time ("HH:MM"), or the one before it for an untimed note
    text: str  # the entry exactly as it stands, with what stood between it and the last one
    id: str | None  # its heading's `id:`, when it carries one
    content: str  # its content id (logs.entry_ids), what an id-less entry is known by


def _blocks(text: str) -> tuple[str, list[_Block]]:
    """(preamble, blocks) of a daily log. A block is an entry exactly as it stands (an entry
    that says `lines: N` keeps its N lines, blank ones at its end too), with whatever stood
    between it and the entry before (a free-form section heading) in front of it; blank
    lines between blocks are not part of them. A count that reaches past the end of its
    file is cut to the lines there are, so the entry cannot swallow what is merged after."""
    lines = text.split("\n")
    entries = parse_log(text)
    if not entries:
        return text, []
    out = []
    last_key = ""
    prev_end = entries[0].start_line - 1  # 0-based end of the block before
    for e, cid in zip(entries, entry_ids(entries), strict=True):
        head = entry_heading(lines[e.start_line - 1].removesuffix("\r"))
        count = _META_LINES_RE.search(head["meta"] or "") if head else None
        end = e.start_line + e.counted if e.counted is not None else e.end_line
        lo = prev_end  # what precedes the first entry is the preamble
        while lo < e.start_line - 1 and not lines[lo].strip():
            lo += 1  # blank lines between blocks belong to neither
        block = lines[lo : min(end, len(lines))]
        if count and (e.counted is None or int(count[1]) != e.counted):
            # A count that was not honoured (forged, or cut short by the end of its file)
            # says what the entry really holds, so what is merged after it stays out.
            at = e.start_line - 1 - lo
            block[at] = block[at].replace(count[0], f"lines: {end - e.start_line}", 1)
        key = e.time or last_key  # an untimed note keeps the place of the one before it
        last_key = key
        out.append(_Block(key, "\n".join(block), e.id, cid))
        prev_end = min(end, len(lines))
    preamble = "\n".join(lines[: entries[0].start_line - 1])
    return preamble, out


_META_LINES_RE = re.compile(r"\blines:\s*(\d+)")


def _paragraphs(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(title, [(stamp, paragraph)]) of HISTORY.md: paragraphs are split on blank lines."""
    parts = re.split(r"\n[ \t\r]*\n", text.strip("\n"))
    title = parts[0] + "\n\n" if parts and parts[0].startswith("# ") else ""
    body = parts[1:] if title else parts
    out, last = [], ""
    for p in body:
        if not p.strip():
            continue
        m = _STAMP_RE.match(p)
        key = f"{m[1]} {int(m[2]):02d}:{m[3]}" if m and m[2] else (m[1] if m else last)
        last = key
        out.append((key, p.rstrip("\r\n")))
    return title, out


def _keep(o: Counter, t: Counter, b: Counter, rewritten: bool) -> dict[str, int]:
    """How many of each text-known block stay (the module's formula)."""
    if rewritten:
        return {k: max(o[k], t[k], o[k] + t[k] - b[k]) for k in o | t}
    return {k: max(0, o[k] + t[k] - b[k]) for k in o | t}


def _in_order(kept: list[tuple[str, int, str]]) -> list[str]:
    """In time; at one time, the other side's first (what reached the remote first stays
    first), each side in its own order."""
    return [block for _, _, block in sorted(kept, key=lambda x: (x[0], x[1]))]


def _redacted(block: str) -> bool:
    return "[forgotten " in block


def _pick(base: str | None, ours: str, theirs: str) -> str:
    """One entry, two texts: a redaction wins, then the side that changed it."""
    if _redacted(ours) != _redacted(theirs):
        return ours if _redacted(ours) else theirs
    return theirs if base == ours else ours


def _words_of(block: _Block) -> str:
    """What an entry says: its block after its heading (the line that carries its id)."""
    lines = block.text.split("\n")
    at = next((n for n, x in enumerate(lines) if f"id: {block.id}" in x), 0)
    return "\n".join(lines[at + 1 :]).rstrip()


def _version(block: _Block) -> _Block:
    """The same entry as a second version of its id: the id drawn from the first's and its
    words."""
    import hashlib

    vid = hashlib.sha1(f"{block.id}\n{_words_of(block)}".encode()).hexdigest()[:12]
    text = block.text.replace(f"id: {block.id}", f"id: {vid}", 1)
    return _Block(block.key, text, vid, block.content)


def _two_versions(
    mine: _Block, other: _Block, o_ids: dict, t_ids: dict
) -> tuple[str, _Block | None] | None:
    """(the text that keeps the id, the other version to keep beside it) when the sides
    hold different words under one id; None when they do not (metadata alone differs)."""
    if _words_of(mine) == _words_of(other) or _redacted(mine.text) or _redacted(other.text):
        return None
    if _version(mine).id in t_ids:  # the other side keeps these words as the second version
        return other.text, None
    if _version(other).id in o_ids:
        return mine.text, None
    return mine.text, _version(other)


def _identities(side: list[_Block]) -> list[str | None]:
    """Each block's identity: its id, and for a later block under an id already seen in the
    same file, the id with its place ("…#1")."""
    seen: Counter = Counter()
    out: list[str | None] = []
    for x in side:
        if x.id:
            out.append(f"{x.id}#{seen[x.id]}" if seen[x.id] else x.id)
            seen[x.id] += 1
        else:
            out.append(None)
    return out


def _merged(
    base: list[_Block], ours: list[_Block], theirs: list[_Block], rewritten: bool
) -> tuple[list[str], int, int]:
    """The blocks to keep, in order, how many entries (by id) the other side had lost that
    this side still held, and how many entries came back with other words (both kept)."""
    # An entry is known by its id, and a second entry under the same id in one file (a
    # copy edited by hand) by the id and its place among them: both stay.
    b_ident, o_ident, t_ident = _identities(base), _identities(ours), _identities(theirs)
    b_ids = {i: x.text for x, i in zip(base, b_ident, strict=True) if i}
    o_ids = {i: x for x, i in zip(ours, o_ident, strict=True) if i}
    t_ids = {i: x for x, i in zip(theirs, t_ident, strict=True) if i}
    known = {x.id for x in (*ours, *theirs) if x.id}

    def plain(side: list[_Block]) -> Counter:
        # An id-less entry whose content id is now some entry's `id:` was redacted (or
        # adopted) there: that version stands for it.
        return Counter(x.text for x in side if not x.id and x.content not in known)

    keep = _keep(plain(ours), plain(theirs), plain(base), rewritten)
    kept: list[tuple[str, int, str]] = []
    done: set[str] = set()
    restored = versions = 0
    for n, (x, ident) in enumerate(zip([*theirs, *ours], [*t_ident, *o_ident], strict=True)):
        if ident:
            if ident in done:
                continue
            done.add(ident)
            mine, other = o_ids.get(ident), t_ids.get(ident)
            text = x.text
            if mine is not None and other is not None and mine.text != other.text:
                both = _two_versions(mine, other, o_ids, t_ids)
                if both is None:
                    text = _pick(b_ids.get(ident), mine.text, other.text)
                else:
                    text, beside = both
                    if beside is not None and beside.id not in done:
                        done.add(beside.id)
                        versions += 1
                        kept.append((beside.key, n, beside.text))
            elif other is None and ident in b_ids:
                restored += 1
            kept.append((x.key, n, text))
        elif x.content not in known and keep.get(x.text, 0) > 0:
            keep[x.text] -= 1
            kept.append((x.key, n, x.text))
    return _in_order(kept), restored, versions


def merge_log(base: str, ours: str, theirs: str, *, rewritten: bool = False, report: bool = False):
    """A daily log merged by entry. Each entry ends with one blank line, as `mem log`
    writes them. With `report`, (text, entries restored, entries kept in two versions)
    instead of the text."""
    preamble, mine = _blocks(ours)
    _, other = _blocks(theirs)
    _, old = _blocks(base)
    if not mine and not other:
        return (ours, 0, 0) if report else ours
    if not mine:
        preamble, _ = _blocks(theirs)
    first = (ours or theirs).split("\n", 1)[0]  # a file's first line tells, as for appends
    nl = "\r\n" if first.endswith("\r") else "\n"
    head = preamble.rstrip("\r\n")
    blocks, restored, versions = _merged(old, mine, other, rewritten)
    text = (head + "\n\n" if head else "") + "\n\n".join(blocks) + "\n\n"
    if nl == "\r\n":
        text = text.replace("\r\n", "\n").replace("\n", nl)
    return (text, restored, versions) if report else text


def merge_history(base: str, ours: str, theirs: str, *, rewritten: bool = False) -> str:
    """HISTORY.md merged by paragraph, in stamp order."""
    title, mine = _paragraphs(ours)
    other_title, other = _paragraphs(theirs)
    _, old = _paragraphs(base)
    keep = _keep(*(Counter(p for _, p in side) for side in (mine, other, old)), rewritten)
    kept = []
    for n, (key, paragraph) in enumerate([*other, *mine]):
        if keep.get(paragraph, 0) > 0:
            keep[paragraph] -= 1
            kept.append((key, n, paragraph))
    blocks = _in_order(kept)
    return (title or other_title or "") + "\n\n".join(blocks) + ("\n" if blocks else "")
