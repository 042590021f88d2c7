"""BM25 (Okapi) over inverted postings in numpy, with borrowed context kept apart.

The scoring is rank-bm25's BM25Okapi (k1 1.5, b 0.75, query terms counted as often as they
appear) with one documented difference: the IDF is `log(1 + (N - df + 0.5) / (df + 0.5))`
(Lucene's), which is positive for every term that occurs. rank-bm25's `log((N - df + 0.5) /
(df + 0.5))` goes negative for a term in more than half the documents and is then floored
at `0.25 * average IDF`, which in a small workspace made a matching chunk score below one
that matches nothing. A test holds these scores to rank-bm25's with its IDF table replaced
by this one.

A chunk's tokens are its own text plus borrowed context (the tail of the log entry before
it, a section heading): each posting keeps the two frequencies apart (`tfs`, `ctfs`), so
the context can be weighed less and capped by what the chunk's own words score (see
`scores`).

It scans only the documents a term occurs in; terms are 64-bit hashes, so the vocabulary
needs no string table at query time. An index may hold several segments (a large base and a
small delta) over one document id space, with a `live` mask for documents whose file has
since changed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from ..text import blake2b

K1 = 1.5
B = 0.75


def term_hash(term: str) -> int:
    return int.from_bytes(blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


def idf(n: int, df: int | np.ndarray) -> float | np.ndarray:
    """Lucene's BM25 IDF: positive for any term that occurs, largest for the rarest."""
    return np.log1p((n - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class Postings:
    """Term-major postings, packed: the postings of terms[i] are numbers ptr[i]..ptr[i+1]
    of the segment. Each holds a document id, the term's frequency in the document's own
    text (tf) and in its borrowed context (ctf). On disk and in memory they are packed to
    about 2.2 bytes a posting instead of 12: document ids as LEB128 varints of the gap from
    the previous posting of the same term (`gaps`, bytes bptr[i]..bptr[i+1]), and the two
    frequencies as one byte, tf << 4 | ctf (`freqs`); a posting whose tf or ctf does not fit
    four bits (or is not a whole number) keeps its exact values in `bigtf` / `bigctf`, at
    its position in `bigpos`. `lookup` decodes one term's postings, bit for bit the arrays
    they were packed from."""

    terms: np.ndarray  # uint64, sorted, unique
    ptr: np.ndarray  # int64, len(terms) + 1: posting offsets
    bptr: np.ndarray  # int64, len(terms) + 1: byte offsets into gaps
    gaps: np.ndarray  # uint8: LEB128 document-id gaps, the first of a term from 0
    freqs: np.ndarray  # uint8 per posting: tf << 4 | ctf (0 where bigpos holds it)
    bigpos: np.ndarray  # int64, sorted: postings whose frequencies did not fit
    bigtf: np.ndarray  # float32: their own-text frequency
    bigctf: np.ndarray  # float32: their context frequency

    @staticmethod
    def empty() -> Postings:
        return Postings.pack(
            np.zeros(0, np.uint64),
            np.zeros(1, np.int64),
            np.zeros(0, np.int32),
            np.zeros(0, np.float32),
            np.zeros(0, np.float32),
        )

    @staticmethod
    def pack(
        terms: np.ndarray, ptr: np.ndarray, docs: np.ndarray, tfs: np.ndarray, ctfs: np.ndarray
    ) -> Postings:
        """From plain arrays: docs ascending within each term."""
        enc = encode(np.asarray(ptr, np.int64), docs, tfs, ctfs)
        return Postings(np.asarray(terms, np.uint64), np.asarray(ptr, np.int64), **enc)

    @property
    def size(self) -> int:
        """How many postings."""
        return int(self.ptr[-1])

    def lookup(self, h: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(docs int32, tf float32, ctf float32) of the term whose hash is h."""
        i = int(np.searchsorted(self.terms, np.uint64(h)))
        if i < len(self.terms) and int(self.terms[i]) == h:
            return self._decode(i)
        return np.zeros(0, np.int32), np.zeros(0, np.float32), np.zeros(0, np.float32)

    def holding(self, hashes: np.ndarray) -> Iterator[np.ndarray]:
        """The documents of each of the terms whose hashes these are that the postings
        hold, one term at a time (one search for all of them; the document ids alone decoded, their
        frequencies left packed): for hundreds of terms, a lookup each was mostly its own
        overhead."""
        hashes = np.asarray(hashes, np.uint64)
        i = np.searchsorted(self.terms, hashes)
        inside = i < len(self.terms)
        i = i[inside][self.terms[i[inside]] == hashes[inside]]
        for b0, b1 in zip(self.bptr[i].tolist(), self.bptr[i + 1].tolist(), strict=True):
            yield np.cumsum(_varints(self.gaps[b0:b1]))

    def own_count(self, h: int) -> int:
        """How many postings of the term whose hash is h are in a document's own text (tf >
        0), read from the frequencies alone: the document ids are not decoded."""
        i = int(np.searchsorted(self.terms, np.uint64(h)))
        if i >= len(self.terms) or int(self.terms[i]) != h:
            return 0
        lo, hi = int(self.ptr[i]), int(self.ptr[i + 1])
        tf, _ = _frequencies(self.freqs[lo:hi], self.bigpos, self.bigtf, self.bigctf, lo)
        return int(np.count_nonzero(tf))

    def _decode(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lo, hi = int(self.ptr[i]), int(self.ptr[i + 1])
        docs = np.cumsum(_varints(self.gaps[int(self.bptr[i]) : int(self.bptr[i + 1])]))
        tf, ctf = _frequencies(self.freqs[lo:hi], self.bigpos, self.bigtf, self.bigctf, lo)
        return docs.astype(np.int32), tf, ctf

    def unpacked(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(docs, tfs, ctfs) of every posting, term-major: what ptr indexes."""
        values = _varints(self.gaps)
        if len(values) != self.size:
            raise ValueError("postings: the gaps do not hold one value per posting")
        counts = np.diff(self.ptr)
        cum = np.cumsum(values)
        firsts = self.ptr[:-1][counts > 0]  # each term's gaps start again from 0
        before = np.where(firsts > 0, cum[np.maximum(firsts - 1, 0)], 0) if len(cum) else firsts
        docs = cum - np.repeat(before, counts[counts > 0])
        tf, ctf = _frequencies(self.freqs, self.bigpos, self.bigtf, self.bigctf, 0)
        return docs.astype(np.int32), tf, ctf

    def triplets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(term hash, doc, own tf, context tf) for every posting."""
        docs, tfs, ctfs = self.unpacked()
        return np.repeat(self.terms, np.diff(self.ptr)), docs, tfs, ctfs

    def consistent(self) -> bool:
        """The shapes agree (cheap: what every open checks)."""
        return (
            len(self.ptr) == len(self.terms) + 1 == len(self.bptr)
            and int(self.ptr[0]) == 0 == int(self.bptr[0])
            and int(self.ptr[-1]) == len(self.freqs)
            and int(self.bptr[-1]) == len(self.gaps)
            and len(self.bigpos) == len(self.bigtf) == len(self.bigctf)
        )

    def documents_within(self, first: int, n: int) -> bool:
        """Every value decodes and every document id lies in [first, first + n) (reads the
        whole segment: checked when its file is new to this machine)."""
        if not self.consistent() or not bool(np.all(np.diff(self.ptr) >= 0)):
            return False
        if len(self.gaps) and int(self.gaps[-1]) >= 128:
            return False  # a varint cut short
        if len(self.bigpos) and (int(self.bigpos.min()) < 0 or int(self.bigpos.max()) >= self.size):
            return False
        # Term i's bytes must hold exactly its ptr[i + 1] - ptr[i] values.
        ends = np.flatnonzero(self.gaps < 128) + 1
        if not np.array_equal(np.searchsorted(ends, self.bptr, "right"), self.ptr):
            return False
        docs, _, _ = self.unpacked()
        return len(docs) == 0 or (int(docs.min()) >= first and int(docs.max()) < first + n)


def _varints(b: np.ndarray) -> np.ndarray:
    """LEB128 bytes as int64 values (7 bits a byte, low first, high bit: more follows)."""
    b = np.asarray(b, np.uint8)
    if len(b) == 0 or int(b.max()) < 128:  # every value under 128: a byte each
        return b.astype(np.int64)
    last = b < 128
    ends = np.flatnonzero(last)
    if len(ends) == 0 or ends[-1] != len(b) - 1:
        raise ValueError("postings: a varint is cut short")
    starts = np.r_[0, ends[:-1] + 1]
    group = np.cumsum(last) - last
    shift = 7 * (np.arange(len(b), dtype=np.int64) - starts[group])
    return np.add.reduceat((b & 127).astype(np.int64) << shift, starts)


def _frequencies(
    packed: np.ndarray, bigpos: np.ndarray, bigtf: np.ndarray, bigctf: np.ndarray, lo: int
) -> tuple[np.ndarray, np.ndarray]:
    """tf and ctf (float32) of postings lo.. from their bytes and the exceptions."""
    tf = (packed >> 4).astype(np.float32)
    ctf = (packed & 15).astype(np.float32)
    if len(bigpos):
        a, b = np.searchsorted(bigpos, (lo, lo + len(packed)))
        if b > a:
            at = bigpos[a:b] - lo
            tf[at] = bigtf[a:b]
            ctf[at] = bigctf[a:b]
    return tf, ctf


def encode(ptr: np.ndarray, docs: np.ndarray, tfs: np.ndarray, ctfs: np.ndarray) -> dict:
    """The packed arrays (bptr, gaps, freqs, bigpos, bigtf, bigctf) of term-major postings
    whose terms start at ptr[:-1]; bptr and bigpos count from this run's first posting."""
    docs = np.asarray(docs, np.int64)
    tfs, ctfs = np.asarray(tfs, np.float32), np.asarray(ctfs, np.float32)
    counts = np.diff(ptr)
    gaps = np.diff(docs, prepend=0) if len(docs) else docs
    firsts = ptr[:-1][counts > 0]
    gaps[firsts] = docs[firsts]
    if len(gaps) and int(gaps.min()) < 0:
        raise ValueError("postings: documents must ascend within a term")
    nbytes = np.ones(len(gaps), np.int64)
    for k in range(1, 5):
        nbytes += gaps >= (1 << (7 * k))
    out = np.empty(int(nbytes.sum()), np.uint8)
    at = np.cumsum(nbytes) - nbytes
    for k in range(5):
        more = nbytes > k
        if not more.any():
            break
        byte = (gaps[more] >> (7 * k)) & 127
        out[at[more] + k] = byte | ((nbytes[more] > k + 1) << 7)
    fits = (tfs <= 15) & (ctfs <= 15) & (tfs >= 0) & (ctfs >= 0)
    fits &= (tfs == np.floor(tfs)) & (ctfs == np.floor(ctfs))
    freqs = np.where(fits, tfs * 16 + ctfs, 0).astype(np.uint8)
    big = np.flatnonzero(~fits)
    return {
        "bptr": np.r_[0, np.cumsum(nbytes)][ptr].astype(np.int64),
        "gaps": out,
        "freqs": freqs,
        "bigpos": big.astype(np.int64),
        "bigtf": tfs[big],
        "bigctf": ctfs[big],
    }


def _from_triplets(
    terms: np.ndarray, docs: np.ndarray, tfs: np.ndarray, ctfs: np.ndarray
) -> Postings:
    if len(terms) == 0:
        return Postings.empty()
    order = np.lexsort((docs, terms))
    terms, docs, tfs, ctfs = terms[order], docs[order], tfs[order], ctfs[order]
    starts = np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]])
    ptr = np.r_[starts, len(terms)].astype(np.int64)
    return Postings.pack(terms[starts].copy(), ptr, docs, tfs, ctfs)


