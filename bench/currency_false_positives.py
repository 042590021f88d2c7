"""How often the update detector (search/currency.py) fires on talk that holds few updates:
every pair of one speaker's turns in the LoCoMo dev conversations where the later turn would
supersede the earlier. LoCoMo annotates no updates, so each pair is read as a likely false
positive (a few are real changes); the figure to keep low when changing the lexicon.

    python bench/currency_false_positives.py [--show 10]

Reads ../shared/bench/locomo/locomo_dev5.json by path (MEM_LOCOMO overrides); never copied
into the repository.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from openclaw_mem.search.currency import read_statement, updates

DATA = Path(__file__).resolve().parents[2] / "shared" / "bench" / "locomo" / "locomo_dev5.json"


def sessions(conversation: dict) -> list[list[dict]]:
    keys = [k for k in conversation if k.startswith("session_") and k.count("_") == 1]
    return [conversation[k] for k in sorted(keys, key=lambda k: int(k.split("_")[1]))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--show", type=int, default=0, help="print this many pairs")
    args = ap.parse_args()
    path = Path(os.environ.get("MEM_LOCOMO", DATA))
    turns = pairs = 0
    hit: set[tuple[int, str, int]] = set()
    shown = []
    for n, conv in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        by: dict[str, list[str]] = {}
        for session in sessions(conv["conversation"]):
            for t in session:
                by.setdefault(t["speaker"], []).append(t["text"])
        for speaker, texts in by.items():
            said = [read_statement(t) for t in texts]
            turns += len(texts)
            for j, new in enumerate(said):
                if not new.changes:
                    continue
                for i in range(j):
                    if updates(said[i], new):
                        pairs += 1
                        hit.add((n, speaker, i))
                        shown.append((texts[i], texts[j]))
    print(f"{turns} turns; {pairs} pairs where a later turn supersedes an earlier one; "
          f"{len(hit)} turns superseded ({100 * len(hit) / max(turns, 1):.1f} %)")  # fmt: skip
    for old, new in shown[: args.show]:
        print(f"- {old[:100]}\n  → {new[:100]}")


if __name__ == "__main__":
    main()
