"""The memory firewall's detection on a tuning corpus and a held-out corpus, and its cost.

    python bench/firewall.py

tests/fixtures/injections/payloads.json and benign.json are the corpus the patterns in
openclaw_mem/firewall.py were written against (the tests require all of it). The held-out
pair (heldout_*.json) was written afterwards by someone who had not seen the patterns and
was not tuned on: its figures are the ones to expect on text nobody has seen. The second
held-out pair (heldout_paraphrase_*.json) holds standing orders to run, reveal, send or skip
confirmation worded without the usual trigger words, and near-miss benign notes, written
by a helper that was not shown the patterns; nothing was tuned on it either.
Scanning runs on every `mem log`, so its speed on ordinary text is printed too.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from openclaw_mem.safety.firewall import scan

HERE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "injections"


def load(name: str) -> list[dict]:
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


def report(label: str, payloads: list[dict], benign: list[dict]) -> None:
    caught = [p for p in payloads if scan(p["text"])]
    false = [b for b in benign if scan(b["text"])]
    print(
        f"{label:20} detected {len(caught)}/{len(payloads)} ({len(caught) / len(payloads):.0%}), "
        f"false positives {len(false)}/{len(benign)} ({len(false) / len(benign):.0%})"
    )
    for p in payloads:
        if p not in caught:
            print(f"  missed  {p['id']} {p.get('kind', '')}: {p['text'][:80]}")
    for b in false:
        kinds = ", ".join(f.kind for f in scan(b["text"]))
        print(f"  flagged {b['id']} ({kinds}): {b['text'][:80]}")


def main() -> None:
    report("tuning", load("payloads"), load("benign"))
    report("held-out", load("heldout_payloads"), load("heldout_benign"))
    report(
        "held-out paraphrases",
        load("heldout_paraphrase_payloads"),
        load("heldout_paraphrase_benign"),
    )
    text = " ".join(b["text"] for b in load("benign") + load("heldout_benign"))
    body = (text + "\n") * (1_000_000 // len(text) + 1)
    start = time.perf_counter()
    scan(body)
    took = time.perf_counter() - start
    print(f"scan speed: {len(body.encode()) / took / 1e6:.1f} MB/s on benign text")
    entry = load("benign")[0]["text"]
    start = time.perf_counter()
    for _ in range(1000):
        scan(entry)
    print(f"one log entry: {(time.perf_counter() - start):.3f} ms")


if __name__ == "__main__":
    main()