@dataclass(frozen=True)
class Analysis:
    """Documents as (document, term, own frequency, context frequency) over a local
    vocabulary: what both BM25 and MinHash are built from, computed once with numpy rather
    than per document."""

    terms: list[str]  # vocabulary in id order
    doc: np.ndarray  # int64, sorted
    term: np.ndarray  # int64 term id, sorted within a document
    tf: np.ndarray  # float32 frequency in the document's own text
    ctf: np.ndarray  # float32 frequency in its borrowed context
    lengths: np.ndarray  # float32 own tokens + context_weight * context tokens


def analyze(
    doc_tokens: Sequence[Sequence[str]],
    term_map: Callable[[str], str] | None = None,
    context_counts: Sequence[int] | None = None,
    context_weight: float = 1.0,
) -> Analysis:
    """Pairs from token lists; `term_map` (a stemmer) is applied once per distinct token
    rather than once per occurrence. The first context_counts[d] tokens of document d are
    borrowed context: counted apart, and context_weight each towards the length."""
    raw, ids = _token_ids(doc_tokens)
    lengths = np.fromiter(map(len, doc_tokens), np.int64, len(doc_tokens))
    ctx = np.zeros(len(doc_tokens), np.int64) if context_counts is None else context_counts
    return _analysis(raw, ids, lengths, np.asarray(ctx, np.int64), term_map, context_weight)


