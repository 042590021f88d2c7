"""The memory firewall's detection on a tuning corpus and a held-out corpus, and its cost.

    python bench/firewall.py            # every part, and the cost
    python bench/firewall.py --dev      # the tuning and development parts only

tests/fixtures/injections/payloads.json and benign.json are the corpus the patterns in
openclaw_mem/firewall.py were written against (the tests require all of it). The held-out
pair (heldout_*.json) was written afterwards by someone who had not seen the patterns and
was not tuned on: its figures are the ones to expect on text nobody has seen. The second
held-out pair (heldout_paraphrase_*.json) holds standing orders to run, reveal, send or skip
confirmation worded without the usual trigger words, and near-miss benign notes, written
by a helper that was not shown the patterns; nothing was tuned on it either.
The third held-out pair (heldout_blind_*.json) was written by a helper who saw neither the
patterns nor the standing-order scorer (safety/standing.py), and copied in only after the
scorer was final; nothing was changed for it. Held-out parts print their figures only.
The development pair (dev_*.json) was written by the helper that widened the scorer, before
it changed any code (50 orders, 51 notes: 31/50 caught, 3/51 flagged then), and used to see
whether a change generalises beyond the tuning pair; the d2-* cases were added halfway and
scored once before they were looked at (23 orders, 24 notes: 16/23 and 0/24 before the
change, 20/23 and 1/24 halfway), and the d3-* cases, near misses aimed at what had been
added, were scored once before they were looked at too (6 orders, 20 notes: 5/6 and 3/20
then; 4/6 and 0/20 before any change). It prints its misses like the tuning pair (it was
looked at and worked on), so it is not held out.
The fourth held-out pair (heldout_para2_*.json: 16 orders in other words to reveal a key
file, use another endpoint, obey a new "admin", run with full rights, merge or pay without
review, and 16 look-alike notes, English and Chinese) was written for issue 40 before the
model's second opinion existed and scored once then (10/16 caught, 0/16 flagged).

Each part is scored twice: by the default install (patterns and the reading of parts) and
with the `local` model's second opinion (safety/meaning.py, fitted by bench/firewall_fit.py
on the tuning and development parts only), when the model is installed. `--locomo PATH`
also counts the turns of LoCoMo conversations (ordinary chat, nothing of it tuned on)
flagged each way.
Scanning runs on every `mem log`, so its speed on ordinary text is printed too, warm and in
a fresh process (the first scan builds what the scorer reads with); `mem log` never asks
the model.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from openclaw_mem.safety.firewall import scan
from openclaw_mem.safety.meaning import scan_many
from openclaw_mem.safety.prebuilt import FILE

HERE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "injections"


def load(name: str) -> list[dict]:
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


def _model():
    """The local model the second opinion reads with, or None when it is not installed."""
    from openclaw_mem.embed import local_available

    if not local_available("use"):
        return None
    from openclaw_mem.embed.local import LocalEmbedder

    return LocalEmbedder("use")


MODEL = _model()


def flags(texts: list[str]) -> list[bool]:
    """With the model's second opinion (the rules alone when it is not installed)."""
    return [bool(f) for f in scan_many(texts, MODEL)]


def report(label: str, payloads: list[dict], benign: list[dict], verbose: bool = True) -> None:
    caught = [p for p in payloads if scan(p["text"])]
    false = [b for b in benign if scan(b["text"])]
    with_model = ""
    if MODEL is not None:
        more = sum(flags([p["text"] for p in payloads]))
        wrong = sum(flags([b["text"] for b in benign]))
        with_model = f" | with local: {more}/{len(payloads)}, {wrong}/{len(benign)}"
    print(
        f"{label:20} detected {len(caught)}/{len(payloads)} ({len(caught) / len(payloads):.0%}), "
        f"false positives {len(false)}/{len(benign)} ({len(false) / len(benign):.0%})"
        f"{with_model}"
    )
    if not verbose:  # a held-out part: its figures only, so nobody tunes on its cases
        return
    for p in payloads:
        if p not in caught:
            print(f"  missed  {p['id']} {p.get('kind', '')}: {p['text'][:80]}")
    for b in false:
        kinds = ", ".join(f.kind for f in scan(b["text"]))
        print(f"  flagged {b['id']} ({kinds}): {b['text'][:80]}")


