"""Split memory files into chunks with exact 1-based line ranges and a date.

- Daily logs (memory/YYYY-MM-DD*.md): one entry, one chunk, dated by the entry; a long entry
  splits on lines.
- HISTORY.md: one `[YYYY-MM-DD HH:MM]` paragraph, one chunk, dated by its stamp.
- Everything else (MEMORY, USER, AGENTS, SOUL, TOOLS, notes): headings, paragraphs and
  bullets packed up to ~400 tokens, never across a heading; undated (evergreen).

The ranges of a file's chunks are disjoint and together hold every non-blank line (but a
daily log's title and front matter, which are indexed with its first entry), so nothing is
indexed twice or lost. Overlap (~80 tokens of what came before) goes into the
text that is indexed, not into the range that is cited. A struck-through line (`~~old~~`,
a deprecated fact) is chunked on its own and marked, so ranking can weigh it half.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from pathlib import PurePosixPath

from ..store.workspace import day_of
from ..text import estimate_tokens
from .logs import ROLES, Entry, parse_log
from .markdown import (
    DAY_TITLE_RE,
    FENCE_RE,
    HISTORY_STAMP_RE,
    core,
    deprecated_on,
    entry_heading,
    front_matter_end,
    is_heading,
    is_struck,
    is_top_bullet,
    line_day,
    lines_of,
    readable,
    stamp_time,
)
from .noise import is_noise


@dataclass(frozen=True)
class Chunk:
    path: str  # workspace-relative, forward slashes
    start_line: int
    end_line: int
    text: str  # the lines of the range, metadata comments removed
    when: datetime | None  # None: evergreen, never decayed
    deprecated: bool = False
    context: str = ""  # indexed with the text, not cited: section heading, overlap
    boilerplate: bool = False  # headings, or `mem init`'s own template text, and nothing else
    born: date | None = None  # the day it was written: its log day, or its metadata's day
    gone: date | None = None  # the day it was deprecated or forgotten
    agent: str | None = None  # the agent whose entry (or whose private fact) this is
    speaker: str | None = None  # a log entry's role or speaker, lower-cased (`--role`)
    refers: bool = False  # its subject may be in the chunk before it (refers_back)


@lru_cache(maxsize=1)
def _template_lines() -> frozenset[str]:
    """The lines `mem init` writes (templates/), as `core` sees them: the tool's instructions,
    which must never answer a query about the user's memory."""
    from ..store.fsutil import read_text
    from ..store.resources import templates_dir

    out: set[str] = set()
    folder = templates_dir()
    for path in folder.glob("*.md"):
        out |= {core(line) for line in lines_of(read_text(path)) if line.strip()}
    return frozenset(line for line in out if line and not is_heading(line))


def is_boilerplate(text: str) -> bool:
    """Nothing but headings, blank lines and unedited template lines. A template paragraph
    is matched by its lines' words, so the first edit a person makes turns it into memory."""
    lines = [line for line in text.split("\n") if line.strip() and not is_heading(line)]
    if not lines:
        return True
    shipped = _template_lines()
    return all(core(line) in shipped for line in lines)


def _trim(lines: list[str], lo: int, hi: int) -> tuple[int, int]:
    """Shrink [lo, hi) (0-based) so it starts and ends on non-blank lines."""
    while lo < hi and not lines[lo].strip():
        lo += 1
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return lo, hi


def _split_lines(lines: list[str], lo: int, hi: int, max_tokens: int) -> list[tuple[int, int]]:
    """Split [lo, hi) on line boundaries into pieces of at most max_tokens (a single
    longer line stays whole)."""
    # A line is never more tokens than characters: a range that short is one piece, and
    # most entries are, without estimating a line.
    if sum(map(len, lines[lo:hi])) + (hi - lo) <= max_tokens:
        return [(lo, hi)]
    pieces, start, size, said = [], lo, 0, False
    for i in range(lo, hi):
        t = estimate_tokens(lines[i]) + 1
        # A piece of headings alone ("## 14:51 · user" before one long paragraph) would be
        # a result that says nothing: its headings go with the line after them, unless they
        # fill a piece themselves (a fence of "# comment" lines reads as headings).
        if size and size + t > max_tokens and (said or size >= max_tokens):
            pieces.append((start, i))
            start, size, said = i, 0, False
        size += t
        line = lines[i]
        said = said or bool(line.strip() and not (is_heading(line) or entry_heading(line)))
    pieces.append((start, hi))
    return pieces


