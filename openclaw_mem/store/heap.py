"""How a resident process keeps its heap between queries.

A query at 100k chunks builds a few dozen arrays of 0.1-1 MB and frees them. glibc hands
blocks that size back to the kernel (through munmap, or by trimming the top of the heap), so
the next query takes a page fault on every 4 KB it touches again: measured at 100k chunks,
that was 4 of a query's 11 ms. A resident process answers query after query, so it keeps up
to TRIM bytes of freed heap mapped instead, and gives them back after an index refresh,
whose temporary arrays are far larger than a query's. Elsewhere (macOS, musl) this is a no-op.

An index build's workers keep far more (BUILD_*): each piece allocates and frees a few
hundred MB of arrays and lists, and with glibc's defaults every large array was mapped
afresh and the heap trimmed after it, so the kernel zeroed about a gigabyte of new pages a
100k-chunk build (a second of system time). A worker holds its peak until the build ends.
"""

from __future__ import annotations

from functools import lru_cache

MMAP_THRESHOLD = 4 << 20  # blocks below this come from the heap, not their own mapping
TRIM = 32 << 20  # freed heap kept mapped: the bound on what this adds to the RSS
BUILD_MMAP_THRESHOLD = 256 << 20
BUILD_TRIM = 1 << 30
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
_OLD_MMAP_MAX = 32 << 20


@lru_cache(maxsize=1)
def _libc():
    """The C library's malloc controls, or None. CDLL(None) is the process's own symbols,
    libc's among them (find_library would run ldconfig)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def keep_freed_memory(mmap_threshold: int = MMAP_THRESHOLD, trim: int = TRIM) -> bool:
    """Keep up to `trim` bytes of freed heap for the next query (blocks below
    `mmap_threshold` from the heap); False where malloc is not glibc's."""
    libc = _libc()
    if libc is None:
        return False
    # Older glibc refuses an mmap threshold above HEAP_MAX_SIZE / 2 (32 MiB on 64 bits):
    # the largest it takes then. The trim threshold is set whatever that answered.
    kept = bool(libc.mallopt(_M_MMAP_THRESHOLD, mmap_threshold)) or bool(
        libc.mallopt(_M_MMAP_THRESHOLD, min(mmap_threshold, _OLD_MMAP_MAX))
    )
    return bool(libc.mallopt(_M_TRIM_THRESHOLD, trim)) and kept


def give_back() -> None:
    """Return the freed heap to the kernel now (after a refresh)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)
