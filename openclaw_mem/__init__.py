"""openclaw-mem: file-first Markdown memory for AI agents.

The library is the product; the `mem` CLI is a thin layer over it. Public API (imported
lazily so that `import openclaw_mem` stays cheap on the per-turn path):

    from openclaw_mem import Memory

    mem = Memory.open("~/.openclaw/workspace")
    mem.log("我最近在用FastAPI做项目", role="user")

May import `memory`, `recall.reads`, `store.workspace`, `format`, `config`,
`services.scaffold` and `errors`: the modules `_API` names, each looked up when first used
(the structure test reads `_API` as this module's imports).
"""

from __future__ import annotations

import os as _os
import sys as _sys

__version__ = "0.1.0"

# mem multiplies small matrices (a query's candidates, a batch of vectors): a BLAS thread
# pool costs more than it saves. OpenBLAS's threads cost ~90 ms of CPU to start a process on
# two cores, ~100 ms of a 100k-chunk recall's ~300 ms, and in a resident process their
# spinning doubled a query's wall time. Read once, when numpy loads: so only when it has not
# (a program that loaded it first keeps its own), and a value already set is kept.
if "numpy" not in _sys.modules:
    for _name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        _os.environ.setdefault(_name, "1")

_API = {
    "Memory": "memory",
    "Read": "recall.reads",
    "Workspace": "store.workspace",
    "resolve_workspace": "store.workspace",
    "Entry": "format.logs",
    "NewEntry": "format.logs",
    "append_entries": "format.logs",
    "parse_log": "format.logs",
    "read_entries": "format.logs",
    "load_config": "config",
    "init_workspace": "services.scaffold",
    "ingest": "format.ingest",
    "MemError": "errors",
    "ExitCode": "errors",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> object:  # not typing.Any: typing costs ~2 ms to import
    if name in _API:
        # importlib only here: its package costs every `mem log` ~4 ms to import.
        from importlib import import_module

        return getattr(import_module(f".{_API[name]}", __name__), name)
    raise AttributeError(f"module 'openclaw_mem' has no attribute {name!r}")
