"""Secret redaction on a tuning set and a held-out set: secrets found and missed, and ordinary
notes changed by mistake (false positives), side by side; and what redaction costs.

    python bench/secret_shapes.py [-v]

tests/fixtures/secrets/tuning.json and ordinary.json are what the families in
openclaw_mem/safety/secrets.py were written and adjusted against. heldout.json and
ordinary_heldout.json were written after the families were final and nothing was changed
for them: their figures are the ones to expect on text nobody tuned on. A secret counts as
found when every part of it listed under "secret" is gone from the redacted text; an
ordinary note is a false positive when redaction changes it at all. -v lists the misses and
the false positives.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from openclaw_mem.safety.secrets import redact

HERE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "secrets"


def load(name: str) -> list[dict]:
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


def found(item: dict) -> bool:
    shown, n = redact(item["text"])
    return n > 0 and not any(part in shown for part in item["secret"])


def measure(secrets: list[dict], ordinary: list[dict]) -> dict:
    missed = [s for s in secrets if not found(s)]
    false = [o for o in ordinary if redact(o["text"])[1]]
    return {
        "found": len(secrets) - len(missed),
        "secrets": len(secrets),
        "false": len(false),
        "ordinary": len(ordinary),
        "missed_items": missed,
        "false_items": false,
    }


def main(verbose: bool) -> None:
    parts = {
        "tuning": measure(load("tuning"), load("ordinary")),
        "held-out": measure(load("heldout"), load("ordinary_heldout")),
    }
    print(f"{'':28}" + "".join(f"{label:>16}" for label in parts))
    for name, (a, b) in {
        "secrets found": ("found", "secrets"),
        "ordinary notes changed (FP)": ("false", "ordinary"),
    }.items():
        row = "".join(f"{str(p[a]) + '/' + str(p[b]):>16}" for p in parts.values())
        print(f"{name:28}{row}")
    if verbose:
        for label, p in parts.items():
            for s in p["missed_items"]:
                print(f"  {label} missed  {s['id']} {s['shape']}: {redact(s['text'])[0][:90]!r}")
            for o in p["false_items"]:
                print(f"  {label} changed {o['id']}: {redact(o['text'])[0][:90]!r}")
    texts = [o["text"] for o in load("ordinary") + load("ordinary_heldout")]
    body = "\n".join(texts)
    start = time.perf_counter()
    rounds = 50
    for _ in range(rounds):
        redact(body)
    took = (time.perf_counter() - start) / rounds
    print(f"redact speed: {len(body.encode()) / took / 1e6:.2f} MB/s on ordinary notes")
    start = time.perf_counter()
    for _ in range(rounds):
        for text in texts:
            redact(text)
    per = (time.perf_counter() - start) / rounds / len(texts)
    print(f"one note: {per * 1000:.3f} ms")


if __name__ == "__main__":
    main("-v" in sys.argv[1:])
