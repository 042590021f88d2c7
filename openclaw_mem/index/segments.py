"""Segments: a run of documents' postings, per-document columns and signatures, made from
Markdown files and written to (or memory-mapped from) a folder of plain .npy arrays. The
index (index.py) is a base and a delta segment over one document id space; a streamed
rebuild (index_stream.py) makes its base from many small segments.

Each document carries two pseudo-vectors: a MinHash signature of its own words (always),
and, when an embedding provider is configured, the SimHash bits of its embedding.
Embeddings come through the content-hash cache in .mem/embed/, so a rebuild re-embeds
nothing that was embedded before; a chunk the provider could not embed is marked and
retried on a later refresh.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..config import default
from ..errors import BadEncoding
from ..search import bm25, minhash, simhash
from ..search.tokenize import is_shingle, stem_word, tokenize
from ..store.fsutil import SymlinkRefused, read_bytes
from ..text import blake2b

if TYPE_CHECKING:
    from ..embed.base import Embedder

SCHEMA = 10  # 10: a long entry's heading stays with its first line (format/chunking.py)
# 9: the days a chunk speaks of read by the grammar that knows a month's nth week
# 8: one pack file a segment, packed postings, 8-bit signatures, a file table
PARALLEL_BYTES = 1_000_000  # below this a rebuild is quicker in one process
EMBED_BATCH = 128
HASHES_KEPT = 300_000  # words whose hashes one build keeps for its next piece
_EPOCH = datetime(1970, 1, 1)
DOC_FIELDS = (
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
    "speaker",
    "about_first",
    "about_last",
    "refers",
)
# A document's embedding: not made yet (the provider failed or was absent), made, or not
# wanted (a chunk of headings alone).
VEC_MISSING, VEC_MADE, VEC_NONE = 0, 1, 2
POST_FIELDS = ("terms", "ptr", "bptr", "gaps", "freqs", "bigpos", "bigtf", "bigctf")

Progress = Callable[[int, int, str], None]  # (done, total, what)


@dataclass(frozen=True)
class IndexParams:
    """Everything that shapes the index; a change of any forces a rebuild."""

    chunk_tokens: int = default("index.chunk_tokens")
    chunk_overlap: int = default("index.chunk_overlap")
    log_context: int = default("index.log_context")
    borrow: str = "reply-session"  # which log entries borrow the previous one's tail
    context_weight: float = 0.5  # borrowed context counts half towards BM25 frequency
    cjk_unigrams: bool = True
    stem: bool = True
    num_perm: int = minhash.NUM_PERM
    seed: int = minhash.SEED
    sig_bits: int = minhash.STORED_BITS  # the low bits of each MinHash value kept on disk
    sign_context: bool = (
        True  # MinHash signs borrowed context too (it only reaches chunks the own-word gate admits)
    )
    # MinHash signatures made at all: only `recall.similarity` containment/jaccard reads them
    # (the default reads the postings), and they were a quarter of a cold build's CPU, all
    # of it in the one process that cannot be spread over the workers, and 2/3 of the index.
    signed: bool = False
    embed: str = ""  # the vector space (Embedder.key); "" is MinHash only
    embed_context: bool = False  # embed a chunk with its borrowed context (tuned: off)
    sim_bits: int = simhash.BITS
    include: tuple[str, ...] = default("index.include")
    exclude: tuple[str, ...] = default("index.exclude")

    @classmethod
    def from_config(cls, cfg, embed: str = "") -> IndexParams:
        return cls(
            chunk_tokens=cfg["index.chunk_tokens"],
            chunk_overlap=cfg["index.chunk_overlap"],
            log_context=cfg["index.log_context"],
            include=tuple(cfg["index.include"]),
            exclude=tuple(cfg["index.exclude"]),
            signed=cfg["recall.similarity"] != "membership",
            embed=embed,
        )

    def stamp(self) -> dict:
        d = asdict(self)
        d["include"], d["exclude"] = list(self.include), list(self.exclude)
        return {"schema": SCHEMA, **d}

    def opening(self, stamp: object) -> IndexParams | None:
        """What an index stamped `stamp` is opened with when these are asked for: these, or
        these with signatures when it keeps them though these do not need them (a signed
        index serves every similarity, and stays signed until it is rebuilt for another
        reason); None when it must be rebuilt. So a process that still has the other
        `recall.similarity` (a `mem watch` started before the change) answers from the
        index the new setting built instead of rebuilding it back."""
        if stamp == self.stamp():
            return self
        signed = replace(self, signed=True)
        return signed if not self.signed and stamp == signed.stamp() else None

    def serves(self, wanted: IndexParams) -> bool:
        """Whether an index open with these params answers a request for `wanted`."""
        return self == wanted or (self.signed and replace(self, signed=wanted.signed) == wanted)

    def tokens(self, text: str) -> list[str]:
        return tokenize(text, cjk_unigrams=self.cjk_unigrams, stem=self.stem)

    @property
    def sig_width(self) -> int:
        """MinHash values a chunk keeps: none unless a setting reads signatures."""
        return self.num_perm if self.signed else 0

    @property
    def sim_bytes(self) -> int:
        """SimHash bytes a chunk: none without an embedding provider."""
        return self.sim_bits // 8 if self.embed else 0


def days_since_epoch(when: datetime | None) -> float:
    return math.nan if when is None else (when - _EPOCH).total_seconds() / 86400.0


def agent_key(agent: str | None) -> int:
    """An agent id as the number the index keeps (0: no agent, shared by all)."""
    if not agent:
        return 0
    return int.from_bytes(blake2b(agent.encode("utf-8"), digest_size=8).digest()) or 1


def _day_number(day: date | None) -> float:
    """A day as days since the epoch at its midnight; NaN when unknown."""
    return math.nan if day is None else float((day - _EPOCH.date()).days)


@dataclass
class Segment:
    """Postings plus per-document arrays for documents [first, first + n)."""

    post: bm25.Postings
    docs: dict[str, np.ndarray]  # DOC_FIELDS, each of length n
    sig: np.ndarray  # n x sig_width: the low sig_bits of the MinHash of its words
    sim: np.ndarray  # n x sim_bytes uint8: SimHash of its embedding (zeros if none)
    sig_at: tuple[str, int] | None = None  # (pack file, offset) of sig, to pread rows

    @property
    def n(self) -> int:
        return len(self.docs["start"])


# ----------------------------------------------------------------- building


def empty_docs() -> dict[str, np.ndarray]:
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
        "speaker": np.zeros(0, np.uint64),
        "about_first": np.zeros(0, np.float64),
        "about_last": np.zeros(0, np.float64),
        "refers": np.zeros(0, bool),
    }


def empty_segment(params: IndexParams) -> Segment:
    return Segment(
        bm25.Postings.empty(),
        empty_docs(),
        np.zeros((0, params.sig_width), minhash.stored_dtype(params.sig_bits)),
        np.zeros((0, params.sim_bytes), np.uint8),
    )


@dataclass
class Part:
    """Files read, chunked and tokenised: in a worker process when a rebuild is big."""

    files: dict[str, dict]  # rel -> record; "docs" relative to this part
    chunk_paths: list[str]
    meta: dict[str, np.ndarray]  # start, end, when, deprecated per chunk
    an: bm25.Analysis
    warnings: list[str]
    embed_texts: list[str]  # what each chunk's embedding is made of ([] without a provider)


@contextlib.contextmanager
def _collector_paused():
    """Python's cycle collector off while a batch is chunked and tokenised: the batch makes
    millions of small objects and no reference cycles, and every collection the allocations
    trigger walks all of them again (~15 % of a build's CPU). What it would have found is
    collected after, once the collector runs again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def analyze_files(root: Path, items: Sequence[tuple[str, int, int]], params: IndexParams) -> Part:
    """Read, chunk and tokenise files given as (rel, size, mtime_ns)."""
    with _collector_paused():
        return _analyze_files(root, items, params)


def _analyze_files(root: Path, items: Sequence[tuple[str, int, int]], params: IndexParams) -> Part:
    from ..format.chunking import chunk_file  # only when something changed: keeps recall light

    files: dict[str, dict] = {}
    chunks = []
    warnings: list[str] = []
    for rel, size, mtime in items:
        path = root / rel
        try:
            data = read_bytes(path, rel)
        except (FileNotFoundError, SymlinkRefused):  # changed since the scan: next refresh
            continue
        record = {"size": size, "mtime_ns": mtime, "sha256": sha256_hex(data)}
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
    return _part_of(files, chunks, warnings, params)


def analyze_window(root: Path, window, params: IndexParams) -> Part:
    """One window of a large daily log (see index_stream.Window): its chunks from the first
    kept line on; the entry before it is read only for what the first one borrows."""
    with _collector_paused():
        return _analyze_window(root, window, params)


def _analyze_window(root: Path, window, params: IndexParams) -> Part:
    from ..format.chunking import chunk_file
    from ..store.fsutil import open_bytes

    try:
        with open_bytes(root / window.rel, window.rel) as f:
            f.seek(window.lo)
            text = f.read(window.hi - window.lo).decode("utf-8")
    except (FileNotFoundError, SymlinkRefused, UnicodeDecodeError):  # changed since the survey
        return _part_of({}, [], [], params)
    got = chunk_file(
        window.rel,
        text,
        params.chunk_tokens,
        params.chunk_overlap,
        params.log_context,
        params.borrow,
        window.lines_before,
    )
    return _part_of({}, [c for c in got if c.start_line >= window.keep_from], [], params)


def _part_of(
    files: dict[str, dict], chunks: list, warnings: list[str], params: IndexParams
) -> Part:
    """Chunks tokenised and analysed into the arrays a segment is made of."""

    from ..format.chunking import searchable

    def toks(text: str) -> list[str]:
        return tokenize(text, cjk_unigrams=params.cjk_unigrams, stem=False) if text else []

    own = [searchable(c.text) for c in chunks]
    own_tokens = [toks(text) for text in own]
    context = []
    for i, c in enumerate(chunks):
        # What a log entry borrows is most often the whole entry before it, whose tokens
        # are at hand: that chunk's own text is the same words after its heading line's,
        # which are none for a role ("## 14:05 · user" searches as ""), and a line break
        # is neither a word nor CJK, so tokenize("\n" + s) == tokenize(s).
        ctx = searchable(c.context)
        before = own[i - 1] if i else ""
        if ctx and (before == ctx or (before[:1] == "\n" and before[1:] == ctx)):
            context.append(own_tokens[i - 1])
        else:
            context.append(toks(ctx))
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
        "speaker": np.fromiter((agent_key(c.speaker) for c in chunks), np.uint64, n),
        **_about(chunks, own, own_tokens),
        "refers": np.fromiter((c.refers for c in chunks), bool, n),
    }
    an = bm25.analyze_borrowing(
        own_tokens, context, stem_word if params.stem else None, params.context_weight
    )
    texts = []
    if params.embed:
        texts = [_embed_text(c, params) for c in chunks]
    return Part(files, [c.path for c in chunks], meta, an, warnings, texts)


