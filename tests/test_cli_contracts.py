"""The CLI behaves like the tools people know: an unknown option is an error that names
the option it was probably meant to be, exit 2, nothing written; the per-turn fast path
and the full app say the same."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from helpers import snapshot
from typer.testing import CliRunner

from openclaw_mem.cli import app

CASES = [
    (["log", "--rol", "user", "typo test"], 2, "did you mean --role?"),
    (["log", "typo test", "--rol", "user"], 2, "did you mean --role?"),
    (["log", "-----BEGIN-----"], 2, "goes after --"),
    (["recall", "--jsn", "-k", "1", "Hugo blog"], 2, "did you mean --json?"),
    (["context", "--agent", "coder", "x"], 2, "no such option: --agent"),
    (["log", "--", "-----BEGIN-----"], 0, ""),
    (["log", "- buy milk"], 0, ""),
    (["log", "--role", "user", "-1 degrees outside"], 0, ""),
]


def _fast(root, argv: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "MEM_NO_DAEMON": "1", "MEM_EMBED_PROVIDER": "none"}
    return subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(root), *argv],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
    )


@pytest.mark.parametrize("argv, code, said", CASES)
def test_options_are_strict_and_both_paths_agree(tmp_path, argv, code, said):
    results = []
    for how in ("fast", "full"):
        root = tmp_path / how
        assert CliRunner().invoke(app, ["init", "--no-git", str(root)]).exit_code == 0
        before = snapshot(root)
        if how == "fast":  # the `mem` process: its fast path, else the full app
            run = _fast(root, argv)
            got = (run.returncode, run.stderr)
        else:
            run = CliRunner().invoke(app, ["-w", str(root), *argv])
            got = (run.exit_code, run.stderr)
        assert got[0] == code, (how, got)
        assert said in got[1] and got[1].count("\n") <= 1, (how, got)
        after = snapshot(root)
        if code:
            assert after == before, how  # nothing written
        results.append(sorted(after.items()))
    logged = [[v for k, v in files if k.startswith("memory/")] for files in results]
    strip = [[b.split(b"\n## ", 1)[-1].split(b"\n", 1)[-1] for b in f] for f in logged]
    assert strip[0] == strip[1]  # the same text, whichever path logged it
