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
from pathlib import Path

import pytest
from helpers import EXAMPLE, NOT_EXAMPLE, Mem
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
    shutil.copytree(EXAMPLE, root, ignore=NOT_EXAMPLE)
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


def _package_with_mode(tmp_path):
    """A copy of the package with the README recipe's edits made for `--mode` (a ranking
    option recall/options.py already has, unexposed): its `Opt` in serve/turns.py and its
    field in recall/reads.py, nothing else."""
    import openclaw_mem

    copy = tmp_path / "pkg" / "openclaw_mem"
    shutil.copytree(
        os.path.dirname(openclaw_mem.__file__), copy, ignore=shutil.ignore_patterns("__pycache__")
    )
    # Beside the package, as a checkout (an editable install) has them.
    shutil.copytree(
        Path(openclaw_mem.__file__).parent.parent / "templates", copy.parent / "templates"
    )
    turns, reads = copy / "serve" / "turns.py", copy / "recall" / "reads.py"
    anchor = '    Opt("--explain", dest="explain"'
    text = turns.read_text(encoding="utf-8")
    assert anchor in text
    turns.write_text(
        text.replace(
            anchor, '    Opt("--mode", dest="mode", help="hybrid | bm25 | lsh."),\n' + anchor
        ),
        encoding="utf-8",
    )
    text = reads.read_text(encoding="utf-8")
    anchor = '    "role": _TEXT,'
    assert anchor in text
    reads.write_text(text.replace(anchor, anchor + '\n    "mode": _TEXT,'), encoding="utf-8")
    return copy


@pytest.mark.slow
def test_a_recall_option_is_added_in_the_places_the_readme_names(example, tmp_path):
    """The README's contributor note, carried out on a copy of the package: `--mode` works
    on the fast path, the full CLI and through a resident, as the library ranks with it."""
    from openclaw_mem.memory import Memory
    from openclaw_mem.recall.options import RecallOptions
    from openclaw_mem.recall.pipeline import recall

    copy = _package_with_mode(tmp_path)
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


@pytest.mark.slow
def test_the_added_option_reaches_mcp_the_library_and_mem_context(example, tmp_path):
    """The same copy: `mode` is memory_search's and memory_context's argument, a keyword of
    `Memory.recall` and `Memory.context`, and an option of `mem context`, each answering as
    the others do, and differently for another mode (so the option arrived)."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    copy = _package_with_mode(tmp_path)
    here = copy.parent
    env = {**os.environ, "PYTHONPATH": str(here), "MEM_NOW": NOW, "MEM_NO_DAEMON": "1"}
    query = "what does the user prefer for backend work"
    library = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json, sys\n"
            "from openclaw_mem import Memory\n"
            "mem = Memory.open(sys.argv[1])\n"
            "out = {}\n"
            "for mode in ('bm25', 'lsh'):\n"
            "    hits = mem.recall(sys.argv[2], mode=mode, record_access=False).hits\n"
            "    out[mode] = [[h.path, h.start_line] for h in hits]\n"
            "    out['context ' + mode] = mem.context(sys.argv[2], mode=mode).to_json()\n"
            "print(json.dumps(out))",
            str(example.root),
            query,
        ],
        env=env,
        cwd=here,
        capture_output=True,
        text=True,
    )
    assert library.returncode == 0, library.stderr
    expected = json.loads(library.stdout)
    assert expected["bm25"] != expected["lsh"]
    assert expected["context bm25"]["text"] != expected["context lsh"]["text"]
    for mode in ("bm25", "lsh"):
        cli = json.loads(
            _fast(example.root, "context", "--json", "--mode", mode, query, env=env, cwd=here)
        )
        assert cli["text"] == expected[f"context {mode}"]["text"]

    async def ask_mcp():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "openclaw_mem", "-w", str(example.root), "serve", "--read-only"],
            env=env,
            cwd=str(here),
        )
        async with stdio_client(params) as streams, ClientSession(*streams) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            out = {}
            for mode in ("bm25", "lsh"):
                found = await session.call_tool("memory_search", {"query": query, "mode": mode})
                out[mode] = json.loads(found.content[0].text)["results"]
                brief = await session.call_tool("memory_context", {"query": query, "mode": mode})
                out[f"context {mode}"] = json.loads(brief.content[0].text)
            return tools, out

    tools, got = asyncio.run(ask_mcp())
    assert "mode" in tools["memory_search"].input_schema["properties"]
    assert "mode" in tools["memory_context"].input_schema["properties"]
    for mode in ("bm25", "lsh"):
        assert [[r["path"], r["startLine"]] for r in got[mode]] == expected[mode]
        assert got[f"context {mode}"]["text"] == expected[f"context {mode}"]["text"]


def test_the_library_takes_a_requests_fields_as_keywords_and_names_a_wrong_one(example):
    """Memory.recall and Memory.context take what a recall request holds (recall/reads.py),
    no list of their own: a keyword it does not hold, or of the wrong type, is a TypeError
    that names it, as Python names an unexpected keyword."""
    from datetime import date, datetime

    from openclaw_mem.memory import Memory

    mem = Memory.open(example.root, env={**os.environ, "MEM_NOW": NOW})
    kept = mem.recall("Redis", path="memory/**", since=date(2026, 11, 10), record_access=False)
    assert kept.hits and all(h.path.startswith("memory/") for h in kept.hits)
    assert all(h.path >= "memory/2026-11-10" for h in kept.hits)
    brief = mem.context("Redis", budget=400, now=datetime(2026, 11, 28, 9), path="memory/**")
    cited = [m.cite for ms in brief.memories.values() for m in ms]
    assert cited and all(c.startswith("memory/") for c in cited)
    with pytest.raises(TypeError, match="takes no option 'budget'"):
        mem.recall("Redis", budget=200)
    with pytest.raises(TypeError, match="takes no option 'maxResults'"):
        mem.search("Redis", maxResults=3)
    with pytest.raises(TypeError, match="k must be an integer"):
        mem.recall("Redis", k="3")


def test_a_library_error_carries_the_exit_code_the_cli_exits_with(example):
    """docs/library.md: errors are MemError subclasses carrying the CLI's exit code."""
    from openclaw_mem import MemError
    from openclaw_mem.memory import Memory

    mem = Memory.open(example.root, env=dict(os.environ))
    cases = [
        (lambda: mem.get("memory/nope.md"), ("get", "memory/nope.md"), 4),
        (lambda: mem.recall("   "), ("recall", "   "), 2),
        (lambda: mem.get("../outside.md"), ("get", "../outside.md"), 2),
        (lambda: mem.forget("MEMORY.md:999"), ("forget", "MEMORY.md:999"), 4),
        (lambda: mem.review("no-such-proposal"), ("review", "no-such-proposal"), 4),
    ]
    for call, args, code in cases:
        with pytest.raises(MemError) as raised:
            call()
        said = example(*args, ok=False)
        assert int(raised.value.exit_code) == said.exit_code == code, args
        assert said.stderr == f"mem: error: {raised.value.message}\n", args