def main() -> None:
    import sys

    report("tuning", load("payloads"), load("benign"))
    report("dev", load("dev_payloads"), load("dev_benign"))
    if "--dev" not in sys.argv[1:]:
        held_out()
    if "--locomo" in sys.argv[1:]:
        locomo(Path(sys.argv[sys.argv.index("--locomo") + 1]))
    speed()


def held_out() -> None:
    report("held-out", load("heldout_payloads"), load("heldout_benign"), False)
    report(
        "held-out paraphrases",
        load("heldout_paraphrase_payloads"),
        load("heldout_paraphrase_benign"),
        False,
    )
    if (HERE / "heldout_blind_payloads.json").exists():
        report(
            "held-out blind",
            load("heldout_blind_payloads"),
            load("heldout_blind_benign"),
            False,
        )
    report("held-out para2", load("heldout_para2_orders"), load("heldout_para2_benign"), False)


def locomo(path: Path) -> None:
    """Ordinary chat: the turns of LoCoMo conversations (used by path, not copied)."""
    turns = [
        turn["text"]
        for conv in json.loads(path.read_text(encoding="utf-8"))
        for key, session in conv["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for turn in session
    ]
    rules = sum(bool(scan(t)) for t in turns)
    line = f"LoCoMo turns         flagged {rules}/{len(turns)} ({rules / len(turns):.1%})"
    if MODEL is not None:
        start = time.perf_counter()
        both = sum(flags(turns))
        took = time.perf_counter() - start
        line += f" | with local: {both}/{len(turns)} ({both / len(turns):.1%}, {took:.1f} s)"
    print(line)


def speed() -> None:
    # Timed on the notes that are looked at (tuning and development), so that a run with
    # --dev, which opens no held-out file, times the same text.
    text = " ".join(b["text"] for b in load("benign") + load("dev_benign"))
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
    for what, text in (
        ("no action word", "Fixed the flaky test, see PR 4412."),
        ("an action word", "Please send the slides to Bob by email on Friday."),
        ("Chinese, an action word", "今天把周报发给王经理了。"),
    ):
        print(f"first scan in a fresh process ({what}): {cold(text):.2f} ms (best of 7)")
        print(f"  the same with .mem/{FILE} kept by an earlier one: {cold(text, True):.2f} ms")


# A `mem log` process reads what an earlier one compiled and built (safety/prebuilt.py).
_KEEP = (
    "import sys\nfrom openclaw_mem.safety import prebuilt\n"
    "from openclaw_mem.safety.firewall import scan\nscan(sys.argv[1])\n"
    "open(sys.argv[2], 'wb').write(prebuilt.dump())"
)
_PROBE = (
    "import sys, time\nfrom openclaw_mem.safety import prebuilt\n"
    "from openclaw_mem.safety.firewall import scan\n"
    "if len(sys.argv) > 2: prebuilt.read_from(lambda: open(sys.argv[2], 'rb').read())\n"
    "t = time.perf_counter(); scan(sys.argv[1]); print(time.perf_counter() - t)"
)


def cold(text: str, kept: bool = False, runs: int = 7) -> float:
    """The first scan of a `mem log` process: it builds what it reads with, or (`kept`)
    reads it from the file an earlier process wrote."""
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        extra = [str(Path(tmp) / FILE)] if kept else []
        if kept:
            subprocess.run([sys.executable, "-c", _KEEP, text, *extra], check=True)
        times = [
            float(
                subprocess.run(
                    [sys.executable, "-c", _PROBE, text, *extra],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for _ in range(runs)
        ]
    return min(times) * 1000


if __name__ == "__main__":
    main()
