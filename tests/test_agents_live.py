"""The real harnesses, opt-in: `python -m pytest --agents tests/test_agents_live.py` runs
bench/agents.py's sessions (Claude Code and Codex against the scripted server, OpenClaw's
own index and search) and holds every one of its checks. Each skips in one line when its
package is not in the cache (`python bench/agents.py` installs them there from npm)."""

from __future__ import annotations

import sys

import pytest
from helpers import REPO

sys.path.insert(0, str(REPO / "bench"))

import agents  # bench/agents.py

pytestmark = [pytest.mark.slow, pytest.mark.agents]
CACHE = agents.cache_dir(None)  # read at collection, before each test gets a home of its own


def _installed(name: str):
    exe = agents.binary(CACHE, name)
    if exe is None:
        pytest.skip(f"{name} is not in {CACHE}: python bench/agents.py installs it")
    return exe


@pytest.mark.parametrize("harness", sorted(agents.HARNESSES))
def test_a_three_turn_session_with_the_installed_hooks(harness, monkeypatch):
    exe = _installed(harness)
    monkeypatch.delenv("MEM_WATCH_IDLE")  # the session runs as a user's would
    result = agents.run_session(harness, exe, "none")
    assert result["checks"] and all(result["checks"].values()), result["checks"]
    assert result["errors"] == [] and result["left"] == []


def test_openclaw_shows_no_mem_comment():
    result = agents.run_openclaw(_installed("openclaw"), _installed("node24"))
    assert all(result["checks"].values()), result
