"""Settings are checked when mem.toml is read: every bad value is exit 6 naming the key,
never "unexpected … please report it", and a pathological regex never hangs a command."""

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
def test_every_bad_value_is_exit_6_naming_the_key(ws, toml, key):
    (ws.root / "mem.toml").write_text(toml, encoding="utf-8")
    start = time.perf_counter()
    result = ws("consolidate", "--provider", "offline", ok=False)
    assert time.perf_counter() - start < 10
    assert result.exit_code == 6, result.stderr
    assert result.stderr.startswith(f"mem: error: {key} in mem.toml")
    assert "unexpected" not in result.stderr and result.stderr.count("\n") == 1


def test_a_bad_flag_value_is_exit_2(ws):
    result = ws("recall", "--min-score", "7", "x", ok=False)
    assert result.exit_code == 2 and "recall.min_score on the command line" in result.stderr
