"""The Markdown line grammar mem reads and writes, and every format it writes and reads back.

Grammar: the BOM and line splitting, front matter, headings, bullets, struck-through
(deprecated) lines, trailing metadata comments, fenced code, a daily log's title and its
entry headings, HISTORY.md's paragraph stamps.

Formats the tool writes in one place and parses in another:
- the metadata comment of a curated line: `<!-- preference i=0.6 c=0.8 2026-11-30 -->`,
  optionally followed by `key=value` fields (`src=memory/2026-11-30.md#L3-L4`, and `eid=`,
  the ids of the entries it came from);
- a deprecation: `- ~~old line~~ (deprecated 2026-11-30 → new line)`;
- the consolidation marker closing a HISTORY.md paragraph:
  `<!-- consolidated: 4 entries of memory/2026-11-24.md; tokens … -->` (for people; an
  older mem's `memory/2026-11-24.md#L19` form is still read until memory/.consolidated
  takes over);
- a citation `path#Lx-Ly` (or `path#Lx`);
- the subjects of the commits mem makes.

Everything here is pure string work: no I/O, no imports beyond the standard library.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

# A log entry's heading is appending.py's (the per-turn path reads no more than it needs);
# readers of Markdown find it here too.
from ..text import without_controls
from .appending import LOG_SEPARATOR as LOG_SEPARATOR
from .appending import citation as citation
from .appending import entry_heading as entry_heading
from .appending import entry_heading_text as entry_heading_text

BOM = "\ufeff"

# ----------------------------------------------------------------- lines


def strip_bom(text: str) -> str:
    return text[1:] if text.startswith(BOM) else text


def lines_of(text: str, keep_cr: bool = False) -> list[str]:
    """A file's lines for reading: no BOM, no line endings (LF or CRLF; with keep_cr a CRLF
    line keeps its CR, for a reader that writes the file back as it was), and no empty
    line after the final newline."""
    text = strip_bom(text)
    if not text:
        return []
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines if keep_cr else [line.removesuffix("\r") for line in lines]


@dataclass(frozen=True)
class Doc:
    """A file's lines for rewriting: what `text()` gives back keeps its BOM and its line
    endings (CRLF stays CRLF), so an edit changes only the lines it means to."""

    lines: list[str]
    newline: str = "\n"
    bom: bool = False

    def text(self, lines: list[str] | None = None) -> str:
        body = self.lines if lines is None else lines
        out = self.newline.join(body) + (self.newline if body else "")
        return (BOM if self.bom else "") + out


def split_doc(text: str) -> Doc:
    bom = text.startswith(BOM)
    body = strip_bom(text)
    newline = "\r\n" if "\r\n" in body else "\n"
    body = body.replace("\r\n", "\n")
    if body.endswith("\n"):
        body = body[:-1]
    return Doc(body.split("\n") if body else [], newline, bom)


def front_matter_end(lines: list[str]) -> int:
    """Index of the first line after a leading `---` YAML block (0 when there is none)."""
    if not lines or lines[0].rstrip("\r") != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r") in ("---", "..."):
            return i + 1
    return 0


CONFLICT_RE = re.compile(r"^(?:<{7}|={7}|>{7})(?: |$)", re.M)


_ANY_COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)|-->", re.S)


def without_comments(text: str) -> str:
    """The text with every HTML comment (and stray opener or closer) gone, spaces folded:
    comments are mem's metadata grammar, which text from outside may not bring in."""
    return " ".join(_ANY_COMMENT_RE.sub(" ", text).split())


def has_conflict_markers(text: str) -> bool:
    """Git's `<<<<<<<` / `=======` / `>>>>>>>` lines: a merge left unresolved."""
    return CONFLICT_RE.search(text) is not None


def without_conflicts(lines: list[str]) -> list[str]:
    """The lines outside any conflict region: neither side of an unresolved merge is a fact."""
    return [line for _, line in outside_conflicts(lines)]


