from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from helpers import EXAMPLE, NOT_EXAMPLE, Mem
from typer.testing import CliRunner

from openclaw_mem.cli import app


def pytest_addoption(parser):
    parser.addoption(
        "--all",
        action="store_true",
        help="also run the tests marked slow (CI runs everything: python -m pytest --all)",
    )
    parser.addoption(
        "--agents",
        action="store_true",
        help="also run the real agent harnesses (tests/test_agents_live.py; opt-in)",
    )


def pytest_collection_modifyitems(config, items):
    """The default run leaves the slow tests out, for a quick loop; `--all` (what CI runs)
    and any `-m` expression of your own decide for themselves."""
    if not config.getoption("--agents"):
        skip = pytest.mark.skip(reason="the real harnesses run with --agents")
        for item in items:
            if item.get_closest_marker("agents"):
                item.add_marker(skip)
    if config.getoption("--all") or config.getoption("-m"):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


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
    # A test that picks the local model starts no resident behind its back (they outlive
    # the test); the tests of that mechanism turn it on themselves.
    monkeypatch.setenv("MEM_WATCH_IDLE", "0")
    # The user's resident (serve/pool.py) lives in the runtime folder: each test its own,
    # short enough for a socket's path, so no test asks another's resident.
    runtime = tempfile.mkdtemp(prefix="memrun-", dir="/tmp" if os.name == "posix" else None)
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    yield home
    shutil.rmtree(runtime, ignore_errors=True)


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
def memory(tmp_path):
    """A workspace as the library's users hold it: `Memory`, no CLI, no git (a test that
    needs git asks for `ws` or makes its repository itself), settings from no environment."""
    return _library(tmp_path / "lib", use_git=False)


@pytest.fixture
def git_memory(tmp_path):
    """`memory` with git, for a test that asks for it (commits, history, undo, sync)."""
    return _library(tmp_path / "lib-git", use_git=True)


@pytest.fixture
def example_memory(tmp_path):
    """workspace.example/ through the library, without git."""
    root = tmp_path / "example-lib"
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
    return _library(root, use_git=False)


def _library(root, use_git: bool):
    """`mem init` through the library, and the Memory over it, with no environment but
    what keeps tests apart from the machine (no embedding model, no resident)."""
    from openclaw_mem.memory import Memory, init

    init(root, use_git=use_git)
    return Memory.open(root, env={"MEM_EMBED_PROVIDER": "none", "MEM_WATCH_IDLE": "0"})


@pytest.fixture
def example(tmp_path) -> Mem:
    """A copy of workspace.example/ under git."""
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
    result = CliRunner().invoke(app, ["init", str(root)])
    assert result.exit_code == 0, result.stderr
    return Mem(root)


@pytest.fixture
def llm():
    from llm_server import ScriptedLLM

    server = ScriptedLLM()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def every_src_is_right(monkeypatch):
    """Over every test that writes a consolidation (a direct run, an accepted review, any
    provider): each curated line it adds with a `src=` must cite log lines that say what
    the line says (helpers.src_supports). Provenance that can be wrong is worse than none."""
    from helpers import src_problems

    from openclaw_mem.consolidate import modes, review, write

    original = write.write_batch

    def audited(ws, *args, **kwargs):
        names = ("MEMORY.md", "USER.md", "AGENTS.md")
        before = {n: _read(ws.root / n) for n in names}
        written = original(ws, *args, **kwargs)
        problems = [p for n in names for p in src_problems(ws.root, before[n], _read(ws.root / n))]
        assert not problems, problems
        return written

    monkeypatch.setattr(modes, "write_batch", audited)
    monkeypatch.setattr(review, "write_batch", audited)


def _read(path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""
