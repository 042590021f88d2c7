"""`mem recall` and `mem get` as library calls.

The pipeline: BM25 over tokens and MinHash containment over shingles score every live chunk;
the best k x 4 of each list form the candidates; each score is divided by the candidates'
best and the two are fused `0.7 * vector + 0.3 * text`; a log entry that refers back to the
one before it (answers it, replies to its image, opens with "it") scores 0.7 of that one
when that is more than its own, over up to two such links, and names it as its `subject`;
dated chunks decay by `exp(-λ · age_days)` (evergreen ones never), deprecated ones count
half; MMR (λ 0.6) over the chunks' signature similarity picks k without near-duplicates.

A question's time expressions (format/dates.py) are read against now: one that names days
("in June", "last summer", 去年夏天) matches them, not its words, against each chunk's own
date and the days its words speak of; chunks of those days are nominated among themselves
too, dated chunks of other days count half, and recency no longer decays. One that asks
when ("When did …", "how long", 什么时候) weighs 1.5 x the chunks that say when. Every
weight was chosen on LoCoMo's tuning part (bench/recall_quality.py, docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..config import default
from ..errors import MemError
from ..format.markdown import (
    citation,
    is_struck,
    lines_of,
    parse_meta,
    strip_comments,
    struck_text,
)
from ..index.cache import VEC_MADE, Index, IndexParams, days_since_epoch, open_index, read_rows
from ..safety.secrets import redact_excerpt
from ..search import bm25, minhash, simhash
from ..search.rank import decay_factors, distinct, fuse, mmr, normalize, top_k
from ..search.tokenize import is_shingle, shingles, tokenize
from ..store.fsutil import read_bytes
from ..store.workspace import Workspace, day_of, glob_match
from ..text import cjk_share

if TYPE_CHECKING:
    from ..embed.base import Embedder

SNIPPET_CHARS = 700


@dataclass(frozen=True)
class RecallOptions:
    """How recall ranks. Fields that are settings take their defaults from config.py (one
    place); the others are the pipeline's own, chosen on LoCoMo's tuning part."""

    k: int = default("recall.k")
    vector_weight: float = default("recall.vector_weight")
    text_weight: float = default("recall.text_weight")
    candidate_multiplier: int = default("recall.candidate_multiplier")
    decay_lambda: float = default("recall.decay_lambda")
    decay_window: float = default("recall.decay_window")
    deprecated_weight: float = default("recall.deprecated_weight")
    mmr_lambda: float = default("recall.mmr_lambda")
    mmr_threshold: float = default("recall.mmr_threshold")
    min_score: float = default("recall.min_score")
    similarity: str = default("recall.similarity")
    normalization: str = "max"  # or "minmax"
    mode: str = "hybrid"  # hybrid | bm25 | lsh (the benchmark compares them)
    access_boost: float = default("recall.access_boost")
    context_cap: float = default("recall.context_cap")
    vector_z: float = 2.0  # a chunk matches by meaning this many spreads above unrelated text
    context_alone: float = 0.0  # a match by borrowed words alone scores this share of them
    vector_mix: float = 0.3  # with embeddings, the vector half is words + this x meaning
    meaning_pool: int = 200  # chunks nominated by their signatures, re-ranked by exact cosine
    cross_script: int = 3  # the best this many by meaning count in full across scripts
    dates: bool = True  # read the question's time expressions (format/dates.py)
    date_miss: float = 0.5  # a dated chunk outside the days a question names scores this share
    date_slack: float = 7.0  # days either side of a question's days that still count
    date_words: bool = False  # a question's time words are also matched as words
    when_boost: float = 0.5  # a question that asks when: a chunk naming a time gains this share
    refer_share: float = 0.7  # a turn that refers back scores this share of the one it refers to
    refer_hops: int = 2  # along how many such links in a row (the second counts 0.7 x 0.7)
    decay: bool = True
    use_mmr: bool = True
    now: datetime | None = None
    since: date | None = None
    until: date | None = None
    path_glob: str | None = None
    as_of: date | None = None  # memory as it stood at the end of this day
    current: bool = False  # leave out what was deprecated (by as_of, when given)
    agent: str | None = None  # recall for this agent: its own log entries and shared ones
    isolated: bool = False  # agents.isolation = isolated: other agents' private facts too
    role: str | None = None  # only log entries of this role or speaker (user, assistant, a name)
    redact_extra: tuple[str, ...] = ()  # consolidate.redact_patterns: hidden in snippets too

    @classmethod
    def from_config(cls, cfg, **overrides) -> RecallOptions:
        """Options from checked settings (config.py holds their constraints)."""
        values = {
            "k": cfg["recall.k"],
            "vector_weight": cfg["recall.vector_weight"],
            "text_weight": cfg["recall.text_weight"],
            "candidate_multiplier": cfg["recall.candidate_multiplier"],
            "decay_lambda": cfg["recall.decay_lambda"],
            "decay_window": cfg["recall.decay_window"],
            "deprecated_weight": cfg["recall.deprecated_weight"],
            "mmr_lambda": cfg["recall.mmr_lambda"],
            "mmr_threshold": cfg["recall.mmr_threshold"],
            "min_score": cfg["recall.min_score"],
            "similarity": cfg["recall.similarity"],
            "access_boost": cfg["recall.access_boost"],
            "context_cap": cfg["recall.context_cap"],
            "redact_extra": tuple(cfg["consolidate.redact_patterns"]),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


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
        if self.deprecated:  # superseded: said once, no longer current (OpenClaw has no key)
            out["superseded"] = True
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


def _end_of(day: date) -> datetime:
    """The first moment after `day` (the calendar's last day has none after it)."""
    if day >= date.max:
        return datetime.max
    return datetime.combine(day + timedelta(days=1), datetime.min.time())


def _mask(index: Index, opts: RecallOptions) -> np.ndarray:
    mask = index.live & ~index.doc("boiler")
    if opts.path_glob:
        ok = np.array([glob_match(p, opts.path_glob) for p in index.paths] or [False])
        mask &= ok[index.doc("path_id")]
    if opts.since or opts.until:
        when = index.doc("when")
        dated = ~np.isnan(when)
        mask &= dated
        if opts.since:
            mask &= np.where(
                dated,
                when >= days_since_epoch(datetime.combine(opts.since, datetime.min.time())),
                False,
            )
        if opts.until:
            end = datetime.combine(opts.until + timedelta(days=1), datetime.min.time())
            mask &= np.where(dated, when < days_since_epoch(end), False)
    if opts.as_of:
        # Lines written later did not exist yet; a log's time is its own day's clock.
        limit = days_since_epoch(_end_of(opts.as_of))
        born, when = index.doc("born"), index.doc("when")
        mask &= np.where(np.isnan(born), True, born < limit)
        mask &= np.where(np.isnan(when), True, when < limit)
    if opts.current:
        mask &= ~deprecated_then(index, opts)
    if opts.agent:
        from ..index.cache import agent_key

        owner = index.doc("agent")
        mine = (owner == 0) | (owner == agent_key(opts.agent))
        # Another agent's log entries are its own conversation; curated lines it owns are
        # private only when agents are isolated, otherwise what one learns all know.
        logs = [day_of(Path(p)) is not None for p in index.paths]
        is_log = np.array(logs or [False])[index.doc("path_id")]
        mask &= mine | (~is_log & (not opts.isolated))
    if opts.role:
        from ..index.cache import agent_key

        mask &= index.doc("speaker") == agent_key(opts.role.strip().lower())
    return mask


def deprecated_then(index: Index, opts: RecallOptions) -> np.ndarray:
    """Deprecated as of opts.as_of (a line struck later was still current then), or now."""
    deprecated = index.doc("deprecated").astype(bool)
    if not opts.as_of:
        return deprecated
    gone = index.doc("gone")
    limit = days_since_epoch(_end_of(opts.as_of))
    return deprecated & np.where(np.isnan(gone), True, gone < limit)


@dataclass(frozen=True)
class QueryVector:
    """A query's embedding, and how close unrelated text comes to it: its cosines to the
    reference sentences of embed/null.py (their mean and spread)."""

    vector: np.ndarray
    null_mean: float
    null_std: float

    def z(self, cosines: np.ndarray) -> np.ndarray:
        """How many spreads above unrelated text each cosine lies."""
        return (cosines - self.null_mean) / max(self.null_std, 1e-3)


Vectors = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]  # docs -> (found, rows)
Texts = Callable[[np.ndarray], list[str]]  # docs -> the text of their lines
Defer = Callable[[Callable[[], None]], None]  # takes work to do after the answer is sent