def outside_conflicts(lines: list[str]) -> list[tuple[int, str]]:
    """`without_conflicts`, each line with its 1-based number."""
    out, inside = [], False
    for n, line in enumerate(lines, 1):
        if line.startswith("<<<<<<<"):
            inside = True
        elif line.startswith(">>>>>>>") and inside:
            inside = False
        elif not inside:
            out.append((n, line))
    return out


# ----------------------------------------------------------------- blocks

HEADING_RE = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.*?)(?:[ \t]+#+)?[ \t]*$")
# One bullet grammar for every reader: `-`, `*`, `+` or `1.` / `1)`, optionally indented.
# Readers that care about nesting ask `is_top_bullet`.
BULLET_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,3}[.)])[ \t]+")
FENCE_RE = re.compile(r"^[ \t]*(?P<fence>```|~~~)")


def heading(line: str) -> tuple[int, str] | None:
    """(level, title) of an ATX heading, else None."""
    m = HEADING_RE.match(line)
    return (len(m["hashes"]), m["title"]) if m else None


def is_heading(line: str) -> bool:
    return HEADING_RE.match(line) is not None


def is_bullet(line: str) -> bool:
    return BULLET_RE.match(line) is not None


def is_top_bullet(line: str) -> bool:
    m = BULLET_RE.match(line)
    return m is not None and not m["indent"]


def bullet_prefix(line: str) -> tuple[str, str]:
    """(indent, marker) of a bullet line; ("", "-") for anything else."""
    m = BULLET_RE.match(line)
    return (m["indent"], m["marker"]) if m else ("", "-")


def _trailing_comment_at(line: str) -> tuple[int, int]:
    """(start, end) of the comment that ends a line (`[ \t]*<!--.*?-->[ \t]*$`, with the
    spaces before it), or (-1, -1). Found from the end in one pass: the regex, searched,
    tries every start and is quadratic on a line of unclosed `<!--` or of spaces."""
    end = len(line) - 1 if line.endswith("\n") else len(line)  # `$` before a last newline
    body = line[:end].rstrip(" \t")
    if not body.endswith("-->"):
        return -1, -1
    close = len(body) - 3
    start = line.find("<!--", line.rfind("\n", 0, close) + 1, close)  # `.` stops at \n
    if start < 0:
        return -1, -1
    while start and line[start - 1] in " \t":
        start -= 1
    return start, end


def without_trailing_comment(line: str) -> str:
    """The line without the comment that ends it (and the spaces before it)."""
    start, end = _trailing_comment_at(line)
    return line if start < 0 else line[:start] + line[end:]


def trailing_comment(line: str) -> str:
    """The metadata comment at the end of a line, without surrounding spaces ("" if none)."""
    if not line.rstrip(" \t").endswith("-->"):
        return ""
    start, end = _trailing_comment_at(line)
    return line[start:end].strip() if start >= 0 else ""


def strip_comments(text: str) -> str:
    """Text without its HTML comments (metadata is for tools, not for reading or matching).
    An unclosed `<!--` stays as it is; scanning by hand keeps many of them linear."""
    out, pos = [], 0
    while True:
        start = text.find("<!--", pos)
        end = text.find("-->", start + 4) if start >= 0 else -1
        if end < 0:
            out.append(text[pos:])
            return "".join(out)
        head = text[pos:start]
        out.append(head.rstrip(" \t") if head.endswith((" ", "\t")) else head)
        pos = end + 3


# A source link mem writes after a curated line: a date label and a workspace path with a
# line range, `[2026-11-21](memory/2026-11-21.md#L3-L4)` (`[11-21]` before the year was
# written); an editor opens it at the entry.
# The path holds no parenthesis (nor space): a scan from one `(` stops at the next, so a line
# of `[a](` repeated is read in one pass, not once from each.
_LINK = (
    r"\[(?P<label>\d{2}-\d{2}|\d{4}-\d{2}-\d{2}|[^\]\s]{1,40})\]"
    r"\((?P<cite>[^()\s]+?\.md#L\d+(?:-L\d+)?)\)"
)
SOURCE_LINK_RE = re.compile(_LINK)
_DAY_IN_PATH_RE = re.compile(r"(?:^|/)(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})[^/]*\.md#")


