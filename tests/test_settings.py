"""Settings are checked when mem.toml is read: every bad value is one warning naming the key
and is not used (never "unexpected … please report it", never a refused command), and a
pathological regex never hangs a command."""

from __future__ import annotations

import time

import pytest


@pytest.mark.parametrize(
    "toml, key",
    [
        ("[llm]\ntimeout = -1\n", "llm.timeout"),
        ('[consolidate]\nredact_patterns = ["(unclosed"]\n', "consolidate.redact_patterns"),
        ('[consolidate]\nredact_patterns = ["(a+)+$"]\n', "consolidate.redact_patterns"),
        ("[recall]\nk = 0\n", "recall.k"),
        ("[recall]\nmmr_lambda = 2.5\n", "recall.mmr_lambda"),
        ("[index]\nchunk_tokens = 0\n", "index.chunk_tokens"),
        ("[llm]\ncontext_tokens = 10\n", "llm.context_tokens"),
        ('[embed]\nprovider = "gpu"\n', "embed.provider"),
        ("[watch]\ndebounce = inf\n", "watch.debounce"),
    ],
)
@pytest.mark.slow
def test_every_bad_value_is_named_and_not_used(ws, toml, key):
    (ws.root / "mem.toml").write_text(toml, encoding="utf-8")
    start = time.perf_counter()
    result = ws("consolidate", "--provider", "offline")
    assert time.perf_counter() - start < 10
    assert result.stderr.startswith(f"mem: warning: not used: {key} in mem.toml")
    assert "unexpected" not in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "name, value",
    [
        ("MEM_CONSOLIDATE_REDACT_PATTERNS", "(a+)+$"),
        ("MEM_CONSOLIDATE_PROVIDER", "ofline"),
    ],
)
def test_consolidation_refuses_a_setting_of_this_machine_it_cannot_read(
    ws, monkeypatch, name, value
):
    """A MEM_* variable is this machine's own word on where text goes and what is hidden:
    guessing the default instead could send it elsewhere, or unredacted."""
    ws("log", "--at", "2026-11-30T09:00", "I prefer green tea")
    monkeypatch.setenv(name, value)
    result = ws("consolidate", ok=False)
    assert result.exit_code == 6, result.stderr
    said = result.stderr.splitlines()[-1]
    assert said.endswith("consolidation does not run on a setting it cannot read")
    assert ws("log", "--at", "2026-11-30T09:01", "still logged").exit_code == 0


def test_a_bad_flag_value_is_exit_2(ws):
    result = ws("recall", "--min-score", "7", "x", ok=False)
    assert result.exit_code == 2 and "recall.min_score on the command line" in result.stderr
