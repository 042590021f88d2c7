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


def _fast(root, *args: str, env: dict | None = None, cwd=None, found: bool = True) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(root), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )
    # A recall that finds nothing exits 1, as grep does; `found=False` accepts that.
    assert done.returncode == 0 or (not found and done.returncode == 1), done.stderr
    return done.stdout


@pytest.mark.slow
def test_every_route_answers_a_recall_the_same(example):
    from openclaw_mem import serve
    from openclaw_mem.memory import Memory

    mem = Memory.open(example.root, env=dict(os.environ))
    routes: dict[str, list[str]] = {"cli": [], "fast": [], "resident": []}
    for query, options in QUESTIONS:
        args = ("recall", "--json", "--now", NOW, *options, query)
        cli = example(*args, "--no-daemon", ok=False)
        assert cli.exit_code == (0 if json.loads(cli.stdout)["results"] else 1)
        routes["cli"].append(cli.stdout)
        routes["fast"].append(_fast(example.root, *args, "--no-daemon", found=False))
    server = serve.start_resident(mem)
    assert server is not None
    try:
        for query, options in QUESTIONS:
            args = ("recall", "--json", "--now", NOW, *options, query)
            routes["resident"].append(_fast(example.root, *args, found=False))
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
        cli = json.loads(
            example("recall", "--json", "--now", NOW, *options, query, ok=False).stdout
        )
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


@pytest.mark.slow
def test_a_recall_option_is_added_in_the_places_the_readme_names(example, tmp_path):
    """The README's contributor note, carried out on a copy of the package: `--mode` (a
    ranking option recall/options.py already has, unexposed) gets an `Opt` in serve/turns.py
    and a field in recall/reads.py, nothing else, and works on the fast path, the full CLI
    and through a resident, as the library ranks with it."""
    import openclaw_mem
    from openclaw_mem.memory import Memory
    from openclaw_mem.recall.options import RecallOptions
    from openclaw_mem.recall.pipeline import recall

    copy = tmp_path / "pkg" / "openclaw_mem"
    shutil.copytree(
        os.path.dirname(openclaw_mem.__file__), copy, ignore=shutil.ignore_patterns("__pycache__")
    )
    turns, reads = copy / "serve" / "turns.py", copy / "recall" / "reads.py"
    anchor = '            Opt("--explain", dest="explain"'
    text = turns.read_text(encoding="utf-8")
    assert anchor in text
    turns.write_text(
        text.replace(
            anchor,
            '            Opt("--mode", dest="mode", help="hybrid | bm25 | lsh."),\n' + anchor,
        ),
        encoding="utf-8",
    )
    text = reads.read_text(encoding="utf-8")
    anchor = '    "role": _TEXT,'
    assert anchor in text
    reads.write_text(text.replace(anchor, anchor + '\n    "mode": _TEXT,'), encoding="utf-8")

    # `python -m` puts the working directory first on the path: run beside the copy.
    here = copy.parent
    env = {"PYTHONPATH": str(here), "MEM_NOW": NOW}
    query = "what does the user prefer for backend work"
    mem = Memory.open(example.root, env={**os.environ, "MEM_NOW": NOW})
    expected = {}
    for mode in ("bm25", "lsh"):
        found = recall(
            mem.ws,
            query,
            RecallOptions.from_config(mem.config, mode=mode, now=mem.now()),
            mem.index_params,
        )
        expected[mode] = [(h.path, h.start_line) for h in found.hits]
    assert expected["bm25"] != expected["lsh"]  # the option changes the answer

    def ranked(out: str) -> list[tuple[str, int]]:
        return [(r["path"], r["startLine"]) for r in json.loads(out)["results"]]

    for mode in ("bm25", "lsh"):
        # --explain is read by the full CLI only: the typer command has the option too.
        for route in (("--no-daemon",), ("--explain", "--no-daemon")):
            args = ("recall", "--json", *route, "--mode", mode, query)
            assert ranked(_fast(example.root, *args, env=env, cwd=here)) == expected[mode]
    resident = subprocess.Popen(
        [sys.executable, "-m", "openclaw_mem", "-w", str(example.root), "watch"],
        env={**os.environ, **env},
        cwd=here,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert "answering recall" in resident.stdout.readline()
        through = _fast(
            example.root, "recall", "--json", "--mode", "bm25", query, env=env, cwd=here
        )
        assert ranked(through) == expected["bm25"]
        # And it was the resident that answered: asked on its socket, it ranks by the mode.
        asked = subprocess.run(
            [
                sys.executable,
                "-c",
                "import json, os, sys\n"
                "from openclaw_mem.environment import settings_of\n"
                "from openclaw_mem.serve.socket_client import ask\n"
                "print(json.dumps(ask(sys.argv[1], 'recall', json.loads(sys.argv[2]),"
                " settings_of(os.environ))))",
                str(example.root),
                json.dumps({"query": query, "mode": "bm25", "now": NOW + ":00", "agent": ""}),
            ],
            env={**os.environ, **env},
            cwd=here,
            capture_output=True,
            text=True,
        )
        reply = json.loads(asked.stdout)
        assert reply["ok"], reply
        assert [(r["path"], r["startLine"]) for r in reply["result"]["results"]] == expected["bm25"]
    finally:
        resident.terminate()
        resident.wait(10)
