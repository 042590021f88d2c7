"""How much memory and time indexing one large daily log takes.

    python bench/index_memory.py [--mb 20] [--mb 50] ...

Each size is a fresh workspace holding one generated daily log of about that many megabytes
(entries of mixed English and Chinese sentences, as an agent logs them), indexed by
`mem index --rebuild` in a child process with the `none` embedder. The figures are wall
time, the peak resident memory of the largest process (getrusage) and the peak of the
whole process tree (the indexer and its worker processes together, sampled every 20 ms:
what the machine must have). The target for a 200 MB log is 1 GB at most.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORDS = (
    "redis timeout settlement worker deploy canary rollback latency budget queue retry "
    "postgres index vacuum migration schema review release notes atlas billing invoice "
    "周末 跑步 公里 部署 回滚 延迟 队列 重试 数据库 索引 迁移 发布 账单"
).split()


def generate(path: Path, megabytes: float, seed: int = 7) -> int:
    rng = random.Random(seed)
    target = int(megabytes * 1024 * 1024)
    size = 0
    entries = 0
    with path.open("w", encoding="utf-8") as f:
        f.write("# 2026-11-30\n\n")
        while size < target:
            minute = entries % 1440
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))
            block = f"## {minute // 60:02d}:{minute % 60:02d} · user\n{text}\n\n"
            f.write(block)
            size += len(block.encode("utf-8"))
            entries += 1
    return entries


def _tree_rss(pid: int) -> int:
    """Resident KiB of a process and all its descendants (Linux /proc), 0 once it is gone."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as f:
                total += next(int(x.split()[1]) for x in f if x.startswith("VmRSS:"))
            with open(f"/proc/{p}/task/{p}/children", encoding="ascii") as f:
                todo += [int(c) for c in f.read().split()]
        except (OSError, StopIteration, ValueError):
            continue
    return total


def measure(megabytes: float) -> tuple[int, float, float, float]:
    """(entries, seconds, peak RSS of the largest process, peak RSS of the whole process
    tree: the indexer and its worker processes together, sampled every 20 ms)."""
    import resource
    import time

    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "init", "--no-git", str(ws)],
            check=True,
            capture_output=True,
        )
        entries = generate(ws / "memory" / "2026-11-30.md", megabytes)
        env = {**os.environ, "MEM_EMBED_PROVIDER": "none"}
        argv = [sys.executable, "-m", "openclaw_mem", "-w", str(ws), "index", "--rebuild"]
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        tree = 0
        while child.poll() is None:
            tree = max(tree, _tree_rss(child.pid))
            time.sleep(0.02)
        seconds = time.perf_counter() - start
        if child.returncode:
            raise SystemExit(child.stderr.read().decode("utf-8", "replace"))
        largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
        return entries, seconds, largest / 1024, tree / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, action="append", help="log size in MB (repeatable)")
    args = ap.parse_args()
    print(
        f"{'log MB':>7} {'entries':>9} {'index s':>8} {'largest MiB':>12} {'all MiB':>8}"
        f" {'all / log':>9}"
    )
    for mb in args.mb or [20.0]:
        entries, seconds, largest, tree = measure(mb)
        print(
            f"{mb:>7.0f} {entries:>9} {seconds:>8.1f} {largest:>12.0f} {tree:>8.0f}"
            f" {tree / mb:>9.1f}"
        )


if __name__ == "__main__":
    main()
