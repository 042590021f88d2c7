"""Limits on what a model's answer may write, whatever it sends: edits per answer, the
length of a line, and how much USER.md and AGENTS.md (read on every turn) may grow in one
run. What goes over waits in `mem review` with its reason; nothing is silently dropped,
and the work a run does stays linear in what it writes."""

from __future__ import annotations

from collections.abc import Sequence

from .proposal import Edit
from .write import Options

GROWING = ("add", "deprecate")  # ops that leave one more line in the file
# Content-word Jaccard at which two lines of one answer say the same thing ("Prefers green
# tea, variant 3" and "…, variant 4" share 3 of 5 words; "Has a sister named Ana" and "Has a
# brother named Ana" 2 of 4).
NEAR = 0.6
WATCHED = ("USER", "AGENTS")  # the files read on every turn

Held = list[tuple[Edit, str]]


def first_edits(edits: Sequence[Edit], opts: Options) -> tuple[list[Edit], Held]:
    """The answer's first consolidate.max_edits edits; the rest wait (before any check
    reads them, so 2,000 edits cost what 50 do)."""
    why = f"the answer made more than consolidate.max_edits = {opts.max_edits} edits"
    return list(edits[: opts.max_edits]), [(e, why) for e in edits[opts.max_edits :]]


def distinct(edits: Sequence[Edit]) -> tuple[list[Edit], Held]:
    """The edits with each line that says what an earlier line of the same answer and file
    says held back: one 8-word entry cannot fill USER.md with twenty variants of itself,
    and what a person reviews is the repeat, not a line the cap happened to reach."""
    from .words import content

    kept: list[Edit] = []
    held: Held = []
    seen: list[tuple[str, set[str], str]] = []  # (file, content words, line)
    for edit in edits:
        words = content(edit.text) if edit.op in (*GROWING, "update") else set()
        like = next(
            (t for f, w, t in seen if f == edit.file and words and _jaccard(words, w) >= NEAR),
            None,
        )
        if like is not None:
            held.append((edit, f"a near-duplicate of another line of this answer: {like[:80]}"))
            continue
        if words:
            seen.append((edit.file, words, edit.text))
        kept.append(edit)
    return kept, held


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b)


def within(edits: Sequence[Edit], opts: Options, grown: dict[str, int]) -> tuple[list[Edit], Held]:
    """(the edits to write, [(edit, why it waits)]): no line over max_line_chars, and no
    more than max_new_lines new lines in USER.md or AGENTS.md in one run. `grown` counts
    what this run's earlier batches added."""
    kept: list[Edit] = []
    over: Held = []
    for edit in edits:
        if len(edit.text) > opts.max_line_chars:
            why = f"{len(edit.text)} characters, over consolidate.max_line_chars"
            over.append((edit, f"{why} = {opts.max_line_chars}"))
        elif edit.file in WATCHED and edit.op in GROWING:
            if grown.get(edit.file, 0) >= opts.max_new_lines:
                why = f"{edit.file}.md already grew by {opts.max_new_lines} lines in this run"
                over.append((edit, f"{why} (consolidate.max_new_lines)"))
                continue
            grown[edit.file] = grown.get(edit.file, 0) + 1
            kept.append(edit)
        else:
            kept.append(edit)
    return kept, over