def split_sources(text: str) -> tuple[str, list[str]]:
    """(the text without its trailing source links, their citations in order): the links
    (`(?:[ \t]+LINK)+[ \t]*$`) are read from the end, one at a time, so a line of many links
    followed by a word costs one pass, not one from each start."""
    if "](" not in text:  # most lines a person writes: nothing to look for
        return text, []
    end = _before_blanks(text, len(text) - 1 if text.endswith("\n") else len(text))
    start, cites = end, []
    while end > 0 and text[end - 1] == ")":
        paren = text.rfind("(", 0, end)
        # The leftmost `[` a label (at most 40 characters) allows, as the regex would take.
        m = next(
            (
                m
                for at in range(max(1, paren - 42), max(1, paren - 1))
                if text[at] == "[" and (m := SOURCE_LINK_RE.fullmatch(text, at, end))
            ),
            None,
        )
        if m is None or text[m.start() - 1] not in " \t":
            break
        cites.append(m["cite"])
        start = end = _before_blanks(text, m.start())
    if not cites:
        return text, []
    return text[:start], cites[::-1]


def _before_blanks(text: str, end: int) -> int:
    """Where the run of spaces and tabs that ends at `end` starts."""
    while end and text[end - 1] in " \t":
        end -= 1
    return end


def label_for(cite: str) -> str:
    """A link's words: the day of the log it points into (`2026-11-21`: a memory outlives
    its year, and `11-21` said nothing of which), else the file's name. Labels without the
    year, as earlier versions wrote them, still read."""
    m = _DAY_IN_PATH_RE.search(cite)
    if m:
        return f"{m['y']}-{m['m']}-{m['d']}"
    return cite.split("#", 1)[0].rsplit("/", 1)[-1].removesuffix(".md")


def source_links(cites: Iterable[str]) -> str:
    """ " [2026-11-21](memory/2026-11-21.md#L3-L4) [2026-11-22](…)" for these citations ("" for
    none)."""
    return "".join(f" [{label_for(c)}]({c})" for c in cites if c)


def readable(text: str) -> str:
    """Text as read and matched: no HTML comments, no trailing source links (where a line
    came from is not what it says; `--explain` and `mem get` give it)."""
    text = strip_comments(text)
    if "](" not in text:
        return text
    return "\n".join(split_sources(line)[0] for line in text.split("\n"))


def without_sources(text: str) -> str:
    """A curated file's text with every line's trailing source links left out: what a
    model is shown (a citation is mem's to write, never the model's to copy)."""
    if "](" not in text:
        return text
    return "\n".join(
        split_sources(without_trailing_comment(line))[0] if "](" in line else line
        for line in text.split("\n")
    )


def day_of_cite(cite: str) -> date | None:
    """The day of the log a citation points into, when its name carries one."""
    m = _DAY_IN_PATH_RE.search(cite)
    if not m:
        return None
    try:
        return date(int(m["y"]), int(m["m"]), int(m["d"]))
    except ValueError:
        return None


def core(line: str) -> str:
    """What a line says: no bullet marker, no trailing metadata comment, no source links
    (curated.py: where it came from is not what it says), spaces collapsed."""
    text = without_trailing_comment(line.rstrip("\r"))
    text = split_sources(text)[0]
    text = BULLET_RE.sub("", text, count=1)
    return " ".join(text.split())


def sources(line: str) -> list[str]:
    """The citations a curated line's source links point at (old lines: their `src=`)."""
    text = without_trailing_comment(line.rstrip("\r"))
    found = split_sources(text)[1]
    if found:
        return found
    meta = parse_meta(line)
    src = meta.fields.get("src", "") if meta else ""
    return [c for c in src.split(",") if c]