def _about(chunks: list, texts: list[str], tokens: list[list[str]]) -> dict[str, np.ndarray]:
    """The days each chunk's own words speak of (`texts` as searched, with their `tokens`):
    "last week" said on 2023-01-23 is 2023-01-16..22, "in March 2024" that month; as the
    first and last day of all its time expressions together, NaN where it names none.
    Relative times are read against the chunk's own date, or for a curated line the day its
    metadata says it was written; a chunk with neither has only its absolute dates."""
    from ..format.dates import spans

    first, last = np.full(len(chunks), math.nan), np.full(len(chunks), math.nan)
    for i, (c, text, words) in enumerate(zip(chunks, texts, tokens, strict=True)):
        found = spans(text, c.when.date() if c.when else c.born, words)
        if found:
            first[i] = _day_number(min(s.first for s in found))
            last[i] = _day_number(max(s.last for s in found))
    return {"about_first": first, "about_last": last}


def _embed_text(chunk, params: IndexParams) -> str:
    """What a chunk's embedding is made of: its lines (with its borrowed context), or ""
    for boilerplate (headings alone, the tool's template text), which recall never returns."""
    from ..format.chunking import searchable

    if chunk.boilerplate:
        return ""
    if params.embed_context and chunk.context:
        return searchable(f"{chunk.context}\n{chunk.text}")
    return searchable(chunk.text)