def _tail(text: str, tokens: int) -> str:
    """The last ~`tokens` tokens of text, cut at a line or word boundary."""
    if tokens <= 0 or not text:
        return ""
    if "\n" not in text:  # the last line is always kept
        return text
    out: list[str] = []
    size = 0
    for line in reversed(text.split("\n")):
        size += estimate_tokens(line) + 1
        if size > tokens and out:
            break
        out.append(line)
    return "\n".join(reversed(out))


# An entry heading's `<!-- …; agent: ID -->` or a curated line's `… agent=ID -->`: a field
# of mem's own comment (after its opening, a `;` or a space), never inside another value
# such as a session id. The gap is bounded and stops at the next `<!--` (which starts a try
# of its own): each character is looked at from one opener, so a line of many stays linear.
_AGENT_RE = re.compile(
    r"<!--(?:(?!<!--)[^>]){0,600}?(?:<!--|;|\s)\s*agent(?::\s*|=)(?P<id>[\w.-]{1,64})"
    r"\s*(?:;|-->|\s)"
)


def owner_of(line: str) -> str | None:
    """The agent a log entry heading or a curated line names in its comment, if any."""
    m = _AGENT_RE.search(line)
    return m["id"] if m else None


def _chunks_from_ranges(
    rel: str,
    lines: list[str],
    ranges: list[tuple[int, int, datetime | None, str, int]],
    max_tokens: int,
    line_offset: int = 0,
    refers: list[bool] | None = None,
) -> list[Chunk]:
    """Ranges (0-based [lo, hi), date, context, overlap tokens) -> chunks, splitting long
    ones on lines; a piece of a split range borrows the tail of the piece before it.
    `line_offset`: lines of the file before `lines` (a window of a large log). `refers`:
    which ranges refer back to the one before (a later piece of a split range always
    does: it is the same entry)."""
    out: list[Chunk] = []
    for r, (lo, hi, when, context, overlap) in enumerate(ranges):
        lo, hi = _trim(lines, lo, hi)
        if lo >= hi:
            continue
        agent = owner_of(lines[lo])  # an entry heading's, or a curated line's
        head = entry_heading(lines[lo])
        speaker = (head["label"].strip().lower() or None) if head else None
        prev = ""
        back = bool(refers and refers[r])
        for a, b in _split_lines(lines, lo, hi, max_tokens):
            a, b = _trim(lines, a, b)
            if a >= b:
                continue
            # Metadata comments (importance, session ids) are for tools, not for matching.
            body = readable("\n".join(lines[a:b]))
            extra = "\n".join(x for x in (context, _tail(prev, overlap)) if x)
            struck = is_struck(body.split("\n", 1)[0])
            boiler = when is None and is_boilerplate(body)
            born = line_day(lines[a]) or (when.date() if when else None)
            gone = deprecated_on(lines[a]) if struck else None
            out.append(
                Chunk(
                    rel,
                    a + 1 + line_offset,
                    b + line_offset,
                    body,
                    when,
                    struck,
                    extra,
                    boiler,
                    born,
                    gone,
                    agent,
                    speaker,
                    back,
                )
            )
            prev = body
            back = True
    return out


# Words every entry of a role, or every section of a file, shares: structure, not content.
_ROLE_WORD_RE = re.compile(r"\b(?:users?|assistants?|system|tools?|notes?)\b", re.I)


def heading_words(line: str) -> str:
    """What a heading line gives search: a log entry heading its speaker's name (not its
    time, and not a role word, which every entry of that role shares); a day title nothing;
    any other heading its words less role words ("# USER" says nothing a fact in USER.md
    does not). A role is a filter (`--role`), not a word to match."""
    m = entry_heading(line)
    if m:
        label = m["label"].strip()
        return "" if label.lower() in (*ROLES, "tool") else label
    if DAY_TITLE_RE.match(line):
        return ""
    return " ".join(_ROLE_WORD_RE.sub(" ", line.lstrip("#")).split())


def searchable(text: str) -> str:
    """A chunk's text as it is indexed and embedded: its heading lines reduced to
    heading_words (the lines cited and shown are the file's own)."""
    if "#" not in text:
        return text
    return "\n".join(
        heading_words(line)
        if line.startswith("#") and (is_heading(line) or entry_heading(line))
        else line
        for line in text.split("\n")
    )


