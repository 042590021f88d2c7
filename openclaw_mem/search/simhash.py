"""SimHash pseudo-vectors: the sign of an embedding against `bits` random hyperplanes,
packed 8 to a byte. Two vectors at angle θ differ in each bit with probability θ/π, so the
Hamming distance h estimates their cosine as cos(π·h/bits) (Charikar, 2002). 256 bits are 32
bytes a chunk: 100k chunks scan in a few milliseconds with a popcount.

The hyperplanes are drawn from a seeded generator, so the same embedding always gets the same
bits on every machine.
"""

from __future__ import annotations

import numpy as np

BITS = 256
SEED = 7


def hyperplanes(dim: int, bits: int = BITS, seed: int = SEED) -> np.ndarray:
    """(bits, dim) Gaussian hyperplanes, the same for the same (dim, bits, seed)."""
    return np.random.default_rng(seed).standard_normal((bits, dim)).astype(np.float32)


def sign_bits(vectors: np.ndarray, planes: np.ndarray) -> np.ndarray:
    """(n, bits / 8) uint8: bit i of a row is set when the vector lies above hyperplane i."""
    vectors = np.asarray(vectors, np.float32).reshape(-1, planes.shape[1])
    return np.packbits(vectors @ planes.T > 0, axis=1)


def hamming(packed: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Hamming distance of every row of `packed` to the packed query row."""
    if len(packed) == 0:
        return np.zeros(0, np.int64)
    rows = np.ascontiguousarray(packed)
    q = np.ascontiguousarray(query).reshape(1, -1)
    if rows.shape[1] % 8 == 0:  # 64 bits at a time
        rows, q = rows.view(np.uint64), q.view(np.uint64)
    return np.bitwise_count(rows ^ q).sum(axis=1, dtype=np.int64)


def cosine(packed: np.ndarray, query: np.ndarray, bits: int) -> np.ndarray:
    """Estimated cosine of every row to the query, in [-1, 1]."""
    return np.cos(np.pi * hamming(packed, query) / bits)