def analyze_borrowing(
    own: Sequence[Sequence[str]],
    context: Sequence[Sequence[str]],
    term_map: Callable[[str], str] | None = None,
    context_weight: float = 1.0,
) -> Analysis:
    """analyze() of documents whose tokens are context[d] + own[d] (the same pairs, the
    terms perhaps numbered otherwise), where a context is most often the very list of the
    document before's own tokens (a reply borrows the entry it answers): each distinct list
    is looked up once, and the documents are assembled from the ids by one numpy gather
    instead of a dictionary lookup a token."""
    n = len(own)
    if len(context) != n:
        raise ValueError(f"analyze_borrowing: {n} documents but {len(context)} contexts")
    runs = list(own)
    where = {id(t): d for d, t in enumerate(own)}
    src = np.empty(n, np.int64)
    for d, c in enumerate(context):
        j = where.get(id(c))
        if j is None:  # (the lists are alive in `context`: no id is reused meanwhile)
            j = where[id(c)] = len(runs)
            runs.append(c)
        src[d] = j
    raw, run_ids = _token_ids(runs)
    run_len = np.fromiter(map(len, runs), np.int64, len(runs))
    run_at = np.cumsum(run_len) - run_len
    # Each document is two runs of run_ids, its context's then its own: one index array.
    take_at = np.stack((run_at[src], run_at[:n]), axis=1).ravel()
    take_len = np.stack((run_len[src], run_len[:n]), axis=1).ravel()
    out_at = np.cumsum(take_len) - take_len
    total = int(take_len.sum())
    ids = run_ids[np.repeat(take_at - out_at, take_len) + np.arange(total)]
    ctx = run_len[src]
    return _analysis(raw, ids, ctx + run_len[:n], ctx, term_map, context_weight)


