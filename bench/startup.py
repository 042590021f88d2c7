"""Start-up cost of the per-turn commands: median process wall time of `mem log` and
`mem --help` next to `python -c pass` (the floor no Python CLI can beat).

    python bench/startup.py [--runs 20]

Target on the 2-core reference machine: `mem log` median <= 150 ms.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def wall(cmd: list[str], runs: int) -> list[float]:
    subprocess.run(cmd, capture_output=True, check=True)  # warm the OS file cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    mem = shutil.which("mem")
    base = [mem] if mem else [sys.executable, "-m", "openclaw_mem"]
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        subprocess.run([*base, "init", "--no-git", str(ws)], capture_output=True, check=True)
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "mem --help": [*base, "--help"],
            "mem log": [*base, "-w", str(ws), "log", "--role", "user", "我最近在用FastAPI做项目"],
        }
        floor = None
        print(
            f"{'command':<16} {'median ms':>10} {'min ms':>8} {'x python':>9}   ({args.runs} runs)"
        )
        for name, cmd in cases.items():
            t = wall(cmd, args.runs)
            med = statistics.median(t) * 1000
            floor = floor or med
            print(f"{name:<16} {med:>10.1f} {min(t) * 1000:>8.1f} {med / floor:>9.2f}")


if __name__ == "__main__":
    main()
