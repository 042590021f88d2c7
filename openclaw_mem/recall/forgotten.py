"""What `mem forget` hid stays out of recall (format/forgotten.py keeps the record): every
chunk whose own words hold one of the forgotten word sets is masked before ranking; a log
entry forgotten by its id and a curated line struck through as forgotten are dropped from
the candidates. `include_forgotten` (`mem recall --include-forgotten`) shows them all."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..format.forgotten import Hidden, heading_id, is_forgotten_line
from ..index.cache import Index
from ..search.bm25 import term_hash

if TYPE_CHECKING:
    from .stages import Query, Ranking


def mask(index: Index, hidden: Hidden) -> np.ndarray:
    """The chunks that say something forgotten: each holds, in its own words (not the
    context it borrows), every token of one word set."""
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
    texts = q.texts(r.docs)
    gone = np.array(
        [is_forgotten_line(t) or (heading_id(t) or "") in hidden.ids for t in texts], bool
    )
    if gone.any():
        r.score = np.where(gone, 0.0, r.score)  # collect keeps only what scores above 0
    return r