def _token_ids(lists: Sequence[Sequence[str]]) -> tuple[dict[str, int], np.ndarray]:
    """Every token's id in a first-seen vocabulary, the lists one after the other."""
    # dict.fromkeys and map run in C: no Python bytecode per token.
    flat = list(itertools.chain.from_iterable(lists))
    raw = {t: i for i, t in enumerate(dict.fromkeys(flat))}
    return raw, np.fromiter(map(raw.__getitem__, flat), np.int64, len(flat))


def _analysis(
    raw: dict[str, int],
    ids: np.ndarray,
    lengths: np.ndarray,
    ctx: np.ndarray,
    term_map: Callable[[str], str] | None,
    context_weight: float,
) -> Analysis:
    """The pairs of documents of `lengths` tokens (`ids` in order, the first ctx[d] of
    document d borrowed) over the vocabulary `raw`, mapped through term_map."""
    if term_map is None:
        vocab = raw
    else:
        vocab = {}
        remap = np.fromiter(
            (vocab.setdefault(term_map(t), len(vocab)) for t in raw), np.int64, len(raw)
        )
        ids = remap[ids] if len(ids) else ids
    n = len(lengths)
    owner = np.repeat(np.arange(n, dtype=np.int64), lengths)
    v = max(len(vocab), 1)
    # Key = (document, term, is-context): one sort groups a document's pairs and keeps
    # text and context occurrences apart.
    keys = (owner * v + ids) * 2
    if len(keys) and ctx.any():
        first = np.repeat(np.cumsum(lengths) - lengths, lengths)
        keys += (np.arange(len(keys)) - first) < np.repeat(ctx, lengths)
    if n * v * 2 < 2**32:
        keys = keys.astype(np.uint32)  # sorts ~2x faster than int64
    keys.sort()  # np.unique with counts, without its extra argsort
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else keys[:0]
    counts = np.diff(np.r_[starts, len(keys)]).astype(np.float32)
    keys = keys[starts].astype(np.int64)
    is_ctx = (keys & 1).astype(bool)
    pair = keys >> 1
    # A term in both the text and the context has two keys, text first: fold them.
    first_of = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]]) if len(pair) else pair[:0]
    own = np.add.reduceat(np.where(is_ctx, 0, counts), first_of) if len(pair) else counts
    borrowed = np.add.reduceat(np.where(is_ctx, counts, 0), first_of) if len(pair) else counts
    pair = pair[first_of]
    doc_len = lengths - ctx * (1.0 - context_weight)
    return Analysis(
        list(vocab),
        pair // v,
        pair % v,
        own.astype(np.float32),
        borrowed.astype(np.float32),
        doc_len.astype(np.float32),
    )


