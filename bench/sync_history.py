"""Randomized histories of three clones sharing one memory, longer than the suite's.

    python bench/sync_history.py [--seeds 10] [--first-seed 1] [--steps 200] [--agents 2]
                                 [--churn] [--keep-failed DIR]

Each seed: agents log on every clone all along (separate processes), while syncs,
consolidations, forgets, redactions, undos and hand edits run on any clone in an order drawn
from the seed (tests/history.py; the suite runs 5 seeds x 50 steps). Every history is then
checked: every acknowledged entry on every clone exactly once, byte for byte, the clones
converged, no conflict marker, every citation on the entry that says it. Prints one line a
seed and the totals; exits 1 when any history fails its check. `--churn` draws undos,
forgets and redactions three times as often (where citations have the most to follow);
`--keep-failed` keeps a failed history's clones there, to read with git.
"""

from __future__ import annotations

import argparse
import os
import shutil
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
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--churn", action="store_true", help="undo, forget, redact more often")
    parser.add_argument("--keep-failed", type=Path, help="copy failed histories' clones here")
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
        from history import CHURN, WEIGHTS, check, run

        failed = 0
        totals = {"entries": 0, "redacted": 0, "seconds": 0.0}
        actions: dict[str, int] = {}
        weights = CHURN if args.churn else WEIGHTS
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            start = time.perf_counter()
            where = Path(tmp) / f"seed-{seed}"
            history = run(where, seed, args.steps, agents=args.agents, weights=weights)
            try:
                check(history)
                verdict = "ok"
            except AssertionError as exc:
                failed += 1
                verdict = f"FAILED: {str(exc)[:200]}"
                if args.keep_failed:
                    kept = args.keep_failed / f"seed-{seed}"
                    shutil.copytree(where, kept, symlinks=True, dirs_exist_ok=True)
                    verdict += f" (kept in {kept})"
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
            f"\n{args.seeds} seeds x {args.steps} steps, {args.agents} agents a clone"
            f"{' (churn)' if args.churn else ''}: "
            f"{totals['entries']} entries acknowledged ({totals['redacted']} redacted since), "
            f"{args.seeds - failed} of {args.seeds} histories kept every entry once and every "
            f"citation right; actions: {done}; {totals['seconds']:.0f} s"
        )
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
