"""What `mem forget` hid stays out of recall (format/forgotten.py keeps the record): every
chunk whose own words hold one of the forgotten word sets is masked before ranking; a log
entry forgotten by its id and a curated line struck through as forgotten are dropped from
the candidates. `include_forgotten` (`mem recall --include-forgotten`) shows them all."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..format.forgotten import Hidden, heading_id, is_forgotten_line

if TYPE_CHECKING:
    import numpy as np

    from ..index.cache import Index
    from .stages import Query, Ranking


def mask(index: Index, hidden: Hidden) -> np.ndarray:
    """The chunks that say something forgotten: each holds, in its own words (not the
    context it borrows), every token of one word set."""
    import numpy as np

    from ..search.bm25 import term_hash

    out = np.zeros(len(index.live), bool)
    for tokens in hidden.words:
        holders = None
        for t in tokens:
            h = term_hash(t)
            found = [d[tf > 0] for d, tf, _ in (seg.lookup(h) for seg in index.segments)]
            docs = np.concatenate(found).astype(np.int64) if found else np.zeros(0, np.int64)
            holders = docs if holders is None else np.intersect1d(holders, docs)
            if len(holders) == 0:
                break
        if holders is not None and len(holders):
            out[holders] = True
    return out


def drop(q: Query, r: Ranking, hidden: Hidden) -> Ranking:
    """The candidates without the log entries forgotten by id and the lines struck through
    as forgotten (their texts tell; only the candidates are read)."""
    if q.texts is None or len(r.docs) == 0:
        return r
    import numpy as np  # `mem get` imports this module for hide_lines and needs no numpy

    texts = q.texts(r.docs)
    gone = np.array(
        [is_forgotten_line(t) or (heading_id(t) or "") in hidden.ids for t in texts], bool
    )
    if gone.any():
        r.score = np.where(gone, 0.0, r.score)  # collect keeps only what scores above 0
    return r


HIDDEN_LINE = "[hidden: mem forget; `mem recall --include-forgotten` shows it]"


def hide_lines(rel: str, whole: list[str], first: int, shown: list[str], hidden: Hidden, tokens):
    """`mem get`'s lines (`shown`, from line `first` of the file `whole`) with the lines of
    every log entry or HISTORY.md paragraph a forget hid written as HIDDEN_LINE: what an
    agent reads through a citation it still holds is what recall would show it."""
    from ..format.logs import parse_log
    from ..store.workspace import HISTORY_FILE

    last = first + len(shown) - 1
    spans: list[tuple[int, int]] = []
    if rel.startswith("memory/") and rel.endswith(".md"):
        for e in parse_log("\n".join(whole)):
            if e.end_line < first or e.start_line > last:
                continue
            if (e.id and e.id in hidden.ids) or hidden.says(tokens(e.text)):
                spans.append((e.start_line + 1, e.end_line))  # the heading stays
    elif rel == HISTORY_FILE:
        start = None
        for n, line in enumerate([*whole, ""], 1):
            if start is None and line.strip():
                start = n
            elif start is not None and not line.strip():
                near = start <= last and n - 1 >= first
                if near and hidden.says(tokens(" ".join(whole[start - 1 : n - 1]))):
                    spans.append((start, n - 1))
                start = None
    out = list(shown)
    for lo, hi in spans:
        for n in range(max(lo, first), min(hi, last) + 1):
            if out[n - first].strip():
                out[n - first] = HIDDEN_LINE
    return out
