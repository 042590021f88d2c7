from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from openclaw_mem.cli import app

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "workspace.example"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory, monkeypatch):
    """No test sees the developer's home, git identity or MEM_* settings."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for name in list(__import__("os").environ):
        if name.startswith("MEM_") or name.startswith("OPENAI_"):
            monkeypatch.delenv(name)
    return home


class Mem:
    """Runs `mem` in-process through CliRunner against one workspace."""

    def __init__(self, root: Path):
        self.root = root
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | bytes | None = None, ok: bool = True):
        result = self.runner.invoke(app, ["-w", str(self.root), *args], input=input)
        if ok:
            assert result.exit_code == 0, (result.stdout, result.stderr)
        return result

    def json(self, *args: str):
        return json.loads(self(*args, "--json").stdout)


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


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of a workspace (git objects aside) and the HEAD it is at."""
    import git

    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts and ".mem" not in p.parts
    }
    with contextlib.suppress(ValueError, git.InvalidGitRepositoryError):
        files["HEAD"] = git.Repo(root).head.commit.hexsha.encode()
    return files