def line_day(line: str) -> date | None:
    """The day a curated line's fact is from: its newest source's log day (old lines: the
    date in their comment); None for a line with neither."""
    if "](" not in line and "<!--" not in line:  # neither a source link nor a comment
        return None
    days = [d for d in map(day_of_cite, split_sources(without_trailing_comment(line))[1]) if d]
    if days:
        return max(days)
    meta = parse_meta(line)
    return meta.day if meta else None


# ----------------------------------------------------------------- deprecation

_STRUCK_RE = re.compile(r"^~~(?P<old>.+?)~~(?P<rest>.*)$")
_DEPRECATED_RE = re.compile(r"\((?:deprecated|forgotten) (?P<date>\d{4}-\d{2}-\d{2})")


def is_struck(line: str) -> bool:
    """A deprecated (or forgotten) line: its content starts struck through."""
    if "~~" not in line:  # core() only removes and collapses: it cannot make a "~~"
        return False
    return _STRUCK_RE.match(core(line)) is not None


def struck_text(line: str) -> str:
    """What a line says, struck through or not (a deprecated fact still counts as said)."""
    text = core(line)
    m = _STRUCK_RE.match(text)
    return m["old"].strip() if m else text


def deprecated_on(line: str) -> date | None:
    """The date in `(deprecated YYYY-MM-DD …)` or `(forgotten YYYY-MM-DD)`."""
    m = _DEPRECATED_RE.search(line)
    if not m:
        return None
    try:
        return date.fromisoformat(m["date"])
    except ValueError:
        return None


def strike(line: str, day: date, *, why: str = "deprecated", replacement: str = "") -> str:
    """The line struck through, dated, pointing at what replaced it; bullet, source links
    and metadata kept."""
    indent, marker = bullet_prefix(line)
    pointer = f" → {replacement}" if replacement else ""
    comment = trailing_comment(line)
    links = split_sources(without_trailing_comment(line.rstrip("\r")))[1]
    out = f"{indent}{marker} ~~{core(line)}~~ ({why} {day.isoformat()}{pointer})"
    return out + source_links(links) + (f" {comment}" if comment else "")


def continuation(lines: Sequence[str], i: int) -> int:
    """How many lines after the bullet lines[i] (0-based) continue it: an editor's wrap of
    one fact, indented, neither blank nor a bullet nor a heading."""
    k = 0
    for line in lines[i + 1 :]:
        if not line[:1].isspace() or not line.strip() or is_bullet(line) or heading(line):
            break
        k += 1
    return k


def bullet_of(lines: Sequence[str], i: int) -> int | None:
    """The bullet (0-based) whose continuation lines[i] is, or None."""
    j = i
    while j > 0 and lines[j][:1].isspace() and lines[j].strip() and not is_bullet(lines[j]):
        j -= 1
    if j < i and is_bullet(lines[j]) and j + continuation(lines, j) >= i:
        return j
    return None


def with_continuation(lines: Sequence[str], i: int) -> str:
    """The bullet lines[i] with its continuation as one line (their words before the
    line's trailing comment): the whole fact, however it is wrapped."""
    k = continuation(lines, i)
    line = lines[i]
    if not k:
        return line
    more = " ".join(x.strip() for x in lines[i + 1 : i + 1 + k])
    comment = trailing_comment(line)
    if comment:
        at = line.rstrip(" \t").rfind(comment)
        return f"{line[:at].rstrip()} {more} {line[at:].rstrip()}"
    return f"{line.rstrip()} {more}"


def is_live_bullet(line: str) -> bool:
    """A bullet that states something now: not struck through, not empty."""
    return is_bullet(line) and not is_struck(line) and bool(core(line))


# ----------------------------------------------------------------- metadata comment

