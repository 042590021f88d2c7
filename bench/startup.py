"""Start-up cost of the per-turn commands: median process wall time of `mem log`,
`mem --help` and `mem recall --json` answered by a resident process (`mem watch`), next to
`python -c pass` (the floor no Python CLI can beat) and `python -S -c pass` (the floor
without site's .pth files, which some environments load heavily).

    python bench/startup.py [--runs 20]

Targets: `mem log` <= 2.5x `python -c pass`; resident `mem recall --json` <= 1.5x.
"""

from __future__ import annotations

import argparse
import os
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
    # The console script next to this interpreter: a version manager's shim on PATH (pyenv's
    # is a shell script) would add its own start-up to every mem figure.
    beside = Path(sys.executable).parent / "mem"
    mem = str(beside) if beside.is_file() else shutil.which("mem")
    base = [mem] if mem else [sys.executable, "-m", "openclaw_mem"]
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        subprocess.run([*base, "init", "--no-git", str(ws)], capture_output=True, check=True)
        cases = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "mem --help": [*base, "--help"],
            "mem log": [*base, "-w", str(ws), "log", "--role", "user", "我最近在用FastAPI做项目"],
        }
        watch = subprocess.Popen(
            [*base, "-w", str(ws), "watch"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "MEM_EMBED_PROVIDER": "none"},
        )
        watch.stdout.readline()  # "watching ... (Ctrl-C stops)": the socket serves
        cases["python -S -c pass"] = [sys.executable, "-S", "-c", "pass"]
        cases["mem recall (resident)"] = [*base, "-w", str(ws), "recall", "--json", "FastAPI"]
        floor = None
        print(
            f"{'command':<22} {'median ms':>10} {'min ms':>8} {'x python':>9}   ({args.runs} runs)"
        )
        for name, cmd in cases.items():
            if name.startswith("mem recall"):
                time.sleep(3)  # the watcher has taken in every `mem log` above
            t = wall(cmd, args.runs)
            med = statistics.median(t) * 1000
            floor = floor or med
            print(f"{name:<22} {med:>10.1f} {min(t) * 1000:>8.1f} {med / floor:>9.2f}")
        watch.terminate()
        watch.wait()


if __name__ == "__main__":
    main()