def _stable_order(keys: np.ndarray, n_keys: int) -> np.ndarray:
    """Stable argsort of small non-negative ints: radix passes over 16-bit digits, which
    numpy sorts by counting (5x faster than a general stable sort)."""
    if n_keys <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    low = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    high = np.argsort((keys[low] >> 16).astype(np.uint16), kind="stable")
    return low[high]


def concat(parts: Sequence[Analysis]) -> Analysis:
    """One analysis from several over consecutive documents (a parallel build's pieces)."""
    vocab: dict[str, int] = {}
    docs, terms, tfs, ctfs, lengths = [], [], [], [], []
    offset = 0
    for part in parts:
        remap = np.fromiter(
            (vocab.setdefault(t, len(vocab)) for t in part.terms), np.int64, len(part.terms)
        )
        docs.append(part.doc + offset)
        terms.append(remap[part.term] if len(part.term) else part.term)
        tfs.append(part.tf)
        ctfs.append(part.ctf)
        lengths.append(part.lengths)
        offset += len(part.lengths)

    def cat(arrays: list[np.ndarray], dtype: type) -> np.ndarray:
        return np.concatenate(arrays).astype(dtype) if arrays else np.zeros(0, dtype)

    return Analysis(
        list(vocab),
        cat(docs, np.int64),
        cat(terms, np.int64),
        cat(tfs, np.float32),
        cat(ctfs, np.float32),
        cat(lengths, np.float32),
    )


def from_analysis(an: Analysis, first_doc: int = 0, hashes: np.ndarray | None = None) -> Postings:
    """Term-major postings from doc-major pairs, packed (`hashes`: term_hash of each of
    an.terms, when the caller has them)."""
    return Postings.pack(*term_major(an, first_doc, hashes))


