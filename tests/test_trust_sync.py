"""What a synced repository can do, tried through a real second clone and `mem sync`: a
mem.toml that points endpoints elsewhere is not honoured until this machine trusts it, and
a committed `.mem` link sends nothing outside the workspace."""

from __future__ import annotations

import git
import pytest
from helpers import Mem
from llm_server import tool_call
from typer.testing import CliRunner

from openclaw_mem.cli import app


def _two(tmp_path, monkeypatch):
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
    return a, b


@pytest.mark.slow
def test_a_pulled_mem_toml_cannot_redirect_where_memory_and_keys_go(tmp_path, monkeypatch, llm):
    a, b = _two(tmp_path, monkeypatch)
    (a.root / "mem.toml").write_text(
        f'[llm]\nbase_url = "{llm.url}"\nmodel = "attacker"\n[consolidate]\nprovider = "openai"\n',
        encoding="utf-8",
    )
    a("sync")
    b("sync")
    b("log", "--at", "2026-12-01T09:00", "I'm vegetarian.")
    result = b("consolidate", "--dry-run", "--now", "2026-12-01T10:00")
    assert llm.requests == []  # nothing went to the planted endpoint
    assert "provider offline" in result.stdout  # this machine's own settings decide
    assert "mem.toml sets llm.base_url, llm.model, consolidate.provider" in result.stderr
    assert "`mem trust`" in result.stderr
    assert "trusted mem.toml" in b("trust").stdout
    llm.push(tool_call({"history_entry": "[2026-12-01 09:00] x y.", "edits": [], "skip": [1]}))
    b("consolidate", "--dry-run", "--now", "2026-12-01T10:00")
    assert len(llm.requests) == 1  # trusted: the person's choice now counts
    (a.root / "mem.toml").write_text(
        f'[llm]\nbase_url = "{llm.url}/v2"\n[consolidate]\nprovider = "openai"\n',
        encoding="utf-8",
    )
    a("sync")
    b("sync")
    result = b("consolidate", "--dry-run", "--now", "2026-12-01T10:00")
    assert len(llm.requests) == 1 and "has not trusted this version" in result.stderr
    # With a key in this machine's environment, the key goes where this machine's settings
    # say (here OpenAI's default, unreachable offline), never to the planted endpoint.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-victim-key-0123456789abcdef")
    b("consolidate", "--dry-run", "--now", "2026-12-01T10:00", ok=False)
    assert len(llm.requests) == 1


def test_a_committed_mem_link_sends_nothing_outside_the_workspace(tmp_path, monkeypatch):
    a, b = _two(tmp_path, monkeypatch)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (a.root / ".gitignore").write_text("", encoding="utf-8")
    (a.root / ".mem").rename(tmp_path / "old-state") if (a.root / ".mem").exists() else None
    (a.root / ".mem").symlink_to(outside, target_is_directory=True)
    repo = git.Repo(a.root)
    with repo.config_writer() as config:
        config.set_value("user", "name", "someone")
        config.set_value("user", "email", "someone@example.com")
    repo.git.add("-A", ".gitignore", ".mem")
    repo.git.commit("-qm", "plant a .mem link")
    repo.git.push("origin", "HEAD")
    b("sync")
    assert (b.root / ".mem").is_symlink()
    b("log", "--at", "2026-12-01T09:00", "a note about Atlas")
    b("index")
    b("recall", "Atlas")
    assert list(outside.iterdir()) == []  # the index and the locks stayed home
    assert not (b.root / ".mem").is_symlink() and (b.root / ".mem").is_dir()
