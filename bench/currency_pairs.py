"""Supersession pair by pair: for each part of bench/currency_cases.py, how many of its
updates `supersedes(old, new)` finds, and how many of its later statements that update
nothing it takes for updates. No workspace, no retrieval: the rules alone, in seconds
(bench/currency.py measures what recall, the brief and the curated files then say).

    python bench/currency_pairs.py            # every part
    python bench/currency_pairs.py --show     # and the ids it misses
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from currency_cases import NOT_UPDATES, UPDATES

from openclaw_mem.search.currency import supersedes


def said(turns: list[tuple[str, str]]) -> str:
    return " ".join(text for _, text in turns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="name the cases missed")
    args = parser.parse_args()
    parts = list(dict.fromkeys(case["part"] for case in UPDATES))
    for part in parts:
        cases = [c for c in UPDATES if c["part"] == part]
        missed = [c["id"] for c in cases if not supersedes(said(c["old"]), said(c["new"]))]
        row = f"{part:<8} updates found {len(cases) - len(missed)}/{len(cases)}"
        if part in NOT_UPDATES:
            taken = [i for i, old, new in NOT_UPDATES[part] if supersedes(old, new)]
            row += f", non-updates taken {len(taken)}/{len(NOT_UPDATES[part])}"
        print(row)
        if args.show and missed:
            print("  missed:", " ".join(missed))
        if args.show and part in NOT_UPDATES and taken:
            print("  taken:", " ".join(taken))


if __name__ == "__main__":
    main()
