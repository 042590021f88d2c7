"""Three-way merges of memory files that never leave conflict markers: what `mem sync` and
`mem undo` combine, file by file, and what git's merge driver runs.

Each kind of file merges by what it is made of:
- daily logs by entry identity, HISTORY.md by paragraph (logmerge.py);
- MEMORY.md, USER.md and AGENTS.md line by line (`merge_curated`): both sides' additions
  are kept, a change to metadata alone (a citation renumbered) gives way to a change of
  what a line says, the same fact added on both sides is kept once, and a line both sides
  rewrote differently keeps this machine's words while the other's is handed back as
  `Undecided` (mem sync leaves it in `mem review`);
- memory/.consolidated as a set of entry ids;
- anything else (SOUL.md, mem.toml, archive/) line by line, both sides' insertions kept; a
  region both sides changed differently keeps this machine's lines and is reported.

Pure string work: no I/O.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .logmerge import merge_history, merge_log
from .markdown import (
    core,
    heading,
    is_bullet,
    is_struck,
    split_doc,
    struck_text,
)

CURATED = ("MEMORY.md", "USER.md", "AGENTS.md")
PROGRESS = "memory/.consolidated"
_ID_LINE_RE = re.compile(r"^([0-9a-f]{12})\b")


@dataclass(frozen=True)
class Undecided:
    """A line both sides changed, differently: `kept` stays in the file, `other` (the other
    side's words; "" where that side removed the line) waits for a person."""

    path: str
    section: str
    kept: str
    other: str
    other_line: str = ""  # the other side's whole line, metadata included


@dataclass
class Merged:
    text: str
    restored: int = 0  # entries one side had lost (a rewritten history), kept
    undecided: list[Undecided] = field(default_factory=list)
    kept_ours: int = 0  # regions of a plain file both sides changed: this side's lines kept
    versions: int = 0  # entries the other side holds with other words: both versions kept


def merge_file(rel: str, base: str, ours: str, theirs: str, *, rewritten: bool = False) -> Merged:
    """The merge for a workspace-relative path. `rewritten`: the other side's history was
    rewritten (a force-push), so what it lacks was lost, not removed."""
    name = rel.rsplit("/", 1)[-1]
    if rel == PROGRESS:
        return Merged(merge_id_lines(base, ours, theirs, rewritten))
    if rel == "HISTORY.md":
        return Merged(merge_history(base, ours, theirs, rewritten=rewritten))
    if rel.startswith("memory/") and name.endswith(".md"):
        text, restored, versions = merge_log(base, ours, theirs, rewritten=rewritten, report=True)
        return Merged(text, restored, versions=versions)
    if rel in CURATED:
        return merge_curated(rel, base, ours, theirs)
    return merge_text(base, ours, theirs)


# ----------------------------------------------------------------- the line diff3


def chunks(
    base: Sequence[str], ours: Sequence[str], theirs: Sequence[str]
) -> list[tuple[list[str], list[str], list[str]]]:
    """The three files cut into regions: a stable line (the same on every side) is a region
    of its own ([line], [line], [line]); between them, what each side has there. The
    classic diff3 cut, from two two-way diffs against the base."""
    o_at = _matches(base, ours)
    t_at = _matches(base, theirs)
    out: list[tuple[list[str], list[str], list[str]]] = []
    b0 = o0 = t0 = 0
    for b in range(len(base) + 1):
        if b < len(base):
            o, t = o_at.get(b), t_at.get(b)
            if o is None or t is None or o < o0 or t < t0:
                continue
        else:
            o, t = len(ours), len(theirs)
        if b > b0 or o > o0 or t > t0:
            out.append((list(base[b0:b]), list(ours[o0:o]), list(theirs[t0:t])))
        if b < len(base):
            out.append(([base[b]], [ours[o]], [theirs[t]]))
        b0, o0, t0 = b + 1, o + 1, t + 1
    return out


def _matches(a: Sequence[str], b: Sequence[str]) -> dict[int, int]:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return {i + k: j + k for i, j, size in matcher.get_matching_blocks() for k in range(size)}


Resolve = Callable[[list[str], list[str], list[str]], list[str]]


def _merge_lines(
    base: Sequence[str], ours: Sequence[str], theirs: Sequence[str], resolve: Resolve
) -> list[str]:
    out: list[str] = []
    for b, o, t in chunks(base, ours, theirs):
        if o == t or t == b:
            out += o
        elif o == b:
            out += t
        else:
            out += resolve(b, o, t)
    return out


def _text(doc_text: str, lines: list[str]) -> str:
    return split_doc(doc_text).text(lines)


def _docs(*texts: str) -> list[list[str]]:
    return [split_doc(t).lines for t in texts]


# ----------------------------------------------------------------- plain text


def merge_text(base: str, ours: str, theirs: str) -> Merged:
    """Line by line; where both sides inserted at one place, ours then theirs' new lines;
    where both changed the same lines differently, ours (counted in kept_ours)."""
    merged = Merged("")

    def resolve(b: list[str], o: list[str], t: list[str]) -> list[str]:
        if not b:
            return o + [line for line in t if line not in o or not line.strip()]
        merged.kept_ours += 1
        return o

    b, o, t = _docs(base, ours, theirs)
    merged.text = _text(ours or theirs, _merge_lines(b, o, t, resolve))
    return merged


def merge_id_lines(base: str, ours: str, theirs: str, rewritten: bool = False) -> str:
    """memory/.consolidated as a set of ids: an id either side added stays, one either side
    removed goes (a person's way to have an entry offered again; an undo) — unless the
    other side's history was rewritten, when nothing it lacks counts as removed."""

    def ids(text: str) -> dict[str, str]:
        return {m[1]: line for line in text.splitlines() if (m := _ID_LINE_RE.match(line))}

    b, o, t = ids(base), ids(ours), ids(theirs)
    keep = [line for i, line in o.items() if i in t or i not in b or rewritten]
    keep += [line for i, line in t.items() if i not in o and (i not in b or rewritten)]
    head = [line for line in (ours or theirs).splitlines() if not _ID_LINE_RE.match(line)]
    lines = head + keep
    return "\n".join(lines) + "\n" if lines else ""


# ----------------------------------------------------------------- curated files


def _said(line: str) -> str:
    """What a curated line says, for telling lines apart: no bullet, no metadata, struck
    through or not, case and spaces folded."""
    return " ".join(struck_text(line).lower().split())


def _key(line: str) -> tuple[str, bool]:
    return _said(line), is_struck(line)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _alike(a: str, b: str) -> bool:
    """Two versions of one line: most of the shorter one's words are in the other."""
    wa, wb = _words(struck_text(a)), _words(struck_text(b))
    if not wa or not wb:
        return False
    return len(wa & wb) / min(len(wa), len(wb)) >= 0.5


def _resolve_curated(
    rel: str, section: str, b: list[str], o: list[str], t: list[str], undecided: list[Undecided]
) -> list[str]:
    """A region both sides changed. Ours is the start; each line theirs added comes in
    unless ours says the same; a line theirs rewrote replaces the base line where ours kept
    it, and waits for a person where ours rewrote it too; a line theirs removed goes where
    ours kept it unchanged."""
    if [core(x) for x in o] == [core(x) for x in b]:
        return t  # ours renumbered a citation or the like; theirs changed what is said
    if [core(x) for x in t] == [core(x) for x in b]:
        return o
    out = list(o)
    keys = {_key(x) for x in out if is_bullet(x)}
    ours_new = [x for x in o if x not in b]
    theirs_new = [x for x in t if x not in b]
    for line in theirs_new:
        if not is_bullet(line):
            if line.strip() and line in out:
                continue
            if not line.strip() and (not out or not out[-1].strip()):
                continue
            out.append(line)
            continue
        if _key(line) in keys:
            continue  # the same fact on both sides: once
        rival = next((x for x in b if x not in t and _alike(x, line)), None)
        if rival is not None and rival in out:
            out[out.index(rival)] = line  # only theirs changed that line
        elif rival is not None and (mine := _rewrite_of(rival, ours_new)):
            undecided.append(Undecided(rel, section, core(mine), struck_text(line), line))
            continue
        else:
            out.append(line)  # an addition of theirs (or a rewrite of a line ours removed)
        keys.add(_key(line))
    for x in b:
        if x in t or not is_bullet(x) or any(_alike(x, y) for y in theirs_new):
            continue
        if x in out:
            out.remove(x)  # removed there, unchanged here
        elif mine := _rewrite_of(x, ours_new):
            # Removed there, rewritten here: the rewrite stays, the removal waits.
            undecided.append(Undecided(rel, section, core(mine), "", ""))
    return out


def _rewrite_of(line: str, candidates: list[str]) -> str:
    """The candidate that rewrote `line`: a live one first, else a struck one, else ""."""
    alike = [x for x in candidates if is_bullet(x) and _alike(line, x)]
    live = [x for x in alike if not is_struck(x)]
    return (live or alike or [""])[0]


def merge_curated(rel: str, base: str, ours: str, theirs: str) -> Merged:
    b_lines, o_lines, t_lines = _docs(base, ours, theirs)
    merged = Merged("")
    section = ""
    out: list[str] = []
    for b, o, t in chunks(b_lines, o_lines, t_lines):
        if o == t or t == b:
            out += o
        elif o == b:
            out += t
        else:
            out += _resolve_curated(rel, section, b, o, t, merged.undecided)
        for line in out[-len(o or t or b) :] if (o or t or b) else []:
            h = heading(line)
            if h:
                section = h[1]
    gone = _still_removed(b_lines, o_lines, t_lines)
    if gone:
        out = [x for x in out if not (is_bullet(x) and _said(x) in gone)]
        merged.undecided = [u for u in merged.undecided if _said(u.kept) not in gone]
    merged.text = _text(ours or theirs, _dedupe_added(out, set(b_lines)))
    return merged


def _still_removed(base: list[str], ours: list[str], theirs: list[str]) -> set[str]:
    """What the lines say that stay removed: a line the base had that one side removed,
    where the other side only moved it, re-linked it or struck it through (what it says
    unchanged). A diff may read a move as a removal and an addition elsewhere; taking that
    addition would bring the line back without the record the removing side dropped with
    it (an undo of the consolidation that wrote it). Both sides wanted a struck line out
    of memory."""

    def said(lines: list[str]) -> set[str]:
        return {_said(x) for x in lines if is_bullet(x)}

    return said(base) - (said(ours) & said(theirs))


def _dedupe_added(lines: list[str], base: set[str]) -> list[str]:
    """The same fact added on both sides in two places is kept once (the first); lines the
    base already had are left as a person wrote them, duplicates included."""
    seen: set[tuple[str, bool]] = set()
    out = []
    for line in lines:
        if is_bullet(line):
            key = _key(line)
            if line not in base and key in seen:
                continue
            seen.add(key)
        out.append(line)
    return out
