"""The recorded-shapes corpus (tests/fixtures/model_answers.json): answers in the shapes real
models return, each replayed through the scripted server to the real openai client, and
each either applied (its lines in the diff, its bad edits skipped with a reason) or refused
in one line with no file changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import snapshot
from test_consolidate import mem, run  # noqa: F401  (the fixture and the runner)

CASES = json.loads(
    (Path(__file__).parent / "fixtures" / "model_answers.json").read_text(encoding="utf-8")
)


def _steps(case: dict) -> list[tuple]:
    args = case["arguments"]
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
    if case["wire"] == "text":
        return [("text", text)]
    if case["wire"] == "text-twice":
        return [("text", text), ("text", text)]
    return [(case["wire"], text)]


def test_the_corpus_is_big_enough():
    assert len(CASES) >= 25
    assert sum(c["expect"] == "refused" for c in CASES) >= 3


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_each_recorded_shape(mem, llm, case):  # noqa: F811
    llm.push(*_steps(case))
    before = snapshot(mem.root)
    if case["expect"] == "refused":
        result = run(mem, llm, ok=False)
        assert result.exit_code == 7, result.stderr
        assert case["error"] in result.stderr and result.stderr.count("\n") == 1
        assert snapshot(mem.root) == before
        return
    result = run(mem, llm, "--dry-run", "--json", ok=False)
    # An answer nothing could be used from is its own exit code (12), not success.
    assert result.exit_code == (12 if case["expect"] == "unused" else 0), result.stderr
    report = json.loads(result.stdout)
    assert report["unused"] == (case["expect"] == "unused")
    batch = report["batches"][0]
    added = "\n".join(line[1:] for line in batch["diff"].splitlines() if line.startswith("+"))
    for line in case["lines"]:
        assert line in added, (line, batch["diff"])
    invalid = [e for e in batch["edits"] if e["status"] == "invalid"]
    assert len(invalid) == case["skipped"], invalid
    held = [e for e in batch["edits"] if e["status"] in ("review", "held")]
    assert len(held) == case["held"], batch["edits"]
    assert all(e["detail"] for e in invalid + held)  # each says why
    # Nothing is taken from an answer nothing could be used from; and a history paragraph
    # is never a bare timestamp.
    assert batch["unused"] == (case["expect"] == "unused")
    assert batch["unused"] or len(batch["historyEntry"]) > len("[2026-11-24 11:30] ")
    assert snapshot(mem.root) == before  # a dry run
