"""`mem recall` and `mem get` as library calls.

The pipeline: BM25 over tokens and MinHash containment over shingles score every live chunk;
the best max(k, 10) x 4 of each list form the candidates; each score is divided by the
candidates' best and the two are fused `0.7 * vector + 0.3 * text`; a log entry that
refers back to the one before it (answers it, replies to its image, opens with "it") scores
0.7 of that one when that is more than its own, over up to two such links, and names it as
its `subject`, and the question it answers scores 0.5 of it; before the links, a second
pass asks the three rarest words the best three candidates hold that the question does not
(a name that joins two facts), what it finds adding 0.3 of its score, never above the
results it followed (recall/follow.py);
dated chunks decay by `exp(-λ · age_days)` (evergreen ones never), deprecated ones count
half; a question that names someone who speaks in the logs ("What has Melanie painted?")
counts other speakers' entries 1 / 1.5 (role names such as "user" name no one); MMR
(λ 0.6) over the chunks' signature similarity picks k without near-duplicates.
A chunk matches only by a content word of the question (a category word, "exercise", also
by its slot's values: recall/aliases.py) or a meaning closer than unrelated text and empty
replies; scores are shares of the best times how much of the question the
best holds, so `recall.min_score` means the same for every question.

A question's time expressions (format/dates.py) are read against now: one that names days
("in June", "last summer", 去年夏天) matches them, not its words, against each chunk's own
date and the days its words speak of; chunks of those days are nominated among themselves
too, dated chunks of other days count half, and recency no longer decays. One that asks
when ("When did …", "how long", 什么时候) weighs 1.5 x the chunks that say when. Every
weight was chosen on LoCoMo's tuning part (bench/recall_quality.py, docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import MemError
from ..format.forgotten import Hidden, hidden_in
from ..format.markdown import (
    citation,
    is_struck,
    lines_of,
    readable,
    struck_text,
)
from ..format.markdown import (
    sources as line_sources,
)
from ..index.cache import Index, IndexParams, open_index
from ..safety.secrets import redact_excerpt
from ..search.tokenize import tokenize
from ..store.fsutil import TooLarge, read_bytes
from ..store.workspace import Workspace
from . import currency, follow, forgotten, stages
from .options import RecallOptions
from .stages import QueryVector, Texts, Vectors

if TYPE_CHECKING:
    from ..embed.base import Embedder

SNIPPET_CHARS = 700


@dataclass(frozen=True)
class Hit:
    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    when: datetime | None
    deprecated: bool
    explain: dict = field(default_factory=dict)
    source: str = "memory"
    subject: str | None = None  # the entry before it that carries its subject, as a citation
    superseded_by: str | None = None  # the later entry that updates it, as a citation
    superseded_on: date | None = None  # the day it stopped being current, when known

    @property
    def citation(self) -> str:
        return citation(self.path, self.start_line, self.end_line)

    def to_json(self, explain: bool = False) -> dict:
        out = {
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "source": self.source,
        }
        if self.deprecated or self.superseded_by:  # said once, no longer current
            out["superseded"] = True  # (OpenClaw has no key for it)
            if self.superseded_on:
                out["supersededOn"] = self.superseded_on.isoformat()
            if self.superseded_by:
                out["supersededBy"] = self.superseded_by
        if self.subject:  # found through the entry it refers back to ("it", an answer)
            out["subject"] = self.subject
        if explain:
            out["date"] = self.when.isoformat(timespec="minutes") if self.when else None
            out["deprecated"] = self.deprecated
            out["explain"] = self.explain
        return out


@dataclass
class RecallResult:
    hits: list[Hit]
    warnings: list[str]
    index: Index | None = None  # the index it answered from (the context block reads it too)
    texts: Texts | None = None  # the lines of its chunks, read once a file


Defer = Callable[[Callable[[], None]], None]  # takes work to do after the answer is sent


def rank_index(
    index: Index,
    query: str,
    opts: RecallOptions,
    access_counts: Callable[[np.ndarray], np.ndarray] | None = None,
    query_vector: QueryVector | None = None,
    vectors: Vectors | None = None,
    texts: Texts | None = None,
    hidden: Hidden | None = None,
) -> list[tuple[int, dict]]:
    """Document ids of the best hits, best first, each with its stage-by-stage scores
    (stages.py). access_counts(doc ids) -> how often each was used, for the optional access
    boost. query_vector: the query's embedding, when the index holds embeddings of the same
    space; vectors(doc ids) -> their exact embeddings, read for the candidates only.
    texts(doc ids) -> their lines, for MMR to compare candidates by their own words.
    hidden: what `mem forget` hid (format/forgotten.py), left out."""
    q = stages.read_query(index, query, opts, query_vector, vectors, texts)
    if hidden:
        q.mask &= ~forgotten.mask(index, hidden)
    if not q.mask.any():
        return []
    signals = stages.admit(q)
    cand = stages.nominate(q, signals)
    if len(cand) == 0:
        return []
    ranking = stages.fusion(q, signals, cand)
    if ranking is None:
        return []
    ranking = follow.follow(q, ranking)
    ranking = stages.links(q, ranking)
    ranking = stages.time(q, ranking)
    ranking = stages.speakers(q, ranking)
    ranking = currency.stage(q, ranking)
    if hidden:
        ranking = forgotten.drop(q, ranking, hidden)
    ranking = stages.uses(q, ranking, access_counts)
    return stages.collect(q, signals, ranking)


def _file_lines(ws: Workspace, rel: str, cache: dict[str, Sequence[str]]) -> Sequence[str]:
    if rel not in cache:
        try:
            text = read_bytes(ws.root / rel, rel).decode("utf-8", errors="replace")
        except TooLarge:  # a daily log past MAX_READ: indexed in windows, read the same way
            cache[rel] = _FarLines(ws.root / rel, rel)
            return cache[rel]
        except (OSError, MemError):  # vanished or turned into a link since indexing
            text = ""
        cache[rel] = lines_of(text)
    return cache[rel]


class _FarLines(Sequence):
    """The lines of a file too large to read whole, as `lines_of` reads them: a range asked
    for is read in one pass over the file, with a margin around it (a secret's lines around
    a chunk are looked at one by one), and kept."""

    MARGIN = 1100  # more than redact_excerpt reads around a chunk

    def __init__(self, path: Path, rel: str) -> None:
        self.path, self.rel = path, rel
        self.held: dict[int, str] = {}
        self.count: int | None = None

    def __len__(self) -> int:
        if self.count is None:
            self._read(0, 0)
        return self.count or 0

    def __getitem__(self, i):
        if isinstance(i, slice):
            lo, hi, step = i.indices(len(self))
            if any(n not in self.held for n in range(lo, hi, step)):
                self._read(lo - self.MARGIN, hi + self.MARGIN)
            return [self.held.get(n, "") for n in range(lo, hi, step)]
        n = i + len(self) if i < 0 else i
        if not 0 <= n < len(self):
            raise IndexError(i)
        if n not in self.held:
            self._read(n - self.MARGIN, n + self.MARGIN)
        return self.held.get(n, "")

    def _read(self, lo: int, hi: int) -> None:
        from ..store.fsutil import open_bytes

        count = 0
        try:
            with open_bytes(self.path, self.rel) as f:
                for count, raw in enumerate(f, 1):
                    if lo < count <= hi:
                        text = raw.decode("utf-8", errors="replace").removesuffix("\n")
                        self.held[count - 1] = text.removesuffix("\r").removeprefix(
                            "\ufeff" if count == 1 else ""
                        )
        except (OSError, MemError):  # vanished or turned into a link since indexing
            pass
        self.count = count


class _Heads(Sequence):
    """A file's lines as a snippet can show them: each cut to its first LONG_LINE characters.
    A snippet shows a long line's start alone, and a secret that starts there and reaches
    past the cut is longer than any key; the redaction then reads kilobytes, not the
    megabytes of one endless line, on every recall that finds it."""

    LONG_LINE = 20_000

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [line[: self.LONG_LINE] for line in self.lines[i]]
        return self.lines[i][: self.LONG_LINE]


def snippet(lines: list[str], terms: set[str], limit: int = SNIPPET_CHARS) -> str:
    """The lines (metadata comments left out), or the run of them richest in query terms
    that fits `limit` characters."""
    lines = [readable(line) for line in lines]
    while len(lines) > 1 and not lines[-1].strip():  # a comment line at the end leaves nothing
        lines.pop()
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    hits = [len(terms & set(tokenize(line))) for line in lines]
    best, best_score = (0, 1), -1
    for lo in range(len(lines)):
        size, score = -1, 0
        for hi in range(lo, len(lines)):
            size += len(lines[hi]) + 1
            if size > limit - 2 and hi > lo:  # a line alone is a run, cut below if long
                break
            score += hits[hi]
            if score > best_score:
                best, best_score = (lo, hi + 1), score
    lo, hi = best
    body = "\n".join(lines[lo:hi]) if hi > lo else lines[lo]
    before = after = False
    if len(body) > limit - 2:  # one line longer than the limit: cut around its first hit
        hit = _first_hit(body, terms)
        # The hit a third of the way in (a window that runs to the line's end when the hit
        # is near it), the cut at a space.
        start = min(max(0, hit - (limit - 2) // 3), max(0, len(body) - (limit - 3)))
        if start:
            space = body.rfind(" ", max(0, start - 20), start + 1)
            start = space + 1 if space >= 0 else start
        before, after = start > 0, start + limit - 2 - before < len(body)
        body = body[start : start + limit - 2 - before]
    return ("…" if lo > 0 or before else "") + body + ("…" if hi < len(lines) or after else "")


def _first_hit(body: str, terms: set[str]) -> int:
    """Where the first content word of the question starts in `body` (0: none): a word's
    start for a Latin term (its stem: "climb" in "climbing"), anywhere for a Chinese one;
    "I", "do" and "what" name nothing. Found case-blind in the text itself, so positions
    are the text's own (a lower-cased İ is two characters)."""
    import re

    words = sorted((t for t in terms if stages._content(t)), key=len, reverse=True)
    if not words:
        return 0
    alts = "|".join(
        rf"(?<![A-Za-z0-9]){re.escape(t)}" if t.isascii() else re.escape(t) for t in words
    )
    m = re.search(alts, body, re.I)
    return m.start() if m else 0


