"""The recall index: a cache in .mem/index/, rebuilt from the Markdown whenever in doubt.

Layout: a small `meta.json` (schema and parameter stamp, which files are current and their
checksums) and three packs (pack.py: arrays in one file, one memory map each): a large
`base` segment, a small `delta` segment, and the file table (table.py: per file its stat,
SHA-256 and the documents it owns). Every call walks the memory files and stats each one
(walk.py says why that, and no less); a refresh re-chunks only files whose stat differs
(SHA-256 to confirm): their old documents are masked dead in the base, and the delta is
rebuilt from the files it owns. When the delta outgrows a
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
from ..text import blake2b
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
    empty_docs,
    empty_segment,
    load_segment,
    save_segment,
    segment_from,
    sha256_hex,
)
from .table import FileTable, racy
from .walk import walk

STAT_KEYS = ("size", "mtime_ns", "ctime_ns", "ino")
_DOC_DTYPES = {name: a.dtype for name, a in empty_docs().items()}

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
    records: dict[str, dict] | None = None  # per file, made from `table` when first needed
    dim: int = 0  # embedding dimension (0: no vectors yet)
    warnings: list[str] = field(default_factory=list)
    stats: dict = field(default_factory=dict)  # what the last refresh did
    table: FileTable | None = None  # the file table as loaded (None once records replace it)
    stored: tuple[str | None, str | None] = (None, None)  # base and delta packs on disk
    started_ns: int = 0  # when the walk this index was checked against began
    _joined: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def files(self) -> dict[str, dict]:
        """Per file: size, mtime_ns, ctime_ns, ino, sha256, seg and docs."""
        if self.records is None:
            self.records = self.table.records() if self.table is not None else {}
        return self.records

    @files.setter
    def files(self, value: dict[str, dict]) -> None:
        self.records, self.table = value, None

    def known(self) -> dict:
        """rel -> the stat the index holds (None: read again), from the table if loaded."""
        if self.records is None and self.table is not None:
            return self.table.stats()
        return {rel: tuple(rec.get(k) for k in STAT_KEYS) for rel, rec in self.files.items()}

    def doc(self, name: str) -> np.ndarray:
        """A per-document array over base and delta. The join is kept until either part is
        replaced: a resident process answers many queries from one index."""
        parts = (self.base.docs[name], self.delta.docs[name])
        kept = self._joined.get(name)
        if kept is None or kept[0] is not parts[0] or kept[1] is not parts[1]:
            # Columns are stored narrowed (segments.narrowest): widened here, exactly.
            joined = np.concatenate(parts, dtype=_DOC_DTYPES[name])
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

    def signature_rows(self, docs: np.ndarray) -> np.ndarray:
        """The stored MinHash signatures of some documents (base and delta)."""
        base, delta, nb = self.base, self.delta, self.base.n
        docs = np.asarray(docs, np.int64)
        out = np.empty((len(docs), *base.sig.shape[1:]), base.sig.dtype)
        low = docs < nb
        out[low] = read_rows(base.sig, docs[low], base.sig_at)
        out[~low] = read_rows(delta.sig, docs[~low] - nb, delta.sig_at)
        return out


def _digest(path: Path, h, rel: str | None = None) -> str:
    """A file's digest, read a megabyte at a time (never whole), refusing a symlink."""
    from ..store.fsutil import open_bytes

    with open_bytes(path, rel) as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _file_hash(path: Path) -> str:
    return _digest(path, blake2b(digest_size=16))


class _StreamInstead(Exception):
    """A refresh would re-read more than STREAM_BYTES: a streamed rebuild costs less."""


def _read(ws: Workspace, rel: str, path: Path, size: int = 0) -> tuple[str | None, str, str | None]:
    """(text or None if not UTF-8, sha256, warning). A file larger than STREAM_BYTES is only
    hashed, in pieces ("" for its text): if it changed, the streamed rebuild reads it."""
    if size > STREAM_BYTES:
        try:
            from hashlib import sha256  # OpenSSL's, loaded only where a file is read

            return "", _digest(path, sha256(), rel), None
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


