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
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import BadEncoding
from ..search import bm25, minhash, simhash
from ..store.fsutil import SymlinkRefused, atomic_write_text, decode, read_bytes
from ..store.workspace import Workspace
from .segments import (
    DOC_FIELDS,
    POST_FIELDS,
    SCHEMA,
    VEC_MADE,
    VEC_MISSING,
    VEC_NONE,
    Build,
    IndexParams,
    Progress,
    Scan,
    Segment,
    agent_key,
    analyze_all,
    analyze_files,
    days_since_epoch,
    embed_part,
    empty_segment,
    load_segment,
    save_segment,
    segment_from,
    sha256_hex,
)

__all__ = [
    "DOC_FIELDS",
    "POST_FIELDS",
    "SCHEMA",
    "VEC_MADE",
    "VEC_MISSING",
    "VEC_NONE",
    "Index",
    "IndexParams",
    "Segment",
    "agent_key",
    "days_since_epoch",
    "index_state",
    "open_index",
    "read_rows",
]

STREAM_BYTES = 8_000_000  # a rebuild of more Markdown is streamed (index_stream.py)
INDEX_DIR = "index"

if TYPE_CHECKING:
    from ..embed.base import Embedder


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


def _digest(path: Path, h, rel: str | None = None) -> str:
    """A file's digest, read a megabyte at a time (never whole), refusing a symlink."""
    from ..store.fsutil import open_bytes

    with open_bytes(path, rel) as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _file_hash(path: Path) -> str:
    return _digest(path, hashlib.blake2b(digest_size=16))


def _scan(ws: Workspace, params: IndexParams) -> Scan:
    found = ws.scan(params.include, params.exclude)
    if ws.memory_dir.is_symlink():
        found = {rel: st for rel, st in found.items() if not rel.startswith("memory/")}
    return Scan(
        {rel: (st.st_size, st.st_mtime_ns) for rel, st in found.items()},
        {rel: ws.root / rel for rel in found},
    )


class _StreamInstead(Exception):
    """A refresh would re-read more than STREAM_BYTES: a streamed rebuild costs less."""


def _read(ws: Workspace, rel: str, path: Path, size: int = 0) -> tuple[str | None, str, str | None]:
    """(text or None if not UTF-8, sha256, warning). A file larger than STREAM_BYTES is only
    hashed, in pieces ("" for its text): if it changed, the streamed rebuild reads it."""
    if size > STREAM_BYTES:
        try:
            return "", _digest(path, hashlib.sha256(), rel), None
        except (FileNotFoundError, SymlinkRefused):
            return None, "", None
    try:
        data = read_bytes(path, rel)
    except (FileNotFoundError, SymlinkRefused):
        return None, "", None
    sha = sha256_hex(data)
    try:
        return decode(data, path, rel), sha, None
    except BadEncoding as exc:
        return None, sha, exc.message


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
        base = load_segment(self.root / meta["base"], 0, params, meta["base"] in touched)
        delta = load_segment(self.root / meta["delta"], base.n, params, meta["delta"] in touched)
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
            save_segment(index.base, self.root / base_name)
            np.save(self.root / base_name / "perm_a.npy", index.perm[0])
            np.save(self.root / base_name / "perm_b.npy", index.perm[1])
        delta_name = f"delta-{gen:08x}"
        save_segment(index.delta, self.root / delta_name)
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
    from ..store.fsutil import lock_file

    with lock_file(state_dir / "index.lock", optional=True) as held:
        yield held


# ----------------------------------------------------------------- refresh


def _new_index(params: IndexParams, perm: tuple[np.ndarray, np.ndarray]) -> Index:
    return Index(
        params,
        [],
        empty_segment(params),
        empty_segment(params),
        np.zeros(0, bool),
        perm,
        {},
    )


