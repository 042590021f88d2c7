from __future__ import annotations

import os
import shutil

import pytest
from helpers import EXAMPLE, Mem
from typer.testing import CliRunner

from openclaw_mem.cli import app


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory, monkeypatch):
    """No test sees the developer's home, git identity or MEM_* settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for name in list(os.environ):
        if name.startswith("MEM_") or name.startswith("OPENAI_"):
            monkeypatch.delenv(name)
    # The same results whether or not the `local` extra is installed; embedding tests
    # choose their provider themselves.
    monkeypatch.setenv("MEM_EMBED_PROVIDER", "none")
    return home


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def ws(tmp_path) -> Mem:
    root = tmp_path / "ws"
    result = CliRunner().invoke(app, ["init", str(root)])
    assert result.exit_code == 0, result.stderr
    return Mem(root)


@pytest.fixture
def example(tmp_path) -> Mem:
    """A copy of workspace.example/ under git."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    result = CliRunner().invoke(app, ["init", str(root)])
    assert result.exit_code == 0, result.stderr
    return Mem(root)


@pytest.fixture
def llm():
    from llm_server import ScriptedLLM

    server = ScriptedLLM()
    yield server
    server.close()
