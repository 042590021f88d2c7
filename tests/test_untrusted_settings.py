"""A settings problem never costs an entry (issue 40): a mem.toml another clone broke, or
made a link, or a bad MEM_* variable, leaves `mem log`, `mem sync`, recall and status
running on this machine's last trusted values (else the defaults), said in one warning."""

from __future__ import annotations

import os

import git
import pytest
from helpers import Mem, settings
from typer.testing import CliRunner

from openclaw_mem.cli import app

BAD = {
    "out of range": "[recall]\nk = 0\n",
    "wrong type": '[recall]\nk = "six"\n',
    "unknown key": "[recall]\nkay = 3\n",
    "unparsable": "[recall\nk = = 3\n",
    "two [log] blocks": '[log]\ndefault_role = "user"\n[log]\nredact = true\n',
    "over 2 MB": "# " + "x" * (2 * 2**20 + 10) + "\n",
    "nested without end": "a = " + "[" * 50_000 + "]" * 50_000 + "\n",
    "not UTF-8": None,
    "a symlink": "link",
    "a FIFO": "fifo",
}


def _break(root, how: str) -> None:
    path = root / "mem.toml"
    path.unlink(missing_ok=True)
    text = BAD[how]
    if text is None:
        path.write_bytes(b"[recall]\nk = 3 # \xff\xfe\n")
    elif text == "link":
        (root / "elsewhere.toml").write_text("[recall]\nk = 2\n", encoding="utf-8")
        path.symlink_to(root / "elsewhere.toml")
    elif text == "fifo":
        os.mkfifo(path)
    else:
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("how", list(BAD))
def test_mem_log_appends_whatever_mem_toml_holds(ws, how):
    _break(ws.root, how)
    logged = ws("log", "--at", "2026-11-30T09:00", "I prefer green tea")
    assert logged.stdout.startswith("memory/2026-11-30.md#L")
    assert "I prefer green tea" in (ws.root / "memory" / "2026-11-30.md").read_text("utf-8")
    assert logged.stderr.count("\n") == 1 and logged.stderr.startswith("mem: warning: not used: ")
    assert "Traceback" not in logged.stderr and "unexpected" not in logged.stderr
    again = ws("log", "--at", "2026-11-30T09:01", "and oolong")
    assert again.stderr == ""  # said once a version; `mem status` says it every time
    status = ws("status")
    assert "not used: " in status.stderr
    found = ws("recall", "--json", "green tea")
    assert found.exit_code == 0 and "green tea" in found.stdout
    assert ws("context", "green tea").exit_code == 0


def test_the_fast_path_appends_too(ws):
    """`mem log` as agents call it, through entry.main in a fresh process."""
    import subprocess
    import sys

    _break(ws.root, "out of range")
    done = subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(ws.root), "log", "--at",
         "2026-11-30T09:00", "I prefer green tea"],
        capture_output=True, text=True, timeout=60, env=dict(os.environ),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("mem: warning: not used: recall.k in mem.toml must be at least 1")


def test_an_unreadable_mem_toml_keeps_the_last_trusted_values(ws, tmp_path, monkeypatch):
    monkeypatch.setenv("MEM_TRUST_FILE", str(tmp_path / "trusted.json"))
    settings(ws.root, "[log]\nredact = true\n[recall]\nk = 3\n")
    _break(ws.root, "unparsable")
    cfg = ws.json("config")
    assert cfg["log.redact"] == {"value": True, "source": "mem.toml (as trusted)"}
    assert cfg["recall.k"] == {"value": 3, "source": "mem.toml (as trusted)"}
    ws("log", "--at", "2026-11-30T09:00", "password=Hunter2Hunter2")
    assert "Hunter2" not in (ws.root / "memory" / "2026-11-30.md").read_text("utf-8")
    # One bad value: that key alone keeps its trusted value.
    (ws.root / "mem.toml").write_text("[log]\nredact = 7\n[recall]\nk = 4\n", encoding="utf-8")
    cfg = ws.json("config")
    assert cfg["log.redact"] == {"value": True, "source": "mem.toml (as trusted)"}
    assert cfg["recall.k"] == {"value": 4, "source": "mem.toml"}  # allow-listed, valid


def test_mem_trust_refuses_a_file_it_cannot_read(ws, tmp_path, monkeypatch):
    monkeypatch.setenv("MEM_TRUST_FILE", str(tmp_path / "trusted.json"))
    for how in ("unparsable", "unknown key", "a symlink"):
        _break(ws.root, how)
        refused = ws("trust", ok=False)
        assert refused.exit_code == 6 and refused.stderr.count("mem: error:") == 1
    assert not (tmp_path / "trusted.json").exists()


def test_a_bad_variable_costs_no_entry_and_stops_only_consolidation(ws, monkeypatch):
    monkeypatch.setenv("MEM_LOG_REDACT", "maybe")
    monkeypatch.setenv("MEM_RECALL_K", "0")
    logged = ws("log", "--at", "2026-11-30T09:00", "I prefer green tea")
    assert "not used: " in logged.stderr and "(and 1 more)" in logged.stderr
    assert ws("recall", "--json", "green tea").exit_code == 0
    config = ws("config")
    assert "log.redact in MEM_LOG_REDACT must be a bool" in config.stderr
    assert "recall.k in MEM_RECALL_K must be at least 1" in config.stderr
    assert ws("consolidate", "--provider", "offline").exit_code == 0  # not what guards it
    monkeypatch.setenv("MEM_LLM_BASE_URL", "")
    monkeypatch.setenv("MEM_CONSOLIDATE_PROVIDER", "openia")
    refused = ws("consolidate", ok=False)
    assert refused.exit_code == 6 and "MEM_CONSOLIDATE_PROVIDER" in refused.stderr


@pytest.mark.slow
def test_a_broken_mem_toml_from_a_remote_stops_neither_log_nor_the_sync_that_fixes_it(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("MEM_TRUST_FILE", str(tmp_path / "trusted.json"))
    bare = tmp_path / "remote.git"
    git.Repo.init(bare, bare=True)
    assert CliRunner().invoke(app, ["init", str(tmp_path / "a")]).exit_code == 0
    git.Repo(tmp_path / "a").create_remote("origin", str(bare))
    a = Mem(tmp_path / "a")
    a("sync")
    git.Repo.clone_from(str(bare), tmp_path / "b")
    b = Mem(tmp_path / "b")
    b("sync")
    for how in ("out of range", "unparsable", "two [log] blocks", "over 2 MB"):
        _break(a.root, how)
        a("sync")
        pulled = b("sync")
        assert "not used: " in pulled.stderr, how
        b("log", "--at", "2026-11-30T09:00", f"entry while mem.toml is {how}")
        b("sync")
    (a.root / "mem.toml").write_text("[recall]\nk = 4\n", encoding="utf-8")
    a("sync")
    b("sync")  # the fix arrives
    assert b.json("config")["recall.k"] == {"value": 4, "source": "mem.toml"}
    assert b("status").stderr == ""
    logs = "".join(p.read_text("utf-8") for p in (a.root / "memory").glob("*.md"))
    assert logs.count("entry while mem.toml is") == 4
