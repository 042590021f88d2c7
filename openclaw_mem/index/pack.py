"""A pack: many arrays in one file, opened with one open and one memory map.

Layout: 8 bytes of magic, a little-endian uint32 header length, a JSON header (name ->
[dtype, shape, offset]), then each array's raw bytes at its offset, 64-byte aligned. A
segment of the index is one pack (about twenty arrays), where it used to be one .npy file
an array: np.load parses each header with `ast` and maps each file on its own, ~0.1 ms an
array, 6 ms a query for two segments. Arrays read from a pack are read-only views of the
map. A pack is written once, under a name nobody reads yet, and never changed.
"""

from __future__ import annotations

import json
import mmap
import os
import shutil
import struct
from collections.abc import Mapping
from pathlib import Path

import numpy as np

MAGIC = b"MEMPACK1"
ALIGN = 64


def _aligned(n: int) -> int:
    return -(-n // ALIGN) * ALIGN


def write(path: Path, arrays: Mapping[str, np.ndarray | tuple[Path, np.dtype, tuple]]) -> None:
    """Write a pack. A value is an array, or (raw file, dtype, shape) whose bytes are copied
    in as they are (a streamed build's columns, never held in memory whole)."""
    entries = {}
    for name, value in arrays.items():
        if isinstance(value, tuple):
            raw, dtype, shape = value
            dtype = np.dtype(dtype)
            nbytes = raw.stat().st_size
            if nbytes != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
                raise ValueError(f"{raw} does not hold a {shape} array of {dtype}")
        else:
            value = np.ascontiguousarray(value)
            dtype, shape, nbytes = value.dtype, value.shape, value.nbytes
        entries[name] = (np.lib.format.dtype_to_descr(dtype), list(shape), nbytes)
    # The header's length depends on the offsets it holds: reserve room, then fill it.
    probe = json.dumps({k: [d, s, 10**15] for k, (d, s, _) in entries.items()})
    start = _aligned(12 + len(probe.encode()) + 16)
    header, at = {}, start
    for name, (descr, shape, nbytes) in entries.items():
        header[name] = [descr, shape, at]
        at = _aligned(at + nbytes)
    text = json.dumps(header).encode()
    with open(path, "wb") as out:
        out.write(MAGIC + struct.pack("<I", len(text)) + text)
        for name, value in arrays.items():
            out.seek(header[name][2])
            if isinstance(value, tuple):
                with open(value[0], "rb") as raw:
                    shutil.copyfileobj(raw, out, 1 << 20)
            elif value.size:
                out.write(np.ascontiguousarray(value).reshape(-1).view(np.uint8))
        out.truncate(max(at, start))


def read(path: Path) -> dict[str, np.ndarray]:
    """Every array of a pack, as read-only views of one map. A file that is not a whole
    pack raises ValueError (or OSError): the index is then rebuilt."""
    return read_with_offsets(path)[0]


def read_with_offsets(path: Path) -> tuple[dict[str, np.ndarray], dict[str, int]]:
    """The arrays, and where each starts in the file (to read a few rows with pread)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, 12, 0)
        if len(head) != 12 or head[:8] != MAGIC:
            raise ValueError(f"{path} is not an index pack")
        (length,) = struct.unpack("<I", head[8:])
        header = json.loads(os.pread(fd, length, 12))
        view = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if size else b""
    finally:
        os.close(fd)
    out, offsets = {}, {}
    for name, (descr, shape, offset) in header.items():
        dtype = np.dtype(descr) if isinstance(descr, str) else np.lib.format.descr_to_dtype(descr)
        count = int(np.prod(shape, dtype=np.int64))
        if offset < 0 or offset + count * dtype.itemsize > size:
            raise ValueError(f"{path}: {name} lies beyond the end of the file")
        arr = np.frombuffer(view, dtype, count, offset) if count else np.zeros(0, dtype)
        out[name] = arr.reshape(shape)
        offsets[name] = offset
    return out, offsets
