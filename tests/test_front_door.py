"""One front door (issue 32): every route to a recall answers the same question the same
way: the full CLI, the per-turn fast path in this process's place, the fast path through a
resident process, and MCP's memory_search; a resident answers with the caller's settings
or declines."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from helpers import EXAMPLE, Mem
from typer.testing import CliRunner

from openclaw_mem.cli import app

NOW = "2026-11-28T09:00"
QUESTIONS = [
    ("Redis 连接超时", ()),
    ("what does the user prefer for backend work", ("-k", "3")),
    ("marathon training", ("--since", "2026-11-10")),
    ("跑步", ("--until", "2026-11-20", "-k", "4")),
    ("Go", ("--current",)),
    ("Hangzhou", ("--role", "user")),
    ("deploy", ("--as-of", "2026-11-15")),
    ("peanuts allergy", ("--min-score", "0.2")),
    ("Atlas reconciliation", ("--path", "memory/**")),
]


@pytest.fixture
def example(tmp_path):
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    assert CliRunner().invoke(app, ["init", str(root)]).exit_code == 0
    return Mem(root)


def _fast(root, *args: str, env: dict | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(root), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_every_route_answers_a_recall_the_same(example):
    from openclaw_mem import serve
    from openclaw_mem.memory import Memory

    mem = Memory.open(example.root, env=dict(os.environ))
    routes: dict[str, list[str]] = {"cli": [], "fast": [], "resident": []}
    for query, options in QUESTIONS:
        args = ("recall", "--json", "--now", NOW, *options, query)
        routes["cli"].append(example(*args, "--no-daemon").stdout)
        routes["fast"].append(_fast(example.root, *args, "--no-daemon"))
    server = serve.start_resident(mem)
    assert server is not None
    try:
        for query, options in QUESTIONS:
            args = ("recall", "--json", "--now", NOW, *options, query)
            routes["resident"].append(_fast(example.root, *args))
    finally:
        server.stop()
    assert routes["cli"] == routes["fast"] == routes["resident"]
    assert all(json.loads(out)["results"] for out in routes["cli"][:3])  # not vacuous
    # MCP memory_search takes a query, k and min_score: the same answer for those.
    at_now = Memory.open(example.root, env={**os.environ, "MEM_NOW": NOW})
    compared = 0
    for query, options in QUESTIONS:
        if len(options) % 2 or set(options[::2]) - {"-k", "--min-score"}:
            continue  # an option MCP does not take
        given = dict(zip(options[::2], options[1::2], strict=True))
        k, floor = given.get("-k"), given.get("--min-score")
        found = at_now.search(
            query, k=int(k) if k else None, min_score=float(floor) if floor else None
        )
        cli = json.loads(example("recall", "--json", "--now", NOW, *options, query).stdout)
        assert found["results"] == cli["results"], query
        compared += 1
    assert compared == 3


def test_a_resident_answers_with_the_callers_settings_or_declines(example):
    from openclaw_mem import serve
    from openclaw_mem.memory import Memory

    server = serve.start_resident(Memory.open(example.root, env=dict(os.environ)))
    assert server is not None
    try:
        args = ("recall", "--json", "--now", NOW, "Redis")
        assert len(json.loads(_fast(example.root, *args))["results"]) > 1
        # Another k for this caller: the resident declines, and the answer is the caller's.
        mine = json.loads(_fast(example.root, *args, env={"MEM_RECALL_K": "1"}))
        assert len(mine["results"]) == 1
        in_process = _fast(example.root, *args, "--no-daemon", env={"MEM_RECALL_K": "1"})
        assert mine == json.loads(in_process)
    finally:
        server.stop()