def _exact_vectors(ws: Workspace, index: Index) -> Vectors | None:
    """Reads the exact embeddings of some documents from the vector cache."""
    if not index.dim:
        return None
    from ..embed.cache import VectorCache, folder_for

    cache = VectorCache(folder_for(ws.state_dir, index.params.embed))
    keys = index.doc("ekey")

    def read(docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return cache.get(keys[docs], index.dim)

    return read


def query_vector(
    embedder: Embedder, query: str, state_dir: Path, warnings: list[str]
) -> QueryVector | None:
    """The query's embedding and its floor; None (with one warning) when the provider cannot
    answer, so recall goes on with its lexical halves."""
    from ..embed.base import EmbedError
    from ..embed.cache import VectorCache, folder_for, text_key
    from ..embed.null import FILLER_TEXTS, NULL_TEXTS

    cache = VectorCache(folder_for(state_dir, embedder.key))
    down = cache.unavailable()
    if down:
        warnings.append(f"embeddings unavailable ({down}); recalled by words only")
        return None
    refs = NULL_TEXTS + FILLER_TEXTS
    keys = np.fromiter((text_key(t) for t in refs), np.uint64, len(refs))
    frame = stages.frame_of(query)
    try:
        asked = embedder.embed([query, frame] if frame else [query], query=True)
        vec = asked[0]
        found, rows = cache.get(keys, len(vec))
        if not found.all():  # once per vector space, then from the cache
            rows = embedder.embed(list(refs))
            cache.put(keys, rows)
    except EmbedError as exc:
        cache.mark_unavailable(str(exc))
        warnings.append(f"{exc}; recalled by words only")
        return None
    near = rows @ vec
    nulls, fillers = near[: len(NULL_TEXTS)], near[len(NULL_TEXTS) :]
    return QueryVector(
        vec,
        float(nulls.mean()),
        float(nulls.std()),
        float(fillers.max()),
        asked[1] if frame else None,
    )


class _Lines:
    """The lines of the indexed chunks, read once a file (as they are now: the index holds
    their line ranges), and what ranking asks of them."""

    def __init__(self, ws: Workspace, index: Index, with_access: bool) -> None:
        from ..store import access

        self.ws, self.index = ws, index
        self.cache: dict[str, Sequence[str]] = {}
        self.records = access.load(ws) if with_access else {}
        self.start, self.end = index.doc("start"), index.doc("end")
        self.path_id = index.doc("path_id")

    def file(self, rel: str) -> Sequence[str]:
        return _file_lines(self.ws, rel, self.cache)

    def of(self, doc: int) -> tuple[str, list[str]]:
        rel = self.index.paths[int(self.path_id[doc])]
        return rel, self.file(rel)[int(self.start[doc]) - 1 : int(self.end[doc])]

    def texts(self, docs: np.ndarray) -> list[str]:
        return ["\n".join(self.of(int(doc))[1]) for doc in docs]

    def access_counts(self, docs: np.ndarray) -> np.ndarray:
        from ..store import access

        counts = []
        for doc in docs:
            found = access.lookup(self.records, access.chunk_key(*self.of(int(doc))))
            counts.append(found.count if found else 0)
        return np.asarray(counts)

    def citation(self, doc: int) -> str:
        return citation(
            self.index.paths[int(self.path_id[doc])], int(self.start[doc]), int(self.end[doc])
        )


def recall(
    ws: Workspace,
    query: str,
    opts: RecallOptions,
    params: IndexParams | None = None,
    record_access: bool = True,
    embedder: Embedder | None = None,
    index: Index | None = None,
    defer: Defer | None = None,
) -> RecallResult:
    """Rank, read the snippets (secrets hidden: the last stage, once), and (unless told not
    to) count the hits as used. `index`: one kept fresh by a watcher (the resident process);
    else it is opened and refreshed here. `defer` takes the counting (a locked rewrite of
    .mem/access.json, with fsync) to run once the answer is on its way."""
    params = params or IndexParams(signed=opts.similarity != "membership")
    if index is None or not index.params.serves(params):
        index = open_index(ws, params, embedder=embedder)
    warnings = list(index.warnings)
    qv = None
    if embedder is not None and index.dim:
        qv = query_vector(embedder, query, ws.state_dir, warnings)
    lines = _Lines(ws, index, opts.access_boost > 0)
    hidden = None if opts.include_forgotten else hidden_in(ws)
    ranked = rank_index(
        index,
        query,
        opts,
        lines.access_counts,
        qv,
        _exact_vectors(ws, index),
        lines.texts,
        hidden,
    )
    terms = set(index.params.tokens(query))
    hits = [_hit(lines, doc, explain, opts, terms) for doc, explain in ranked]
    if record_access:
        _count(ws, lines, hits, ranked, opts, defer)
    return RecallResult(hits, warnings, index, lines.texts)


def _hit(lines: _Lines, doc: int, explain: dict, opts: RecallOptions, terms: set[str]) -> Hit:
    """One result: its lines as a snippet, secrets hidden with the lines around the chunk in
    view (a chunk that starts inside a private key, or holds half of a key split over two
    lines, shows none of it), as of a day before it was struck if asked so."""
    index = lines.index
    rel, own = lines.of(doc)
    lo, hi = int(lines.start[doc]), int(lines.end[doc])
    shown = redact_excerpt(_Heads(lines.file(rel)), lo, hi, opts.redact_extra)
    deprecated = bool(stages.deprecated_then(index, opts)[doc])
    if index.doc("deprecated")[doc] and not deprecated:  # as of a day before it was struck
        shown = [f"- {struck_text(line)}" if is_struck(line) else line for line in shown]
    sources = [c for line in own for c in line_sources(line)]
    if sources:  # where a curated line came from: `mem get` opens it
        explain = {**explain, "src": ",".join(sources)}
    carrier = explain.get("subject")
    if carrier is not None:  # the document that carries its subject, as a citation
        carrier = lines.citation(carrier)
        explain = {**explain, "subject": carrier}
    newer, since = explain.get("superseded_by"), None
    if newer is not None:  # the later entry that updates it, and its day
        since = _day(float(index.doc("when")[newer]))
        newer = lines.citation(newer)
        explain = {**explain, "superseded_by": newer}
    elif deprecated:
        since = _day(float(index.doc("gone")[doc]))
    w = float(index.doc("when")[doc])
    return Hit(
        rel,
        lo,
        hi,
        explain["final"],
        snippet(shown, terms),
        None if np.isnan(w) else datetime(1970, 1, 1) + timedelta(days=w),
        deprecated,
        explain,
        subject=carrier,
        superseded_by=newer,
        superseded_on=since,
    )


def _day(days: float) -> date | None:
    """A day number of the index (days since 1970-01-01) as a date; None for none."""
    return None if np.isnan(days) else (datetime(1970, 1, 1) + timedelta(days=days)).date()


def _count(ws: Workspace, lines: _Lines, hits, ranked, opts: RecallOptions, defer) -> None:
    from ..store import access

    used = [
        (access.chunk_key(h.path, lines.of(doc)[1]), h.path, h.start_line, h.end_line)
        for h, (doc, _) in zip(hits, ranked, strict=True)
    ]
    when = opts.now or datetime.now()
    if defer is None:
        access.record(ws, used, when)
    else:
        defer(lambda: access.record(ws, used, when))