_META_RE = re.compile(
    r"<!--\s*(?P<type>[a-z]+)\s+i=(?P<i>[\d.]+)\s+c=(?P<c>[\d.]+)\s+"
    r"(?P<date>\d{4}-\d{2}-\d{2})(?P<extra>(?:\s+[a-z]+=\S+)*)\s*-->"
)
_FIELD_RE = re.compile(r"([a-z]+)=(\S+)")


@dataclass(frozen=True)
class LineMeta:
    """What consolidation records about a line it wrote."""

    type: str
    importance: float
    confidence: float
    day: date
    fields: dict[str, str] = field(default_factory=dict)  # src=…, and others later

    def comment(self) -> str:
        extra = "".join(f" {k}={v}" for k, v in self.fields.items() if v)
        return (
            f"<!-- {self.type} i={self.importance:.2g} c={self.confidence:.2g} "
            f"{self.day.isoformat()}{extra} -->"
        )


def parse_meta(line: str) -> LineMeta | None:
    m = _META_RE.search(line)
    if not m:
        return None
    try:
        return LineMeta(
            m["type"],
            float(m["i"]),
            float(m["c"]),
            date.fromisoformat(m["date"]),
            dict(_FIELD_RE.findall(m["extra"] or "")),
        )
    except ValueError:
        return None


# ----------------------------------------------------------------- daily logs

DAY_TITLE_RE = re.compile(r"^#[ \t]+(\d{4}-\d{2}-\d{2})\b")


# ----------------------------------------------------------------- HISTORY.md

# Read leniently (a person may write `[2026-11-24]` or `[2026-11-24 9:05]`); written strictly.
HISTORY_STAMP_RE = re.compile(r"^\[(?P<day>\d{4}-\d{2}-\d{2})(?:[ T](?P<time>\d{1,2}:\d{2}))?\]")
STRICT_STAMP_RE = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] \S")


def history_stamp(when: datetime) -> str:
    return f"[{when:%Y-%m-%d %H:%M}]"


def appended_paragraph(existing: bytes, paragraph: str) -> bytes:
    """What to append to HISTORY.md as it is (`existing`) so `paragraph` stands as a
    paragraph of its own: the title first in an empty file, else one blank line before it."""
    if not existing:
        head = "# HISTORY\n\n"
    elif existing.endswith(b"\n\n"):
        head = ""
    elif existing.endswith(b"\n"):
        head = "\n"
    else:
        head = "\n\n"
    # A model's escape sequences and bidi controls never enter the timeline.
    return (head + without_controls(paragraph)).encode("utf-8")


def stamp_time(line: str) -> datetime | None:
    m = HISTORY_STAMP_RE.match(line)
    if not m:
        return None
    hour, minute = (m["time"] or "00:00").split(":")
    try:
        return datetime.fromisoformat(f"{m['day']} {int(hour):02d}:{minute}")
    except ValueError:
        return None


# For a whole line (`fullmatch`, one start): a text is searched with `markers`, whose one pass
# stays linear where the regex, tried from every `<!--`, is quadratic on unclosed ones.
MARKER_RE = re.compile(r"<!--\s*consolidated:(?P<body>.*?)-->", re.S)
_CITE_TAIL_RE = re.compile(r"\.md#L(\d+)")
_RUN_RE = re.compile(r"\S+")


def comments(text: str, head: str, stops: str = "") -> Iterator[tuple[int, int, str]]:
    """(start, end, body) of each `<!--\\s*HEAD…-->` in the text, in order (the body starts at
    HEAD, without the spaces before `-->`), in one pass. With `stops`, a body holds none of
    those characters (the `>` of its `-->` aside). A comment left open ends the search: no
    later one can close either."""
    pos, stop_at = 0, -1
    stop_re = re.compile(f"[{re.escape(stops)}]") if stops else None
    while (start := text.find("<!--", pos)) >= 0:
        at = start + 4
        while at < len(text) and text[at].isspace():
            at += 1
        pos = start + 4
        if not text.startswith(head, at):
            continue
        close = text.find("-->", at + len(head))
        if close < 0:
            return
        if stop_re is not None:  # the first stop after `at`, found once for every opener before it
            if stop_at < at:
                found = stop_re.search(text, at)
                stop_at = found.start() if found else len(text)
            if stop_at != close + 2:  # the body may not cross one; the `>` of `-->` ends it
                continue
        yield start, close + 3, text[at:close].rstrip()
        pos = close + 3