def rank_index(
    index: Index,
    query: str,
    opts: RecallOptions,
    access_counts: Callable[[np.ndarray], np.ndarray] | None = None,
    query_vector: QueryVector | None = None,
    vectors: Vectors | None = None,
    texts: Texts | None = None,
) -> list[tuple[int, dict]]:
    """Document ids of the best hits, best first, each with its stage-by-stage scores.
    access_counts(doc ids) -> how often each was used, for the optional access boost.
    query_vector: the query's embedding, when the index holds embeddings of the same space;
    vectors(doc ids) -> their exact embeddings, read for the candidates only.
    texts(doc ids) -> their lines, for MMR to compare candidates by their own words.

    A chunk takes part only with a signal of its own: a content word of the query in its own
    text, or (with embeddings) a meaning clearly closer to the query than unrelated text
    comes (opts.vector_z). Borrowed context and a signature's false positive can raise a
    matching chunk, never make one match."""
    params = index.params
    asked = _question_time(query, opts)
    q_tokens = params.tokens(query)
    if asked is not None and asked.spans and not opts.date_words:
        rest = params.tokens(asked.rest)
        if any(is_shingle(t) for t in rest):  # a question that is only a date keeps its words
            q_tokens = rest
    mask = _mask(index, opts)
    if not mask.any():
        return []
    doc_len = index.doc("length")
    split = bm25.scores(
        index.segments,
        index.live,
        doc_len,
        q_tokens,
        context_weight=params.context_weight,
        content=is_shingle,
    )
    lexical = split.matched | (split.borrowed & (opts.context_alone > 0))
    # Text and word scores are 0 outside the admitted chunks, so they are computed, and
    # their best taken, over those alone (ascending ids: ties still go to the lower id).
    admitted = np.flatnonzero(lexical & mask)
    text_a = bm25.capped(split, opts.context_cap, opts.context_alone, admitted)
    words_a = _membership(index, q_tokens, opts, admitted)
    if opts.context_alone > 0:
        # Found through the turn before it alone: both halves at the same lower weight.
        words_a = np.where(split.matched[admitted], words_a, opts.context_alone * words_a)
    text, words = np.zeros(len(mask)), np.zeros(len(mask))
    text[admitted], words[admitted] = text_a, words_a
    by_embedding = query_vector is not None and index.dim > 0 and opts.mode != "bm25"
    if by_embedding:
        q_bits = simhash.sign_bits(query_vector.vector, index.planes())[0]
        estimate = np.concatenate(
            [
                simhash.cosine(np.asarray(s.sim), q_bits, params.sim_bits)
                for s in (index.base, index.delta)
            ]
        )
        has = index.doc("vec") == VEC_MADE
        meaning = np.where(has & mask, np.clip(estimate, 0.0, 1.0), 0.0)

    pool = max(opts.k, 1) * max(opts.candidate_multiplier, 1)
    exact_done = None  # documents whose `meaning` is already their exact cosine
    lists = []
    if opts.mode != "lsh":
        lists.append(admitted[top_k(text_a, pool, tiebreak=words_a)])
    if opts.mode != "bm25":
        lists.append(admitted[top_k(words_a, pool, tiebreak=text_a)])
        if by_embedding:
            # Any chunk with a vector can be nominated, however low its estimate: across
            # languages true cosines are small (0.2-0.3), and a 256-bit estimate of one falls
            # below 0 now and then, which kept the exact cosine from ever seeing it.
            nominee = np.where(has & mask, estimate + 2.0, 0.0)
            near = top_k(nominee, max(pool, opts.meaning_pool), tiebreak=text)
            if vectors is not None and len(near) > pool:
                # The signature's estimate only nominates: the exact cosine chooses. What
                # was read is kept, so the candidates below do not read it again.
                found, rows = vectors(near)
                if rows.shape[1] == len(query_vector.vector):
                    exact = rows @ query_vector.vector
                    order = np.argsort(-np.where(found, exact, meaning[near]), kind="stable")
                    meaning[near[found]] = np.clip(exact[found], 0.0, 1.0)
                    exact_done = np.zeros(len(meaning), bool)
                    exact_done[near[found]] = True
                    near = near[order[:pool]]
            lists.append(near)
    if asked is not None and asked.spans:
        # The chunks of the days asked about compete among themselves too: "camping in
        # June" is one of many camping turns, and the best of June's must be seen.
        within = _in_days(index, admitted, asked.spans, opts)
        if within.any():
            inside = np.flatnonzero(within)
            lists.append(admitted[inside[top_k(text_a[inside], pool, tiebreak=words_a[inside])]])
            lists.append(admitted[inside[top_k(words_a[inside], pool, tiebreak=text_a[inside])]])
    cand = distinct(np.concatenate(lists)) if lists else np.zeros(0, np.int64)
    if len(cand) == 0:
        return []
    signal = lexical[cand].copy()
    words_c = words[cand]
    meaning_c = np.zeros(len(cand))
    if by_embedding:
        meaning_c = meaning[cand]
        todo = np.ones(len(cand), bool) if exact_done is None else ~exact_done[cand]
        if vectors is not None and todo.any():  # the exact cosine, where the cache has it
            found, rows = vectors(cand[todo])
            if rows.shape[1] == len(query_vector.vector):
                exact = np.clip(rows @ query_vector.vector, 0.0, 1.0)
                meaning_c[todo] = np.where(found, exact, meaning_c[todo])
        meant = has[cand] & (query_vector.z(meaning_c) >= opts.vector_z)
        signal |= meant
        meaning_c = meaning_c * meant
    keep_c = signal & (text[cand] + words_c + meaning_c > 0)
    cand, words_c, meaning_c = cand[keep_c], words_c[keep_c], meaning_c[keep_c]
    if len(cand) == 0:
        return []
    if by_embedding:
        # Meaning adds to the words' share rather than replacing part of it: a chunk that
        # holds the query's words keeps what they earn, and one that holds none of them
        # (another language, other words) is still reached by meaning alone. Measured on
        # LoCoMo's tuning part against a convex mix (bench/recall_quality.py).
        words_n = normalize(words_c, opts.normalization)
        meaning_n = normalize(meaning_c, opts.normalization)
        vec_c = words_n + opts.vector_mix * meaning_n
        if opts.cross_script > 0 and texts is not None:
            # A chunk written in another script than the query (Chinese for an English
            # question) cannot share its words: its word share is 0 by construction, not
            # by evidence. For the few best by meaning, meaning then stands in for the
            # words, in proportion to how far apart the scripts are. Only the best few:
            # every chunk of the other language would otherwise be raised, distractors
            # too. Within one script nothing changes. Chosen on the cross-lingual tune
            # cases (bench/recall_quality.py).
            top = np.lexsort((cand, -meaning_c))[: opts.cross_script]
            top = top[meaning_c[top] > 0]
            if len(top):
                q_cjk = cjk_share(query)
                apart = np.abs(q_cjk - np.array([cjk_share(t) for t in texts(cand[top])]))
                vec_c[top] = (
                    np.maximum(words_n[top], apart * meaning_n[top])
                    + opts.vector_mix * meaning_n[top]
                )
    else:
        vec_c = words_c
    t_norm = normalize(text[cand], opts.normalization)
    v_norm = normalize(vec_c, opts.normalization)
    if opts.mode == "bm25":
        fused = t_norm
    elif opts.mode == "lsh":
        fused = v_norm
    else:
        fused = fuse(v_norm, t_norm, opts.vector_weight, opts.text_weight)
    subject = np.full(len(cand), -1, np.int64)
    if opts.refer_share > 0 and opts.refer_hops > 0:
        # A turn inherits the subject of the turn it refers to, not its time: decay, the
        # question's days and "when" are weighed below by each chunk's own dates.
        cand, fused, subject = _referred(index, cand, fused, mask, opts)
        n_new = len(cand) - len(words_c)
        if n_new:  # found through the turn before them alone
            zeros = np.zeros(n_new)
            words_c, meaning_c, t_norm, v_norm = (
                np.concatenate([a, zeros]) for a in (words_c, meaning_c, t_norm, v_norm)
            )

    when = index.doc("when")[cand]
    deprecated = deprecated_then(index, opts)[cand]
    dated_question = asked is not None and bool(asked.spans)
    if opts.decay and not dated_question:  # named days stand in for recency
        now = opts.now or datetime.now()
        age = days_since_epoch(now) - when
        if opts.decay_window > 0 and not np.isnan(age).all():
            # Recency among the candidates: the newest is not decayed, one d days older by
            # exp(-λ·min(d, window)). A fact and its update days apart are told apart; an
            # answer months old loses at most the window's share (LoCoMo, chosen on the
            # tuning part with the planted updates: bench/recall_quality.py).
            age = np.minimum(age - np.nanmin(age), opts.decay_window)
        factor = decay_factors(age, opts.decay_lambda)
        factor = factor * np.where(deprecated, opts.deprecated_weight, 1.0)
    else:
        factor = np.ones(len(cand))
    uses = np.zeros(len(cand))
    if opts.access_boost > 0 and access_counts is not None:
        uses = np.asarray(access_counts(cand), np.float64)
        factor = factor * (1.0 + opts.access_boost * np.log1p(uses))
    days = np.full(len(cand), "", dtype=object)
    if dated_question:
        # A question that names its days: a chunk of other days counts date_miss of itself
        # (one with no date at all, a curated fact, is not of other days).
        within = _in_days(index, cand, asked.spans, opts)
        dated = ~np.isnan(when) | ~np.isnan(index.doc("about_first")[cand])
        if within.any():
            factor = factor * np.where(within | ~dated, 1.0, opts.date_miss)
            days = np.where(within, "in", np.where(dated, "out", ""))
    if asked is not None and asked.asks and opts.when_boost > 0:
        # "When did …": the turn that says when ("yesterday", "last week", "in 2022").
        names = ~np.isnan(index.doc("about_first")[cand])
        factor = factor * np.where(names, 1.0 + opts.when_boost, 1.0)
    final = fused * factor
    keep = final > 0
    if opts.min_score > 0:
        keep &= final >= opts.min_score
    order = [int(i) for i in np.lexsort((cand, -final)) if keep[i]]
    if not order:
        return []

    if opts.use_mmr:
        pool_docs = np.asarray([int(cand[i]) for i in order[:pool]], np.int64)
        similarity = _similarity(index, pool_docs, texts, opts.mmr_threshold)
        picked = mmr([float(final[i]) for i in order[:pool]], similarity, opts.k, opts.mmr_lambda)
        chosen = [order[p] for p in picked]
    else:
        chosen = order[: opts.k]
    out = []
    for pos, i in enumerate(chosen):
        doc = int(cand[i])
        out.append(
            (
                doc,
                {
                    "bm25": round(float(text[doc]), 4),
                    "own": round(float(split.own[doc]), 4),
                    "lsh": round(float(words_c[i]), 4),
                    "meaning": round(float(meaning_c[i]), 4),
                    "vectors": "embedding" if by_embedding else "minhash",
                    "text": round(float(t_norm[i]), 4),
                    "vector": round(float(v_norm[i]), 4),
                    "fused": round(float(fused[i]), 4),
                    "decay": round(float(factor[i]), 4),
                    **({"days": days[i]} if days[i] else {}),
                    **({"subject": int(subject[i])} if subject[i] >= 0 else {}),
                    "uses": int(uses[i]),
                    "final": round(float(final[i]), 4),
                    "rank_before_mmr": order.index(i) + 1,
                    "mmr_position": pos + 1,
                },
            )
        )
    return out


