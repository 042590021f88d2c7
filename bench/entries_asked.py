"""Which turns the per-entry strategy asks a model about, and what that costs and opens up,
with no model: every question is one model call, so the calls are counted exactly.

    python bench/entries_asked.py [--sessions 2] [--user a] [--data FILE]

For each LoCoMo conversation (the first --sessions sessions, the user as speaker --user),
per part (tuning / checking, bench/recall_quality.py): the user's turns; those asked
because they speak of the writer (I, my, me: the only ones asked before issue 41); those
asked because they are a short reply to a question put to the writer (the turn before is
another speaker's question with "you" in it); and the recall ceiling each rule gives: the
share of the user's annotated facts whose evidence turn is asked at all (a fact in a turn
never asked about cannot be written by any model).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [str(ROOT), *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench")]
sys.path.append(str(ROOT / "bench"))

from consolidate_quality import facts_of
from recall_quality import DEFAULT_DATA, TUNE

from openclaw_mem.consolidate.providers.facts import _SPEAKS_OF_SELF
from openclaw_mem.consolidate.whose import answers_question


def count(sample: dict, side: str, sessions: int) -> Counter:
    conv = sample["conversation"]
    user = conv[f"speaker_{side}"]
    keys = sorted(
        (int(k.split("_")[1]), k) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k]
    )
    c: Counter = Counter()
    asked_self, asked_answer = set(), set()
    for _, key in keys[:sessions]:
        before = None
        for turn in conv[key]:
            role = "user" if turn["speaker"] == user else turn["speaker"]
            c["turns"] += 1
            if role == "user":
                c["user turns"] += 1
                if _SPEAKS_OF_SELF.search(turn["text"]):
                    asked_self.add(turn["dia_id"])
                elif before and answers_question(turn["text"], before[0], before[1]):
                    asked_answer.add(turn["dia_id"])
            before = (role, turn["text"])
    c["asked: I/my/me"] = len(asked_self)
    c["asked: answers"] = len(asked_answer)
    seen = {d for _, key in keys[:sessions] for d in (t["dia_id"] for t in conv[key])}
    facts = {(f, d) for s, f, d in facts_of(sample) if s == user and d in seen}
    c["user facts"] = len(facts)
    c["reachable: I/my/me"] = sum(d in asked_self for _, d in facts)
    c["reachable: both"] = sum(d in asked_self | asked_answer for _, d in facts)
    return c


def line(name: str, c: Counter) -> str:
    extra = c["asked: answers"] / c["asked: I/my/me"] if c["asked: I/my/me"] else float("nan")
    old = c["reachable: I/my/me"] / c["user facts"] if c["user facts"] else float("nan")
    new = c["reachable: both"] / c["user facts"] if c["user facts"] else float("nan")
    return (
        f"{name:<8} turns {c['turns']:>4}  user turns {c['user turns']:>4}  calls "
        f"{c['asked: I/my/me']:>3} (I/my/me) + {c['asked: answers']:>3} (answers) = "
        f"{c['asked: I/my/me'] + c['asked: answers']:>3} (+{extra:.0%})  user facts "
        f"{c['user facts']:>3}  recall ceiling {old:.2f} -> {new:.2f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--sessions", type=int, default=2)
    ap.add_argument("--user", choices=("a", "b"), default="a")
    args = ap.parse_args()
    parts = {"tune": Counter(), "check": Counter(), "all": Counter()}
    for sample in json.loads(args.data.read_text(encoding="utf-8")):
        c = count(sample, args.user, args.sessions)
        print(line(sample["sample_id"], c))
        for part in ("tune" if sample["sample_id"] in TUNE else "check", "all"):
            parts[part].update(c)
    for part, c in parts.items():
        print(line(part, c))


if __name__ == "__main__":
    main()
