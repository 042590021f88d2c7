"""Secret redaction on a tuning set and a held-out set: secrets found and missed, and ordinary
notes changed by mistake (false positives), for mem's rules and for a maintained detector
(detect-secrets, when it is installed: `pip install detect-secrets`), side by side; and
what each costs.

    python bench/secret_shapes.py [-v]

tests/fixtures/secrets/tuning.json and ordinary.json are what the families in
openclaw_mem/safety/secrets.py were written and adjusted against; tuning_40.json and
ordinary_40.json are issue 40's shapes (vault, shop, package-index, cloud, registry and
wiki tokens, mesh-VPN and file-encryption keys, passwords said in Spanish, German and
French, a card with its CVV, a wifi key, recovery codes, a TOTP seed, "same as …: X",
`sudo -S`), written before the families for them. heldout.json, heldout_40.json and
ordinary_heldout.json were written apart and nothing was changed for them: their figures are
the ones to expect on text nobody tuned on. A secret counts as found when every part of it
listed under "secret" is gone from the redacted text; an ordinary note is a false positive
when redaction changes it at all. The detector's findings redact the values it reports
(its default plugins and filters, each note scanned as a file). -v lists the misses and the
false positives.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from openclaw_mem.safety.secrets import redact

HERE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "secrets"
PARTS = {
    "tuning": (("tuning", "tuning_40"), ("ordinary", "ordinary_40")),
    "held-out": (("heldout", "heldout_40"), ("ordinary_heldout",)),
}


def load(*names: str) -> list[dict]:
    return [x for n in names for x in json.loads((HERE / f"{n}.json").read_text("utf-8"))]


def rules(text: str) -> tuple[str, int]:
    return redact(text)


def library():
    """detect-secrets as a redactor (None when it is not installed)."""
    try:
        from detect_secrets import SecretsCollection
        from detect_secrets.settings import default_settings
    except ImportError:
        return None

    def find(text: str) -> tuple[str, int]:
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False, encoding="utf-8") as f:
            f.write(text + "\n")
        try:
            with default_settings():
                found = SecretsCollection()
                found.scan_file(f.name)
                values = {s.secret_value for _, s in found if s.secret_value}
        finally:
            os.unlink(f.name)
        for value in sorted(values, key=len, reverse=True):
            text = text.replace(value, "[REDACTED]")
        return text, len(values)

    return find


def both(lib):
    def find(text: str) -> tuple[str, int]:
        shown, n = rules(text)
        shown, m = lib(shown)
        return shown, n + m

    return find


def measure(find, secrets: list[dict], ordinary: list[dict]) -> dict:
    missed = [s for s in secrets if not _found(find, s)]
    false = [o for o in ordinary if find(o["text"])[1]]
    return {"found": len(secrets) - len(missed), "of": len(secrets), "false": len(false),
            "notes": len(ordinary), "missed": missed, "changed": false}  # fmt: skip


def _found(find, item: dict) -> bool:
    shown, n = find(item["text"])
    return n > 0 and not any(part in shown for part in item["secret"])


def main(verbose: bool) -> None:
    lib = library()
    finders = {"rules": rules}
    if lib is not None:
        finders |= {"detect-secrets": lib, "rules + detect-secrets": both(lib)}
    else:
        print("detect-secrets is not installed: `pip install detect-secrets` to compare")
    print(f"{'':26}{'tuning found':>14}{'FP':>9}{'held-out found':>16}{'FP':>9}")
    for name, find in finders.items():
        row = []
        for secrets, ordinary in PARTS.values():
            got = measure(find, load(*secrets), load(*ordinary))
            row.append(got)
        cells = "".join(
            f"{str(g['found']) + '/' + str(g['of']):>{w}}"
            + f"{str(g['false']) + '/' + str(g['notes']):>9}"
            for g, w in zip(row, (14, 16), strict=True)
        )
        print(f"{name:26}{cells}")
        if verbose:
            for label, g in zip(PARTS, row, strict=True):
                for s in g["missed"]:
                    print(f"   {label} missed  {s['id']} {s['shape']}: {find(s['text'])[0][:80]!r}")
                for o in g["changed"]:
                    print(f"   {label} changed {o['id']}: {find(o['text'])[0][:80]!r}")
    texts = [o["text"] for o in load("ordinary", "ordinary_40", "ordinary_heldout")]
    for name, find in finders.items():
        start = time.perf_counter()
        for text in texts:
            find(text)
        per = (time.perf_counter() - start) / len(texts)
        print(f"{name}: {per * 1000:.3f} ms a note")
    if lib is not None:
        import subprocess

        cost = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import detect_secrets.core.scan"],
            capture_output=True, text=True,
        ).stderr.strip().splitlines()[-1]  # fmt: skip
        print(f"importing detect-secrets: {int(cost.split('|')[1]) / 1000:.0f} ms")


if __name__ == "__main__":
    main("-v" in sys.argv)
