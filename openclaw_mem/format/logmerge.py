"""Three-way merges that know what an entry is: daily logs and HISTORY.md, as git's merge
driver (`mem merge-file`, registered by `mem init` and `mem sync`).

A line-based merge joins lines, not entries: two entries logged on two machines in the same
minute under the same heading came back as one heading over both texts, and entries came
back out of time order with the blank line between them gone. Here each side is cut into
its entries (a daily log: heading through text; HISTORY.md: one paragraph), and the result
holds every entry of either side exactly once, byte for byte, in time order:

    count(entry) = max(0, ours + theirs - base)

(an entry both sides kept stays once, one added on either side comes in, one removed on
either side — a `mem forget --hard` redaction — goes; the same text logged on both machines
is two entries). Ties in time keep ours first, then theirs, each in its own order. What
comes before the first entry (the day's title, front matter) is ours.
"""

from __future__ import annotations

import re
from collections import Counter

from .logs import parse_log
from .markdown import entry_heading

_STAMP_RE = re.compile(r"^\[(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}):(\d{2}))?\]")


def _blocks(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(preamble, [(sort key, block)]) of a daily log. A block is an entry exactly as it
    stands (an entry that says `lines: N` keeps its N lines, blank ones at its end too),
    with whatever stood between it and the entry before (a free-form section heading) in
    front of it; blank lines between blocks are not part of them."""
    lines = text.split("\n")
    entries = parse_log(text)
    if not entries:
        return text, []
    out = []
    last_key = ""
    prev_end = entries[0].start_line - 1  # 0-based end of the block before
    for e in entries:
        head = entry_heading(lines[e.start_line - 1].removesuffix("\r"))
        count = _META_LINES_RE.search(head["meta"] or "") if head else None
        end = e.start_line + int(count[1]) if count else e.end_line
        end = min(end, len(lines))
        lo = prev_end  # what precedes the first entry is the preamble
        while lo < e.start_line - 1 and not lines[lo].strip():
            lo += 1  # blank lines between blocks belong to neither
        key = e.time or last_key  # an untimed note keeps the place of the one before it
        last_key = key
        out.append((key, "\n".join(lines[lo:end])))
        prev_end = end
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


def _merged(
    base: list[tuple[str, str]], ours: list[tuple[str, str]], theirs: list[tuple[str, str]]
) -> list[str]:
    b = Counter(block for _, block in base)
    o = Counter(block for _, block in ours)
    t = Counter(block for _, block in theirs)
    keep = {k: max(0, o[k] + t[k] - b[k]) for k in o | t}
    order: list[tuple[str, int, str]] = []
    for n, (key, block) in enumerate([*ours, *theirs]):
        if keep.get(block, 0) > 0:
            keep[block] -= 1
            order.append((key, n, block))
    order.sort(key=lambda x: (x[0], x[1]))  # stable in time: ours first, then theirs
    return [block for _, _, block in order]


def merge_log(base: str, ours: str, theirs: str) -> str:
    """A daily log merged by entry. Each entry ends with one blank line, as `mem log`
    writes them."""
    preamble, mine = _blocks(ours)
    _, other = _blocks(theirs)
    _, old = _blocks(base)
    if not mine and not other:
        return ours
    if not mine:
        preamble, _ = _blocks(theirs)
    first = (ours or theirs).split("\n", 1)[0]  # a file's first line tells, as for appends
    nl = "\r\n" if first.endswith("\r") else "\n"
    head = preamble.rstrip("\r\n")
    blocks = _merged(old, mine, other)
    text = (head + "\n\n" if head else "") + "\n\n".join(blocks) + "\n\n"
    return text.replace("\r\n", "\n").replace("\n", nl) if nl == "\r\n" else text


def merge_history(base: str, ours: str, theirs: str) -> str:
    """HISTORY.md merged by paragraph, in stamp order."""
    title, mine = _paragraphs(ours)
    other_title, other = _paragraphs(theirs)
    _, old = _paragraphs(base)
    blocks = _merged(old, mine, other)
    return (title or other_title or "") + "\n\n".join(blocks) + ("\n" if blocks else "")


def merge_file(path: str, base: str, ours: str, theirs: str) -> str:
    """The merge for a workspace-relative path: HISTORY.md by paragraph, logs by entry."""
    if path.rsplit("/", 1)[-1] == "HISTORY.md":
        return merge_history(base, ours, theirs)
    return merge_log(base, ours, theirs)
