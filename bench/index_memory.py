"""How much memory and time indexing one large daily log takes.

    python bench/index_memory.py [--mb 20] [--mb 50] ...

Each size is a fresh workspace holding one generated daily log of about that many megabytes
(entries of mixed English and Chinese sentences, as an agent logs them), indexed by
`mem index` in a child process with the `none` embedder; the figures are the child's peak
resident memory (getrusage) and wall time. The target for a 200 MB log is 1 GB at most.
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


def measure(megabytes: float) -> tuple[int, float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "init", "--no-git", str(ws)],
            check=True,
            capture_output=True,
        )
        entries = generate(ws / "memory" / "2026-11-30.md", megabytes)
        env = {**os.environ, "MEM_EMBED_PROVIDER": "none"}
        # A wrapper process per size, so each peak is that index run's own.
        probe = (
            "import resource, subprocess, sys, time; t = time.perf_counter(); "
            "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
            "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
        )
        out = subprocess.run(
            [
                sys.executable,
                "-c",
                probe,
                sys.executable,
                "-m",
                "openclaw_mem",
                "-w",
                str(ws),
                "index",
                "--rebuild",
            ],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout.split()
        return entries, float(out[0]), int(out[1]) / 1024  # KiB -> MiB (Linux)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, action="append", help="log size in MB (repeatable)")
    args = ap.parse_args()
    print(f"{'log MB':>7} {'entries':>9} {'index s':>8} {'peak RSS MiB':>13} {'RSS / log':>9}")
    for mb in args.mb or [20.0]:
        entries, seconds, peak = measure(mb)
        print(f"{mb:>7.0f} {entries:>9} {seconds:>8.1f} {peak:>13.0f} {peak / mb:>9.1f}")


if __name__ == "__main__":
    main()
