"""Randomized histories of three clones sharing one memory, longer than the suite's.

    python bench/sync_history.py [--seeds 10] [--steps 200] [--agents 2]

Each seed: agents log on every clone all along (separate processes), while syncs,
consolidations, forgets, redactions, undos and hand edits run on any clone in an order drawn
from the seed (tests/history.py; the suite runs 5 seeds x 50 steps). Every history is then
checked: every acknowledged entry on every clone exactly once, byte for byte, the clones
converged, no conflict marker, every citation on the entry that says it. Prints one line a
seed and the totals; exits 1 when any history fails its check.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--agents", type=int, default=2, help="agent processes per clone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mem-history-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        os.environ.update(
            HOME=str(home),
            GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
            GIT_CONFIG_NOSYSTEM="1",
            MEM_EMBED_PROVIDER="none",
            MEM_WATCH_IDLE="0",
        )
        from history import check, run

        failed = 0
        totals = {"entries": 0, "redacted": 0, "seconds": 0.0}
        actions: dict[str, int] = {}
        for seed in range(1, args.seeds + 1):
            start = time.perf_counter()
            history = run(Path(tmp) / f"seed-{seed}", seed, args.steps, agents=args.agents)
            try:
                check(history)
                verdict = "ok"
            except AssertionError as exc:
                failed += 1
                verdict = f"FAILED: {str(exc)[:200]}"
            took = time.perf_counter() - start
            totals["entries"] += len(history.acknowledged)
            totals["redacted"] += len(history.redacted)
            totals["seconds"] += took
            for name, n in history.actions.items():
                actions[name] = actions.get(name, 0) + n
            print(
                f"seed {seed:3}: {args.steps} steps, {len(history.acknowledged)} entries "
                f"acknowledged, {len(history.redacted)} redacted, {took:.1f} s: {verdict}",
                flush=True,
            )
        done = ", ".join(f"{n} {name}" for name, n in sorted(actions.items()))
        print(
            f"\n{args.seeds} seeds x {args.steps} steps, {args.agents} agents a clone: "
            f"{totals['entries']} entries acknowledged ({totals['redacted']} redacted since), "
            f"{args.seeds - failed} of {args.seeds} histories kept every entry once and every "
            f"citation right; actions: {done}; {totals['seconds']:.0f} s"
        )
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