BORROW_RULES = ("all", "reply", "session", "reply-session")
SESSION_GAP = timedelta(minutes=30)


def borrows(prev: Entry | None, entry: Entry, rule: str) -> bool:
    """Whether an entry is indexed with the tail of the one before it. A reply (another
    speaker answering) and a turn in the same sitting (within 30 minutes) continue what came
    before; two notes logged one after the other are unrelated, and a filler ("ok", "好的")
    would only be recalled for what it acknowledged."""
    if prev is None or is_noise(entry.text):
        return False
    reply = prev.role != entry.role
    near = prev.when is None or entry.when is None or entry.when - prev.when <= SESSION_GAP
    return {
        "all": True,
        "reply": reply,
        "session": near,
        "reply-session": reply and near,
    }[rule]


# A reply's first words that point back at what came before: a pronoun or demonstrative
# ("I bought it a year ago", "That's my second snake"), in English or Chinese.
_POINTS_BACK = frozenset(
    "it its it's that that's this these those they they're them their there he he's him his"
    " she she's her same".split()
)
_POINTS_BACK_ZH = "它他她那这"
_LOWER_WORD_RE = re.compile(r"[a-z']+")
_SENTENCE_END_RE = re.compile(r"[.!?。！？](?:\s|$)")
# A line that shows an image: Markdown's ![caption](…) or a bracketed caption, as chat
# exports write a shared photo ("[shares an image: …]", "[图片]").
# A caption stays on its line and holds no `[`: a scan from one bracket stops at the next.
_IMAGE_LINE_RE = re.compile(
    r"!\[[^\][\n]*\]\(|^[ \t]*\[[^\][\n]*(?:image|photo|picture|图片|照片)[^\][\n]*\][ \t]*$",
    re.I | re.M,
)


def refers_back(prev: Entry, entry: Entry) -> bool:
    """Whether an entry that continues the one before it (borrows) may leave its subject
    there: it answers a question, replies to an image, or its first sentence points back
    ("it", "that", "she", 它, 那个). Recall then lets it be found through the entry before
    it, at a lower weight, and says which entry carries the subject."""
    said = prev.text.rstrip()
    if said.endswith(("?", "？")) or ("[" in said and _IMAGE_LINE_RE.search(said)):
        return True
    text = entry.text.lstrip()[:200].lower()
    end = _SENTENCE_END_RE.search(text)
    first = text[: end.end()] if end else text
    if not _POINTS_BACK.isdisjoint(_LOWER_WORD_RE.findall(first)):
        return True
    return not first.isascii() and any(c in first for c in _POINTS_BACK_ZH)


def _log_chunks(
    rel: str,
    text: str,
    lines: list[str],
    day: date | None,
    mt: int,
    ov: int,
    ctx: int,
    borrow: str,
    line_offset: int = 0,
) -> list[Chunk]:
    entries = parse_log(text, day)
    if not entries:
        return _doc_chunks(rel, lines, mt, ov)
    starts = [e.start_line - 1 for e in entries]
    bounds = [*starts[1:], len(lines)]
    ranges = []
    # The day's title and front matter are indexed with the first entry (its context), so
    # that entry is still cited by its own lines, as `mem log` reported them.
    title = "\n".join(line for line in lines[: starts[0]] if line.strip() and line.strip() != "---")
    prev: Entry | None = None
    refers = []
    for e, lo, hi in zip(entries, starts, bounds, strict=True):
        # A turn answers the one before it: the tail of the previous entry is indexed with
        # it, while its citation stays its own lines. What it borrows can only add to what
        # its own words score (bm25.capped), never match on its own.
        continues = prev is not None and borrows(prev, e, borrow)
        context = _tail(prev.text, ctx) if continues else ""
        if prev is None:
            context = title
        ranges.append((lo, hi, e.when, context, ov))
        refers.append(continues and refers_back(prev, e))
        prev = e
    return _chunks_from_ranges(rel, lines, ranges, mt, line_offset, refers)


