"""Tokens, BM25 against rank-bm25, MinHash against datasketch, and the pure ranking stages."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from openclaw_mem.search import bm25, minhash
from openclaw_mem.search.rank import REPEAT, decay_factors, fuse, mmr, normalize, top_k
from openclaw_mem.search.tokenize import shingles, tokenize

# Reference paths the index does not use (it builds from one shared analysis), kept here so
# the production modules hold only what production runs.


def build_postings(doc_tokens, first_doc: int = 0):
    """Postings and document lengths for documents numbered from first_doc."""
    an = bm25.analyze(doc_tokens)
    return bm25.from_analysis(an, first_doc), an.lengths


def signatures(sets, a, b):
    """Signatures and set sizes of shingle sets."""
    vocab: dict[str, int] = {}
    doc = np.fromiter((d for d, s in enumerate(sets) for _ in s), np.int64)
    term = np.fromiter((vocab.setdefault(x, len(vocab)) for s in sets for x in s), np.int64)
    hashes = np.fromiter((minhash.hash32(x) for x in vocab), np.uint32, len(vocab))
    sizes = np.fromiter((len(s) for s in sets), np.int32, len(sets))
    return minhash.signatures_from_pairs(len(sets), doc, term, hashes, a, b), sizes


def test_mixed_chinese_english_tokens():
    tokens = set(tokenize("我最近在用FastAPI做项目，还用了Redis，遇到连接超时"))
    for want in ("fastapi", "redis", "项目", "连接", "超时"):
        assert want in tokens
    assert set(tokenize("连接超时")) <= tokens  # every query token is in the sentence
    assert "猫" in tokenize("我的猫叫豆豆")  # one-character words stay findable
    assert tokenize("ＦａｓｔＡＰＩ") == ["fastapi"]  # NFKC: full-width Latin
    assert tokenize("socket_timeout") == ["socket", "timeout"]


def test_stemming_meets_inflections():
    assert len({tokenize(w)[0] for w in ("paint", "paints", "painted", "painting")}) == 1
    assert tokenize("rotation") == tokenize("rotated")
    assert "the" not in shingles(tokenize("the cat"))
    assert "猫" not in shingles(tokenize("我的猫"))  # unigrams weigh in BM25 only


words = st.sampled_from(["redis", "go", "python", "项目", "超时", "a", "the", "cat", "猫", "x1"])
corpora = st.lists(st.lists(words, min_size=0, max_size=12), min_size=1, max_size=40)


@settings(max_examples=120, deadline=None)
@given(corpus=corpora, query=st.lists(words, min_size=1, max_size=5), data=st.data())
def test_bm25_equals_rank_bm25_on_random_corpora(corpus, query, data):
    """rank-bm25's BM25Okapi with one documented difference: the IDF table is Lucene's
    log(1 + (N - df + 0.5) / (df + 0.5)), positive for every term that occurs."""
    from collections import Counter

    from rank_bm25 import BM25Okapi

    tokens = [tokenize(" ".join(doc)) for doc in corpus]
    q = tokenize(" ".join(query))
    # Split the corpus in two segments and kill some documents, as refreshes do.
    cut = data.draw(st.integers(0, len(tokens)))
    live = np.array(data.draw(st.lists(st.booleans(), min_size=len(tokens), max_size=len(tokens))))
    if not live.any():
        live[0] = True
    base, len_a = build_postings(tokens[:cut], 0)
    delta, len_b = build_postings(tokens[cut:], cut)
    doc_len = np.concatenate([len_a, len_b])
    got = bm25.scores([base, delta], live, doc_len, q)
    alive = [t for t, ok in zip(tokens, live, strict=True) if ok]
    assume(any(alive))  # rank-bm25 divides by zero on a corpus with no tokens at all
    ref = BM25Okapi(alive)
    df = Counter(w for doc in ref.doc_freqs for w in doc)
    n = ref.corpus_size
    ref.idf = {w: math.log1p((n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
    np.testing.assert_allclose(got.own[live], ref.get_scores(q), rtol=1e-9, atol=1e-9)
    assert (got.context == 0).all() and (got.own[~live] == 0).all()
    assert (got.own >= 0).all()  # never negative, whatever the corpus


@settings(max_examples=80, deadline=None)
@given(
    own=st.lists(st.lists(words, max_size=8), min_size=1, max_size=20),
    borrowed=st.data(),
    query=st.lists(words, min_size=1, max_size=4),
    cap=st.floats(0, 2),
)
def test_borrowed_context_only_adds_to_what_own_words_score(own, borrowed, query, cap):
    ctx = [borrowed.draw(st.lists(words, max_size=6)) for _ in own]
    toks = [tokenize(" ".join(c)) + tokenize(" ".join(o)) for c, o in zip(ctx, own, strict=True)]
    an = bm25.analyze(toks, None, [len(tokenize(" ".join(c))) for c in ctx], 0.5)
    post = bm25.from_analysis(an)
    live = np.ones(len(own), bool)
    split = bm25.scores([post], live, an.lengths, tokenize(" ".join(query)))
    final = bm25.capped(split, cap)
    assert (final[split.own == 0] == 0).all()  # context alone never matches
    assert (final <= split.own * (1 + cap) + 1e-9).all()
    assert (final >= split.own - 1e-9).all()


# Words the stemmer folds together (run, runs, running), so that two tokens of one
# document may become one term.
stemmed_words = st.sampled_from(
    ["run", "runs", "running", "paint", "painted", "redis", "项目", "猫", "the", "x1"]
)


@settings(max_examples=150, deadline=None)
@given(
    own=st.lists(st.lists(stemmed_words, max_size=6), max_size=12),
    links=st.data(),
    stem=st.booleans(),
)
def test_borrowing_analysis_is_the_analysis_of_context_and_own_tokens(own, links, stem):
    # A context is another document's very own list (the reply borrowing what it answers,
    # or any other), a list of its own, or empty: the pairs are those of the plain analysis.
    from openclaw_mem.search.tokenize import stem_word

    context = []
    for _ in own:
        kind = links.draw(st.sampled_from(["shared", "fresh", "empty"]))
        if kind == "shared":
            context.append(own[links.draw(st.integers(0, len(own) - 1))])
        elif kind == "fresh":
            context.append(links.draw(st.lists(stemmed_words, max_size=6)))
        else:
            context.append([])
    term_map = stem_word if stem else None
    got = bm25.analyze_borrowing(own, context, term_map, 0.5)
    want = bm25.analyze(
        [c + o for c, o in zip(context, own, strict=True)], term_map, [len(c) for c in context], 0.5
    )

    def pairs(an):
        return sorted(
            (int(d), an.terms[int(t)], float(tf), float(ctf))
            for d, t, tf, ctf in zip(an.doc, an.term, an.tf, an.ctf, strict=True)
        )

    assert pairs(got) == pairs(want)
    assert got.lengths.tolist() == want.lengths.tolist()
    assert sorted(got.terms) == sorted(want.terms)


def test_borrowing_analysis_refuses_contexts_that_do_not_match_the_documents():
    with pytest.raises(ValueError, match="3 documents but 1 contexts"):
        bm25.analyze_borrowing([["a"], ["b"], ["c"]], [[]])


def test_postings_merge_keeps_live_documents():
    tokens = [["a", "b"], ["b", "c"], ["c", "c", "d"]]
    seg, _ = build_postings(tokens)
    keep = np.array([True, False, True])
    merged = bm25.merge([seg], keep, np.cumsum(keep) - 1)
    docs, tfs, _ = merged.lookup(bm25.term_hash("c"))
    assert docs.tolist() == [1] and tfs.tolist() == [2.0]
    assert merged.lookup(bm25.term_hash("b"))[0].tolist() == [0]


@settings(max_examples=80, deadline=None)
@given(
    postings=st.lists(
        st.lists(
            st.tuples(
                st.sampled_from([0.0, 0.0, 1.0, 2.0, 15.0, 16.0, 40.0, 0.5]),  # tf
                st.sampled_from([0.0, 1.0, 3.0, 15.0, 17.0, 0.25]),  # ctf
            ),
            max_size=12,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_own_count_is_the_decoded_postings_count_of_own_text(postings):
    """What recall's second pass counts without decoding document ids (follow.py) is what
    decoding them gives: frequencies past a nibble and fractions included."""
    terms = np.arange(1, len(postings) + 1, dtype=np.uint64) * np.uint64(1_000_003)
    ptr = np.r_[0, np.cumsum([len(p) for p in postings])].astype(np.int64)
    docs = np.concatenate([np.arange(len(p)) * 3 for p in postings] or [[]]).astype(np.int64)
    tfs = np.array([tf for p in postings for tf, _ in p], np.float32)
    ctfs = np.array([ctf for p in postings for _, ctf in p], np.float32)
    post = bm25.Postings.pack(terms, ptr, docs, tfs, ctfs)
    for h in terms.tolist():
        _, tf, _ = post.lookup(h)
        assert post.own_count(h) == int(np.count_nonzero(tf))
    assert post.own_count(7) == 0  # a term it does not hold


@settings(max_examples=60, deadline=None)
@given(
    gaps=st.lists(st.lists(st.integers(1, 40_000), max_size=30), min_size=1, max_size=8),
    asked=st.lists(st.integers(0, 12), max_size=10),
)
def test_holding_is_lookup_of_each_term_that_occurs(gaps, asked):
    """Supersession's nomination marks the documents of hundreds of terms at once
    (recall/currency.py): each term it yields is that term's lookup, gaps past one varint
    byte included; a term the postings do not hold yields nothing."""
    terms = np.arange(1, len(gaps) + 1, dtype=np.uint64) * np.uint64(7919)
    ptr = np.r_[0, np.cumsum([len(g) for g in gaps])].astype(np.int64)
    docs = np.concatenate([np.cumsum(g) for g in gaps if g] or [[]]).astype(np.int64)
    ones = np.ones(len(docs), np.float32)
    post = bm25.Postings.pack(terms, ptr, docs, ones, ones)
    hashes = [int(terms[a]) if a < len(terms) else 5 + a for a in asked]
    want = [post.lookup(h)[0].tolist() for h in hashes if h in terms.tolist()]
    got = [d.tolist() for d in post.holding(np.asarray(hashes, np.uint64))]
    assert got == want


def test_permutations_are_datasketchs_own():
    from datasketch import MinHash

    a, b = minhash.permutations(256, 1)
    ref = MinHash(num_perm=256, seed=1).permutations
    assert (a == ref[0]).all() and (b == ref[1]).all()


@settings(max_examples=60, deadline=None)
@given(sets=st.lists(st.sets(st.text(min_size=1, max_size=6), max_size=30), min_size=1, max_size=8))
def test_numpy_signatures_are_bit_identical_to_datasketch(sets):
    from datasketch import MinHash

    a, b = minhash.permutations(128, 1)
    sig, sizes = signatures(sets, a, b)
    for row, s in zip(sig, sets, strict=True):
        m = MinHash(num_perm=128, seed=1)
        m.update_batch([x.encode("utf-8") for x in s])
        assert (row == m.hashvalues).all()
        assert (minhash.signature(s, a, b) == m.hashvalues).all()  # the query path
    assert sizes.tolist() == [len(s) for s in sets]


scores01 = st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30)


@given(v=scores01, data=st.data(), wv=st.floats(0, 5), wt=st.floats(0, 5))
def test_fused_scores_stay_in_unit_interval(v, data, wv, wt):
    t = data.draw(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=len(v), max_size=len(v)))
    fused = fuse(normalize(np.array(v)), normalize(np.array(t)), wv, wt)
    assert ((fused >= 0) & (fused <= 1)).all()
    for method in ("max", "minmax"):
        n = normalize(np.array(t), method)
        assert ((n >= 0) & (n <= 1)).all()


@given(
    ages=st.lists(st.floats(0, 5000, allow_nan=False), min_size=2, max_size=30), lam=st.floats(0, 1)
)
def test_decay_never_rises_with_age(ages, lam):
    a = np.sort(np.array(ages))
    f = decay_factors(a, lam)
    assert (np.diff(f) <= 1e-15).all() and ((f > 0) | (lam * a > 700)).all() and (f <= 1).all()
    assert decay_factors(np.array([np.nan, -3.0]), lam).tolist() == [1.0, 1.0]  # evergreen, future


@given(
    rel=st.lists(st.floats(0, 1, allow_nan=False), min_size=0, max_size=25),
    k=st.integers(1, 30),
    lam=st.floats(0, 1),
    seed=st.integers(0, 1000),
)
def test_mmr_returns_a_duplicate_free_subset(rel, k, lam, seed):
    rng = np.random.default_rng(seed)
    sim = rng.random((len(rel), len(rel)))
    picked = mmr(rel, lambda i, j: float(sim[i, j]), k, lam)
    assert len(picked) <= min(k, len(rel)) and len(set(picked)) == len(picked)
    assert all(0 <= i < len(rel) for i in picked)
    if len(picked) < min(k, len(rel)):  # stopped early: all that is left repeats a pick
        rest = set(range(len(rel))) - set(picked)
        assert all(max(sim[p, i] for p in picked) >= REPEAT for i in rest)
    if picked and lam == 1:  # scores within 1e-12 are a tie, and ties go to the earlier item
        assert rel[picked[0]] >= max(rel) - 1e-12


@settings(max_examples=200, deadline=None)
@given(
    rel=st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=25),
    k=st.integers(1, 30),
    lam=st.floats(0.01, 1),
    seed=st.integers(0, 1000),
)
def test_mmr_never_changes_which_item_comes_first(rel, k, lam, seed):
    """The docs: "MMR never changes which result comes first", whatever λ and similarity."""
    sim = np.random.default_rng(seed).random((len(rel), len(rel)))
    picked = mmr(rel, lambda i, j: float(sim[i, j]), k, lam)
    assert rel[picked[0]] >= max(rel) - 1e-12 / lam


def test_top_k_orders_and_skips_zeros():
    s = np.array([0.0, 3.0, 1.0, 3.0, 2.0])
    assert top_k(s, 3).tolist() == [1, 3, 4]
    assert top_k(s, 10).tolist() == [1, 3, 4, 2]


def test_top_k_breaks_a_tie_at_the_boundary_by_the_second_score_then_the_index():
    s = np.array([1.0] * 8 + [2.0])
    second = np.array([0.1, 0.5, 0.0, 0.9, 0.5, 0.2, 0.0, 0.3, 0.0])
    assert top_k(s, 4, tiebreak=second).tolist() == [8, 3, 1, 4]
    assert top_k(s, 3).tolist() == [8, 0, 1]  # no second score: the lower index


@given(st.lists(st.integers(-50, 50), max_size=40))
def test_distinct_is_np_unique(values):
    from openclaw_mem.search.rank import distinct

    a = np.asarray(values, np.int64)
    assert distinct(a).tolist() == np.unique(a).tolist()


@given(
    st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=1, max_size=40),
    st.data(),
    st.integers(1, 12),
)
def test_top_k_is_a_full_sort_by_score_tiebreak_and_index(values, data, k):
    s = np.asarray(values)
    second = np.asarray(
        data.draw(st.lists(st.sampled_from([0.0, 0.3, 0.7]), min_size=len(s), max_size=len(s)))
    )
    ranked = sorted((i for i in range(len(s)) if s[i] > 0), key=lambda i: (-s[i], -second[i], i))
    assert top_k(s, k, tiebreak=second).tolist() == ranked[:k]


@pytest.mark.parametrize("n,k", [(100_000, 60), (5_000, 7), (1_000, 1), (300, 299)])
def test_top_k_from_a_sampled_floor_is_the_full_sort(n, k):
    """Large n goes through the sampled floor; scores with heavy ties (a pseudo-vector's few
    values) and without must still give exactly the full sort's first k."""
    rng = np.random.default_rng(n + k)
    for s in (rng.random(n) * (rng.random(n) > 0.4), rng.integers(0, 4, n) / 3.0):
        second = rng.integers(0, 3, n) / 2.0
        ranked = np.lexsort((np.arange(n), -second, -s))
        want = [int(i) for i in ranked if s[i] > 0][:k]
        assert top_k(s, k, tiebreak=second).tolist() == want
        assert (
            top_k(s, k).tolist() == [int(i) for i in np.lexsort((np.arange(n), -s)) if s[i] > 0][:k]
        )