@dataclass
class _Vectors:
    """What the embedding step produced for a part: SimHash rows and which chunks have one."""

    sim: np.ndarray
    state: np.ndarray  # VEC_MISSING, VEC_MADE or VEC_NONE per chunk
    dim: int
    keys: np.ndarray  # the cache key of each chunk's embedded text (0 without one)


def embed_part(
    part: Part,
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
    nbytes = params.sim_bytes
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
    from ..embed.base import EmbedError
    from ..embed.cache import VectorCache, folder_for, text_key

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


def segment_from(
    part: Part,
    path_ids: dict[str, int],
    first: int,
    params: IndexParams,
    perm: tuple[np.ndarray, np.ndarray],
    vectors: _Vectors,
    hashes: dict[str, int] | None = None,
) -> Segment:
    """A segment of the part's documents, numbered from `first`. `hashes` keeps each term's
    BM25 hash across the calls of one build."""
    made = shape(part, params, perm, hashes, first)
    docs = with_place(made.docs, part.chunk_paths, path_ids, vectors)
    return Segment(bm25.Postings.pack(*made.post), docs, made.sig, vectors.sim)


@dataclass
class Shaped:
    """A part's postings and per-chunk columns: all of a segment but where each chunk lies
    (`with_place`) and its embedding. Made where the part was analysed, so that a streamed
    build's workers, not the one process that joins them, do this work too."""

    post: tuple[np.ndarray, ...]  # term-major (terms, ptr, docs, tfs, ctfs), not packed
    docs: dict[str, np.ndarray]  # the part's meta, length and sizes
    sig: np.ndarray  # n x sig_width


def shape(
    part: Part,
    params: IndexParams,
    perm: tuple[np.ndarray, np.ndarray],
    hashes: dict[str, int] | None = None,
    first: int = 0,
) -> Shaped:
    """The part's postings (documents numbered from `first`), columns and signatures."""
    an = part.an
    n = len(an.lengths)
    v = len(an.terms)
    if hashes is None or len(hashes) > HASHES_KEPT:
        hashes = {}  # (a bound on what a build keeps: a huge vocabulary is hashed again)
    h64 = np.fromiter(
        (hashes.get(t) or hashes.setdefault(t, bm25.term_hash(t)) for t in an.terms), np.uint64, v
    )
    post = bm25.term_major(an, first, h64)
    # MinHash signs each document's own distinct content tokens: borrowed context is for
    # BM25 only, capped by what the own words score, so it must not make a signature match.
    keep = np.fromiter((is_shingle(t) for t in an.terms), bool, v)
    mask = keep[an.term] & ((an.tf > 0) | params.sign_context)
    if params.signed:
        term_h32 = np.fromiter((minhash.hash32(t) for t in an.terms), np.uint32, v)
        sig = minhash.signatures_from_pairs(n, an.doc[mask], an.term[mask], term_h32, *perm)
        sig = minhash.narrow(sig, params.sig_bits)
    else:
        sig = np.zeros((n, 0), minhash.stored_dtype(params.sig_bits))
    docs = {
        **part.meta,
        "length": an.lengths,
        "sizes": np.bincount(an.doc[mask], minlength=n).astype(np.int32),
    }
    return Shaped(post, docs, sig)


def with_place(
    docs: dict[str, np.ndarray], chunk_paths: list[str], path_ids: dict[str, int], vectors: _Vectors
) -> dict[str, np.ndarray]:
    """A part's columns with each chunk's file id and embedding state added."""
    n = len(chunk_paths)
    return {
        "path_id": np.fromiter((path_ids[p] for p in chunk_paths), np.int32, n),
        **docs,
        "vec": vectors.state,
        "ekey": vectors.keys,
    }


def analyze_all(
    root: Path, items: list[tuple[str, int, int]], params: IndexParams, progress: Progress | None
) -> Part:
    """All files, in worker processes when there is enough text to repay them (tokenising
    is Python-bound; numpy work after it uses threads)."""
    total_bytes = sum(size for _, size, _ in items)
    workers = min(os.cpu_count() or 1, 4)
    pieces = 8 * workers
    if workers < 2 or total_bytes < PARALLEL_BYTES or len(items) < pieces:
        parts = []
        step = max(1, len(items) // 20)
        for lo in range(0, len(items), step):
            parts.append(analyze_files(root, items[lo : lo + step], params))
            if progress:
                progress(
                    min(lo + step, len(items)), len(items), items[min(lo + step, len(items)) - 1][0]
                )
    else:
        bounds = [round(i * len(items) / pieces) for i in range(pieces + 1)]
        jobs = [(root, items[bounds[i] : bounds[i + 1]], params) for i in range(pieces)]
        parts = []
        with worker_processes(workers) as pool:
            for i, part in enumerate(pool.map(_analyze_job, jobs)):
                parts.append(part)
                if progress:
                    progress(bounds[i + 1], len(items), items[bounds[i + 1] - 1][0])
    return _join_parts(parts)


def _analyze_job(job: tuple[Path, list[tuple[str, int, int]], IndexParams]) -> Part:
    return analyze_files(*job)


@contextlib.contextmanager
def worker_processes(workers: int):
    """Worker processes (a concurrent.futures executor) that leave Ctrl-C to the process
    that started them: the terminal sends it to every process in its group, and a worker
    that took it would print its own traceback. A worker that dies (killed, out of memory)
    fails the build with a one-line error; multiprocessing.Pool, used before, never returned
    its task and left the build waiting for ever. Leaving the block by an error or Ctrl-C
    cancels every task not started; one started finishes its piece (about a second) and is
    thrown away. What was being built is never renamed into place."""
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from ..errors import MemError

    ex = ProcessPoolExecutor(
        workers, mp_context=pool_context(), initializer=_start_worker, initargs=(os.getpid(),)
    )
    try:
        yield ex
    except BrokenProcessPool:
        ex.shutdown(wait=False, cancel_futures=True)
        raise MemError(
            "the index build lost a worker process (killed, or out of memory?); the index "
            "is as it was: run the command again"
        ) from None
    except BaseException:
        ex.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        ex.shutdown(wait=True)


def _start_worker(parent: int) -> None:
    import signal

    from ..store.fsutil import forget_locks

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # A parent killed outright (kill -9, the OOM killer) must not leave its workers behind:
    # they end with it (Linux), and never hold its locks (index.lock) meanwhile.
    forget_locks()
    _die_with(parent)
    from ..store import heap

    heap.keep_freed_memory(heap.BUILD_MMAP_THRESHOLD, heap.BUILD_TRIM)  # heap.py says why


def _die_with(parent: int) -> None:
    """Have the kernel kill this worker when its parent dies (Linux's PR_SET_PDEATHSIG);
    elsewhere a worker orphaned that way waits on its queue, holding no lock."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def pool_context():
    """How worker processes start: forked where that is safe (Linux), spawned elsewhere
    (macOS's system libraries do not survive a fork; Windows has none)."""
    import multiprocessing

    fork = (
        "fork" in multiprocessing.get_all_start_methods() and os.name == "posix" and not is_macos()
    )
    return multiprocessing.get_context("fork" if fork else "spawn")


def is_macos() -> bool:
    import sys

    return sys.platform == "darwin"


def _join_parts(parts: Sequence[Part]) -> Part:
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
        name: np.concatenate([p.meta[name] for p in parts]) if parts else empty_docs()[name]
        for name in (
            "start",
            "end",
            "when",
            "deprecated",
            "boiler",
            "born",
            "gone",
            "agent",
            "speaker",
            "about_first",
            "about_last",
            "refers",
        )
    }
    return Part(files, chunk_paths, meta, bm25.concat([p.an for p in parts]), warnings, texts)


def sha256_hex(data: bytes) -> str:
    from hashlib import sha256  # OpenSSL's: files are hashed where they are read

    return sha256(data).hexdigest()


@dataclass
class Scan:
    """Current memory files with their stat, as walk.py found them."""

    stats: dict[str, tuple[int, int, int, int]]  # rel -> (size, mtime_ns, ctime_ns, inode)
    started_ns: int = 0  # the wall clock when the walk began (what is "recent", racy.py)


# ----------------------------------------------------------------- storage


def save_segment(seg: Segment, path: Path, extra: dict[str, np.ndarray] | None = None) -> None:
    """One segment as one pack file (pack.py), with `extra` arrays beside its own."""
    from . import pack

    arrays = {f"post.{name}": getattr(seg.post, name) for name in POST_FIELDS}
    arrays.update({f"doc.{name}": narrowest(seg.docs[name]) for name in DOC_FIELDS})
    arrays.update({"sig": seg.sig, "sim": seg.sim, **(extra or {})})
    pack.write(path, arrays)


def narrowest(a: np.ndarray) -> np.ndarray:
    """A per-document column in the smallest dtype of its kind that holds every value
    exactly (day numbers in float32, line numbers in uint16, an agent column of zeros in
    uint8...): about 4 MB less at 100k chunks. Index.doc widens it back, value for value."""
    a = np.asarray(a)
    if a.dtype.kind == "f" and a.dtype.itemsize > 4 and len(a):
        small = a.astype(np.float32)
        return small if np.array_equal(small.astype(a.dtype), a, equal_nan=True) else a
    if a.dtype.kind in "iu" and len(a):
        lo, hi = int(a.min()), int(a.max())
        for t in (np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32):
            info = np.iinfo(t)
            if np.dtype(t).itemsize < a.dtype.itemsize and info.min <= lo and hi <= info.max:
                return a.astype(t)
    return a


def load_segment(
    path: Path, first: int, params: IndexParams, deep: bool
) -> tuple[Segment, dict[str, np.ndarray]]:
    """A segment memory-mapped from its pack, and the pack's other arrays. Shapes are
    always checked; `deep` (the file changed since it was last verified) also checks every
    value a query indexes with, which reads whole arrays: too much for every call."""
    from . import pack

    arrays, offsets = pack.read_with_offsets(path)
    post = bm25.Postings(*(arrays.pop(f"post.{n}") for n in POST_FIELDS))
    docs = {n: arrays.pop(f"doc.{n}") for n in DOC_FIELDS}
    sig, sim = arrays.pop("sig"), arrays.pop("sim")
    n = len(docs["start"])
    ok = (
        post.consistent()
        and all(len(v) == n for v in docs.values())
        and sig.shape == (n, params.sig_width)
        and sig.dtype == minhash.stored_dtype(params.sig_bits)
        and sim.shape == (n, params.sim_bytes)
    )
    if ok and deep:
        start, end = docs["start"], docs["end"]
        ok = (
            (n == 0 or (int(start.min()) >= 1 and bool(np.all(end >= start))))
            and bool(np.all(np.isin(docs["vec"], (VEC_MISSING, VEC_MADE, VEC_NONE))))
            and post.documents_within(first, n)
        )
    if not ok:
        raise ValueError(f"inconsistent arrays in {path}")
    return Segment(post, docs, sig, sim, (str(path), offsets["sig"])), arrays


@dataclass
class Build:
    """What building needs besides the Markdown: the provider and where its cache lives."""

    embedder: Embedder | None
    state_dir: Path
    progress: Progress | None = None
    may_stream: bool = False  # .mem/ is writable: a large rebuild may go to disk in pieces