def read_rows(a: np.ndarray, rows: np.ndarray, at: tuple[str, int] | None = None) -> np.ndarray:
    """Some rows of a 2-D array, as a copy. From a memory map (a np.memmap, or an array of
    a pack at `at`: its file and offset), a few rows are read with pread: touching
    scattered rows through the map pages in their neighbourhood too (the kernel maps up to
    64 KB around each fault), which at 100k chunks charged ~40 MB to a query whose MMR
    compared a few hundred signatures."""
    rows = np.asarray(rows, np.int64)
    if at is not None:
        name, offset = at
    else:
        name = getattr(a, "filename", None)
        offset = getattr(a, "offset", 0)
        if not isinstance(a, np.memmap):
            name = None
    if not name or len(rows) > PREAD_ROWS:
        return np.array(a[rows])
    out = np.empty((len(rows), *a.shape[1:]), a.dtype)
    size = out[0].nbytes if len(rows) else 0
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for i, r in enumerate(rows.tolist()):
            data = os.pread(fd, size, offset + r * size)
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

    @property
    def verified_path(self) -> Path:
        return self.root / "verified.json"

    def _stats(self, names) -> dict[str, list[int]]:
        out = {}
        for name in names:
            st = os.stat(self.root / name)
            out[name] = [st.st_size, st.st_mtime_ns, st.st_ino]
        return out

    def _verify(self, meta: dict) -> tuple[set[str], dict]:
        """Every pack against the checksum written with it. Hashing is paid only for a file
        whose (size, mtime, inode) differs from when it was last verified (or written): a
        same-size overwrite, a zeroed or swapped array, is caught on the next open. Returns
        the files hashed now, and the stats to record once their values have been checked
        too."""
        sums = meta.get("checksums")
        if not isinstance(sums, dict) or set(sums) != {meta["base"], meta["delta"], meta["files"]}:
            raise ValueError("no checksums")
        stats = self._stats(sums)
        try:
            with open(self.verified_path, encoding="utf-8") as f:
                seen = json.loads(f.read())
        except (OSError, ValueError):
            seen = {}
        if not isinstance(seen, dict):
            seen = {}
        changed = {name for name in sums if seen.get(name) != stats[name]}
        for name in sorted(changed):
            if _file_hash(self.root / name) != sums[name]:
                raise ValueError(f"{name} does not match its checksum")
        return changed, stats

    def load(self, params: IndexParams) -> Index | None:
        """The index meta.json points at. Another process may switch meta.json to a new
        generation and remove the old one while this reads it: a pack that vanished is
        read again from the meta that replaced it (the arrays already mapped stay valid)."""
        for attempt in range(4):
            try:
                return self._load(params)
            except FileNotFoundError:
                time.sleep(0.01 * (attempt + 1))
        return None  # still moving under us: rebuilt from the Markdown instead

    def _load(self, params: IndexParams) -> Index | None:
        try:
            with open(self.meta_path, encoding="utf-8") as f:
                meta = json.loads(f.read())
        except FileNotFoundError:
            return None
        params = params.opening(meta.get("stamp"))
        if params is None:
            return None
        changed, stats = self._verify(meta)
        base, extra = load_segment(self.root / meta["base"], 0, params, meta["base"] in changed)
        delta, more = load_segment(
            self.root / meta["delta"], base.n, params, meta["delta"] in changed
        )
        from . import pack

        table, paths = FileTable.from_arrays(pack.read(self.root / meta["files"]))
        live, perm = more["live"], (extra["perm_a"], extra["perm_b"])
        p = params.num_perm
        if len(live) != base.n + delta.n or len(perm[0]) != p or len(perm[1]) != p:
            raise ValueError("inconsistent live mask or permutations")
        if changed:
            pid = np.concatenate([base.docs["path_id"], delta.docs["path_id"]])
            if len(pid) and (pid.min() < 0 or pid.max() >= len(paths)):
                raise ValueError("path table does not cover the documents")
            ends = np.r_[table.lo, table.hi]
            if len(ends) and (ends.min() < 0 or ends.max() > len(live)):
                raise ValueError("file table does not fit the documents")
            with contextlib.suppress(OSError):
                atomic_write_text(self.verified_path, json.dumps(stats))
        return Index(
            params,
            paths,
            base,
            delta,
            live,
            perm,
            dim=int(meta["dim"]),
            table=table,
            stored=(meta["base"], meta["delta"]),
        )

    def save(self, index: Index, level: str) -> None:
        """Write what changed (`level`: "files" the file table only, "delta" the delta too,
        "base" everything), then switch meta.json to it. Each pack gets a new name, so a
        reader never sees one half-written: until meta.json is replaced (atomically) it
        points at the previous generation, whole; an interrupted save leaves that."""
        from . import pack

        self.root.mkdir(parents=True, exist_ok=True)
        gen = f"{int.from_bytes(os.urandom(4), 'little'):08x}"
        base_name, delta_name = index.stored
        if level == "base" or base_name is None:
            base_name = f"base-{gen}.pack"
            perm = {"perm_a": index.perm[0], "perm_b": index.perm[1]}
            save_segment(index.base, self.root / base_name, perm)
        if level in ("base", "delta") or delta_name is None:
            delta_name = f"delta-{gen}.pack"
            save_segment(index.delta, self.root / delta_name, {"live": index.live})
        files_name = f"files-{gen}.pack"
        table = FileTable.of(index.files, index.started_ns)
        pack.write(self.root / files_name, table.arrays(index.paths))
        names = (base_name, delta_name, files_name)
        old = {}
        with contextlib.suppress(OSError, ValueError), open(self.meta_path, encoding="utf-8") as f:
            old = json.loads(f.read()).get("checksums") or {}
        old = old if isinstance(old, dict) else {}
        checksums = {
            name: old[name]
            if name in old and name in index.stored
            else _file_hash(self.root / name)
            for name in names
        }
        meta = {
            "stamp": index.params.stamp(),
            "checksums": checksums,
            "base": base_name,
            "delta": delta_name,
            "files": files_name,
            "dim": index.dim,
            "missing_vectors": index.missing_vectors,
            "written": datetime.now().isoformat(timespec="seconds"),
        }
        atomic_write_text(self.meta_path, json.dumps(meta, ensure_ascii=False))
        index.stored = (base_name, delta_name)
        # What was just written from consistent arrays needs no hashing on the next open.
        with contextlib.suppress(OSError):
            atomic_write_text(self.verified_path, json.dumps(self._stats(names)))
        keep = {*names, "meta.json", "verified.json"}
        for child in self.root.iterdir():  # earlier generations nobody points at
            if child.name in keep:
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    child.unlink()


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