def _rebuild(ws: Workspace, params: IndexParams, scan: Scan, build: Build) -> Index:
    perm = minhash.permutations(params.num_perm, params.seed)
    index = _new_index(params, perm)
    items = [(rel, *scan.stats[rel]) for rel in sorted(scan.paths)]
    part = analyze_all(ws.root, items, params, build.progress)
    index.warnings += part.warnings
    index.paths = sorted(set(part.chunk_paths))
    path_ids = {p: i for i, p in enumerate(index.paths)}
    vectors = embed_part(
        part, params, build.embedder, build.state_dir, 0, index.warnings, build.progress
    )
    index.dim = vectors.dim
    index.base = segment_from(part, path_ids, 0, params, perm, vectors)
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
    docs = {name: index.doc(name)[keep] for name in DOC_FIELDS}
    sig = np.concatenate([np.asarray(index.base.sig), np.asarray(index.delta.sig)])[keep]
    sim = np.concatenate([np.asarray(index.base.sim), np.asarray(index.delta.sim)])[keep]
    for rec in index.files.values():
        lo, hi = rec["docs"]
        if rec["seg"] in ("base", "delta") and hi > lo:
            new_lo = int(new_ids[lo]) if keep[lo] else int(keep[:lo].sum())
            rec["docs"] = [new_lo, new_lo + (hi - lo)]
            rec["seg"] = "base"
    index.base = Segment(post, docs, sig, sim)
    index.delta = empty_segment(index.params)
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


def _changes(ws: Workspace, index: Index, scan: Scan) -> tuple[set[str], dict[str, dict], bool]:
    """What the scan finds against the index: the files whose text changed, the files that
    cannot be read as text now (their records), and whether any file was only touched."""
    changed: set[str] = set()
    bad: dict[str, dict] = {}
    touched_stat = False
    for rel, (size, mtime) in scan.stats.items():
        rec = index.files.get(rel)
        if rec and rec["size"] == size and rec["mtime_ns"] == mtime:
            if rec["seg"] == "bad":
                index.warnings.append(BadEncoding(scan.paths[rel], rel).message)
            continue
        text, sha, warning = _read(ws, rel, scan.paths[rel], size)
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
    return changed, bad, touched_stat


def _refresh(ws: Workspace, index: Index, scan: Scan, build: Build) -> tuple[Index, bool, bool]:
    """Bring a loaded index up to date. Returns (index, changed, base_changed)."""
    params = index.params
    changed, bad, touched_stat = _changes(ws, index, scan)
    retry = set()
    if build.embedder is not None and index.missing_vectors:
        from ..embed.cache import VectorCache, folder_for

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
    if build.may_stream and sum(size for _, size, _ in items) > STREAM_BYTES:
        raise _StreamInstead
    part = analyze_files(ws.root, items, params)
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
    vectors = embed_part(
        part, params, build.embedder, build.state_dir, index.dim, index.warnings, build.progress
    )
    index.dim = index.dim or vectors.dim
    index.delta = segment_from(part, path_ids, nb, params, index.perm, vectors)
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


def _streamed(ws, params, scan, build, store, must_save) -> tuple[Index | None, str | None]:
    """A streamed rebuild (stream.py) as an index whose base is on disk; (None, None) when
    the disk refused it midway (full, read-only): the caller builds in memory instead."""
    from . import stream as index_stream

    try:
        made = index_stream.rebuild(ws, params, scan, build, store.root)
    except OSError as exc:
        if must_save:
            from ..errors import WriteError

            raise WriteError(store.root, exc) from None
        return None, None  # saving the in-memory build will say what the disk said
    index = _new_index(params, made.perm)
    index.paths, index.base, index.files = made.paths, made.base, made.files
    index.dim = made.dim
    index.live = np.ones(made.base.n, bool)
    index.warnings, index.stats = made.warnings, made.stats
    return index, made.name


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
    build = Build(embedder, ws.state_dir, progress)
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
        build.may_stream = writable
        if index is not None:
            with contextlib.suppress(Exception):
                base_name = json.loads(store.meta_path.read_text(encoding="utf-8"))["base"]
            try:
                index, changed, base_changed = _refresh(ws, index, scan, build)
            except _StreamInstead:  # so much changed that a rebuild in pieces costs less
                index = None
        if index is None:
            total = sum(size for size, _ in scan.stats.values())
            if writable and total > STREAM_BYTES:
                index, base_name = _streamed(ws, params, scan, build, store, must_save)
            if index is None:  # small, or the disk refused the streamed build: in memory
                index, base_name = _rebuild(ws, params, scan, build), None
            changed, base_changed = True, base_name is None
        if note:
            index.warnings.insert(0, note)
        for rel in ws.links:
            index.warnings.append(
                f"{rel} is a symlink; not indexed (memory is read from real files)"
            )
        for rel in ws.odd_names:
            index.warnings.append(f"{rel}: the file name is not valid UTF-8; not indexed")
        if changed and not writable and must_save:
            from ..errors import WriteError

            raise WriteError(ws.state_dir, PermissionError(13, "permission denied"))
        if changed and writable:
            try:
                store.save(index, base_changed, base_name)
            except OSError as exc:
                if must_save:
                    from ..errors import WriteError

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