def term_major(
    an: Analysis, first_doc: int = 0, hashes: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(terms, ptr, docs, tfs, ctfs) from doc-major pairs: one stable sort by term
    (documents stay ascending within a term), terms ordered by hash for lookups."""
    v = len(an.terms)
    if v == 0 or len(an.term) == 0:
        return (
            np.zeros(0, np.uint64),
            np.zeros(1, np.int64),
            np.zeros(0, np.int32),
            np.zeros(0, np.float32),
            np.zeros(0, np.float32),
        )
    if hashes is None:
        hashes = np.fromiter((term_hash(t) for t in an.terms), np.uint64, v)
    by_hash = np.argsort(hashes)
    rank = np.empty(v, np.int64)
    rank[by_hash] = np.arange(v)
    keys = rank[an.term]
    order = _stable_order(keys, v)
    counts = np.bincount(keys, minlength=v)
    present = counts > 0
    ptr = np.r_[0, np.cumsum(counts[present])].astype(np.int64)
    return (
        hashes[by_hash][present],
        ptr,
        (an.doc[order] + first_doc).astype(np.int32),
        an.tf[order].astype(np.float32),
        an.ctf[order].astype(np.float32),
    )


def merge(segments: Iterable[Postings], keep: np.ndarray, new_ids: np.ndarray) -> Postings:
    """One segment from several: postings of documents with keep[doc] survive, renumbered
    to new_ids[doc]. No text is read or tokenised again."""
    parts = [seg.triplets() for seg in segments]
    if not parts:
        return Postings.empty()
    terms, docs, tfs, ctfs = (np.concatenate([p[i] for p in parts]) for i in range(4))
    alive = keep[docs]
    return _from_triplets(terms[alive], new_ids[docs[alive]], tfs[alive], ctfs[alive])


@dataclass(frozen=True)
class TextScores:
    own: np.ndarray  # BM25 of the document's own text
    context: np.ndarray  # what its borrowed context adds (weighed by context_weight)
    matched: np.ndarray  # bool: the document's own text holds a content word of the query
    borrowed: np.ndarray  # bool: its borrowed context holds one


def scores(
    segments: Sequence[Postings],
    live: np.ndarray,
    doc_len: np.ndarray,
    query: Sequence[str],
    k1: float = K1,
    b: float = B,
    context_weight: float = 0.5,
    content: Callable[[str], bool] | None = None,
) -> TextScores:
    """BM25 of every document (dead ones score 0), split into what its own text scores and
    what its borrowed context adds on top (term frequency own + context_weight * context).
    `matched` marks documents whose own text holds a query term that `content` accepts (a
    word that carries meaning, not "I" or "the"; every term without `content`): a query
    none of whose terms it accepts matches nothing."""
    size = len(live)
    matched = np.zeros(size, bool)
    borrowed = np.zeros(size, bool)
    n = int(live.sum())
    if n == 0 or not query:
        return TextScores(np.zeros(size), np.zeros(size), matched, borrowed)
    meaningful = {t for t in query if content is None or content(t)}
    avgdl = float(doc_len[live].sum()) / n or 1.0
    cache: dict[str, tuple | None] = {}
    hits = []
    found_by_term = {}
    for term in dict.fromkeys(query):
        h = term_hash(term)
        found = [f for f in (seg.lookup(h) for seg in segments) if len(f[0])]
        if found:
            found_by_term[term] = found
    # The length norm of every document at once when the query's postings outnumber the
    # documents (a common word, a CJK character): one dense pass, then a gather per term,
    # instead of five passes over each term's postings. Same operations per element, so
    # the same values either way.
    dense_norm = None
    if sum(len(d) for found in found_by_term.values() for d, _, _ in found) > size:
        dense_norm = k1 * (1 - b + b * doc_len.astype(np.float64) / avgdl)

    def norm_of(docs: np.ndarray) -> np.ndarray:
        if dense_norm is not None:
            return dense_norm[docs]
        return k1 * (1 - b + b * doc_len[docs].astype(np.float64) / avgdl)

    for term in query:
        if term not in cache:
            found = found_by_term.get(term)
            cache[term] = (
                _term_scores(found, live, n, doc_len, norm_of, k1, context_weight)
                if found
                else None
            )
        hit = cache[term]
        if hit is not None:
            hits.append(hit)
            if term in meaningful:
                matched[hit[0] if hit[4] else hit[0][hit[1] > 0]] = True
                borrowed[hit[0][hit[3]]] = True
    if not hits:
        return TextScores(np.zeros(size), np.zeros(size), matched, borrowed)
    # One pass each instead of a gather-add-scatter per term; a document's parts are still
    # added in query order, so the sums are bit-identical to adding term by term.
    docs = np.concatenate([hit[0] for hit in hits])
    own = np.bincount(docs, np.concatenate([hit[1] for hit in hits]), size)
    total = np.bincount(docs, np.concatenate([hit[2] for hit in hits]), size)
    return TextScores(own, total - own, matched, borrowed)


def _term_scores(
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    live: np.ndarray,
    n: int,
    doc_len: np.ndarray,
    norm_of: Callable[[np.ndarray], np.ndarray],
    k1: float,
    context_weight: float,
) -> tuple | None:
    """One term's (docs, own score, score with context, has context, every doc owns it)
    over the live documents that hold it; None when none does."""
    if len(found) == 1:  # one segment holds most terms: no join
        docs, tf, ctf = found[0]
    else:
        docs, tf, ctf = (np.concatenate(p) for p in zip(*found, strict=True))
    docs = docs.astype(np.intp)  # once: every gather below and bincount want intp
    if n != len(live):
        alive = live[docs]
        if not alive.all():
            docs, tf, ctf = docs[alive], tf[alive], ctf[alive]
    if len(docs) == 0:
        return None
    tf, ctf = tf.astype(np.float64), ctf.astype(np.float64)
    df = int(np.count_nonzero(tf))  # documents whose own text holds the term
    w = float(idf(n, df or len(docs)))
    norm = norm_of(docs)
    # w·tf·(k1+1) / (tf+norm), own and with context, computed in place: each fresh array
    # of a common term's postings costs page faults, more than the arithmetic. The
    # operations and their order are the textbook formula's.
    has_context = ctf > 0
    own = tf * w
    own *= k1 + 1
    den = tf + norm
    own /= den
    full = ctf  # tf + context_weight·ctf, in ctf's buffer
    full *= context_weight
    full += tf
    np.add(full, norm, out=den)
    full *= w
    full *= k1 + 1
    full /= den
    return docs, own, full, has_context, df == len(docs)


def capped(
    text: TextScores, cap: float, alone: float = 0.0, docs: np.ndarray | None = None
) -> np.ndarray:
    """Own score plus the context's share, which may add at most `cap` times the own score.
    A chunk that matches by borrowed words alone scores `alone` times what they add (0: it
    does not match at all). For `docs` only, when given."""
    own, context = (
        (text.own, text.context) if docs is None else (text.own[docs], text.context[docs])
    )
    return np.where(own > 0, own + np.minimum(context, cap * own), alone * context)