def _items(scan: Scan, rels) -> list[tuple[str, int, int]]:
    """(rel, size, mtime_ns) of files the scan found, in path order: what analysis reads."""
    return [
        (rel, scan.stats[rel][0], scan.stats[rel][1]) for rel in sorted(rels) if rel in scan.stats
    ]


def _stamp(records: dict[str, dict], scan: Scan, rels) -> None:
    """Give the records of `rels` the stat the walk found (what the next call compares)."""
    for rel in rels:
        st = scan.stats.get(rel)
        if st is not None and rel in records:
            records[rel].update(zip(STAT_KEYS, st, strict=True))


def _rebuild(ws: Workspace, params: IndexParams, scan: Scan, build: Build) -> Index:
    perm = minhash.permutations(params.num_perm, params.seed)
    index = _new_index(params, perm)
    items = _items(scan, scan.stats)
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
    _stamp(part.files, scan, part.files)
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


def _bad_warnings(ws: Workspace, index: Index, scan: Scan, suspects: list[str]) -> None:
    """The files the index holds as not UTF-8 say so on every call, as long as they are."""
    if index.records is None and index.table is not None:
        table = index.table
        bad = [table.names[i] for i in np.flatnonzero(table.seg == 2).tolist()]
    else:
        bad = [rel for rel, rec in index.files.items() if rec["seg"] == "bad"]
    if bad:
        again = set(suspects)
        for rel in sorted(bad):
            if rel in scan.stats and rel not in again:
                index.warnings.append(BadEncoding(ws.root / rel, rel).message)


def _changes(
    ws: Workspace, index: Index, scan: Scan, suspects: list[str]
) -> tuple[set[str], dict[str, dict], bool]:
    """What the files whose stat differs hold now: the files whose text changed, the files
    that cannot be read as text now (their records), and whether any was only touched."""
    changed: set[str] = set()
    bad: dict[str, dict] = {}
    touched_stat = False
    for rel in suspects:
        rec = index.files.get(rel)
        size = scan.stats[rel][0]
        text, sha, warning = _read(ws, rel, ws.root / rel, size)
        if rec and rec["sha256"] == sha:
            st = scan.stats[rel]
            if tuple(rec.get(k) for k in STAT_KEYS) != st or not racy(st, scan.started_ns):
                # touched, not changed; or read again while racy and now settled: either
                # way the table should say so (a file still racy is simply read again)
                rec.update(zip(STAT_KEYS, st, strict=True))
                touched_stat = True
            if warning:
                index.warnings.append(warning)
            continue
        if text is None:
            if warning:
                index.warnings.append(warning)
            bad[rel] = {"sha256": sha, "seg": "bad", "docs": [0, 0]}
            bad[rel].update(zip(STAT_KEYS, scan.stats[rel], strict=True))
        else:
            changed.add(rel)
    return changed, bad, touched_stat


def _delta_files(index: Index, gone: set[str], bad: dict, analysed: dict) -> dict:
    """The file records after a refresh: the base's files still live, the bad ones, and
    each file just analysed, its chunk numbers moved past the base into the delta."""
    nb = index.base.n
    files = {
        rel: rec for rel, rec in index.files.items() if rel not in gone and rec["seg"] != "delta"
    }
    files.update(bad)
    for rel, rec in analysed.items():
        lo, hi = rec["docs"]
        files[rel] = {
            **index.files.get(rel, {}),
            **rec,
            "seg": "delta" if rec["seg"] != "bad" else "bad",
            "docs": [nb + lo, nb + hi] if rec["seg"] != "bad" else [0, 0],
        }
    return files


