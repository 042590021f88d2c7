"""The gates of the costliest secret families (issue 33: a recall's snippets are redacted on
every call, and compiling all families cost ~38 ms of it): a gated family is compiled and
run only on a text that holds one word of each clause. These tests hold every stored clause
to one that tests/regex_gate.py reads off the family's own pattern (sound by construction:
tests/test_firewall_gate.py proves the reading), and compare gated redaction with ungated
redaction on every fixture and on texts made to sit at the gates' edges."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import regex_gate
from helpers import REPO

from openclaw_mem.safety import secrets
from openclaw_mem.safety.secrets import FAMILIES, GATES

FIXTURES = REPO / "tests" / "fixtures" / "secrets"


def test_every_stored_gate_is_read_from_its_family_as_it_is():
    sources = dict(FAMILIES)
    assert set(GATES) <= set(sources) and len(GATES) == 6
    for name, (icase, clauses) in GATES.items():
        read_icase, read = regex_gate.gate(re.compile(sources[name]))
        assert icase == read_icase, name
        # A stored clause is one the pattern cannot match without: dropping clauses keeps
        # a gate sound (it only lets more texts through), inventing one would not.
        assert clauses and all(tuple(sorted(c)) in read for c in clauses), name


def _texts() -> list[str]:
    texts = []
    for path in sorted(FIXTURES.glob("*.json")):
        texts += [case["text"] for case in json.loads(path.read_text(encoding="utf-8"))]
    rng = random.Random(33)
    words = [w for _, clauses in GATES.values() for clause in clauses for w in clause]
    for text in list(texts):  # each text with gate words taken out, swapped or cased
        for word in words:
            if word.lower() in text.lower():
                texts.append(re.sub(re.escape(word), "", text, flags=re.I))
                texts.append(re.sub(re.escape(word), rng.choice(words).upper(), text, flags=re.I))
    texts += [f"{w.upper()} = hunter2hunter2" for w in words]
    texts += ["PASSWORD IS Sekr3t!x", "İ pwd: abc12345", "密碼：zzz99999", "Pass\nword: x"]
    return texts


def _ungated(text: str) -> str:
    saved = {f.name: f.gate for f in secrets._BUILTIN}
    try:
        for family in secrets._BUILTIN:
            family.gate = ()
        return secrets.redact(text)[0]
    finally:
        for family in secrets._BUILTIN:
            family.gate = saved[family.name]


def test_gated_redaction_is_ungated_redaction():
    texts = _texts()
    assert len(texts) > 300
    assert any(secrets.redact(t)[0] != t for t in texts)  # not vacuous: secrets are found
    for text in texts:
        assert secrets.redact(text)[0] == _ungated(text), text


def test_a_note_that_names_no_password_compiles_no_costly_family():
    probe = (
        "from openclaw_mem.safety import secrets\n"
        "assert secrets.redact('Lunch with Mei at 12:30, then the dentist.')[0].startswith('L')\n"
        "print(sorted(f.name for f in secrets._BUILTIN if f._pattern is None))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == repr(sorted(GATES)), out
