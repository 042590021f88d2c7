"""The recall index: a cache in .mem/index/, rebuilt from the Markdown whenever in doubt.

Layout: `meta.json` (schema and parameter stamp, one record per file: size, mtime,
SHA-256, which documents it owns) and two segments of plain .npy arrays that memory-map in
milliseconds: a large `base` and a small `delta`. A refresh re-chunks only files whose
content changed (stat first, SHA-256 to confirm): their old documents are masked dead in
the base, and the delta is rebuilt from the files it owns. When the delta outgrows a
share of the base, or too much of the base is dead, the two are merged from their arrays,
without reading or tokenising any text again.

Each document carries two pseudo-vectors: a MinHash signature of its own words (always),
and, when an embedding provider is configured, the SimHash bits of its embedding (32 bytes
at 256 bits). Embeddings come through the content-hash cache in .mem/embed/, so a rebuild
re-embeds nothing that was embedded before; a chunk the provider could not embed is marked
and retried on a later refresh, and recall meanwhile scores it by its lexical halves.

A schema or parameter change forces a full rebuild; so does anything unreadable. The
index never repairs Markdown and recall never fails because of it: if .mem/ cannot be
written, the index is built in memory for this one call.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .errors import BadEncoding
from .fsutil import SymlinkRefused, atomic_write_text, decode, read_bytes
from .search import bm25, minhash, simhash
from .search.tokenize import is_shingle, stem_word, tokenize
from .workspace import DEFAULT_INCLUDE, Workspace

if TYPE_CHECKING:
    from .embed.base import Embedder

SCHEMA = 5
PARALLEL_BYTES = 1_000_000  # below this a rebuild is quicker in one process
EMBED_BATCH = 128
INDEX_DIR = "index"
_EPOCH = datetime(1970, 1, 1)
_DOC_FIELDS = (
    "path_id",
    "start",
    "end",
    "when",
    "deprecated",
    "length",
    "sizes",
    "vec",
    "ekey",
    "boiler",
    "born",
    "gone",
    "agent",
)
# A document's embedding: not made yet (the provider failed or was absent), made, or not
# wanted (a chunk of headings alone).
VEC_MISSING, VEC_MADE, VEC_NONE = 0, 1, 2
_POST_FIELDS = ("terms", "ptr", "docs", "tfs", "ctfs")

Progress = Callable[[int, int, str], None]  # (done, total, what)


@dataclass(frozen=True)
class IndexParams:
    """Everything that shapes the index; a change of any forces a rebuild."""

    chunk_tokens: int = 400
    chunk_overlap: int = 80
    log_context: int = 40
    borrow: str = "reply-session"  # which log entries borrow the previous one's tail
    context_weight: float = 0.5  # borrowed context counts half towards BM25 frequency
    cjk_unigrams: bool = True
    stem: bool = True
    num_perm: int = minhash.NUM_PERM
    seed: int = minhash.SEED
    sign_context: bool = (
        True  # MinHash signs borrowed context too (it only reaches chunks the own-word gate admits)
    )
    embed: str = ""  # the vector space (Embedder.key); "" is MinHash only
    embed_context: bool = False  # embed a chunk with its borrowed context (tuned: off)
    sim_bits: int = simhash.BITS
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, cfg, embed: str = "") -> IndexParams:
        return cls(
            chunk_tokens=cfg["index.chunk_tokens"],
            chunk_overlap=cfg["index.chunk_overlap"],
            log_context=cfg["index.log_context"],
            include=tuple(cfg["index.include"]),
            exclude=tuple(cfg["index.exclude"]),
            embed=embed,
        )

    def stamp(self) -> dict:
        d = asdict(self)
        d["include"], d["exclude"] = list(self.include), list(self.exclude)
        return {"schema": SCHEMA, **d}

    def tokens(self, text: str) -> list[str]:
        return tokenize(text, cjk_unigrams=self.cjk_unigrams, stem=self.stem)


def days_since_epoch(when: datetime | None) -> float:
    return math.nan if when is None else (when - _EPOCH).total_seconds() / 86400.0


def agent_key(agent: str | None) -> int:
    """An agent id as the number the index keeps (0: no agent, shared by all)."""
    if not agent:
        return 0
    return int.from_bytes(hashlib.blake2b(agent.encode("utf-8"), digest_size=8).digest()) or 1


def _day_number(day: date | None) -> float:
    """A day as days since the epoch at its midnight; NaN when unknown."""
    return math.nan if day is None else float((day - _EPOCH.date()).days)


@dataclass
class Segment:
    """Postings plus per-document arrays for documents [first, first + n)."""

    post: bm25.Postings
    docs: dict[str, np.ndarray]  # _DOC_FIELDS, each of length n
    sig: np.ndarray  # n x num_perm uint32: MinHash of the document's own words
    sim: np.ndarray  # n x sim_bits / 8 uint8: SimHash of its embedding (zeros if none)

    @property
    def n(self) -> int:
        return len(self.docs["start"])


@dataclass
class Index:
    """What a query reads. Document ids are global: base first, then delta."""

    params: IndexParams
    paths: list[str]
    base: Segment
    delta: Segment
    live: np.ndarray  # bool, base + delta
    perm: tuple[np.ndarray, np.ndarray]
    files: dict[str, dict]
    dim: int = 0  # embedding dimension (0: no vectors yet)
    warnings: list[str] = field(default_factory=list)
    stats: dict = field(default_factory=dict)  # what the last refresh did
    _joined: dict = field(default_factory=dict, repr=False, compare=False)

    def doc(self, name: str) -> np.ndarray:
        """A per-document array over base and delta. The join is kept until either part is
        replaced: a resident process answers many queries from one index."""
        parts = (self.base.docs[name], self.delta.docs[name])
        kept = self._joined.get(name)
        if kept is None or kept[0] is not parts[0] or kept[1] is not parts[1]:
            joined = np.concatenate(parts)
            joined.flags.writeable = False
            kept = self._joined[name] = (*parts, joined)
        return kept[2]

    @property
    def segments(self) -> list[bm25.Postings]:
        return [self.base.post, self.delta.post]

    @property
    def n_live(self) -> int:
        return int(self.live.sum())

    @property
    def missing_vectors(self) -> int:
        """Live documents that should have an embedding and do not (yet)."""
        if not self.params.embed:
            return 0
        return int((self.live & (self.doc("vec") == VEC_MISSING)).sum())

    def planes(self) -> np.ndarray:
        return simhash.hyperplanes(self.dim, self.params.sim_bits)


# ----------------------------------------------------------------- building


def _empty_docs() -> dict[str, np.ndarray]:
    return {
        "path_id": np.zeros(0, np.int32),
        "start": np.zeros(0, np.int32),
        "end": np.zeros(0, np.int32),
        "when": np.zeros(0, np.float64),
        "deprecated": np.zeros(0, bool),
        "length": np.zeros(0, np.float32),
        "sizes": np.zeros(0, np.int32),
        "vec": np.zeros(0, np.int8),
        "ekey": np.zeros(0, np.uint64),
        "boiler": np.zeros(0, bool),
        "born": np.zeros(0, np.float64),
        "gone": np.zeros(0, np.float64),
        "agent": np.zeros(0, np.uint64),
    }


def _empty_segment(params: IndexParams) -> Segment:
    return Segment(
        bm25.Postings.empty(),
        _empty_docs(),
        np.zeros((0, params.num_perm), np.uint32),
        np.zeros((0, params.sim_bits // 8), np.uint8),
    )


@dataclass
class _Part:
    """Files read, chunked and tokenised: in a worker process when a rebuild is big."""

    files: dict[str, dict]  # rel -> record; "docs" relative to this part
    chunk_paths: list[str]
    meta: dict[str, np.ndarray]  # start, end, when, deprecated per chunk
    an: bm25.Analysis
    warnings: list[str]
    embed_texts: list[str]  # what each chunk's embedding is made of ([] without a provider)


def _analyze_files(root: Path, items: Sequence[tuple[str, int, int]], params: IndexParams) -> _Part:
    """Read, chunk and tokenise files given as (rel, size, mtime_ns)."""
    from .chunking import chunk_file  # only when something changed: keeps recall light

    files: dict[str, dict] = {}
    chunks = []
    warnings: list[str] = []
    for rel, size, mtime in items:
        path = root / rel
        try:
            data = read_bytes(path, rel)
        except (FileNotFoundError, SymlinkRefused):  # changed since the scan: next refresh
            continue
        record = {"size": size, "mtime_ns": mtime, "sha256": _sha256(data)}
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            warnings.append(BadEncoding(path, rel).message)
            files[rel] = {**record, "seg": "bad", "docs": [0, 0]}
            continue
        got = chunk_file(
            rel, text, params.chunk_tokens, params.chunk_overlap, params.log_context, params.borrow
        )
        files[rel] = {**record, "seg": "base", "docs": [len(chunks), len(chunks) + len(got)]}
        chunks.extend(got)

    def toks(text: str) -> list[str]:
        return tokenize(text, cjk_unigrams=params.cjk_unigrams, stem=False) if text else []

    context = [toks(c.context) for c in chunks]
    tokens = [ctx + toks(c.text) for ctx, c in zip(context, chunks, strict=True)]
    n = len(chunks)
    meta = {
        "start": np.fromiter((c.start_line for c in chunks), np.int32, n),
        "end": np.fromiter((c.end_line for c in chunks), np.int32, n),
        "when": np.fromiter((days_since_epoch(c.when) for c in chunks), np.float64, n),
        "deprecated": np.fromiter((c.deprecated for c in chunks), bool, n),
        "boiler": np.fromiter((c.boilerplate for c in chunks), bool, n),
        "born": np.fromiter((_day_number(c.born) for c in chunks), np.float64, n),
        "gone": np.fromiter((_day_number(c.gone) for c in chunks), np.float64, n),
        "agent": np.fromiter((agent_key(c.agent) for c in chunks), np.uint64, n),
    }
    an = bm25.analyze(
        tokens, stem_word if params.stem else None, [len(c) for c in context], params.context_weight
    )
    texts = []
    if params.embed:
        texts = [_embed_text(c, params) for c in chunks]
    return _Part(files, [c.path for c in chunks], meta, an, warnings, texts)


def _embed_text(chunk, params: IndexParams) -> str:
    """What a chunk's embedding is made of: its lines (with its borrowed context), or ""
    for boilerplate (headings alone, the tool's template text), which recall never returns."""
    if chunk.boilerplate:
        return ""
    if params.embed_context and chunk.context:
        return f"{chunk.context}\n{chunk.text}"
    return chunk.text


@dataclass
class _Vectors:
    """What the embedding step produced for a part: SimHash rows and which chunks have one."""

    sim: np.ndarray
    state: np.ndarray  # VEC_MISSING, VEC_MADE or VEC_NONE per chunk
    dim: int
    keys: np.ndarray  # the cache key of each chunk's embedded text (0 without one)


def _embed_part(
    part: _Part,
    params: IndexParams,
    embedder: Embedder | None,
    state_dir: Path,
    dim: int,
    warnings: list[str],
    progress: Progress | None,
) -> _Vectors:
    """SimHash bits of every chunk's embedding, from the cache where it can, from the
    provider for the rest. A provider that fails leaves those chunks without vectors (and
    says so once); it is left alone for a few minutes before the next attempt."""
    n = len(part.chunk_paths)
    nbytes = params.sim_bits // 8
    out = _Vectors(
        np.zeros((n, nbytes), np.uint8),
        np.full(n, VEC_NONE, np.int8),
        dim,
        np.zeros(n, np.uint64),
    )
    if not params.embed or n == 0:
        return out
    wanted = np.fromiter((bool(t) for t in part.embed_texts), bool, n)
    out.state[wanted] = VEC_MISSING
    from .embed.base import EmbedError
    from .embed.cache import VectorCache, folder_for, text_key

    cache = VectorCache(folder_for(state_dir, params.embed))
    keys = np.fromiter((text_key(t) for t in part.embed_texts), np.uint64, n)
    out.keys = np.where(wanted, keys, np.uint64(0))
    found, vecs = cache.get(keys, dim or None)
    found &= wanted
    if found.any():
        out.dim = vecs.shape[1]
        planes = simhash.hyperplanes(out.dim, params.sim_bits)
        out.sim[found] = simhash.sign_bits(vecs[found], planes)
        out.state[found] = VEC_MADE
    todo = np.flatnonzero(~found & wanted)
    if len(todo) == 0:
        return out
    if embedder is None or embedder.key != params.embed:
        warnings.append(
            f"{len(todo)} chunks have no embedding ({params.embed} is not available); "
            "recall scores them by their words until the next `mem index`"
        )
        return out
    down = cache.unavailable()
    if down:
        warnings.append(f"embeddings skipped: {down} (retried after a few minutes)")
        return out
    done = 0
    try:
        for lo in range(0, len(todo), EMBED_BATCH):
            batch = todo[lo : lo + EMBED_BATCH]
            got = embedder.embed([part.embed_texts[i] for i in batch])
            if out.dim and got.shape[1] != out.dim:
                raise EmbedError(f"vectors of {got.shape[1]} dimensions, the index has {out.dim}")
            out.dim = got.shape[1]
            cache.put(keys[batch], got)
            out.sim[batch] = simhash.sign_bits(got, simhash.hyperplanes(out.dim, params.sim_bits))
            out.state[batch] = VEC_MADE
            done += len(batch)
            if progress:
                progress(done, len(todo), "embedding")
    except EmbedError as exc:
        cache.mark_unavailable(str(exc))
        warnings.append(
            f"{exc}; {len(todo) - done} chunks left without vectors (recall uses their words)"
        )
    else:
        cache.mark_available()
    return out


def _segment_from(
    part: _Part,
    path_ids: dict[str, int],
    first: int,
    params: IndexParams,
    perm: tuple[np.ndarray, np.ndarray],
    vectors: _Vectors,
) -> Segment:
    an = part.an
    n = len(an.lengths)
    post = bm25.from_analysis(an, first)
    # MinHash signs each document's own distinct content tokens: borrowed context is for
    # BM25 only, capped by what the own words score, so it must not make a signature match.
    keep = np.fromiter((is_shingle(t) for t in an.terms), bool, len(an.terms))
    term_h32 = np.fromiter((minhash.hash32(t) for t in an.terms), np.uint32, len(an.terms))
    mask = keep[an.term] & ((an.tf > 0) | params.sign_context)
    sig = minhash.signatures_from_pairs(n, an.doc[mask], an.term[mask], term_h32, *perm)
    docs = {
        "path_id": np.fromiter((path_ids[p] for p in part.chunk_paths), np.int32, n),
        **part.meta,
        "length": an.lengths,
        "sizes": np.bincount(an.doc[mask], minlength=n).astype(np.int32),
        "vec": vectors.state,
        "ekey": vectors.keys,
    }
    return Segment(post, docs, sig, vectors.sim)


def _analyze_all(
    root: Path, items: list[tuple[str, int, int]], params: IndexParams, progress: Progress | None
) -> _Part:
    """All files, in worker processes when there is enough text to repay them (tokenising
    is Python-bound; numpy work after it uses threads)."""
    total_bytes = sum(size for _, size, _ in items)
    workers = min(os.cpu_count() or 1, 4)
    pieces = 8 * workers
    if workers < 2 or total_bytes < PARALLEL_BYTES or len(items) < pieces:
        parts = []
        step = max(1, len(items) // 20)
        for lo in range(0, len(items), step):
            parts.append(_analyze_files(root, items[lo : lo + step], params))
            if progress:
                progress(
                    min(lo + step, len(items)), len(items), items[min(lo + step, len(items)) - 1][0]
                )
    else:
        import multiprocessing

        method = (
            "fork"
            if "fork" in multiprocessing.get_all_start_methods()
            and os.name == "posix"
            and not _is_macos()
            else "spawn"
        )
        bounds = [round(i * len(items) / pieces) for i in range(pieces + 1)]
        jobs = [(root, items[bounds[i] : bounds[i + 1]], params) for i in range(pieces)]
        parts = []
        with multiprocessing.get_context(method).Pool(workers) as pool:
            for i, part in enumerate(pool.imap(_analyze_job, jobs)):
                parts.append(part)
                if progress:
                    progress(bounds[i + 1], len(items), items[bounds[i + 1] - 1][0])
    return _join_parts(parts)


def _analyze_job(job: tuple[Path, list[tuple[str, int, int]], IndexParams]) -> _Part:
    return _analyze_files(*job)


def _is_macos() -> bool:
    import sys

    return sys.platform == "darwin"


def _join_parts(parts: Sequence[_Part]) -> _Part:
    files: dict[str, dict] = {}
    chunk_paths: list[str] = []
    warnings: list[str] = []
    texts: list[str] = []
    offset = 0
    for part in parts:
        for rel, rec in part.files.items():
            lo, hi = rec["docs"]
            files[rel] = {
                **rec,
                "docs": [lo + offset, hi + offset] if rec["seg"] != "bad" else [0, 0],
            }
        chunk_paths += part.chunk_paths
        warnings += part.warnings
        texts += part.embed_texts
        offset += len(part.chunk_paths)
    meta = {
        name: np.concatenate([p.meta[name] for p in parts]) if parts else _empty_docs()[name]
        for name in ("start", "end", "when", "deprecated", "boiler", "born", "gone", "agent")
    }
    return _Part(files, chunk_paths, meta, bm25.concat([p.an for p in parts]), warnings, texts)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_hash(path: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


@dataclass
class _Scan:
    """Current memory files with stat, and the content of those that must be read."""

    stats: dict[str, tuple[int, int]]  # rel -> (size, mtime_ns)
    paths: dict[str, Path]


def _scan(ws: Workspace, params: IndexParams) -> _Scan:
    found = ws.scan(params.include, params.exclude)
    if ws.memory_dir.is_symlink():
        found = {rel: st for rel, st in found.items() if not rel.startswith("memory/")}
    return _Scan(
        {rel: (st.st_size, st.st_mtime_ns) for rel, st in found.items()},
        {rel: ws.root / rel for rel in found},
    )


def _read(ws: Workspace, rel: str, path: Path) -> tuple[str | None, str, str | None]:
    """(text or None if not UTF-8, sha256, warning)."""
    try:
        data = read_bytes(path, rel)
    except (FileNotFoundError, SymlinkRefused):
        return None, "", None
    sha = _sha256(data)
    try:
        return decode(data, path, rel), sha, None
    except BadEncoding as exc:
        return None, sha, exc.message


# ----------------------------------------------------------------- storage


def _save_segment(seg: Segment, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in _POST_FIELDS:
        np.save(folder / f"{name}.npy", getattr(seg.post, name))
    for name in _DOC_FIELDS:
        np.save(folder / f"{name}.npy", seg.docs[name])
    np.save(folder / "sig.npy", seg.sig)
    np.save(folder / "sim.npy", seg.sim)


def _load_segment(folder: Path, first: int, params: IndexParams, deep: bool) -> Segment:
    """The arrays of one segment, memory-mapped. Shapes are always checked; `deep` (the files
    changed since they were last verified) also checks every value a query indexes with,
    which reads whole arrays: ~40 MB at 100k chunks, too much for every call."""

    def arr(name: str) -> np.ndarray:
        return np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False)

    post = bm25.Postings(*(arr(n) for n in _POST_FIELDS))
    docs = {n: np.asarray(arr(n)) for n in _DOC_FIELDS}
    sig, sim = arr("sig"), arr("sim")
    n = len(docs["start"])
    ok = (
        len(post.ptr) == len(post.terms) + 1
        and int(post.ptr[0]) == 0
        and int(post.ptr[-1]) == len(post.docs) == len(post.tfs) == len(post.ctfs)
        and all(len(v) == n for v in docs.values())
        and sig.shape == (n, params.num_perm)
        and sim.shape == (n, params.sim_bits // 8)
    )
    if ok and deep:
        start, end = docs["start"], docs["end"]
        ok = (
            (n == 0 or (int(start.min()) >= 1 and bool(np.all(end >= start))))
            and bool(np.all(np.isin(docs["vec"], (VEC_MISSING, VEC_MADE, VEC_NONE))))
            and bool(np.all(np.diff(np.asarray(post.ptr)) >= 0))
            and (
                len(post.docs) == 0
                or (int(post.docs.min()) >= first and int(post.docs.max()) < first + n)
            )
        )
    if not ok:
        raise ValueError(f"inconsistent arrays in {folder}")
    return Segment(post, docs, sig, sim)


PREAD_ROWS = 2048  # more rows than this are gathered through the map


def read_rows(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Some rows of a 2-D array, as a copy. From a memory map, a few rows are read with
    pread: touching scattered rows through the map pages in their neighbourhood too (the
    kernel maps up to 64 KB around each fault), which at 100k chunks charged ~40 MB to a
    query whose MMR compared a few hundred signatures."""
    rows = np.asarray(rows, np.int64)
    name = getattr(a, "filename", None)
    if not isinstance(a, np.memmap) or not name or len(rows) > PREAD_ROWS:
        return np.array(a[rows])
    out = np.empty((len(rows), *a.shape[1:]), a.dtype)
    size = out[0].nbytes if len(rows) else 0
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for i, r in enumerate(rows.tolist()):
            data = os.pread(fd, size, a.offset + r * size)
            if len(data) != size:
                raise ValueError(f"{name} is shorter than its header says")
            out[i] = np.frombuffer(data, a.dtype).reshape(a.shape[1:])
    finally:
        os.close(fd)
    return out


class _Store:
    """Reads and writes one index directory; every failure surfaces as an exception
    that the caller answers with a rebuild."""

    def __init__(self, root: Path):
        self.root = root

    @property
    def meta_path(self) -> Path:
        return self.root / "meta.json"

    def _stats(self, names) -> dict[str, list[int]]:
        out = {}
        for name in names:
            st = (self.root / name).stat()
            out[name] = [st.st_size, st.st_mtime_ns, st.st_ino]
        return out

    def _verify(self, meta: dict) -> tuple[set[str], dict]:
        """Every array file against the checksum written with it. Hashing is paid only for
        a file whose (size, mtime, inode) differs from when it was last verified (or
        written): a same-size overwrite, a zeroed or swapped array, is caught on the next
        open. Returns the files hashed now, and the stats to record once their values have
        been checked too."""
        sums = meta.get("checksums")
        if not isinstance(sums, dict) or not sums:
            raise ValueError("no checksums")
        stats = self._stats(sums)
        try:
            seen = json.loads(self.verified_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            seen = {}
        if not isinstance(seen, dict):
            seen = {}
        changed = {name for name in sums if seen.get(name) != stats[name]}
        for name in sorted(changed):
            if _file_hash(self.root / name) != sums[name]:
                raise ValueError(f"{name} does not match its checksum")
        return changed, stats

    @property
    def verified_path(self) -> Path:
        return self.root / "verified.json"

    def load(self, params: IndexParams) -> Index | None:
        """The index meta.json points at. Another process may switch meta.json to a new
        generation and remove the old one while this reads it: a segment that vanished is
        read again from the meta that replaced it (the arrays already mapped stay valid)."""
        for attempt in range(4):
            try:
                return self._load(params)
            except FileNotFoundError:
                time.sleep(0.01 * (attempt + 1))
        return None  # still moving under us: rebuilt from the Markdown instead

    def _load(self, params: IndexParams) -> Index | None:
        try:
            meta = json.loads(self.meta_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        if meta.get("stamp") != params.stamp():
            return None
        changed, stats = self._verify(meta)
        touched = {name.split("/", 1)[0] for name in changed}
        p = params.num_perm
        base = _load_segment(self.root / meta["base"], 0, params, meta["base"] in touched)
        delta = _load_segment(self.root / meta["delta"], base.n, params, meta["delta"] in touched)
        live = np.load(self.root / meta["delta"] / "live.npy", allow_pickle=False)
        perm = (
            np.load(self.root / meta["base"] / "perm_a.npy", allow_pickle=False),
            np.load(self.root / meta["base"] / "perm_b.npy", allow_pickle=False),
        )
        if len(live) != base.n + delta.n or len(perm[0]) != p or len(perm[1]) != p:
            raise ValueError("inconsistent live mask or permutations")
        paths = list(meta["paths"])
        if changed:
            pid = np.concatenate([base.docs["path_id"], delta.docs["path_id"]])
            if len(pid) and (pid.min() < 0 or pid.max() >= len(paths)):
                raise ValueError("path table does not cover the documents")
            with contextlib.suppress(OSError):
                atomic_write_text(self.verified_path, json.dumps(stats))
        return Index(params, paths, base, delta, live, perm, meta["files"], int(meta["dim"]))

    def save(self, index: Index, base_changed: bool, base_name: str | None) -> str:
        """Write the delta (and the base if it changed), then switch meta.json to them."""
        self.root.mkdir(parents=True, exist_ok=True)
        gen = int.from_bytes(os.urandom(4), "little")
        if base_changed or base_name is None:
            base_name = f"base-{gen:08x}"
            _save_segment(index.base, self.root / base_name)
            np.save(self.root / base_name / "perm_a.npy", index.perm[0])
            np.save(self.root / base_name / "perm_b.npy", index.perm[1])
        delta_name = f"delta-{gen:08x}"
        _save_segment(index.delta, self.root / delta_name)
        np.save(self.root / delta_name / "live.npy", index.live)
        checksums = {
            f"{folder}/{f.name}": _file_hash(f)
            for folder in (base_name, delta_name)
            for f in sorted((self.root / folder).glob("*.npy"))
        }
        meta = {
            "stamp": index.params.stamp(),
            "checksums": checksums,
            "base": base_name,
            "delta": delta_name,
            "paths": index.paths,
            "files": index.files,
            "dim": index.dim,
            "missing_vectors": index.missing_vectors,
            "written": datetime.now().isoformat(timespec="seconds"),
        }
        atomic_write_text(self.meta_path, json.dumps(meta, ensure_ascii=False))
        # What was just written from consistent arrays needs no hashing on the next open.
        with contextlib.suppress(OSError):
            atomic_write_text(self.verified_path, json.dumps(self._stats(checksums)))
        for child in self.root.iterdir():  # earlier generations nobody points at
            if child.is_dir() and child.name not in (base_name, delta_name):
                shutil.rmtree(child, ignore_errors=True)
        return base_name


@contextlib.contextmanager
def _locked(state_dir: Path) -> Iterator[bool]:
    """An exclusive lock on .mem/index.lock; yields False when .mem/ is not writable."""
    from .fsutil import _lock, _unlock

    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(state_dir / "index.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield False
        return
    try:
        _lock(fd)
        yield True
    finally:
        with contextlib.suppress(OSError):
            _unlock(fd)
        os.close(fd)


# ----------------------------------------------------------------- refresh


@dataclass
class _Build:
    """What building needs besides the Markdown: the provider and where its cache lives."""

    embedder: Embedder | None
    state_dir: Path
    progress: Progress | None = None


def _new_index(params: IndexParams, perm: tuple[np.ndarray, np.ndarray]) -> Index:
    return Index(
        params,
        [],
        _empty_segment(params),
        _empty_segment(params),
        np.zeros(0, bool),
        perm,
        {},
    )


def _rebuild(ws: Workspace, params: IndexParams, scan: _Scan, build: _Build) -> Index:
    perm = minhash.permutations(params.num_perm, params.seed)
    index = _new_index(params, perm)
    items = [(rel, *scan.stats[rel]) for rel in sorted(scan.paths)]
    part = _analyze_all(ws.root, items, params, build.progress)
    index.warnings += part.warnings
    index.paths = sorted(set(part.chunk_paths))
    path_ids = {p: i for i, p in enumerate(index.paths)}
    vectors = _embed_part(
        part, params, build.embedder, build.state_dir, 0, index.warnings, build.progress
    )
    index.dim = vectors.dim
    index.base = _segment_from(part, path_ids, 0, params, perm, vectors)
    index.live = np.ones(index.base.n, bool)
    index.files = part.files
    index.stats = {"mode": "rebuild", "files": len(items), "chunks": index.base.n}
    return index


def _merge(index: Index) -> Index:
    """Fold the delta into the base, dropping dead documents; arrays only."""
    n = len(index.live)
    keep = index.live.copy()
    new_ids = np.cumsum(keep) - 1
    post = bm25.merge(index.segments, keep, new_ids.astype(np.int32))
    docs = {name: index.doc(name)[keep] for name in _DOC_FIELDS}
    sig = np.concatenate([np.asarray(index.base.sig), np.asarray(index.delta.sig)])[keep]
    sim = np.concatenate([np.asarray(index.base.sim), np.asarray(index.delta.sim)])[keep]
    for rec in index.files.values():
        lo, hi = rec["docs"]
        if rec["seg"] in ("base", "delta") and hi > lo:
            new_lo = int(new_ids[lo]) if keep[lo] else int(keep[:lo].sum())
            rec["docs"] = [new_lo, new_lo + (hi - lo)]
            rec["seg"] = "base"
    index.base = Segment(post, docs, sig, sim)
    index.delta = _empty_segment(index.params)
    index.live = np.ones(int(keep.sum()), bool)
    index.stats["merged"] = n - int(keep.sum())
    return index


def _lacking_vectors(index: Index) -> set[str]:
    """Files whose live chunks lack an embedding: re-analysed (through the cache) when the
    provider can be asked again."""
    if not index.params.embed:
        return set()
    missing = index.doc("vec") == VEC_MISSING
    out = set()
    for rel, rec in index.files.items():
        lo, hi = rec["docs"]
        if rec["seg"] in ("base", "delta") and hi > lo and missing[lo:hi].any():
            out.add(rel)
    return out


def _refresh(ws: Workspace, index: Index, scan: _Scan, build: _Build) -> tuple[Index, bool, bool]:
    """Bring a loaded index up to date. Returns (index, changed, base_changed)."""
    params = index.params
    changed: set[str] = set()
    bad: dict[str, dict] = {}
    touched_stat = False
    for rel, (size, mtime) in scan.stats.items():
        rec = index.files.get(rel)
        if rec and rec["size"] == size and rec["mtime_ns"] == mtime:
            if rec["seg"] == "bad":
                index.warnings.append(BadEncoding(scan.paths[rel], rel).message)
            continue
        text, sha, warning = _read(ws, rel, scan.paths[rel])
        if rec and rec["sha256"] == sha:
            rec["size"], rec["mtime_ns"] = size, mtime  # touched, not changed
            touched_stat = True
            if warning:
                index.warnings.append(warning)
            continue
        if text is None:
            if warning:
                index.warnings.append(warning)
            bad[rel] = {
                "size": size,
                "mtime_ns": mtime,
                "sha256": sha,
                "seg": "bad",
                "docs": [0, 0],
            }
        else:
            changed.add(rel)
    retry = set()
    if build.embedder is not None and index.missing_vectors:
        from .embed.cache import VectorCache, folder_for

        if not VectorCache(folder_for(build.state_dir, params.embed)).unavailable():
            retry = _lacking_vectors(index) & set(scan.stats) - changed - set(bad)
    changed |= retry
    deleted = [rel for rel in index.files if rel not in scan.stats]
    gone = set(deleted) | set(changed) | set(bad)
    if not gone:
        return index, touched_stat, False

    nb = index.base.n
    live = index.live[:nb].copy()
    for rel in gone:
        rec = index.files.get(rel)
        if rec and rec["seg"] == "base":
            lo, hi = rec["docs"]
            live[lo:hi] = False
    # The delta is rebuilt from every file it owns now: the ones it held before and are
    # unchanged, plus everything that changed.
    owned = {rel for rel, rec in index.files.items() if rec["seg"] == "delta" and rel not in gone}
    owned |= changed
    items = [(rel, *scan.stats[rel]) for rel in sorted(owned) if rel in scan.stats]
    part = _analyze_files(ws.root, items, params)
    index.warnings += part.warnings
    files = {
        rel: rec for rel, rec in index.files.items() if rel not in gone and rec["seg"] != "delta"
    }
    files.update(bad)
    for rel, rec in part.files.items():
        lo, hi = rec["docs"]
        files[rel] = {
            **rec,
            "seg": "delta" if rec["seg"] != "bad" else "bad",
            "docs": [nb + lo, nb + hi] if rec["seg"] != "bad" else [0, 0],
        }
    paths = list(index.paths)
    path_ids = {p: i for i, p in enumerate(paths)}
    for p in part.chunk_paths:
        if p not in path_ids:
            path_ids[p] = len(paths)
            paths.append(p)
    index.paths = paths
    vectors = _embed_part(
        part, params, build.embedder, build.state_dir, index.dim, index.warnings, build.progress
    )
    index.dim = index.dim or vectors.dim
    index.delta = _segment_from(part, path_ids, nb, params, index.perm, vectors)
    index.live = np.concatenate([live, np.ones(index.delta.n, bool)])
    index.files = files
    index.stats = {
        "mode": "refresh",
        "changed": sorted(changed - retry),
        "deleted": sorted(deleted),
        "delta_files": len(items),
        "delta_chunks": index.delta.n,
    }
    if retry:
        index.stats["embedded_again"] = sorted(retry)
    dead = nb - int(live.sum())
    base_changed = False
    if index.delta.n > max(2000, 0.05 * nb) or dead > 0.25 * max(nb, 1):
        index = _merge(index)
        base_changed = True
    return index, True, base_changed


def open_index(
    ws: Workspace,
    params: IndexParams,
    *,
    embedder: Embedder | None = None,
    rebuild: bool = False,
    progress: Progress | None = None,
    must_save: bool = False,
) -> Index:
    """The index, brought up to date with the Markdown first (cheap when nothing changed).
    `embedder` embeds chunks whose vectors are not cached yet (params.embed names its space).
    Recall goes on with an index in memory when .mem/ cannot be written; `must_save` (the
    `mem index` command, whose job is the cache) makes that an error."""
    store = _Store(ws.state_dir / INDEX_DIR)
    scan = _scan(ws, params)
    build = _Build(embedder, ws.state_dir, progress)
    with _locked(ws.state_dir) as writable:
        index: Index | None = None
        note = None
        if not rebuild:
            try:
                index = store.load(params)
            except Exception as exc:  # a truncated or corrupt cache: rebuild, never fail
                note = (
                    f"the index cache in {ws.rel(store.root)} was unreadable "
                    f"({type(exc).__name__}); rebuilt it"
                )
                index = None
        base_name = None
        if index is None:
            index = _rebuild(ws, params, scan, build)
            changed, base_changed = True, True
        else:
            with contextlib.suppress(Exception):
                base_name = json.loads(store.meta_path.read_text(encoding="utf-8"))["base"]
            index, changed, base_changed = _refresh(ws, index, scan, build)
        if note:
            index.warnings.insert(0, note)
        for rel in ws.links:
            index.warnings.append(
                f"{rel} is a symlink; not indexed (memory is read from real files)"
            )
        if changed and not writable and must_save:
            from .errors import WriteError

            raise WriteError(ws.state_dir, PermissionError(13, "permission denied"))
        if changed and writable:
            try:
                store.save(index, base_changed, base_name)
            except OSError as exc:
                if must_save:
                    from .errors import WriteError

                    raise WriteError(store.root, exc) from None
                index.warnings.append(
                    f"could not write the index cache ({exc.strerror}); using it in memory"
                )
    return index


def index_state(ws: Workspace, params: IndexParams) -> dict:
    """For `mem status`: files and chunks indexed, whether the cache is fresh, and which
    vector source it holds. Reads only meta.json and stats files; never rebuilds."""
    store = _Store(ws.state_dir / INDEX_DIR)
    vectors = params.embed or "MinHash (no embedding model)"
    try:
        meta = json.loads(store.meta_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"exists": False, "fresh": False, "files": 0, "chunks": 0, "vectors": vectors}
    scan = _scan(ws, params)
    files = meta.get("files", {})
    stale = (
        set(files) != set(scan.stats)
        or meta.get("stamp") != params.stamp()
        or any(
            (files[rel]["size"], files[rel]["mtime_ns"]) != st
            for rel, st in scan.stats.items()
            if rel in files
        )
    )
    chunks = sum(
        rec["docs"][1] - rec["docs"][0] for rec in files.values() if rec.get("seg") != "bad"
    )
    built_with = (meta.get("stamp") or {}).get("embed", "")
    return {
        "exists": True,
        "fresh": not stale,
        "files": len(files),
        "chunks": chunks,
        "vectors": built_with or "MinHash (no embedding model)",
        "missingVectors": int(meta.get("missing_vectors", 0)) if built_with else 0,
        "written": meta.get("written"),
    }
