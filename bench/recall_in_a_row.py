"""What `mem recall` costs turn after turn when the embedding model is slow to load.

    python bench/recall_in_a_row.py [--calls 6] [--gap 1.0] [--workspaces 1]

Copies of workspace.example (`--workspaces`, asked in turn) are recalled `--calls` times in a
row, `--gap` seconds apart, each call a fresh `mem recall --json` process as an agent makes
it: first with `embed.provider = local` and no resident process running (the first call
answers in process and starts one, autostart.py), then with `none`. It prints each call's
wall time, the ratio of the median of calls 2.. to the median with `none` (the target is 2x
at most), and how many resident processes the `local` calls left running and their memory
(one a user: one, however many workspaces). The children get a runtime folder of their own
(XDG_RUNTIME_DIR), so a resident of the person running the bench is neither used nor
stopped. Needs the `local` extra.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "Redis timeout"  # found with and without the model (a recall that finds nothing exits 1)


def calls(spaces: list[Path], provider: str, n: int, gap: float, env: dict) -> list[float]:
    env = {**env, "MEM_EMBED_PROVIDER": provider}
    env.pop("MEM_NO_DAEMON", None)
    out = []
    for i in range(n):
        ws = spaces[i % len(spaces)]
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "openclaw_mem", "-w", str(ws), "recall", "--json", QUERY],
            env=env,
            capture_output=True,
            check=True,
        )
        out.append(time.perf_counter() - start)
        time.sleep(gap)
    return out


def residents(tmp: str) -> dict[int, int]:
    """The resident processes started for workspaces under `tmp`: pid -> RSS in KiB."""
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
            status = (proc / "status").read_text(encoding="ascii", errors="replace")
        except OSError:
            continue
        if b"--idle" in cmd and any(part.startswith(tmp.encode()) for part in cmd):
            rss = [line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")]
            found[int(proc.name)] = int(rss[0]) if rss else 0
    return found


def stop_residents(tmp: str) -> dict[int, int]:
    """Stop the residents the run started (they would exit by themselves after watch.idle);
    what they held, as residents() gives it."""
    held = residents(tmp)
    for pid in held:
        os.kill(pid, signal.SIGTERM)
    return held


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=6)
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between calls")
    ap.add_argument("--workspaces", type=int, default=1, help="workspaces asked in turn")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:
        runtime = Path(tmp) / "run"
        runtime.mkdir(mode=0o700)
        env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
        rows, held = {}, {}
        for provider in ("local", "none"):
            spaces = [Path(tmp) / f"{provider}{i}" for i in range(args.workspaces)]
            for ws in spaces:
                shutil.copytree(ROOT / "workspace.example", ws)
                subprocess.run(  # the index built once, as after `mem index`
                    [sys.executable, "-m", "openclaw_mem", "-w", str(ws), "index"],
                    env={**env, "MEM_EMBED_PROVIDER": provider, "MEM_NO_DAEMON": "1"},
                    capture_output=True,
                    check=True,
                )
            try:
                rows[provider] = calls(spaces, provider, args.calls, args.gap, env)
            finally:
                held[provider] = stop_residents(tmp)
        for provider, times in rows.items():
            print(f"{provider:>6}: " + "  ".join(f"{t:.2f}s" for t in times))
        for provider, pids in held.items():
            mib = sum(pids.values()) / 1024
            print(
                f"{provider:>6}: {len(pids)} resident process(es) for {args.workspaces} "
                f"workspace(s), {mib:.0f} MiB resident memory in all"
            )
        later = statistics.median(rows["local"][1:])
        base = statistics.median(rows["none"])
        print(
            f"calls 2..{args.calls} with local: median {later:.3f}s; none: median {base:.3f}s; "
            f"ratio {later / base:.2f}x (target <= 2x)"
        )


if __name__ == "__main__":
    main()