def markers(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, body) of each `<!-- consolidated: … -->`: the body after the colon."""
    for start, end, body in comments(text, "consolidated:"):
        yield start, end, body[len("consolidated:") :]


def marker_cites(body: str) -> Iterator[tuple[str, int]]:
    """The (path, line) of each old-style `path.md#Lnn` in a marker's body (what the regex
    `(\\S+?\\.md)#L(\\d+)` finds), reading each run of non-spaces once."""
    for run in _RUN_RE.finditer(body):
        word, at = run[0], 0
        for m in _CITE_TAIL_RE.finditer(word):
            if m.start() > at:  # a path of one character at least
                yield word[at : m.start() + 3], int(m[1])
                at = m.end()


def consolidation_marker(counts: dict[str, int], ledger: str = "", lines: str = "") -> str:
    """`<!-- consolidated: 4 entries of memory/2026-11-24.md; tokens 1234+210 on 2026-11-30
    (openai gpt-4o) -->`: what the run took from each log, and what it cost. For people: the
    entries themselves are recorded by id in memory/.consolidated."""
    from ..text import plural

    taken = ", ".join(f"{plural(n, 'entry')} of {path}" for path, n in sorted(counts.items()))
    extra = "".join(f"; {x}" for x in (ledger, lines) if x)
    return f"<!-- consolidated: {taken}{extra} -->"


_LEDGER_RE = re.compile(
    r"tokens (?P<est>~?)(?P<prompt>\d+)\+(?P<completion>\d+) on (?P<day>\d{4}-\d{2}-\d{2}) "
    # who ran it may hold one level of brackets: "offline (rules, no network)"
    r"\((?P<who>[^()]*(?:\([^()]*\)[^()]*)*)\)"
)


def ledger_line(prompt: int, completion: int, day: date, who: str, estimated: bool) -> str:
    return f"tokens {'~' if estimated else ''}{prompt}+{completion} on {day.isoformat()} ({who})"


def ledger_entries(history_text: str) -> list[dict]:
    """Every consolidation's cost, from the markers: prompt and completion tokens, the day it
    ran, who ran it, and whether the endpoint reported the counts or mem estimated them."""
    out = []
    for _, _, body in markers(history_text):
        m = _LEDGER_RE.search(body)
        if m:
            out.append(
                {
                    "day": m["day"],
                    "who": m["who"],
                    "prompt": int(m["prompt"]),
                    "completion": int(m["completion"]),
                    "estimated": bool(m["est"]),
                }
            )
    return out


def covered_lines(history_text: str) -> dict[str, int]:
    """Per daily log, the last line any older (line-number) consolidation marker covers."""
    covered: dict[str, int] = {}
    for _, _, body in markers(history_text):
        for path, line in marker_cites(body):
            covered[path] = max(covered.get(path, 0), line)
    return covered


# ----------------------------------------------------------------- citations

_CITATION_RE = re.compile(r"^(?P<path>[^#]+?)#L(?P<a>\d+)(?:-L?(?P<b>\d+))?$")


def parse_citation(text: str) -> tuple[str, int, int] | None:
    """`path#Lx-Ly` or `path#Lx` -> (path, x, y); None for anything else."""
    m = _CITATION_RE.match(text.strip())
    if not m:
        return None
    a = int(m["a"])
    return m["path"], a, int(m["b"]) if m["b"] else a
