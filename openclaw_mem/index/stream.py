"""Building the index of a large workspace without holding it in memory.

A rebuild of more than index.STREAM_BYTES of Markdown comes here. The files are read in pieces
of about WINDOW_BYTES (a daily log larger than that in windows that start at an entry
heading); each piece is chunked, analysed, embedded and made into a segment of its own,
whose signatures and postings go to disk at once. At the end the pieces' postings are
merged one term-hash range at a time into the base segment. What is held at once is a few
pieces and the per-document columns (~60 bytes a chunk); the MinHash signatures (512 bytes
a chunk, when a setting asks for them) and the postings never are, and nothing is read
back through a memory map (mapped pages count as the process's memory). The workers chunk,
tokenise and shape each piece and write its postings themselves; the parent only joins them
(and embeds), and the merge's ranges go to the workers too. The index is the same, array for
array, as the one built in memory (a test holds the two equal).
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import os
import shutil
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import numpy as np

from ..errors import BadEncoding
from ..format.logs import _parse_meta
from ..format.markdown import entry_heading
from ..search import bm25, minhash
from ..store.fsutil import SymlinkRefused, open_bytes
from ..store.workspace import day_of
from . import pack
from .segments import (
    DOC_FIELDS,
    HASHES_KEPT,
    Build,
    IndexParams,
    Scan,
    Segment,
    analyze_files,
    analyze_window,
    embed_part,
    empty_docs,
    load_segment,
    narrowest,
    shape,
    with_place,
    worker_processes,
)

if TYPE_CHECKING:
    from ..store.workspace import Workspace

WINDOW_BYTES = 2_000_000  # text analysed at once (~50 MB of Python objects per MB)
BLOCK_PAIRS = 2_000_000  # postings merged at once


@dataclass(frozen=True)
class Window:
    """Part of a large daily log, [lo, hi) in bytes, starting at an entry heading (or the
    file's start). It begins one entry early, so that its first kept entry borrows from the
    one before it exactly as it would in the whole file; that entry's chunks, which belong
    to the window before, are dropped."""

    rel: str
    lo: int
    hi: int
    lines_before: int  # lines of the file before lo
    keep_from: int  # 1-based line: chunks that start earlier belong to the window before


@dataclass(frozen=True)
class Survey:
    sha256: str
    utf8: bool
    windows: list[Window]


def survey(path: Path, rel: str, budget: int) -> Survey:
    """One pass over a daily log: its SHA-256, whether it is UTF-8, and where it can be cut.
    A cut falls only on a line that the log grammar reads as an entry heading: not inside
    front matter, nor inside an entry body whose heading counts its lines (`lines: N`)."""
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")()
    utf8 = True
    windows: list[Window] = []
    lo, before, keep = 0, 0, 1
    prev: tuple[int, int] | None = None  # (byte offset, line index) of the last heading
    pos = 0
    skip = 0
    front = False
    with open_bytes(path, rel) as f:
        for index, line in enumerate(f):
            digest.update(line)
            if utf8:
                try:
                    decoder.decode(line)
                except UnicodeDecodeError:
                    utf8 = False
            if index == 0 and line.lstrip(b"\xef\xbb\xbf").rstrip() == b"---":
                front = True
            elif front:
                front = line.rstrip() != b"---"
            elif skip:
                skip -= 1
            elif line.startswith(b"##"):
                m = entry_heading(line.decode("utf-8", "replace").rstrip("\n"))
                if m:
                    if prev is not None and pos - lo >= budget:
                        windows.append(Window(rel, lo, pos, before, keep))
                        lo, before, keep = prev[0], prev[1], index + 1
                    prev = (pos, index)
                    count = _parse_meta(m["meta"]).get("lines", "")
                    skip = int(count) if count.isdigit() else 0
            pos += len(line)
    if utf8:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            utf8 = False
    windows.append(Window(rel, lo, pos, before, keep))
    return Survey(digest.hexdigest(), utf8, windows)


def _is_log(rel: str) -> bool:
    return rel.startswith("memory/") and day_of(PurePosixPath(rel)) is not None


def _jobs(
    root: Path, items: list[tuple[str, int, int]], records: dict, warnings: list[str]
) -> list[tuple[str, object]]:
    """("files", [(rel, size, mtime)...]) of about WINDOW_BYTES, or ("window", Window)."""
    jobs: list[tuple[str, object]] = []
    batch: list[tuple[str, int, int]] = []
    size = 0
    for rel, sz, mtime in items:
        if sz > WINDOW_BYTES and _is_log(rel):
            if batch:  # documents are numbered in file order
                jobs.append(("files", batch))
                batch, size = [], 0
            try:
                found = survey(root / rel, rel, WINDOW_BYTES)
            except (FileNotFoundError, SymlinkRefused):  # changed since the scan: next refresh
                continue
            record = {"size": sz, "mtime_ns": mtime, "sha256": found.sha256}
            if not found.utf8:
                warnings.append(BadEncoding(root / rel, rel).message)
                records[rel] = {**record, "seg": "bad", "docs": [0, 0]}
                continue
            records[rel] = {**record, "seg": "base", "docs": None}
            jobs += [("window", w) for w in found.windows]
            continue
        batch.append((rel, sz, mtime))
        size += sz
        if size >= WINDOW_BYTES:
            jobs.append(("files", batch))
            batch, size = [], 0
    if batch:
        jobs.append(("files", batch))
    return jobs


@dataclass
class _Made:
    """A job's part as the parent needs it: postings already on disk (a _Piece), the
    per-chunk columns, and what embedding and the file records need."""

    files: dict[str, dict]
    chunk_paths: list[str]
    embed_texts: list[str]
    warnings: list[str]
    docs: dict[str, np.ndarray]
    sig: np.ndarray
    piece: _Piece


_HASHES: dict[str, int] = {}  # a worker's term hashes, kept across its jobs


def _run_job(job: tuple[Path, str, object, IndexParams, tuple, Path]) -> _Made:
    root, kind, what, params, perm, folder = job
    analyze = analyze_window if kind == "window" else analyze_files
    part = analyze(root, what, params)
    if len(_HASHES) > HASHES_KEPT:
        _HASHES.clear()
    made = shape(part, params, perm, _HASHES)
    piece = _save_piece(made.post, folder)
    return _Made(
        part.files, part.chunk_paths, part.embed_texts, part.warnings, made.docs, made.sig, piece
    )


def _parts(jobs: list[tuple], pool) -> Iterator[_Made]:
    """The jobs' results in order; in the pool's workers when there is one, with at most a
    few finished parts waiting, so memory stays bounded whatever the count."""
    if pool is None:
        for job in jobs:
            yield _run_job(job)
        return
    pending: deque = deque()
    todo = iter(jobs)
    for job in todo:
        pending.append(pool.submit(_run_job, job))
        if len(pending) > _workers():
            break
    while pending:
        made = pending.popleft().result()
        nxt = next(todo, None)
        if nxt is not None:
            pending.append(pool.submit(_run_job, nxt))
        yield made


def _workers() -> int:
    return min(os.cpu_count() or 1, 4)


class _Columns:
    """Row-major arrays appended piece by piece to raw files, made .npy at the end."""

    def __init__(self, folder: Path, name: str, dtype: np.dtype, tail: tuple[int, ...] = ()):
        self.path = folder / f"{name}.raw"
        self.dtype, self.tail, self.rows = np.dtype(dtype), tail, 0
        self.file = self.path.open("wb")

    def add(self, a: np.ndarray) -> None:
        a = np.ascontiguousarray(a, self.dtype)
        self.file.write(a.tobytes())
        self.rows += len(a)

    def close(self) -> tuple[Path, np.dtype, tuple[int, ...]]:
        """The raw file, its dtype and shape: what pack.write copies in."""
        self.file.close()
        return self.path, self.dtype, (self.rows, *self.tail)


def _read(path: Path, dtype, lo: int, hi: int) -> np.ndarray:
    dtype = np.dtype(dtype)
    return np.fromfile(path, dtype, count=hi - lo, offset=lo * dtype.itemsize)


@dataclass
class _Piece:
    folder: Path
    terms: int
    pairs: int
    first: int = 0  # the id of its first document in the whole index (set by the parent)


def _save_piece(post: tuple[np.ndarray, ...], folder: Path) -> _Piece:
    """A piece's plain term-major postings (terms, ptr, docs, tfs, ctfs) as raw files."""
    folder.mkdir()
    for name, a in zip(("terms", "ptr", "docs", "tfs", "ctfs"), post, strict=True):
        np.ascontiguousarray(a).tofile(folder / name)
    return _Piece(folder, len(post[0]), len(post[2]))


POST_OUT = (
    ("terms", np.uint64),
    ("ptr", np.int64),
    ("bptr", np.int64),
    ("gaps", np.uint8),
    ("freqs", np.uint8),
    ("bigpos", np.int64),
    ("bigtf", np.float32),
    ("bigctf", np.float32),
)
# Positions that count from the start of their block and must be moved by what the blocks
# before it hold: postings (ptr, bigpos) and gap bytes (bptr).
_SHIFTED = {"ptr": 0, "bigpos": 0, "bptr": 1}


def _merge_postings(
    pieces: list[_Piece], scratch: Path, block_pairs: int | None = None, pool=None
) -> dict:
    """The pieces' postings as one term-major segment, packed (bm25.Postings), as raw
    files for pack.write: a term-hash range (a block) at a time, the blocks in the pool's
    workers when there is one. Hashes are uniform, so ranges hold about equal shares;
    documents stay ascending within a term because the pieces are in document order and
    the sort is stable."""
    total = sum(p.pairs for p in pieces)
    blocks = max(1, -(-total // (block_pairs or BLOCK_PAIRS)))
    if pool is not None and total:
        workers = _workers()
        blocks = -(-blocks // workers) * workers  # every worker busy to the end
    bounds = np.array([(i << 64) // blocks for i in range(1, blocks)], np.uint64)
    cuts = []
    for p in pieces:
        terms = np.fromfile(p.folder / "terms", np.uint64)
        ptr = np.fromfile(p.folder / "ptr", np.int64)
        idx = np.r_[0, np.searchsorted(terms, bounds), len(terms)]
        cuts.append((idx, ptr[idx]))
    scratch.mkdir()
    jobs = []
    for b in range(blocks):
        spans = [
            (p, int(idx[b]), int(idx[b + 1]), int(at[b]), int(at[b + 1]))
            for p, (idx, at) in zip(pieces, cuts, strict=True)
            if at[b + 1] > at[b]
        ]
        if spans:
            jobs.append((spans, scratch / f"b{b}"))
    done = list(pool.map(_merge_block, jobs) if pool is not None else map(_merge_block, jobs))
    out = {name: _Columns(scratch, name, dtype) for name, dtype in POST_OUT}
    moved = [0, 0]  # postings and gap bytes of the blocks so far
    for (_, folder), (posted, written) in zip(jobs, done, strict=True):
        for name, dtype in POST_OUT:
            a = np.fromfile(folder / name, dtype)
            if name in _SHIFTED:
                a += moved[_SHIFTED[name]]
            out[name].add(a)
        moved[0] += posted
        moved[1] += written
        shutil.rmtree(folder)
    out["ptr"].add(np.array([moved[0]], np.int64))
    out["bptr"].add(np.array([moved[1]], np.int64))
    return {f"post.{name}": col.close() for name, col in out.items()}


def _merge_block(job: tuple[list[tuple[_Piece, int, int, int, int]], Path]) -> tuple[int, int]:
    """One term-hash range of every piece, sorted by term and packed into `folder` (its
    positions counted from the block's start); returns its postings and gap bytes."""
    spans, folder = job
    keys, docs, tfs, ctfs = [], [], [], []
    for p, i0, i1, a0, a1 in spans:
        ptr = _read(p.folder / "ptr", np.int64, i0, i1 + 1)
        keys.append(np.repeat(_read(p.folder / "terms", np.uint64, i0, i1), np.diff(ptr)))
        docs.append(_read(p.folder / "docs", np.int32, a0, a1) + np.int32(p.first))
        tfs.append(_read(p.folder / "tfs", np.float32, a0, a1))
        ctfs.append(_read(p.folder / "ctfs", np.float32, a0, a1))
    k = np.concatenate(keys)
    order = np.argsort(k, kind="stable")
    k = k[order]
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    ptr = np.r_[starts, len(k)].astype(np.int64)
    enc = bm25.encode(
        ptr,
        np.concatenate(docs)[order],
        np.concatenate(tfs)[order],
        np.concatenate(ctfs)[order],
    )
    arrays = {
        "terms": k[starts],
        "ptr": ptr[:-1],
        "bptr": enc["bptr"][:-1],
        **{name: enc[name] for name in ("gaps", "freqs", "bigpos", "bigtf", "bigctf")},
    }
    folder.mkdir()
    for name, dtype in POST_OUT:
        np.ascontiguousarray(arrays[name], dtype).tofile(folder / name)
    return int(ptr[-1]), len(enc["gaps"])


@dataclass
class Streamed:
    """A base segment written by a streamed rebuild, and what the index records about it."""

    name: str  # its folder under the index directory
    base: Segment  # memory-mapped from that folder
    perm: tuple[np.ndarray, np.ndarray]
    paths: list[str]
    files: dict[str, dict]
    dim: int
    warnings: list[str]
    stats: dict


def _doc_columns(
    columns: dict[str, list[np.ndarray]], used: list[str], all_paths: list[str]
) -> dict[str, np.ndarray]:
    """The per-chunk columns of every part joined, path ids renumbered to the paths that
    kept a chunk (`used`), each column in its narrowest dtype."""
    new_id = {p: i for i, p in enumerate(used)}
    remap = np.array([new_id.get(p, -1) for p in all_paths], np.int32)
    out = {}
    for f in DOC_FIELDS:
        empty = empty_docs()[f]
        joined = np.concatenate(columns[f]) if columns[f] else empty
        if f == "path_id" and len(joined):
            joined = remap[joined]
        out[f"doc.{f}"] = narrowest(joined.astype(empty.dtype))
    return out


def _record_files(files: dict, records: dict, kind: str, what, made: _Made, n: int) -> None:
    """The records of the files a job read, their documents numbered from `n`; a large log
    read in windows takes each window's documents in turn."""
    if kind == "window":
        rec = records[what.rel]
        rec["docs"] = [n if rec["docs"] is None else rec["docs"][0], n + len(made.chunk_paths)]
        files[what.rel] = rec
    for rel, rec in made.files.items():
        lo, hi = rec["docs"]
        bad = rec["seg"] == "bad"
        files[rel] = {**rec, "docs": [0, 0] if bad else [lo + n, hi + n]}


def rebuild(ws: Workspace, params: IndexParams, scan: Scan, build: Build, root: Path) -> Streamed:
    """A full rebuild written straight into a new base folder under `root` (the index
    directory); the caller saves the (empty) delta and switches meta.json to both."""
    perm = minhash.permutations(params.num_perm, params.seed)
    items = [(rel, st[0], st[1]) for rel, st in sorted(scan.stats.items())]
    warnings: list[str] = []
    records: dict[str, dict] = {}
    jobs = _jobs(ws.root, items, records, warnings)
    root.mkdir(parents=True, exist_ok=True)
    gen = int.from_bytes(os.urandom(4), "little")
    name = f"base-{gen:08x}.pack"
    target = root / name
    work = root / f"build-{gen:08x}"
    work.mkdir()
    # One pool for the whole build, started before the parent holds anything of it (a
    # fork copies nothing large); the parent only joins what the workers made.
    parallel = _workers() >= 2 and len(jobs) >= 2
    job = _Job(ws, params, perm, build, work, sorted(scan.stats), records, warnings)
    try:
        with worker_processes(_workers()) if parallel else contextlib.nullcontext() as pool:
            used, files, dim = _build(job, jobs, target, pool)
        base, _ = load_segment(target, 0, params, deep=False)
    except BaseException:
        with contextlib.suppress(OSError):
            target.unlink()
        raise
    finally:
        _HASHES.clear()  # (built in this process when there was no pool: not kept after)
        shutil.rmtree(work, ignore_errors=True)
    stats = {"mode": "rebuild", "files": len(items), "chunks": base.n, "pieces": len(jobs)}
    return Streamed(name, base, perm, used, files, dim, warnings, stats)


@dataclass
class _Job:
    """What every piece of one streamed build shares."""

    ws: Workspace
    params: IndexParams
    perm: tuple[np.ndarray, np.ndarray]
    build: Build
    work: Path  # its scratch folder
    all_paths: list[str]
    records: dict[str, dict]  # the large logs read in windows
    warnings: list[str]


def _build(job: _Job, jobs: list, target: Path, pool) -> tuple[list[str], dict, int]:
    """The pieces made (in `pool` when there is one), joined and written to `target`:
    returns the paths that kept a chunk, the file records and the embeddings' width."""
    params, build = job.params, job.build
    path_ids = {p: i for i, p in enumerate(job.all_paths)}
    sig = _Columns(job.work, "sig", minhash.stored_dtype(params.sig_bits), (params.sig_width,))
    sim = _Columns(job.work, "sim", np.uint8, (params.sim_bytes,))
    columns: dict[str, list[np.ndarray]] = {f: [] for f in DOC_FIELDS}
    pieces: list[_Piece] = []
    files: dict[str, dict] = {}
    n = dim = 0
    tasks = [
        (job.ws.root, kind, what, params, job.perm, job.work / f"p{j}")
        for j, (kind, what) in enumerate(jobs)
    ]
    for j, made in enumerate(_parts(tasks, pool)):
        kind, what = jobs[j]
        size = len(made.chunk_paths)
        _record_files(files, job.records, kind, what, made, n)
        job.warnings.extend(made.warnings)
        vectors = embed_part(made, params, build.embedder, build.state_dir, dim, job.warnings, None)
        dim = dim or vectors.dim
        docs = with_place(made.docs, made.chunk_paths, path_ids, vectors)
        for f in DOC_FIELDS:
            columns[f].append(docs[f])
        sig.add(made.sig)
        sim.add(vectors.sim)
        made.piece.first = n
        pieces.append(made.piece)
        n += size
        del made, docs
        if build.progress:
            build.progress(j + 1, len(jobs), what.rel if kind == "window" else what[-1][0])
    files.update({rel: rec for rel, rec in job.records.items() if rec["seg"] == "bad"})
    used = sorted(
        rel for rel, rec in files.items() if rec["seg"] != "bad" and rec["docs"][1] > rec["docs"][0]
    )
    arrays: dict = _merge_postings(pieces, job.work / "merge", pool=pool)
    arrays.update(_doc_columns(columns, used, job.all_paths))
    del columns
    arrays.update({"sig": sig.close(), "sim": sim.close()})
    arrays.update({"perm_a": job.perm[0], "perm_b": job.perm[1]})
    # Written under a name nothing points at yet: until the caller switches meta.json to
    # it, an interruption leaves the previous index whole.
    pack.write(target, arrays)
    return used, files, dim
