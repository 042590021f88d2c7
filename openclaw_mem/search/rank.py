"""Pure ranking stages: normalise, fuse, decay, MMR. No I/O, no randomness, so each stage
can be property-tested (fused scores stay in [0, 1], decay never rises with age, MMR
returns a duplicate-free subset)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np


def normalize(scores: np.ndarray, method: str = "max") -> np.ndarray:
    """Scale candidate scores to [0, 1]: divided by the best ("max"), or min-max
    ("minmax", where the weakest candidate always gets 0)."""
    s = np.asarray(scores, np.float64)
    if len(s) == 0:
        return s
    lo, hi = float(s.min()), float(s.max())
    if hi <= 0:
        return np.zeros_like(s)
    if method == "minmax":
        return np.ones_like(s) if hi - lo < 1e-12 else (s - lo) / (hi - lo)
    return np.clip(s / hi, 0.0, 1.0)


def fuse(
    vector: np.ndarray, text: np.ndarray, vector_weight: float, text_weight: float
) -> np.ndarray:
    """Weighted sum of two [0, 1] scores, rescaled by the weights' sum so it stays in [0, 1]."""
    total = vector_weight + text_weight
    if total <= 0:
        return np.zeros_like(vector, dtype=np.float64)
    return np.clip((vector_weight * vector + text_weight * text) / total, 0.0, 1.0)


def decay_factors(ages_days: np.ndarray, lam: float) -> np.ndarray:
    """exp(-λ·age); NaN age (evergreen) and future dates are not decayed."""
    ages = np.nan_to_num(np.asarray(ages_days, np.float64), nan=0.0)
    return np.exp(-max(lam, 0.0) * np.clip(ages, 0.0, None))


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values, as np.unique gives them, without the ~12 ms import of
    numpy.ma that np.unique costs a process on its first call."""
    v = np.sort(values)
    return v[np.r_[True, v[1:] != v[:-1]]] if len(v) else v


def top_k(
    scores: np.ndarray, k: int, mask: np.ndarray | None = None, tiebreak: np.ndarray | None = None
) -> np.ndarray:
    """Indices of the k highest positive scores, best first; equal scores go by `tiebreak`
    (higher first), then by lower index. Thousands of chunks can tie on a pseudo-vector
    score (every chunk holding all the query words scores 1.0): which of them enter the
    pool must not be left to the partition's whim."""
    s = scores if mask is None else np.where(mask, scores, 0.0)
    idx = np.flatnonzero(s > 0)
    if len(idx) > k:
        v = s[idx]
        step = math.isqrt(len(idx) // k)
        if step > 1:
            # Partitioning every score to find the k-th costs the most when k is a pool of
            # ~60 among 100k. The k-th highest of every step-th score is a floor that at
            # least k scores reach, so the k best are among those at or above it: about
            # k·step of them, and two partitions of ~sqrt(n·k) replace one of n.
            sample = v[::step]
            floor = np.partition(sample, len(sample) - k)[len(sample) - k]
            keep = v >= floor
            idx, v = idx[keep], v[keep]
        kth = np.partition(v, len(v) - k)[len(v) - k]  # the k-th highest score
        ties = idx[v == kth]
        idx = idx[v > kth]
        need = k - len(idx)
        if tiebreak is not None and len(ties) > need:  # the best of the ties by tiebreak
            t = tiebreak[ties]
            cut = np.partition(t, len(t) - need)[len(t) - need]
            ties = np.concatenate([ties[t > cut], ties[t == cut][: need - int((t > cut).sum())]])
        idx = np.concatenate([idx, ties[:need]])
    second = np.zeros(len(idx)) if tiebreak is None else tiebreak[idx]
    order = np.lexsort((idx, -second, -s[idx]))
    return idx[order[:k]]


# Similarity (0-1, after the MMR threshold) from which an item repeats one already taken.
REPEAT = 0.95


def mmr(
    relevance: Sequence[float],
    similarity: Callable[[int, int], float],
    k: int,
    lam: float = 0.6,
    repeat: float = REPEAT,
) -> list[int]:
    """Maximal Marginal Relevance: repeatedly take the item maximising
    λ·relevance − (1−λ)·(max similarity to those taken). Ties go to the earlier item. An
    item at least `repeat` alike to one taken says it again (a fact logged three times) and
    is never taken, even when nothing else is left: fewer than k rather than the same twice."""
    remaining = list(range(len(relevance)))
    chosen: list[int] = []
    max_sim = [0.0] * len(relevance)
    while remaining and len(chosen) < k:
        best, best_score = -1, -math.inf
        for i in remaining:
            if max_sim[i] >= repeat:
                continue
            score = lam * relevance[i] - (1 - lam) * max_sim[i]
            if score > best_score + 1e-12:
                best, best_score = i, score
        if best < 0:
            break
        chosen.append(best)
        remaining.remove(best)
        for i in remaining:
            max_sim[i] = max(max_sim[i], similarity(best, i))
    return chosen