def _referred(
    index: Index, cand: np.ndarray, fused: np.ndarray, mask: np.ndarray, opts: RecallOptions
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Turns that refer back to a candidate ("It was an awesome time!" after "I took my
    family camping") score refer_share of it when that is more than their own score, and
    are added when they were not candidates. Returns the candidates, their scores and, for
    each, the document that carries its subject (-1: its own words do)."""
    refers, path_id = index.doc("refers"), index.doc("path_id")
    n = len(refers)
    at = {int(d): i for i, d in enumerate(cand.tolist())}
    score = dict(zip(cand.tolist(), fused.tolist(), strict=True))
    subject: dict[int, int] = {}
    frontier = list(score)
    for _ in range(opts.refer_hops):
        lent: dict[int, tuple[float, int]] = {}
        for d in frontier:
            nxt = d + 1  # a file's chunks are consecutive documents of one segment
            if nxt >= n or not refers[nxt] or path_id[nxt] != path_id[d] or not mask[nxt]:
                continue
            share = opts.refer_share * score[d]
            if share > score.get(nxt, 0.0) and share > lent.get(nxt, (0.0, -1))[0]:
                lent[nxt] = (share, d)
        for d, (share, source) in lent.items():
            score[d], subject[d] = share, subject.get(source, source)
        frontier = list(lent)
        if not frontier:
            break
    extra = [d for d in score if d not in at]
    docs = np.concatenate([cand, np.asarray(extra, cand.dtype)])
    scores = np.fromiter((score[int(d)] for d in docs), np.float64, len(docs))
    carriers = np.fromiter((subject.get(int(d), -1) for d in docs), np.int64, len(docs))
    return docs, scores, carriers


def _question_time(query: str, opts: RecallOptions):
    """What the question says about time, read against opts.now (None when dates are off)."""
    if not opts.dates:
        return None
    from ..format.dates import question_time

    return question_time(query, (opts.now or datetime.now()).date())


def _in_days(index: Index, docs: np.ndarray, spans, opts: RecallOptions) -> np.ndarray:
    """Which documents meet the days a question names (give or take opts.date_slack): by
    their own date, or by the days their words speak of ("last week" said on 2023-01-23)."""
    own = index.doc("when")[docs]
    first, last = index.doc("about_first")[docs], index.doc("about_last")[docs]
    named = ~np.isnan(first)
    out = np.zeros(len(docs), bool)
    slack = opts.date_slack
    for lo_day, hi_day in spans:
        lo = days_since_epoch(datetime.combine(lo_day, datetime.min.time())) - slack
        hi = days_since_epoch(_end_of(hi_day)) + slack
        with np.errstate(invalid="ignore"):
            out |= (own >= lo) & (own < hi)
            out |= named & (first < hi) & (last + 1 > lo)
    return out


def _signature_rows(index: Index, docs: np.ndarray) -> np.ndarray:
    """The MinHash signatures of some documents."""
    return _rows(index.base.sig, index.delta.sig, index.base.n, docs)


def _rows(base: np.ndarray, delta: np.ndarray, nb: int, docs: np.ndarray) -> np.ndarray:
    """Rows of a per-document array split in base and delta, for global document ids."""
    docs = np.asarray(docs, np.int64)
    out = np.empty((len(docs), *base.shape[1:]), base.dtype)
    low = docs < nb
    out[low] = read_rows(base, docs[low])
    out[~low] = read_rows(delta, docs[~low] - nb)
    return out


def _membership(
    index: Index, q_tokens: list[str], opts: RecallOptions, docs: np.ndarray
) -> np.ndarray:
    """The pseudo-vector half for `docs` (the chunks whose own words hold a query word): the
    IDF-weighted share of query words each contains. A word that occurs nowhere weighs
    nothing, so it cannot match by accident.

    Under `membership` the share is read from the postings, which list every chunk under
    each word it holds (own words and signed context, the set its MinHash signs). The
    signature test this replaces estimated exactly that, one-sided: it never missed a
    member and let an absent word through 0.02 % of the time, and it had to read the
    candidates' signatures (~100 MB of the map at 100k chunks). `containment` and `jaccard`
    still estimate from the signatures."""
    n = max(index.n_live, 1)
    qs, weights, holders = [], [], []
    for t in sorted(shingles(q_tokens)):
        h = bm25.term_hash(t)
        found = [seg.lookup(h) for seg in index.segments]
        own = index.params.sign_context  # else the signatures hold own words only
        posted = np.concatenate([d if own else d[tf > 0] for d, tf, _ in found])
        df = int(index.live[np.concatenate([d for d, _, _ in found])].sum())
        if df:
            qs.append(t)
            weights.append(float(bm25.idf(n, df)))
            holders.append(posted)
    if not qs or len(docs) == 0:
        return np.zeros(len(docs))
    w = np.asarray(weights)
    if opts.similarity == "membership":
        # Each word's weight added where it is held (a word lists a chunk once), in word
        # order: a dense pass per word instead of a sort of the candidates per word.
        share = np.zeros(len(index.live))
        for posted, weight in zip(holders, weights, strict=True):
            share[posted] += weight
        return share[docs] / w.sum()
    sigs = _signature_rows(index, docs)
    jac = minhash.jaccard(sigs, minhash.signature(qs, *index.perm))
    if opts.similarity == "jaccard":
        return jac
    return minhash.containment(jac, len(qs), index.doc("sizes")[docs])


def _similarity(
    index: Index, docs: np.ndarray, texts: Texts | None, threshold: float
) -> Callable[[int, int], float]:
    """How alike two candidates are, for MMR: the Jaccard similarity of their own content
    words (read from their lines; headings and borrowed context left out), or without
    `texts` the share of equal MinHash values. Only what lies above `threshold` counts,
    rescaled to [0, 1]: a re-logged fact is demoted, while neighbouring turns that share a
    topic (often the evidence together) are not."""
    if texts is not None:
        from ..format.chunking import searchable

        words = [shingles(index.params.tokens(searchable(t))) for t in texts(docs)]

        def alike(a: int, b: int) -> float:
            wa, wb = words[a], words[b]
            return len(wa & wb) / len(wa | wb) if wa and wb else 0.0
    else:
        rows = _signature_rows(index, docs)
        p = len(index.perm[0])

        def alike(a: int, b: int) -> float:
            return float(np.count_nonzero(rows[a] == rows[b])) / p

    if threshold <= 0:
        return alike
    return lambda a, b: max(0.0, alike(a, b) - threshold) / (1.0 - threshold)


def _file_lines(ws: Workspace, rel: str, cache: dict[str, list[str]]) -> list[str]:
    if rel not in cache:
        try:
            text = read_bytes(ws.root / rel, rel).decode("utf-8", errors="replace")
        except (OSError, MemError):  # vanished or turned into a link since indexing
            text = ""
        cache[rel] = lines_of(text)
    return cache[rel]


def snippet(lines: list[str], terms: set[str], limit: int = SNIPPET_CHARS) -> str:
    """The lines (metadata comments left out), or the run of them richest in query terms
    that fits `limit` characters."""
    lines = [strip_comments(line) for line in lines]
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
            if size > limit - 2:
                break
            score += hits[hi]
            if score > best_score:
                best, best_score = (lo, hi + 1), score
    lo, hi = best
    body = "\n".join(lines[lo:hi]) if hi > lo else lines[lo]
    if len(body) > limit - 2:  # one line longer than the limit: cut around its first hit
        body = body[: limit - 2]
    return ("…" if lo > 0 else "") + body + ("…" if hi < len(lines) else "")


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
    from ..embed.null import NULL_TEXTS

    cache = VectorCache(folder_for(state_dir, embedder.key))
    down = cache.unavailable()
    if down:
        warnings.append(f"embeddings unavailable ({down}); recalled by words only")
        return None
    keys = np.fromiter((text_key(t) for t in NULL_TEXTS), np.uint64, len(NULL_TEXTS))
    try:
        vec = embedder.embed([query], query=True)[0]
        found, nulls = cache.get(keys, len(vec))
        if not found.all():  # once per vector space, then from the cache
            nulls = embedder.embed(list(NULL_TEXTS))
            cache.put(keys, nulls)
    except EmbedError as exc:
        cache.mark_unavailable(str(exc))
        warnings.append(f"{exc}; recalled by words only")
        return None
    near = nulls @ vec
    return QueryVector(vec, float(near.mean()), float(near.std()))


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
    """Rank, read the snippets, and (unless told not to) count the hits as used. `index`: one
    kept fresh by a watcher (the resident process); else it is opened and refreshed here.
    `defer` takes the counting (a locked rewrite of .mem/access.json, with fsync) to run
    once the answer is on its way: the resident process answers first."""
    from ..store import access

    params = params or IndexParams()
    if index is None or index.params != params:
        index = open_index(ws, params, embedder=embedder)
    warnings = list(index.warnings)
    qv = None
    if embedder is not None and index.dim:
        qv = query_vector(embedder, query, ws.state_dir, warnings)
    cache: dict[str, list[str]] = {}
    start, end, path_id = index.doc("start"), index.doc("end"), index.doc("path_id")

    def lines_of(doc: int) -> tuple[str, list[str]]:
        rel = index.paths[int(path_id[doc])]
        return rel, _file_lines(ws, rel, cache)[int(start[doc]) - 1 : int(end[doc])]

    records: dict[str, dict] = {}

    def access_counts(docs: np.ndarray) -> np.ndarray:
        out = []
        for doc in docs:
            found = access.lookup(records, access.chunk_key(*lines_of(int(doc))))
            out.append(found.count if found else 0)
        return np.asarray(out)

    if opts.access_boost > 0:
        records = access.load(ws)

    def texts(docs: np.ndarray) -> list[str]:
        return ["\n".join(lines_of(int(doc))[1]) for doc in docs]

    ranked = rank_index(index, query, opts, access_counts, qv, _exact_vectors(ws, index), texts)
    terms = set(index.params.tokens(query))
    hits = []
    used = []
    when, deprecated = index.doc("when"), deprecated_then(index, opts)
    struck_now = index.doc("deprecated")
    for doc, explain in ranked:
        rel, lines = lines_of(doc)
        lo, hi = int(start[doc]), int(end[doc])
        # Secrets hidden with the lines around the chunk in view: a chunk that starts inside
        # a private key, or holds half of a key split over two lines, shows none of it.
        shown = redact_excerpt(_file_lines(ws, rel, cache), lo, hi, opts.redact_extra)
        if struck_now[doc] and not deprecated[doc]:  # as of a day before it was struck
            shown = [f"- {struck_text(line)}" if is_struck(line) else line for line in shown]
        w = float(when[doc])
        sources = [m.fields["src"] for m in map(parse_meta, lines) if m and m.fields.get("src")]
        if sources:  # where a curated line came from: `mem get` opens it
            explain = {**explain, "src": ",".join(sources)}
        carrier = explain.get("subject")
        if carrier is not None:  # the document that carries its subject, as a citation
            carrier = citation(
                index.paths[int(path_id[carrier])], int(start[carrier]), int(end[carrier])
            )
            explain = {**explain, "subject": carrier}
        hits.append(
            Hit(
                rel,
                lo,
                hi,
                explain["final"],
                snippet(shown, terms),
                None if np.isnan(w) else datetime(1970, 1, 1) + timedelta(days=w),
                bool(deprecated[doc]),
                explain,
                subject=carrier,
            )
        )
        used.append((access.chunk_key(rel, lines), rel, lo, hi))
    if record_access:
        when = opts.now or datetime.now()
        if defer is None:
            access.record(ws, used, when)
        else:
            defer(lambda: access.record(ws, used, when))
    return RecallResult(hits, warnings)