def _blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """Structural blocks (0-based [lo, hi), kind): heading, paragraph, bullet, code."""
    blocks: list[tuple[int, int, str]] = []
    n = len(lines)
    i = front_matter_end(lines)
    if i:
        blocks.append((0, i, "meta"))
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if FENCE_RE.match(line):
            fence = FENCE_RE.match(line)["fence"]
            j = i + 1
            while j < n and not lines[j].lstrip().startswith(fence):
                j += 1
            blocks.append((i, min(j + 1, n), "code"))
            i = j + 1
            continue
        if is_heading(line):
            blocks.append((i, i + 1, "heading"))
            i += 1
            continue
        kind = "bullet" if is_top_bullet(line) else "para"
        j = i + 1
        while (
            j < n and lines[j].strip() and not is_heading(lines[j]) and not FENCE_RE.match(lines[j])
        ):
            if is_top_bullet(lines[j]):
                break  # the next top-level bullet
            j += 1
        blocks.append((i, j, kind))
        i = j
    return blocks


def _doc_chunks(rel: str, lines: list[str], max_tokens: int, overlap: int) -> list[Chunk]:
    """Evergreen files: a top-level bullet is a chunk of its own (in MEMORY.md and USER.md a
    bullet is one fact: recalled, cited and embedded alone, not averaged with its
    neighbours); paragraphs pack up to max_tokens; a heading starts a new chunk. Each chunk
    knows its section heading; only prose chunks borrow the tail of the one before."""
    groups: list[tuple[int, int, str, bool]] = []  # [lo, hi), heading context, prose
    heading = ""
    cur_lo, cur_hi, size = -1, -1, 0
    heading_ctx = ""
    prose = True

    def close() -> None:
        nonlocal cur_lo, cur_hi, size
        if cur_lo >= 0:
            groups.append((cur_lo, cur_hi, heading_ctx, prose))
        cur_lo, cur_hi, size = -1, -1, 0

    for lo, hi, kind in _blocks(lines):
        t = estimate_tokens("\n".join(lines[lo:hi]))
        if kind == "heading":
            close()
            heading = heading_words(lines[lo])
            heading_ctx = ""  # the heading is inside this chunk's own text
            cur_lo, cur_hi, size, prose = lo, hi, t, True
            continue
        alone = kind == "bullet"
        if alone or (cur_lo >= 0 and size + t > max_tokens) or not prose:
            close()
            heading_ctx = heading
        if cur_lo < 0:
            cur_lo, size, prose = lo, 0, not alone
        cur_hi, size = hi, size + t
        if alone:
            close()
    close()

    # Extend ranges over the gaps between groups so every non-blank line is covered.
    ranges = []
    for idx, (lo, hi, ctx, is_prose) in enumerate(groups):
        start = 0 if idx == 0 else lo
        end = groups[idx + 1][0] if idx + 1 < len(groups) else len(lines)
        ranges.append((start, max(hi, end), None, ctx, overlap if is_prose else 0))
    return _chunks_from_ranges(rel, lines, ranges, max_tokens)


def _history_chunks(rel: str, lines: list[str], max_tokens: int, overlap: int) -> list[Chunk]:
    """HISTORY.md: each stamped paragraph (with its marker lines) dated by its stamp."""
    ranges: list[tuple[int, int, datetime | None, str, int]] = []
    i, n = 0, len(lines)
    undated_lo = 0
    while i < n:
        if not HISTORY_STAMP_RE.match(lines[i]):
            i += 1
            continue
        if undated_lo < i:
            ranges.append((undated_lo, i, None, "", overlap))
        j = i + 1
        while j < n and lines[j].strip() and not HISTORY_STAMP_RE.match(lines[j]):
            j += 1
        ranges.append((i, j, stamp_time(lines[i]), "", overlap))
        undated_lo = i = j
    if undated_lo < n:
        ranges.append((undated_lo, n, None, "", overlap))
    return _chunks_from_ranges(rel, lines, ranges, max_tokens)


def chunk_file(
    rel: str,
    text: str,
    max_tokens: int = 400,
    overlap: int = 80,
    log_context: int = 40,
    borrow: str = "reply-session",
    line_offset: int = 0,
) -> list[Chunk]:
    """All chunks of one file, in line order. `line_offset` is for a daily log read in
    windows that start at an entry heading: the lines of the file before `text`."""
    lines = lines_of(text)
    name = PurePosixPath(rel)
    day = day_of(name) if rel.startswith("memory/") else None
    if day is not None:
        return _log_chunks(
            rel, text, lines, day, max_tokens, overlap, log_context, borrow, line_offset
        )
    if name.name == "HISTORY.md" and len(name.parts) == 1:
        return _history_chunks(rel, lines, max_tokens, overlap)
    return _doc_chunks(rel, lines, max_tokens, overlap)