def test_the_cjk_share_counts_letters_only():
    from openclaw_mem.text import cjk_share

    assert cjk_share("・・・a") == 0.0  # marks are no letters
    assert cjk_share("中文ab") == 0.5 and cjk_share("") == 0.0


def test_the_hashes_an_index_holds_are_hashlibs_without_importing_it():
    """Terms, shingles and chunk keys are hashed with CPython's own blake2b and sha1 (hashlib
    loads OpenSSL); an index or access file written before reads the same."""
    import hashlib

    from openclaw_mem.search.bm25 import term_hash
    from openclaw_mem.store.access import chunk_key

    for word in ("redis", "连接超时", "naïve"):
        want = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        assert term_hash(word) == int.from_bytes(want, "little")
        assert minhash.hash32(word) == int.from_bytes(
            hashlib.sha1(word.encode("utf-8")).digest()[:4], "little"
        )
    assert (
        chunk_key("memory/2026-11-28.md", ["x", "y"])
        == (hashlib.sha1(b"memory/2026-11-28.md\nx\ny").hexdigest()[:16])
    )


def test_a_category_word_holds_its_slots_words_for_holding_as_for_lookup():
    """A review: supersession's nomination (holding) read "city" as itself while the
    question's lookup read it as its slot's words too: fewer later entries were nominated
    than before the one search for all words."""
    from openclaw_mem.recall.aliases import _AliasedPostings

    h = bm25.term_hash
    terms = np.array(sorted([h("city"), h("live")]), np.uint64)
    docs = {h("city"): [0], h("live"): [5]}
    ptr = np.r_[0, np.cumsum([len(docs[int(t)]) for t in terms])].astype(np.int64)
    flat = np.array([d for t in terms for d in docs[int(t)]], np.int64)
    ones = np.ones(len(flat), np.float32)
    aliased = _AliasedPostings(
        bm25.Postings.pack(terms, ptr, flat, ones, ones), {h("city"): (h("live"),)}
    )
    held = sorted(
        int(d) for part in aliased.holding(np.array([h("city")], np.uint64)) for d in part
    )
    assert held == sorted(aliased.lookup(h("city"))[0].tolist()) == [0, 5]
