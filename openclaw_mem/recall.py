"""`mem recall` and `mem get` as library calls.

The pipeline: BM25 over tokens and MinHash containment over shingles score every live chunk;
the best k x 4 of each list form the candidates; each score is divided by the candidates'
best and the two are fused `0.7 * vector + 0.3 * text`; dated chunks decay by
`exp(-λ · age_days)` (evergreen ones never), deprecated ones count half; MMR (λ 0.6) over
the chunks' signature similarity picks k without near-duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

from .errors import NotFound, UsageError
from .index import Index, IndexParams, days_since_epoch, open_index
from .markdown import citation, lines_of, parse_citation, strip_comments
from .search import bm25, minhash
from .search.rank import decay_factors, fuse, mmr, normalize, top_k
from .search.tokenize import shingles, tokenize
from .workspace import Workspace, glob_match

SNIPPET_CHARS = 700


@dataclass(frozen=True)
class RecallOptions:
    k: int = 6
    vector_weight: float = 0.7
    text_weight: float = 0.3
    candidate_multiplier: int = 4
    decay_lambda: float = 0.002
    deprecated_weight: float = 0.5
    mmr_lambda: float = 0.6
    min_score: float = 0.0
    similarity: str = "membership"  # or "containment" (from Jaccard), "jaccard"
    normalization: str = "max"  # or "minmax"
    mode: str = "hybrid"  # hybrid | bm25 | lsh (the benchmark compares them)
    access_boost: float = 0.0  # score * (1 + w * log(1 + access_count)); 0 turns it off
    decay: bool = True
    use_mmr: bool = True
    now: datetime | None = None
    since: date | None = None
    until: date | None = None
    path_glob: str | None = None

    @classmethod
    def from_config(cls, cfg, **overrides) -> RecallOptions:
        """Options from checked settings (config.py holds their constraints)."""
        values = {
            "k": cfg["recall.k"],
            "vector_weight": cfg["recall.vector_weight"],
            "text_weight": cfg["recall.text_weight"],
            "candidate_multiplier": cfg["recall.candidate_multiplier"],
            "decay_lambda": cfg["recall.decay_lambda"],
            "deprecated_weight": cfg["recall.deprecated_weight"],
            "mmr_lambda": cfg["recall.mmr_lambda"],
            "min_score": cfg["recall.min_score"],
            "similarity": cfg["recall.similarity"],
            "access_boost": cfg["recall.access_boost"],
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
        if explain:
            out["date"] = self.when.isoformat(timespec="minutes") if self.when else None
            out["deprecated"] = self.deprecated
            out["explain"] = self.explain
        return out


@dataclass
class RecallResult:
    hits: list[Hit]
    warnings: list[str]


def _mask(index: Index, opts: RecallOptions) -> np.ndarray:
    mask = index.live.copy()
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
    return mask


def rank_index(
    index: Index,
    query: str,
    opts: RecallOptions,
    access_counts: Callable[[np.ndarray], np.ndarray] | None = None,
) -> list[tuple[int, dict]]:
    """Document ids of the best hits, best first, each with its stage-by-stage scores.
    access_counts(doc ids) -> how often each was used, for the optional access boost."""
    params = index.params
    q_tokens = params.tokens(query)
    q_shingles = shingles(q_tokens)
    mask = _mask(index, opts)
    if not q_tokens or not mask.any():
        return []
    doc_len = index.doc("length")
    text = bm25.scores(index.segments, index.live, doc_len, q_tokens, index.avg_idf) * mask
    if opts.similarity == "membership":
        qs = sorted(q_shingles)
        mem = np.concatenate(
            [
                minhash.members(np.asarray(s), qs, *index.perm)
                for s in (index.base.sig, index.delta.sig)
            ]
        )
        w = _idf_weights(index, qs)
        vec = (mem @ w) / w.sum() if len(qs) else np.zeros(len(mask))
    else:
        q_sig = minhash.signature(sorted(q_shingles), *index.perm)
        jac = np.concatenate(
            [minhash.jaccard(np.asarray(s), q_sig) for s in (index.base.sig, index.delta.sig)]
        )
        if opts.similarity == "jaccard":
            vec = jac
        else:
            vec = minhash.containment(jac, len(q_shingles), index.doc("sizes"))
    vec = vec * mask

    pool = max(opts.k, 1) * max(opts.candidate_multiplier, 1)
    if opts.mode == "bm25":
        cand = top_k(text, pool)
    elif opts.mode == "lsh":
        cand = top_k(vec, pool)
    else:
        cand = np.union1d(top_k(text, pool), top_k(vec, pool))
    if len(cand) == 0:
        return []
    t_norm = normalize(text[cand], opts.normalization)
    v_norm = normalize(vec[cand], opts.normalization)
    if opts.mode == "bm25":
        fused = t_norm
    elif opts.mode == "lsh":
        fused = v_norm
    else:
        fused = fuse(v_norm, t_norm, opts.vector_weight, opts.text_weight)

    when = index.doc("when")[cand]
    deprecated = index.doc("deprecated")[cand]
    if opts.decay:
        now = opts.now or datetime.now()
        factor = decay_factors(days_since_epoch(now) - when, opts.decay_lambda)
        factor = factor * np.where(deprecated, opts.deprecated_weight, 1.0)
    else:
        factor = np.ones(len(cand))
    uses = np.zeros(len(cand))
    if opts.access_boost > 0 and access_counts is not None:
        uses = np.asarray(access_counts(cand), np.float64)
        factor = factor * (1.0 + opts.access_boost * np.log1p(uses))
    final = fused * factor
    keep = final > 0
    if opts.min_score > 0:
        keep &= final >= opts.min_score
    order = [int(i) for i in np.lexsort((cand, -final)) if keep[i]]
    if not order:
        return []

    sigs = {int(cand[i]): _sig_row(index, int(cand[i])) for i in order}
    if opts.use_mmr:
        picked = mmr(
            [float(final[i]) for i in order],
            lambda a, b: (
                float(np.count_nonzero(sigs[int(cand[order[a]])] == sigs[int(cand[order[b]])]))
                / len(index.perm[0])
            ),
            opts.k,
            opts.mmr_lambda,
        )
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
                    "lsh": round(float(vec[doc]), 4),
                    "text": round(float(t_norm[i]), 4),
                    "vector": round(float(v_norm[i]), 4),
                    "fused": round(float(fused[i]), 4),
                    "decay": round(float(factor[i]), 4),
                    "uses": int(uses[i]),
                    "final": round(float(final[i]), 4),
                    "rank_before_mmr": order.index(i) + 1,
                    "mmr_position": pos + 1,
                },
            )
        )
    return out


def _idf_weights(index: Index, qs: list[str]) -> np.ndarray:
    """How much each query shingle counts in the containment: its IDF in the live corpus,
    so a rare word outweighs a common one (the unweighted estimate ranks worse)."""
    n = max(index.n_live, 1)
    out = []
    for t in qs:
        h = bm25.term_hash(t)
        df = sum(int(index.live[seg.lookup(h)[0]].sum()) for seg in index.segments)
        out.append(max(np.log((n - df + 0.5) / (df + 0.5) + 1.0), 0.05))
    return np.asarray(out)


def _sig_row(index: Index, doc: int) -> np.ndarray:
    nb = index.base.n
    return np.asarray(index.base.sig[doc] if doc < nb else index.delta.sig[doc - nb])


def _file_lines(ws: Workspace, rel: str, cache: dict[str, list[str]]) -> list[str]:
    if rel not in cache:
        try:
            text = (ws.root / rel).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            text = ""
        cache[rel] = lines_of(text)
    return cache[rel]


def snippet(lines: list[str], terms: set[str], limit: int = SNIPPET_CHARS) -> str:
    """The lines (metadata comments left out), or the run of them richest in query terms
    that fits `limit` characters."""
    lines = [strip_comments(line) for line in lines]
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


def recall(
    ws: Workspace,
    query: str,
    opts: RecallOptions,
    params: IndexParams | None = None,
    record_access: bool = True,
) -> RecallResult:
    """Rank, read the snippets, and (unless told not to) count the hits as used."""
    from . import access

    index = open_index(ws, params or IndexParams())
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
    ranked = rank_index(index, query, opts, access_counts)
    terms = set(index.params.tokens(query))
    hits = []
    used = []
    when, deprecated = index.doc("when"), index.doc("deprecated")
    for doc, explain in ranked:
        rel, lines = lines_of(doc)
        lo, hi = int(start[doc]), int(end[doc])
        w = float(when[doc])
        hits.append(
            Hit(
                rel,
                lo,
                hi,
                explain["final"],
                snippet(lines, terms),
                None if np.isnan(w) else datetime(1970, 1, 1) + timedelta(days=w),
                bool(deprecated[doc]),
                explain,
            )
        )
        used.append((access.chunk_key(rel, lines), rel, lo, hi))
    if record_access:
        access.record(ws, used, opts.now or datetime.now())
    return RecallResult(hits, index.warnings)


# ----------------------------------------------------------------- get


@dataclass(frozen=True)
class Lines:
    path: str
    start: int
    end: int
    text: str

    def to_json(self) -> dict:
        """OpenClaw's memory_get shape."""
        return {
            "path": self.path,
            "from": self.start,
            "lines": self.end - self.start + 1,
            "text": self.text,
        }


