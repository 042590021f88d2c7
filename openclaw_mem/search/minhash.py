"""MinHash pseudo-vectors, bit-identical to datasketch's MinHash (scheme "affine32"),
computed in numpy batches.

datasketch is the reference: `permutations()` draws its (a, b) pairs with the same
`RandomState` calls, and `hash32` is its default hash, so signatures are bit-identical (a test
holds them equal) without the ~0.6 s `import datasketch` or its ~110 µs per `MinHash()`. The
index stores the permutations it was built with. Signatures are uint32 arrays: 50k x 256 of
them memory-map in milliseconds and scan in a few.

A short query shares few shingles with a long chunk, so its Jaccard is tiny (~0.08 for 5
words against 60 tokens) even when every query word is in the chunk; `containment`
recovers |Q ∩ D| / |Q| from the estimated Jaccard and the two set sizes.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from ..text import sha1

NUM_PERM = 256  # 128 leaves the containment estimate too noisy (bench/recall_quality.py)
SEED = 1
MAX_HASH = np.uint32(0xFFFFFFFF)
# The index keeps the low 16 bits of each value (b-bit MinHash, Li & König 2010): half the
# size; two different minima then agree by chance 1 time in 65,536, which `jaccard` takes
# out. Chosen by measurement (docs/benchmarks.md): 8 bits (a quarter) cost the
# `containment` setting 1.4 points of LoCoMo R@10 on the tuning part, 16 bits nothing.
STORED_BITS = 16


def stored_dtype(bits: int) -> np.dtype:
    return np.dtype(np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32)


def narrow(sig: np.ndarray, bits: int) -> np.ndarray:
    """Signatures as the index keeps them: the low `bits` of each value."""
    if bits >= 32:
        return np.asarray(sig, np.uint32)
    return (np.asarray(sig, np.uint32) & np.uint32((1 << bits) - 1)).astype(stored_dtype(bits))


def permutations(num_perm: int = NUM_PERM, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """datasketch's (a, b) for scheme affine32, drawn exactly as its
    MinHash._init_permutations draws them (a test holds the two equal), so building an
    index does not pay the ~0.6 s `import datasketch`."""
    gen = np.random.RandomState(seed)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    return a.astype(np.uint32), b.astype(np.uint32)


def hash32(shingle: str) -> int:
    """datasketch's default hash (sha1_hash32) of the UTF-8 bytes."""
    return struct.unpack("<I", sha1(shingle.encode("utf-8")).digest()[:4])[0]


def _fmix32(h: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finalizer, as datasketch pre-mixes inputs (wrapping uint32)."""
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def _permuted(hashes: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return _fmix32(hashes.astype(np.uint32))[:, None] * a[None, :] + b[None, :]


def signature(shingles: Sequence[str] | set[str], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One signature; equals datasketch's MinHash(...).update_batch(...).hashvalues."""
    if not shingles:
        return np.full(len(a), MAX_HASH, np.uint32)
    hashes = np.fromiter((hash32(s) for s in shingles), np.uint32, len(shingles))
    return _permuted(hashes, a, b).min(axis=0)


def signatures_from_pairs(
    n: int, doc: np.ndarray, term: np.ndarray, term_hashes: np.ndarray, a: np.ndarray, b: np.ndarray
) -> np.ndarray:
    """Signatures (n x num_perm, uint32) of documents given as (document, term id) pairs
    sorted by document, with term_hashes[term id] the shingle's hash32. One permutation at
    a time over all pairs: ~10x faster than gathering a pairs x permutations matrix."""
    sig = np.full((n, len(a)), MAX_HASH, np.uint32)
    if len(doc) == 0:
        return sig
    starts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])
    owners = doc[starts]
    mixed = _fmix32(np.asarray(term_hashes, np.uint32))
    term = np.asarray(term, np.intp)

    def run(perms: range) -> None:
        with np.errstate(over="ignore"):
            for p in perms:
                values = (mixed * a[p] + b[p])[term]
                sig[owners, p] = np.minimum.reduceat(values, starts)

    # numpy releases the GIL in the gather and the reduction: two threads, two cores.
    half = len(a) // 2
    if len(doc) > 50_000 and half:
        from threading import Thread

        worker = Thread(target=run, args=(range(half, len(a)),))
        worker.start()
        run(range(half))
        worker.join()
    else:
        run(range(len(a)))
    return sig


def jaccard(sigs: np.ndarray, query: np.ndarray, bits: int = 32) -> np.ndarray:
    """Estimated Jaccard of the query against every row, from signatures that keep the low
    `bits` of each value: the share of equal values, less the share that agree by chance
    (1 / 2**bits for two different minima), rescaled."""
    if len(sigs) == 0:
        return np.zeros(0)
    share = np.count_nonzero(sigs == query[None, :], axis=1) / sigs.shape[1]
    if bits >= 32:
        return share
    chance = 2.0**-bits
    return np.clip((share - chance) / (1.0 - chance), 0.0, 1.0)


def containment(j: np.ndarray, q_size: int, d_sizes: np.ndarray) -> np.ndarray:
    """Estimated |Q ∩ D| / |Q| from Jaccard: J = I / (|Q| + |D| - I)."""
    if q_size == 0:
        return np.zeros_like(j, dtype=np.float64)
    inter = j * (q_size + d_sizes) / (1.0 + j)
    return np.clip(inter / q_size, 0.0, 1.0) * (d_sizes > 0)
