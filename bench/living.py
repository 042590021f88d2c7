"""Living memory timings: how long after a save `mem watch` has the index fresh, and what
`mem context` costs as a process.

    python bench/living.py [--runs 5] [--chunks 10000]

Watch latency is measured from the write of a file to the moment a recall in another
thread finds the new text, with the default 1.5 s debounce and with 0.2 s.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from recall_speed import make_workspace, process_ms

from openclaw_mem.index.cache import IndexParams
from openclaw_mem.index.watch import Watcher
from openclaw_mem.recall.pipeline import RecallOptions, recall
from openclaw_mem.store.workspace import Workspace


def watch_latency(root: Path, debounce: float, runs: int) -> list[float]:
    ws = Workspace(root)
    fresh = threading.Event()
    watcher = Watcher(ws, IndexParams(), lambda r: fresh.set(), debounce=debounce)
    watcher.start()
    out = []
    try:
        for i in range(runs):
            word = f"okapi{i}x{int(time.time())}"
            fresh.clear()
            start = time.perf_counter()
            (root / "MEMORY.md").write_text(f"# MEMORY\n\n- {word} sighting\n", encoding="utf-8")
            fresh.wait(30)
            hits = recall(ws, word, RecallOptions(k=1), record_access=False).hits
            assert hits and word in hits[0].snippet
            out.append(time.perf_counter() - start)
    finally:
        watcher.stop()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--chunks", type=int, default=10000)
    args = ap.parse_args()
    mem = shutil.which("mem")
    base = [mem] if mem else [sys.executable, "-m", "openclaw_mem"]
    with tempfile.TemporaryDirectory() as tmp:
        example = Path(tmp) / "example"
        shutil.copytree(ROOT / "workspace.example", example)
        big = make_workspace(Path(tmp) / "big", args.chunks)
        for name, root in (("workspace.example", example), (f"{args.chunks} chunks", big)):
            for debounce in (1.5, 0.2):
                lat = watch_latency(root, debounce, args.runs)
                print(
                    f"watch latency, {name}, debounce {debounce:g} s: median "
                    f"{statistics.median(lat) * 1000:.0f} ms (save -> fresh recall)"
                )
            ms = process_ms(
                [
                    *base,
                    "-w",
                    str(root),
                    "context",
                    "--now",
                    "2026-11-28",
                    "Redis 连接超时怎么处理？",
                ],
                args.runs,
            )
            print(f"mem context, {name}: median {ms:.0f} ms per process")


if __name__ == "__main__":
    main()
