"""Embeddings as a cache, never a cost paid twice.

Vectors are keyed by a 64-bit hash of the exact text embedded, one folder per vector space
(`.mem/embed/<provider-model>/`), so a `mem index --rebuild`, a schema bump or a changed
chunking parameter re-embeds only text that is actually new. Stored as float16 (half the
disk; signs against hyperplanes are all the index needs) in append-only segments of two
arrays each, compacted when they pile up. A damaged segment is dropped, not trusted: its
texts are simply embedded again.

When the source fails, the folder remembers it for a few minutes (`unavailable`), so a
server that is down costs one timeout, not one per recall.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

MAX_SEGMENTS = 12
RETRY_AFTER = 300.0  # seconds a failed source is left alone


def text_key(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def folder_for(state_dir: Path, space: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", space).strip("_")[:80] or "default"
    return state_dir / "embed" / slug


class VectorCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._segments: list[tuple[np.ndarray, np.ndarray]] | None = None

    def _names(self) -> list[str]:
        try:
            return sorted(p.name[2:-4] for p in self.folder.glob("k-*.npy"))
        except OSError:
            return []

    def _load(self) -> list[tuple[np.ndarray, np.ndarray]]:
        if self._segments is None:
            self._segments = []
            for name in self._names():
                try:
                    keys = np.load(self.folder / f"k-{name}.npy", mmap_mode="r")
                    vecs = np.load(self.folder / f"v-{name}.npy", mmap_mode="r")
                except (OSError, ValueError):
                    continue
                ok = (
                    keys.ndim == 1
                    and vecs.ndim == 2
                    and len(keys) == len(vecs)
                    and (len(keys) < 2 or bool(np.all(keys[1:] > keys[:-1])))
                )
                if ok:
                    self._segments.append((keys, vecs))
        return self._segments

    def get(self, keys: np.ndarray, dim: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(found mask, float32 rows: zeros where not found)."""
        keys = np.asarray(keys, np.uint64)
        found = np.zeros(len(keys), bool)
        out: np.ndarray | None = None
        for seg_keys, seg_vecs in self._load():
            if len(seg_keys) == 0 or (dim is not None and seg_vecs.shape[1] != dim):
                continue
            pos = np.minimum(np.searchsorted(seg_keys, keys), len(seg_keys) - 1)
            hit = (seg_keys[pos] == keys) & ~found
            if not hit.any():
                continue
            if out is None:
                dim = seg_vecs.shape[1]
                out = np.zeros((len(keys), dim), np.float32)
            if seg_vecs.shape[1] != out.shape[1]:
                continue
            out[hit] = seg_vecs[pos[hit]]
            found |= hit
        if out is None:
            out = np.zeros((len(keys), dim or 0), np.float32)
        return found, out

    def put(self, keys: Sequence[int] | np.ndarray, vecs: np.ndarray) -> None:
        """Add vectors; best effort (a read-only .mem/ just means embedding again later)."""
        keys = np.asarray(keys, np.uint64)
        if len(keys) == 0:
            return
        order = np.argsort(keys, kind="stable")
        keys, vecs = keys[order], np.asarray(vecs, np.float16)[order]
        first = np.r_[True, keys[1:] != keys[:-1]]
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            self._write(keys[first], vecs[first])
            if len(self._names()) > MAX_SEGMENTS:
                self._compact()
        self._segments = None

    def _write(self, keys: np.ndarray, vecs: np.ndarray) -> None:
        name = f"{time.time_ns():020d}-{os.getpid()}"
        for prefix, arr in (("v", vecs), ("k", keys)):  # keys last: they make it visible
            tmp = self.folder / f".{prefix}-{name}.tmp.npy"
            np.save(tmp, arr)
            os.replace(tmp, self.folder / f"{prefix}-{name}.npy")

    def _compact(self) -> None:
        segments = self._load()
        dims = {v.shape[1] for _, v in segments}
        if len(dims) != 1:
            return
        keys = np.concatenate([k for k, _ in segments])
        vecs = np.concatenate([np.asarray(v) for _, v in segments])
        old = self._names()
        order = np.argsort(keys, kind="stable")
        keys, vecs = keys[order], vecs[order]
        first = np.r_[True, keys[1:] != keys[:-1]]
        self._segments = None
        self._write(keys[first], vecs[first])
        for name in old:
            for prefix in ("k", "v"):
                with contextlib.suppress(OSError):
                    (self.folder / f"{prefix}-{name}.npy").unlink()

    def count(self) -> int:
        return sum(len(k) for k, _ in self._load())

    # ------------------------------------------------------------- source health

    def unavailable(self) -> str | None:
        """Why the source failed within the last few minutes, or None."""
        try:
            mark = json.loads((self.folder / "unavailable").read_text(encoding="utf-8"))
            if time.time() - float(mark["at"]) < RETRY_AFTER:
                return str(mark["reason"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return None

    def mark_unavailable(self, reason: str) -> None:
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / "unavailable").write_text(
                json.dumps({"at": time.time(), "reason": reason}), encoding="utf-8"
            )

    def mark_available(self) -> None:
        with contextlib.suppress(OSError):
            (self.folder / "unavailable").unlink()
