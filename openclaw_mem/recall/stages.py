"""Recall's ranking, in stages. A query is read once (`Query`: its tokens, its time, the
chunks it may see); each stage then scores the candidates and writes the columns that
explain it, as tantivy's Query -> Weight -> Scorer each carry `explain`:

    admit (BM25 and word membership over the chunks that hold a query word; meaning's
    estimate, with embeddings) -> nominate (the best of each list, and of the days asked
    about) -> fuse (0.7 vector + 0.3 text, meaning added to the words' share) -> link (a
    turn that refers back scores a share of the one it refers to) -> time (decay, the
    question's days, "when") -> uses (the access boost) -> collect (min score, MMR).

Pure functions of the index and the options: the same query gives the same ranking.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..format.appending import ROLES as LOG_ROLES
from ..index.cache import VEC_MADE, Index, agent_key, days_since_epoch
from ..search import bm25, minhash, simhash
from ..search.rank import decay_factors, distinct, fuse, mmr, normalize, top_k
from ..search.tokenize import is_shingle, shingles, tokenize
from ..store.workspace import day_of, glob_match
from ..text import CJK_RE, cjk_share

if TYPE_CHECKING:
    from .options import RecallOptions

# The candidates are the same for any k up to this: asking for fewer results never changes
# which come first, nor their scores (the decay counts ages from the newest candidate).
POOL_K = 10

Vectors = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]  # docs -> (found, rows)
Texts = Callable[[np.ndarray], list[str]]  # docs -> the text of their lines


@dataclass(frozen=True)
class QueryVector:
    """A query's embedding, and how close unrelated text comes to it: its cosines to the
    reference sentences of embed/null.py (their mean and spread) and to the closest of its
    empty replies ("ok", "谢谢"); and the embedding of its frame, the words that say how
    it is asked ("what did I say about" of "what did I say about kubernetes")."""

    vector: np.ndarray
    null_mean: float
    null_std: float
    filler: float = -1.0
    frame: np.ndarray | None = None  # the embedding of how it is asked (frame_of), if apart

    def z(self, cosines: np.ndarray) -> np.ndarray:
        """How many spreads above unrelated text each cosine lies."""
        return (cosines - self.null_mean) / max(self.null_std, 1e-3)

    def floor(self, z: float) -> float:
        """The cosine a chunk must pass to match by meaning: z spreads above unrelated
        sentences, and above every empty reply. A query the model cannot read (gibberish,
        a word it never saw) sits near the replies, and then nothing passes."""
        return max(self.null_mean + z * max(self.null_std, 1e-3), self.filler)

    def strength(self, cosines: np.ndarray, z: float) -> np.ndarray:
        """How clearly each cosine passes its floor, in the unrelated sentences' spreads: 0
        at the floor, 1 from two spreads above it on. In spreads, not cosine, because the
        scales of models differ (USE's unrelated pairs sit near 0.1, e5's near 0.8), and a
        match across languages is clear at a cosine of 0.25 with USE."""
        lo = self.floor(z)
        return np.clip((cosines - lo) / (2 * max(self.null_std, 1e-3)), 0.0, 1.0)


@dataclass
class Query:
    """One question as the stages read it, with what every stage shares."""

    index: Index
    opts: RecallOptions
    text: str
    tokens: list[str]
    asked: object | None  # format.dates.QuestionTime, or None when dates are off
    mask: np.ndarray  # the chunks this question may see (filters, as of, agent, role)
    pool: int  # candidates taken from each list
    vector: QueryVector | None = None
    vectors: Vectors | None = None
    texts: Texts | None = None

    @property
    def dated(self) -> bool:
        return self.asked is not None and bool(self.asked.spans)


@dataclass
class Signals:
    """What admission found, over every chunk: the BM25 split (own text and borrowed
    context), the admitted chunks, their text and word scores, and meaning's estimate (with
    embeddings)."""

    split: bm25.TextScores
    lexical: np.ndarray
    admitted: np.ndarray
    text: np.ndarray
    words: np.ndarray
    text_a: np.ndarray
    words_a: np.ndarray
    by_embedding: bool = False
    has: np.ndarray | None = None
    estimate: np.ndarray | None = None
    meaning: np.ndarray | None = None
    exact_done: np.ndarray | None = None  # chunks whose `meaning` is their exact cosine
    cover: np.ndarray | None = None  # the share of the question's words each holds (coverage)


@dataclass
class Ranking:
    """The candidates as they pass the stages: their documents, their current score, and
    the columns each stage wrote to explain it (aligned with `docs`)."""

    docs: np.ndarray
    score: np.ndarray = field(default_factory=lambda: np.zeros(0))
    columns: dict[str, np.ndarray] = field(default_factory=dict)

    def grow(self, docs: np.ndarray, score: np.ndarray) -> None:
        """Candidates a stage added: every column holds its zero for them."""
        n_new = len(docs) - len(self.docs)
        for name, col in self.columns.items():
            pad = np.full(n_new, -1 if col.dtype.kind == "i" else 0, col.dtype)
            self.columns[name] = np.concatenate([col, pad])
        self.docs, self.score = docs, score


# ------------------------------------------------------------------ reading the question


def read_query(
    index: Index,
    text: str,
    opts: RecallOptions,
    query_vector: QueryVector | None = None,
    vectors: Vectors | None = None,
    texts: Texts | None = None,
) -> Query:
    asked = question_time(text, opts)
    tokens = index.params.tokens(text)
    if asked is not None and asked.spans and not opts.date_words:
        rest = index.params.tokens(asked.rest)
        if any(is_shingle(t) for t in rest):  # a question that is only a date keeps its words
            tokens = rest
    pool = max(opts.k, POOL_K) * max(opts.candidate_multiplier, 1)
    if opts.aliases:
        from .aliases import Aliased, aliases

        found = aliases(index.params.tokens, tokens)
        if found:
            index = Aliased(index, found)  # type: ignore[assignment]
    return Query(index, opts, text, tokens, asked, mask(index, opts), pool, query_vector,
                 vectors, texts)  # fmt: skip


def question_time(query: str, opts: RecallOptions):
    """What the question says about time, read against opts.now (None when dates are off)."""
    if not opts.dates:
        return None
    from ..format.dates import question_time as read

    return read(query, (opts.now or datetime.now()).date())


def end_of(day: date) -> datetime:
    """The first moment after `day` (the calendar's last day has none after it)."""
    if day >= date.max:
        return datetime.max
    return datetime.combine(day + timedelta(days=1), datetime.min.time())


def mask(index: Index, opts: RecallOptions) -> np.ndarray:
    """The chunks a question may see: live, not boilerplate, within the path, the days, as
    of a day, current, the agent's and the role's."""
    out = index.live & ~index.doc("boiler")
    if opts.path_glob:
        ok = np.array([glob_match(p, opts.path_glob) for p in index.paths] or [False])
        out &= ok[index.doc("path_id")]
    if opts.since or opts.until:
        when = index.doc("when")
        dated = ~np.isnan(when)
        out &= dated
        if opts.since:
            start = days_since_epoch(datetime.combine(opts.since, datetime.min.time()))
            out &= np.where(dated, when >= start, False)
        if opts.until:
            out &= np.where(dated, when < days_since_epoch(end_of(opts.until)), False)
    if opts.as_of:
        # Lines written later did not exist yet; a log's time is its own day's clock.
        limit = days_since_epoch(end_of(opts.as_of))
        born, when = index.doc("born"), index.doc("when")
        out &= np.where(np.isnan(born), True, born < limit)
        out &= np.where(np.isnan(when), True, when < limit)
    if opts.current:
        out &= ~deprecated_then(index, opts)
    if opts.agent:
        owner = index.doc("agent")
        mine = (owner == 0) | (owner == agent_key(opts.agent))
        # Another agent's log entries are its own conversation; curated lines it owns are
        # private only when agents are isolated, otherwise what one learns all know.
        logs = [day_of(Path(p)) is not None for p in index.paths]
        is_log = np.array(logs or [False])[index.doc("path_id")]
        out &= mine | (~is_log & (not opts.isolated))
    if opts.role:
        out &= index.doc("speaker") == agent_key(opts.role.strip().lower())
    return out


def deprecated_then(index: Index, opts: RecallOptions) -> np.ndarray:
    """Deprecated as of opts.as_of (a line struck later was still current then), or now."""
    deprecated = index.doc("deprecated").astype(bool)
    if not opts.as_of:
        return deprecated
    gone = index.doc("gone")
    limit = days_since_epoch(end_of(opts.as_of))
    return deprecated & np.where(np.isnan(gone), True, gone < limit)


# ------------------------------------------------------------------ admit


def admit(q: Query) -> Signals:
    """A chunk takes part only with a signal of its own: a content word of the query in its
    own text, or (with embeddings) a meaning clearly closer to the query than unrelated
    text comes (opts.vector_z). Borrowed context and a signature's false positive can raise
    a matching chunk, never make one match."""
    index, opts = q.index, q.opts
    subject = subject_of(q.tokens)
    split = bm25.scores(
        index.segments,
        index.live,
        index.doc("length"),
        q.tokens,
        context_weight=index.params.context_weight,
        content=subject.__contains__,
    )
    lexical = split.matched | (split.borrowed & (opts.context_alone > 0))
    # Text and word scores are 0 outside the admitted chunks, so they are computed, and
    # their best taken, over those alone (ascending ids: ties still go to the lower id).
    admitted = np.flatnonzero(lexical & q.mask)
    text_a = bm25.capped(split, opts.context_cap, opts.context_alone, admitted)
    words_a = membership(index, q.tokens, opts, admitted)
    if opts.context_alone > 0:
        # Found through the turn before it alone: both halves at the same lower weight.
        words_a = np.where(split.matched[admitted], words_a, opts.context_alone * words_a)
    text, words = np.zeros(len(q.mask)), np.zeros(len(q.mask))
    text[admitted], words[admitted] = text_a, words_a
    s = Signals(split, lexical, admitted, text, words, text_a, words_a)
    s.cover = np.zeros(len(q.mask))
    s.cover[admitted] = coverage(index, q.tokens, admitted)
    if subject and q.vector is not None and index.dim > 0 and opts.mode != "bm25":
        q_bits = simhash.sign_bits(q.vector.vector, index.planes())[0]
        s.estimate = np.concatenate(
            [
                simhash.cosine(np.asarray(seg.sim), q_bits, index.params.sim_bits)
                for seg in (index.base, index.delta)
            ]
        )
        s.has = index.doc("vec") == VEC_MADE
        s.meaning = np.where(s.has & q.mask, np.clip(s.estimate, 0.0, 1.0), 0.0)
        s.by_embedding = True
    return s


def membership(index: Index, q_tokens: list[str], opts: RecallOptions, docs: np.ndarray):
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
    if not index.params.signed:
        raise ValueError(
            f"recall.similarity = {opts.similarity} reads MinHash signatures: "
            "open the index with IndexParams(signed=True)"
        )
    sigs = signature_rows(index, docs)
    bits = index.params.sig_bits
    jac = minhash.jaccard(sigs, minhash.narrow(minhash.signature(qs, *index.perm), bits), bits)
    if opts.similarity == "jaccard":
        return jac
    return minhash.containment(jac, len(qs), index.doc("sizes")[docs])


# How a question about memory is put, not what it is about ("what did I say about X",
# "what's my cat's name"): left out of coverage, since a memory rarely says them.
FRAMING = """say said tell told name call mention remember recall know think talk discuss ask
    chat share"""


@functools.cache
def _framing() -> frozenset[str]:
    from ..search.tokenize import stem_word

    return frozenset(stem_word(w) for w in FRAMING.split())


# Single characters that only hold a Chinese sentence together (的 了 是 我 吗 这…): a
# question made of them alone ("的", "我") is about nothing, as "the" or "I" is.
_CJK_FUNCTION = frozenset("的了着是在我你您他她它们和与及或吗呢吧啊呀哦嗯这那也都就很个之把被")


def _content(token: str) -> bool:
    """A word that can make a chunk match: not a function word, not how a question is put,
    not a lone Latin letter (the "s" of "what's my cat's name" is in every "Mom's"), not a
    pair of Chinese function characters (我的, 是吗)."""
    return (
        is_shingle(token)
        and token not in _framing()
        and not _letter(token)
        and not (len(token) == 2 and token[0] in _CJK_FUNCTION and token[1] in _CJK_FUNCTION)
    )


def _letter(token: str) -> bool:
    return len(token) == 1 and token.isascii() and token.isalpha()


def subject_of(q_tokens: Sequence[str]) -> frozenset[str]:
    """The tokens of a question that can make a chunk match: its content words, or, in a
    question that has none, its single CJK characters other than function characters (猫
    is a word; 的 is not). Empty for a question made only of function words, framing words
    and lone letters ("the", "do it", "what did I say"): it matches nothing."""
    words = frozenset(t for t in q_tokens if _content(t))
    if words:
        return words
    return frozenset(
        t for t in q_tokens if len(t) == 1 and CJK_RE.match(t) and t not in _CJK_FUNCTION
    )


def coverage(index: Index, q_tokens: list[str], docs: np.ndarray) -> np.ndarray:
    """How much of the question each of `docs` holds, the same for every question: the
    IDF-weighted share of its subject (`subject_of`) found in the chunk's own text. A word
    of the question the memory never saw counts at the highest IDF, so "where did we camp
    in Patagonia" is a weak match for a chunk that says "camp"; a CJK pair it never saw
    counts nothing (a question's pairs across word boundaries, such as 用什 in 用什么语言,
    are absent from any memory)."""
    if len(docs) == 0:
        return np.zeros(0)
    words = sorted(subject_of(q_tokens))
    n = max(index.n_live, 1)
    held, total = np.zeros(len(index.live)), 0.0
    for t in words:
        found = [seg.lookup(bm25.term_hash(t)) for seg in index.segments]
        own = np.concatenate([d[tf > 0] for d, tf, _ in found])
        df = int(index.live[own].sum())
        if df == 0 and not t.isascii():
            continue
        weight = float(bm25.idf(n, df))
        total += weight
        held[own] += weight  # a word lists a chunk once
    return held[docs] / total if total > 0 else np.zeros(len(docs))


# ------------------------------------------------------------------ nominate


def nominate(q: Query, s: Signals) -> np.ndarray:
    """The candidates: the best `pool` of each list (text, words, meaning), and of the
    chunks of the days a question names."""
    opts, admitted, pool = q.opts, s.admitted, q.pool
    lists = []
    if opts.mode != "lsh":
        lists.append(admitted[top_k(s.text_a, pool, tiebreak=s.words_a)])
    if opts.mode != "bm25":
        lists.append(admitted[top_k(s.words_a, pool, tiebreak=s.text_a)])
        if s.by_embedding:
            lists.append(_by_meaning(q, s))
    if q.dated:
        # The chunks of the days asked about compete among themselves too: "camping in
        # June" is one of many camping turns, and the best of June's must be seen.
        within = in_days(q.index, admitted, q.asked.spans, opts)
        if within.any():
            inside = np.flatnonzero(within)
            t, w = s.text_a[inside], s.words_a[inside]
            lists.append(admitted[inside[top_k(t, pool, tiebreak=w)]])
            lists.append(admitted[inside[top_k(w, pool, tiebreak=t)]])
    return distinct(np.concatenate(lists)) if lists else np.zeros(0, np.int64)


def _by_meaning(q: Query, s: Signals) -> np.ndarray:
    """Meaning's nominees. Any chunk with a vector can be nominated, however low its
    estimate: across languages true cosines are small (0.2-0.3), and a 256-bit estimate of
    one falls below 0 now and then, which kept the exact cosine from ever seeing it. The
    estimate only nominates: the exact cosine chooses, and what was read is kept."""
    pool = q.pool
    nominee = np.where(s.has & q.mask, s.estimate + 2.0, 0.0)
    near = top_k(nominee, max(pool, q.opts.meaning_pool), tiebreak=s.text)
    if q.vectors is not None and len(near) > pool:
        found, rows = q.vectors(near)
        if rows.shape[1] == len(q.vector.vector):
            exact = rows @ q.vector.vector
            order = np.argsort(-np.where(found, exact, s.meaning[near]), kind="stable")
            s.meaning[near[found]] = np.clip(exact[found], 0.0, 1.0)
            s.exact_done = np.zeros(len(s.meaning), bool)
            s.exact_done[near[found]] = True
            near = near[order[:pool]]
    return near


# ------------------------------------------------------------------ fuse


def fusion(q: Query, s: Signals, cand: np.ndarray) -> Ranking | None:
    """0.7 x vector + 0.3 x text, each divided by the candidates' best. With embeddings,
    meaning adds to the words' share (vector = words + 0.3 x meaning) rather than replacing
    part of it. None when no candidate keeps a signal of its own."""
    opts = q.opts
    signal = s.lexical[cand].copy()
    words_c = s.words[cand]
    meaning_c = np.zeros(len(cand))
    if s.by_embedding:
        meaning_c = _exact_meaning(q, s, cand)
        meant = s.has[cand] & (q.vector.z(meaning_c) >= opts.vector_z)
        meant &= meaning_c > q.vector.filler  # closer than an empty reply ("ok", "谢谢")
        meant[meant] = _about_the_subject(q, cand[meant], meaning_c[meant])
        if opts.meaning_alone > 0:  # off by default (docs/benchmarks.md): 0.2 stops
            # unrelated questions, and the README's UTC+8 answer with them
            alone = meant & ~signal
            meant &= ~alone | (q.vector.strength(meaning_c, opts.vector_z) >= opts.meaning_alone)
        signal |= meant
        meaning_c = meaning_c * meant
    keep = signal & (s.text[cand] + words_c + meaning_c > 0)
    cand, words_c, meaning_c = cand[keep], words_c[keep], meaning_c[keep]
    if len(cand) == 0:
        return None
    strength = s.cover[cand]
    if s.by_embedding:
        strength = np.maximum(strength, q.vector.strength(meaning_c, opts.vector_z))
    vec_c = _vector_half(q, s, cand, words_c, meaning_c) if s.by_embedding else words_c
    t_norm = normalize(s.text[cand], opts.normalization)
    v_norm = normalize(vec_c, opts.normalization)
    if opts.mode == "bm25":
        fused = t_norm
    elif opts.mode == "lsh":
        fused = v_norm
    else:
        fused = fuse(v_norm, t_norm, opts.vector_weight, opts.text_weight)
    columns = {"lsh": words_c, "meaning": meaning_c, "text": t_norm, "vector": v_norm}
    return Ranking(cand, fused, {**columns, "strength": strength})


def _about_the_subject(q: Query, cand: np.ndarray, meaning_c: np.ndarray) -> np.ndarray:
    """Which candidates come closer to the question than to its frame alone. A sentence
    encoder reads "what did I say about kubernetes" mostly as its shape, so any question
    in memory ("What gave you the idea?") lies near it; a match by meaning must resemble
    what is asked more than how it is asked. All true without a frame or exact vectors."""
    keep = np.ones(len(cand), bool)
    frame = q.vector.frame if q.vector is not None else None
    if frame is None or q.vectors is None or not len(cand):
        return keep
    found, rows = q.vectors(cand)
    if rows.shape[1] != len(frame):
        return keep
    return ~found | (meaning_c > rows @ frame)


def frame_of(question: str) -> str:
    """The words of a question that say how it is asked and not what about (function
    words, "say", "tell", a lone letter), in order; "" when it has no such words or
    nothing else (then there is nothing to tell apart)."""
    words = question.split()
    kept = [w for w in words if not any(_content(t) for t in tokenize(w, cjk_unigrams=False))]
    if not kept or len(kept) == len(words):
        return ""
    return " ".join(kept)


def _exact_meaning(q: Query, s: Signals, cand: np.ndarray) -> np.ndarray:
    meaning_c = s.meaning[cand]
    todo = np.ones(len(cand), bool) if s.exact_done is None else ~s.exact_done[cand]
    if q.vectors is not None and todo.any():  # the exact cosine, where the cache has it
        found, rows = q.vectors(cand[todo])
        if rows.shape[1] == len(q.vector.vector):
            exact = np.clip(rows @ q.vector.vector, 0.0, 1.0)
            meaning_c[todo] = np.where(found, exact, meaning_c[todo])
    return meaning_c


def _vector_half(
    q: Query, s: Signals, cand: np.ndarray, words_c: np.ndarray, meaning_c: np.ndarray
) -> np.ndarray:
    """Words plus meaning. A chunk written in another script than the query (Chinese for an
    English question) cannot share its words: its word share is 0 by construction, not by
    evidence. For the few best by meaning, meaning then stands in for the words, in
    proportion to how far apart the scripts are; within one script nothing changes. Chosen
    on the cross-lingual tune cases (bench/recall_quality.py)."""
    opts = q.opts
    words_n = normalize(words_c, opts.normalization)
    meaning_n = normalize(meaning_c, opts.normalization)
    vec_c = words_n + opts.vector_mix * meaning_n
    if opts.cross_script > 0 and q.texts is not None:
        top = np.lexsort((cand, -meaning_c))[: opts.cross_script]
        top = top[meaning_c[top] > 0]
        if len(top):
            apart = np.abs(cjk_share(q.text) - np.array([cjk_share(t) for t in q.texts(cand[top])]))
            vec_c[top] = (
                np.maximum(words_n[top], apart * meaning_n[top]) + opts.vector_mix * meaning_n[top]
            )
    return vec_c


# ------------------------------------------------------------------ link


def links(q: Query, r: Ranking) -> Ranking:
    """Turns that refer back to a candidate ("It was an awesome time!" after "I took my
    family camping") score refer_share of it when that is more than their own score, over
    up to refer_hops links, and are added when they were not candidates; `subject` names
    the document that carries their subject. A turn inherits the subject of the turn it
    refers to, not its time: the time stage weighs each by its own dates. Along the same
    links the other way, the turn a candidate refers back to (the question it answers)
    scores question_share of it."""
    opts, index = q.opts, q.index
    r.columns["subject"] = np.full(len(r.docs), -1, np.int64)
    if opts.refer_hops <= 0 or max(opts.refer_share, opts.question_share) <= 0:
        return r
    refers, path_id = index.doc("refers"), index.doc("path_id")
    known = set(r.docs.tolist())
    score = dict(zip(r.docs.tolist(), r.score.tolist(), strict=True))
    subject: dict[int, int] = {}
    frontier = list(score)
    for _ in range(opts.refer_hops):
        lent: dict[int, tuple[float, int, bool]] = {}
        for d in frontier:
            for nxt, share, carries in _neighbours(q, refers, path_id, d):
                share *= score[d]
                if share > score.get(nxt, 0.0) and share > lent.get(nxt, (0.0,))[0]:
                    lent[nxt] = (share, d, carries)
        for d, (share, source, carries) in lent.items():
            score[d] = share
            if carries:
                subject[d] = subject.get(source, source)
        frontier = list(lent)
        if not frontier:
            break
    extra = [d for d in score if d not in known]
    docs = np.concatenate([r.docs, np.asarray(extra, r.docs.dtype)])
    r.grow(docs, np.fromiter((score[int(d)] for d in docs), np.float64, len(docs)))
    r.columns["subject"] = np.fromiter((subject.get(int(d), -1) for d in docs), np.int64, len(docs))
    return r


def _neighbours(q: Query, refers: np.ndarray, path_id: np.ndarray, d: int):
    """The turns next to `d` that links may lift, with the share of d's score they take and
    whether d carries their subject: the turn after when it refers back to d, and the turn
    before when d refers back to it (the question d answers, which often holds half of a
    two-turn fact: "What got you into running?" - "I run to de-stress"). A file's chunks
    are consecutive documents of one segment."""
    opts = q.opts
    nxt, prev = d + 1, d - 1

    def beside(other: int) -> bool:  # in the same file, and a chunk the question may see
        return 0 <= other < len(refers) and path_id[other] == path_id[d] and bool(q.mask[other])

    if opts.refer_share > 0 and nxt < len(refers) and refers[nxt] and beside(nxt):
        yield nxt, opts.refer_share, True
    if opts.question_share > 0 and refers[d] and beside(prev):
        yield prev, opts.question_share, False


# ------------------------------------------------------------------ time


def time(q: Query, r: Ranking) -> Ranking:
    """Dated chunks decay by exp(-λ · age), the age counted from the newest candidate and
    capped at decay_window days (evergreen ones never decay); deprecated ones count
    deprecated_weight. A question that names its days matches them instead of decaying:
    a chunk of other days counts date_miss of itself. One that asks when weighs the chunks
    that say when (1 + when_boost)."""
    opts, index = q.opts, q.index
    r.columns["fused"] = r.score.copy()  # what the words, meaning and links gave
    when = index.doc("when")[r.docs]
    deprecated = deprecated_then(index, opts)[r.docs]
    if opts.decay and not q.dated:  # named days stand in for recency
        now = opts.now or datetime.now()
        age = days_since_epoch(now) - when
        if opts.decay_window > 0 and not np.isnan(age).all():
            age = np.minimum(age - np.nanmin(age), opts.decay_window)
        factor = decay_factors(age, opts.decay_lambda)
        factor = factor * np.where(deprecated, opts.deprecated_weight, 1.0)
    else:
        factor = np.ones(len(r.docs))
    days = np.full(len(r.docs), "", dtype=object)
    if q.dated:
        within = in_days(index, r.docs, q.asked.spans, opts)
        dated = ~np.isnan(when) | ~np.isnan(index.doc("about_first")[r.docs])
        if within.any():
            factor = factor * np.where(within | ~dated, 1.0, opts.date_miss)
            days = np.where(within, "in", np.where(dated, "out", ""))
    if q.asked is not None and q.asked.asks and opts.when_boost > 0:
        names = ~np.isnan(index.doc("about_first")[r.docs])
        factor = factor * np.where(names, 1.0 + opts.when_boost, 1.0)
    r.columns["decay"], r.columns["days"] = factor, days
    r.score = r.score * factor
    return r


def in_days(index: Index, docs: np.ndarray, spans, opts: RecallOptions) -> np.ndarray:
    """Which documents meet the days a question names (give or take opts.date_slack): by
    their own date, or by the days their words speak of ("last week" said on 2023-01-23)."""
    own = index.doc("when")[docs]
    first, last = index.doc("about_first")[docs], index.doc("about_last")[docs]
    named = ~np.isnan(first)
    out = np.zeros(len(docs), bool)
    slack = opts.date_slack
    for lo_day, hi_day in spans:
        lo = days_since_epoch(datetime.combine(lo_day, datetime.min.time())) - slack
        hi = days_since_epoch(end_of(hi_day)) + slack
        with np.errstate(invalid="ignore"):
            out |= (own >= lo) & (own < hi)
            out |= named & (first < hi) & (last + 1 > lo)
    return out


# ------------------------------------------------------------------ speakers

# Who speaks in an agent's own log: naming them asks about a fact, not about whose turn
# said it ("what editor does the user prefer" is answered by USER.md as much as by a turn).
ROLES = frozenset(
    {*LOG_ROLES, "notes", "tool", "agent", "human", "ai", "bot", "model", "用户", "助手"}
)
NAME_WORDS = 4  # the most words a speaker's name spans ("mary ann smith")


def speakers(q: Query, r: Ranking) -> Ranking:
    """A question that names someone who speaks in the logs asks about what they said and
    did: "In what ways is Caroline participating…?" is answered by Caroline's turns more
    than by her friend's "I'm so proud of you for spreading awareness". Log entries by
    others then count 1 / (1 + speaker_boost); entries by the named, and chunks no one
    speaks (curated lines), keep their score, so no score rises above the best's share."""
    weight = np.ones(len(r.docs))
    if q.opts.speaker_boost > 0 and len(r.docs):
        spoken = q.index.doc("speaker")[r.docs]
        present = set(spoken[spoken != 0].tolist()) - _role_keys()
        if present:  # hash the question's spans only where a person, not a role, speaks
            named = present & {agent_key(n) for n in names_in(q.text)}
            if named:
                by_named = np.fromiter((s in named for s in spoken.tolist()), bool, len(spoken))
                weight = np.where((spoken != 0) & ~by_named, 1 / (1 + q.opts.speaker_boost), 1.0)
                r.score = r.score * weight
    r.columns["speaker"] = weight
    return r


def names_in(text: str) -> set[str]:
    """The spans of a question that could be a speaker's name, lower-cased as the index
    keeps a label: one to four words in a row as written between them ("o'brien",
    "jean-luc", "dr. smith", "mary ann smith"), and in a run of CJK (written without
    spaces, and split from letters of other scripts beside it: "melanie画了什么") every
    two to four characters (小明, 王小明). A word holds letters, digits and marks (İ, प्रिया).
    Role names and single characters are left out."""
    low = text.lower()
    words: list[tuple[int, int]] = []  # (start, end) of each word in `low`
    start, cjk = -1, False
    for i, ch in enumerate(low + " "):
        inside = ch.isalnum() or (start >= 0 and ch > "\x7f" and _mark(ch))
        is_cjk = inside and bool(CJK_RE.match(ch))
        if start >= 0 and (not inside or is_cjk != cjk):
            words.append((start, i))
            start = -1
        if inside and start < 0:
            start, cjk = i, is_cjk
    out = set()
    for n, (a, b) in enumerate(words):
        if CJK_RE.match(low[a]):
            run = low[a:b]
            out.update(run[i : i + w] for w in (2, 3, 4) for i in range(len(run) - w + 1))
        for a2, b2 in words[n : n + NAME_WORDS]:
            if CJK_RE.match(low[a2]) and a2 != a:
                break  # a name in letters does not run on into CJK
            out.add(low[a:b2])
    return {n for n in out if len(n) > 1 and n not in ROLES}


@functools.cache
def _role_keys() -> frozenset[int]:
    return frozenset(agent_key(r) for r in ROLES)


def _mark(ch: str) -> bool:
    """A combining mark (the dot that lower-casing İ leaves, a Devanagari vowel sign)."""
    import unicodedata

    return unicodedata.category(ch).startswith("M")


# ------------------------------------------------------------------ uses


def uses(q: Query, r: Ranking, access_counts: Callable[[np.ndarray], np.ndarray] | None) -> Ranking:
    """recall.access_boost: score x (1 + w · log(1 + uses)); 0 is off."""
    counts = np.zeros(len(r.docs))
    if q.opts.access_boost > 0 and access_counts is not None:
        counts = np.asarray(access_counts(r.docs), np.float64)
        boost = 1.0 + q.opts.access_boost * np.log1p(counts)
        r.columns["decay"] = r.columns["decay"] * boost
        r.score = r.score * boost
    r.columns["uses"] = counts
    return r


# ------------------------------------------------------------------ collect


def collect(q: Query, s: Signals, r: Ranking) -> list[tuple[int, dict]]:
    """The best k above min_score, MMR picking among the best `pool` so that near-duplicates
    (a fact logged twice) do not crowd out the rest; each with its explain row."""
    opts = q.opts
    match = _match(r)
    rel = r.score  # ranked and diversified by this; reported and cut times the match
    keep = rel * match > 0
    if opts.min_score > 0:
        keep &= rel * match >= opts.min_score
    order = [int(i) for i in np.lexsort((r.docs, -rel)) if keep[i]]
    if not order:
        return []
    if opts.use_mmr:
        pool_docs = np.asarray([int(r.docs[i]) for i in order[: q.pool]], np.int64)
        alike = similarity(q.index, pool_docs, q.texts, opts.mmr_threshold)
        picked = mmr([float(rel[i]) for i in order[: q.pool]], alike, opts.k, opts.mmr_lambda)
        chosen = [order[p] for p in picked]
    else:
        chosen = order[: opts.k]
    r.score = rel * match
    return [
        (int(r.docs[i]), _explain(s, r, i, order.index(i) + 1, pos + 1, match))
        for pos, i in enumerate(chosen)
    ]


def _match(r: Ranking) -> float:
    """How well the memory answers the question at all: the best strength among the
    candidates still standing (the share of the question's words one holds, or how far
    its meaning lies above the floor). The ranking's scores are shares of the best
    candidate's; times this, a score means the same for every question, so min_score can
    say "nothing matches" (the order is unchanged: every score is scaled alike)."""
    alive = r.score > 0
    if "superseded_by" in r.columns:  # left out as no longer current, answered by its update
        alive |= r.columns["superseded_by"] >= 0
    if not alive.any():
        return 0.0
    return float(r.columns["strength"][alive].max())


def _explain(
    s: Signals, r: Ranking, i: int, before: int, position: int, match: float = 1.0
) -> dict:
    c, doc = r.columns, int(r.docs[i])
    days, subject = c["days"][i], int(c["subject"][i])
    newer = int(c["superseded_by"][i]) if "superseded_by" in c else -1
    return {
        "bm25": round(float(s.text[doc]), 4),
        "own": round(float(s.split.own[doc]), 4),
        "lsh": round(float(c["lsh"][i]), 4),
        "meaning": round(float(c["meaning"][i]), 4),
        "vectors": "embedding" if s.by_embedding else "minhash",
        "text": round(float(c["text"][i]), 4),
        "vector": round(float(c["vector"][i]), 4),
        "fused": round(float(c["fused"][i]), 4),
        "decay": round(float(c["decay"][i]), 4),
        **({"days": days} if days else {}),
        **({"speaker": round(float(c["speaker"][i]), 4)} if 0 < c["speaker"][i] < 1 else {}),
        **({"subject": subject} if subject >= 0 else {}),
        **({"follow": round(float(c["follow"][i]), 4)} if "follow" in c and c["follow"][i] else {}),
        **({"superseded_by": newer} if newer >= 0 else {}),
        "uses": int(c["uses"][i]),
        "strength": round(float(c["strength"][i]), 4),
        "match": round(match, 4),
        "final": round(float(r.score[i]), 4),
        "rank_before_mmr": before,
        "mmr_position": position,
    }


def similarity(
    index: Index, docs: np.ndarray, texts: Texts | None, threshold: float
) -> Callable[[int, int], float]:
    """How alike two candidates are, for MMR: the Jaccard similarity of their own content
    words (read from their lines; headings and borrowed context left out), or without
    `texts` the share of equal MinHash values when the index keeps signatures (else nothing
    is alike and MMR keeps the relevance order). Only what lies above `threshold` counts,
    rescaled to [0, 1]: a re-logged fact is demoted, while neighbouring turns that share a
    topic (often the evidence together) are not."""
    if texts is None and not index.params.signed:
        return lambda a, b: 0.0
    if texts is not None:
        from ..format.chunking import searchable

        words = [shingles(index.params.tokens(searchable(t))) for t in texts(docs)]

        def alike(a: int, b: int) -> float:
            wa, wb = words[a], words[b]
            return len(wa & wb) / len(wa | wb) if wa and wb else 0.0
    else:
        rows = signature_rows(index, docs)
        bits = index.params.sig_bits

        def alike(a: int, b: int) -> float:
            return float(minhash.jaccard(rows[a : a + 1], rows[b], bits)[0])

    if threshold <= 0:
        return alike
    return lambda a, b: max(0.0, alike(a, b) - threshold) / (1.0 - threshold)


def signature_rows(index: Index, docs: np.ndarray) -> np.ndarray:
    """The MinHash signatures of some documents (base and delta segments)."""
    return index.signature_rows(docs)