def _refresh(
    ws: Workspace, index: Index, scan: Scan, build: Build, known: dict
) -> tuple[Index, str]:
    """Bring a loaded index up to date (`known`: index.known()). Returns the index and what
    must be saved: "" (it was fresh), "files" (only stats moved), "delta" or "base"."""
    params = index.params
    suspects = [rel for rel, st in scan.stats.items() if known.get(rel) != st]
    deleted = sorted(known.keys() - scan.stats.keys())
    _bad_warnings(ws, index, scan, suspects)
    lacking = set()
    if build.embedder is not None and index.missing_vectors:
        from ..embed.cache import VectorCache, folder_for

        if not VectorCache(folder_for(build.state_dir, params.embed)).unavailable():
            lacking = _lacking_vectors(index)
    if not suspects and not deleted and not lacking:
        return index, ""  # the common case: nothing was read, nothing is written
    changed, bad, touched_stat = _changes(ws, index, scan, sorted(suspects))
    retry = lacking & set(scan.stats) - changed - set(bad)
    changed |= retry
    gone = set(deleted) | set(changed) | set(bad)
    if not gone:
        return index, "files" if touched_stat else ""

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
    items = _items(scan, owned)
    if build.may_stream and sum(size for _, size, _ in items) > STREAM_BYTES:
        raise _StreamInstead
    part = analyze_files(ws.root, items, params)
    index.warnings += part.warnings
    files = _delta_files(index, gone, bad, part.files)
    _stamp(files, scan, set(part.files) & (changed | retry))
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
    if index.delta.n > max(2000, 0.05 * nb) or dead > 0.25 * max(nb, 1):
        return _merge(index), "base"
    return index, "delta"


def _streamed(ws, params, scan, build, store, must_save) -> Index | None:
    """A streamed rebuild (stream.py) as an index whose base is on disk; None when the
    disk refused it midway (full, read-only): the caller builds in memory instead."""
    from . import stream as index_stream

    try:
        made = index_stream.rebuild(ws, params, scan, build, store.root)
    except OSError as exc:
        if must_save:
            from ..errors import WriteError

            raise WriteError(store.root, exc) from None
        return None  # saving the in-memory build will say what the disk said
    index = _new_index(params, made.perm)
    index.paths, index.base = made.paths, made.base
    _stamp(made.files, scan, made.files)
    index.files = made.files
    index.dim = made.dim
    index.live = np.ones(made.base.n, bool)
    index.warnings, index.stats = made.warnings, made.stats
    index.stored = (made.name, None)
    return index


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
        known = index.known() if index is not None else {}
        scan = walk(ws, params.include, params.exclude, known)
        level = ""
        build.may_stream = writable
        if index is not None:
            index.started_ns = scan.started_ns
            try:
                index, level = _refresh(ws, index, scan, build, known)
            except _StreamInstead:  # so much changed that a rebuild in pieces costs less
                index = None
        if index is None:
            total = sum(st[0] for st in scan.stats.values())
            if writable and total > STREAM_BYTES:
                index = _streamed(ws, params, scan, build, store, must_save)
            if index is None:  # small, or the disk refused the streamed build: in memory
                index = _rebuild(ws, params, scan, build)
            level = "base" if index.stored[0] is None else "delta"
            index.started_ns = scan.started_ns
        if note:
            index.warnings.insert(0, note)
        for rel in ws.links:
            index.warnings.append(
                f"{rel} is a symlink; not indexed (memory is read from real files)"
            )
        for rel in ws.odd_names:
            index.warnings.append(f"{rel}: the file name is not valid UTF-8; not indexed")
        if level and not writable and must_save:
            from ..errors import WriteError

            raise WriteError(ws.state_dir, PermissionError(13, "permission denied"))
        if level and writable:
            try:
                store.save(index, level)
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
    vector source it holds. Reads only meta.json and the file table; never rebuilds."""
    from . import pack

    store = _Store(ws.state_dir / INDEX_DIR)
    vectors = params.embed or "MinHash (no embedding model)"
    try:
        with open(store.meta_path, encoding="utf-8") as f:
            meta = json.loads(f.read())
        table, _ = FileTable.from_arrays(pack.read(store.root / meta["files"]))
    except (OSError, ValueError, KeyError, TypeError):
        return {"exists": False, "fresh": False, "files": 0, "chunks": 0, "vectors": vectors}
    scan = walk(ws, params.include, params.exclude)
    stale = params.opening(meta.get("stamp")) is None or table.stale_against(scan.stats)
    built_with = (meta.get("stamp") or {}).get("embed", "")
    return {
        "exists": True,
        "fresh": not stale,
        "files": len(table.names),
        "chunks": table.chunks(),
        "vectors": built_with or "MinHash (no embedding model)",
        "missingVectors": int(meta.get("missing_vectors", 0)) if built_with else 0,
        "written": meta.get("written"),
    }
