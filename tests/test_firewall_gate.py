"""The firewall's gates (issue 33: `mem log` compiles no pattern a note cannot match): each
pattern is compiled and run only on a text that holds the words it cannot match without.
The gates are read from the patterns themselves (tests/regex_gate.py); these tests hold
the generated module to the patterns, prove the case folding is re's own, and compare the
gated scan with an ungated one on every fixture and on mutations made to slip past."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys

import pytest
import regex_gate
from helpers import REPO

from openclaw_mem.safety import firewall
from openclaw_mem.safety.firewall import PATTERNS, Flag, normalized

GATES_FILE = REPO / "openclaw_mem" / "safety" / "firewall_gates.py"
INJECTIONS = REPO / "tests" / "fixtures" / "injections"


def _compiled():
    return [(kind, pattern.compiled()) for kind, pattern in PATTERNS]


def test_the_gates_are_read_from_the_patterns_as_they_are():
    expected = regex_gate.module_text(_compiled())
    if os.environ.get("UPDATE_GATES"):
        GATES_FILE.write_text(expected, encoding="utf-8")
    assert GATES_FILE.read_text(encoding="utf-8") == expected, (
        "a firewall pattern changed: `UPDATE_GATES=1 python -m pytest "
        "tests/test_firewall_gate.py` rewrites firewall_gates.py"
    )


def test_the_fold_is_re_s_case_insensitive_matching():
    """Every character re.IGNORECASE takes for a gate's letter folds to that letter."""
    everything = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    letters = {
        ch
        for icase, clauses in regex_gate.gate_list(_compiled())
        if icase
        for clause in clauses
        for word in clause
        for ch in word
    }
    assert {"i", "s", "k"} <= letters
    for ch in sorted(letters):
        taken = set(re.findall(re.escape(ch), everything, re.IGNORECASE))
        assert {firewall._fold(t) for t in taken} == {ch}, (ch, taken)


def _texts() -> list[str]:
    texts = []
    for path in sorted(INJECTIONS.glob("*.json")):
        texts += [case["text"] for case in json.loads(path.read_text(encoding="utf-8"))]
    return texts


# What a payload does to slip past a word list: look-alike case (ı, ſ, İ, K), invisible
# characters inside words, full-width letters, upper case, a base64 copy of itself.
def _mutations(text: str, rnd: random.Random) -> list[str]:
    import base64

    swapped = text.replace("i", "ı").replace("s", "ſ").replace("k", "\u212a")
    zero_width = "\u200b".join(text[i : i + 3] for i in range(0, len(text), 3))
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    dotted = text.upper().replace("I", "İ")
    blob = base64.b64encode(text.encode("utf-8")).decode("ascii")
    cut = text[: rnd.randint(0, len(text))]
    return [swapped, zero_width, wide, dotted, f"see {blob}", cut]


def _ungated(text: str) -> list[Flag]:
    """firewall.scan as it was before gates: every pattern run on both texts."""
    out = []
    plain = normalized(text)
    for kind, pattern in _compiled():
        if any(f.kind == kind for f in out):
            continue
        for seen in (text, plain) if plain != text else (text,):
            m = pattern.search(seen)
            if m:
                lo = max(0, m.start() - 20)
                excerpt = firewall._visible(" ".join(seen[lo : m.end() + 20].split()))[:120]
                out.append(Flag(kind, excerpt))
                break
    if not out:
        order = firewall.standing_order(plain)
        if order is not None:
            excerpt = firewall._visible(" ".join(order.sentence.split()))[:120]
            out.append(Flag(firewall.STANDING_ORDER, excerpt))
    return out


def test_a_gated_scan_finds_what_an_ungated_one_finds():
    rnd = random.Random(33)
    texts = _texts()
    assert len(texts) > 500
    flagged = 0
    for text in texts:
        for variant in (text, *_mutations(text, rnd)):
            found = firewall.scan(variant)
            assert found == _ungated(variant), variant
            assert firewall.flagged(variant) == bool(found)
            flagged += bool(found)
    assert flagged > 300  # the comparison is not between two empty lists


@pytest.mark.parametrize(
    "text",
    [
        "我最近在用FastAPI做项目",
        "周三去上海出差，住在静安。",
        "Lunch with Mei at 12:30, then the dentist.",
        "The Redis timeout is 30 seconds on staging.",
    ],
)
def test_a_plain_note_compiles_no_pattern(text):
    """The per-turn promise, in a fresh interpreter: scanning a note that passes no gate
    imports neither re nor dataclasses. An interpreter whose site start-up already imports
    them (a .pth file) is not mem's cost: only what the scan adds counts."""
    probe = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from openclaw_mem.safety.firewall import scan\n"
        f"assert scan({text!r}) == []\n"
        "added = set(sys.modules) - before\n"
        "print(sorted(m for m in ('re', 'dataclasses', 'functools') if m in added))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]", out
