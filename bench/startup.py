"""What the per-turn commands cost next to the interpreter they run on: CPU time (user +
system, the OS's own accounting of each finished child) of `mem log`, `mem --help` and a
`mem recall --json` a resident process answers (`mem watch`), each run paired with this
interpreter's `python -c pass` (the floor no Python CLI goes under), the ratio taken pair by
pair so that a machine whose speed drifts does not move it.

    python bench/startup.py [--runs 30]

Run it with the interpreter `mem` is installed for (a venv's python): its `mem` script is
the one beside it. Targets (issue 33): `mem log` <= 2.0x, resident recall <= 1.5x.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cpu(cmd: list[str], env: dict[str, str]) -> float:
    """CPU seconds of one run of `cmd` (it and every child it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, capture_output=True, check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(cmd: list[str], floor: list[str], runs: int, env: dict[str, str]):
    """(median CPU ms of cmd, median CPU ms of floor, median of the pairwise ratios)."""
    cpu(cmd, env), cpu(floor, env)  # the OS file cache and the bytecode cache are warm
    a, b = [], []
    for _ in range(runs):
        a.append(cpu(cmd, env))
        b.append(cpu(floor, env))
    ratios = [x / y for x, y in zip(a, b, strict=True) if y > 0]
    return statistics.median(a) * 1000, statistics.median(b) * 1000, statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    beside = Path(sys.executable).parent / "mem"
    mem = str(beside) if beside.is_file() else shutil.which("mem")
    base = [mem] if mem else [sys.executable, "-m", "openclaw_mem"]
    env = {**os.environ, "MEM_EMBED_PROVIDER": "none"}
    if env.pop("PYTHONDONTWRITEBYTECODE", None):
        print("note: PYTHONDONTWRITEBYTECODE was set; unset for these runs (every run would")
        print("      compile the package again, as no installed mem does)")
    floor = [sys.executable, "-c", "pass"]
    with tempfile.TemporaryDirectory() as tmp:
        ws = str(Path(tmp) / "ws")
        subprocess.run([*base, "init", "--no-git", ws], capture_output=True, check=True, env=env)
        log = [*base, "-w", ws, "log", "--role", "user"]
        cases = {
            "mem log (a plain note)": [*log, "我最近在用FastAPI做项目"],
            "mem log (an action word)": [*log, "Can you show me last week's report?"],
            "mem --help": [*base, "--help"],
        }
        print(f"mem: {base[0]}   python: {sys.executable}   {args.runs} pairs each")
        print(f"{'command':<28} {'cpu ms':>7} {'python ms':>10} {'x python':>9}")
        for name, cmd in cases.items():
            a, b, ratio = paired(cmd, floor, args.runs, env)
            print(f"{name:<28} {a:>7.1f} {b:>10.1f} {ratio:>9.2f}")
        watch = subprocess.Popen(
            [*base, "-w", ws, "watch"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
        )
        try:
            watch.stdout.readline()  # "watching ... (Ctrl-C stops)": the socket serves
            time.sleep(2)  # the watcher has taken in every `mem log` above
            cmd = [*base, "-w", ws, "recall", "--json", "FastAPI"]
            a, b, ratio = paired(cmd, floor, args.runs, env)
            print(f"{'mem recall (resident)':<28} {a:>7.1f} {b:>10.1f} {ratio:>9.2f}")
        finally:
            watch.terminate()
            watch.wait()


if __name__ == "__main__":
    main()