def parse_spec(spec: str) -> tuple[str, int, int | None]:
    """PATH, PATH:FROM, PATH:FROM:N or a citation PATH#Lx-Ly -> (path, from, count)."""
    cited = parse_citation(spec)
    if cited:
        path, a, b = cited
        if b < a:
            raise UsageError(f"{spec}: the range ends before it starts")
        return path, a, b - a + 1
    parts = spec.rsplit(":", 2)
    nums = []
    while len(parts) > 1 and parts[-1].isdigit():
        nums.insert(0, int(parts.pop()))
    path = ":".join(parts)
    start = nums[0] if nums else 1
    count = nums[1] if len(nums) > 1 else None
    if start < 1 or (count is not None and count < 1):
        raise UsageError(f"{spec}: FROM and N are 1-based and positive")
    return path, start, count


def safe_path(ws: Workspace, rel: str) -> Path:
    """A workspace file by relative path; refuses absolute paths, `..`, and symlinks
    anywhere on the way (OpenClaw's memory_get rule)."""
    candidate = Path(rel)
    if candidate.is_absolute() or rel.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", rel):
        raise UsageError(f"{rel}: give a path inside the workspace, relative to it")
    if any(part == ".." for part in candidate.parts):
        raise UsageError(f"{rel}: `..` is not allowed; paths stay inside the workspace")
    if candidate.suffix.lower() != ".md":
        raise UsageError(f"{rel}: only memory files (Markdown) can be read")
    path = ws.root
    for part in candidate.parts:
        path = path / part
        if path.is_symlink():
            raise UsageError(
                f"{rel}: symlinks are refused; memory_get reads only real files in the workspace"
            )
    try:
        path.resolve().relative_to(ws.root.resolve())
    except ValueError:
        raise UsageError(f"{rel}: resolves outside the workspace") from None
    if not path.is_file():
        raise NotFound(f"no file {rel} in the workspace")
    return path


def get_lines(ws: Workspace, spec: str) -> Lines:
    rel, start, count = parse_spec(spec)
    path = safe_path(ws, rel)
    from .fsutil import read_text

    lines = lines_of(read_text(path, rel))
    if start > max(len(lines), 1):
        raise NotFound(f"{rel} has {len(lines)} lines; line {start} does not exist")
    end = len(lines) if count is None else min(len(lines), start + count - 1)
    return Lines(rel, start, end, "\n".join(lines[start - 1 : end]))
