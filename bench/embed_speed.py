"""What embeddings cost: index build with an embedding provider (chunks per second), a second
`mem index --rebuild` (which must re-embed nothing: every vector comes from .mem/embed/),
and a warm `mem recall` process with and without the local model.

    python bench/embed_speed.py                    # 10k chunks, the local model
    python bench/embed_speed.py --chunks 2000 --runs 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recall_speed import make_workspace, median_ms


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--embed", default="local")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = make_workspace(Path(tmp) / "ws", args.chunks)
        env = {**os.environ, "MEM_EMBED_PROVIDER": args.embed}
        mem = [sys.executable, "-m", "openclaw_mem", "-w", str(root)]

        def timed(*cmd: str) -> float:
            start = time.perf_counter()
            subprocess.run([*mem, *cmd], env=env, check=True, capture_output=True)
            return time.perf_counter() - start

        build = timed("index", "--rebuild")
        again = timed("index", "--rebuild")
        n = int(
            subprocess.run(
                [*mem, "index", "--json"], env=env, capture_output=True, text=True, check=True
            )
            .stdout.split('"chunks": ')[1]
            .split(",")[0]
        )
        print(f"{n} chunks, embeddings: {args.embed}")
        print(f"  first build      {build:6.1f} s  ({n / build:,.0f} chunks/s, embedding included)")
        print(
            f"  rebuild, cached  {again:6.1f} s  ({n / again:,.0f} chunks/s: nothing re-embedded)"
        )
        for provider in ("none", args.embed):
            e = {**os.environ, "MEM_EMBED_PROVIDER": provider}
            subprocess.run([*mem, "index"], env=e, check=True, capture_output=True)
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                subprocess.run(
                    [*mem, "recall", "--json", "redis 连接超时"],
                    env=e,
                    check=True,
                    capture_output=True,
                )
                times.append(time.perf_counter() - start)
            print(f"  warm mem recall      {median_ms(times):7.0f} ms per process ({provider})")


if __name__ == "__main__":
    main()
