"""A second pass for two-fact questions: what the first results name, asked again.

"Which city have both Jean and John visited?" finds Jean's turn about Paris; the turn of
John's that says Paris shares no word with the question. The words the best few results
hold that the question does not (the rarer the better: names of people, places, things)
are asked as a question of their own, and what that finds adds `follow_weight` of its
score to the first pass's, up to the score of the last result followed: a result found
through another never outranks it. It runs on the fused candidates, before links, time
and MMR: the pool it reads is the same for any k up to stages.POOL_K, so the first hit
still never depends on k, and a question that matched nothing has nothing to follow.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..search import bm25
from ..search.rank import fuse, normalize, top_k
from . import stages
from .stages import Query, Ranking


def follow(q: Query, r: Ranking) -> Ranking:
    """The candidates with the second pass's score added (follow_weight x its fused score,
    a share of its best; at most up to the last followed result's score) and its best
    `pool` added as candidates; unchanged when the option is off, the texts cannot be read
    or the first results name nothing new."""
    opts = q.opts
    if opts.follow_weight <= 0 or opts.follow_top <= 0 or q.texts is None or not len(r.docs):
        return r
    first = r.docs[np.lexsort((r.docs, -r.score))[: opts.follow_top]]
    terms = named(q, first)
    if not terms:
        return r
    again = replace(q, tokens=terms, vector=None, asked=None)
    s = stages.admit(again)
    if not len(s.admitted):
        return r
    fused = fuse(
        normalize(s.words_a, opts.normalization),
        normalize(s.text_a, opts.normalization),
        opts.vector_weight,
        opts.text_weight,
    )
    second = np.zeros(len(q.mask))
    second[s.admitted] = fused
    best = s.admitted[top_k(fused, q.pool)]
    known = set(r.docs.tolist())
    extra = np.asarray([d for d in best.tolist() if d not in known], r.docs.dtype)
    docs = np.concatenate([r.docs, extra])
    score = np.concatenate([r.score, np.zeros(len(extra))])
    # What a followed result names counts below the results it was followed from, as a
    # reply found through its question scores a share of it: the first results keep
    # their places (and the first hit), the rest may rise up to the last of them.
    cap = float(np.sort(r.score)[::-1][len(first) - 1])
    lifted = np.minimum(score + opts.follow_weight * second[docs], cap)
    score = np.where(np.isin(docs, first), score, np.maximum(score, lifted))
    r.grow(docs, score)
    r.columns["follow"] = second[docs]
    return r


def named(q: Query, docs: np.ndarray) -> list[str]:
    """The words `docs` hold in their own lines (speaker headings left out) that the
    question does not: the follow_terms rarest, each weighed by its IDF times how many of
    the docs hold it. A word held by no other chunk leads nowhere new and is left out, as
    is one so common (in a tenth of the memory or more) that it names nothing."""
    index, opts = q.index, q.opts
    asked = set(q.tokens) | set(index.params.tokens(q.text))
    held: dict[str, int] = {}
    for text in q.texts(docs):
        body = "\n".join(line for line in text.split("\n") if not line.startswith("#"))
        for t in set(index.params.tokens(body)):
            if t not in asked and stages._content(t):
                held[t] = held.get(t, 0) + 1
    n = max(index.n_live, 1)
    # With every chunk live (no forgotten or replaced one), a word's documents are counted
    # from its frequencies alone, without decoding which documents they are.
    all_live = n == len(index.live)
    weighed = []
    for t, count in held.items():
        h = bm25.term_hash(t)
        if all_live:
            df = sum(s.own_count(h) for s in index.segments)
        else:
            df = sum(
                int(index.live[d[tf > 0]].sum())
                for d, tf, _ in (s.lookup(h) for s in index.segments)
            )
        if 2 <= df <= n // 10:
            weighed.append((-count * float(bm25.idf(n, df)), t))
    weighed.sort()
    return [t for _, t in weighed[: opts.follow_terms]]
