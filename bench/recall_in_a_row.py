"""What `mem recall` costs turn after turn when the embedding model is slow to load.

    python bench/recall_in_a_row.py [--calls 6] [--gap 1.0]

A copy of workspace.example is recalled `--calls` times in a row, `--gap` seconds apart,
each call a fresh `mem recall --json` process as an agent makes it: first with
`embed.provider = local` and no resident process running (the first call answers in
process and starts one, autostart.py), then with `none`. It prints each call's wall time
and the ratio of the median of calls 2.. to the median with `none` (the target is 2x at
most). Needs the `local` extra.
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
QUERY = "what timezone is the user in"


def calls(ws: Path, provider: str, n: int, gap: float) -> list[float]:
    env = {**os.environ, "MEM_EMBED_PROVIDER": provider}
    env.pop("MEM_NO_DAEMON", None)
    out = []
    for _ in range(n):
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


def stop_residents(ws: Path) -> None:
    """The resident the first run started (it would exit by itself after watch.idle)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--idle" in cmd and str(ws).encode() in cmd:
            os.kill(int(proc.name), signal.SIGTERM)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=6)
    ap.add_argument("--gap", type=float, default=1.0, help="seconds between calls")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = {}
        for provider in ("local", "none"):
            ws = Path(tmp) / provider
            shutil.copytree(ROOT / "workspace.example", ws)
            subprocess.run(  # the index built once, as after `mem index`
                [sys.executable, "-m", "openclaw_mem", "-w", str(ws), "index"],
                env={**os.environ, "MEM_EMBED_PROVIDER": provider, "MEM_NO_DAEMON": "1"},
                capture_output=True,
                check=True,
            )
            try:
                rows[provider] = calls(ws, provider, args.calls, args.gap)
            finally:
                stop_residents(ws)
        for provider, times in rows.items():
            print(f"{provider:>6}: " + "  ".join(f"{t:.2f}s" for t in times))
        later = statistics.median(rows["local"][1:])
        base = statistics.median(rows["none"])
        print(
            f"calls 2..{args.calls} with local: median {later:.3f}s; none: median {base:.3f}s; "
            f"ratio {later / base:.2f}x (target <= 2x)"
        )


if __name__ == "__main__":
    main()
