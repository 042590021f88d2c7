"""mem serve, driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import sys

import pytest
from helpers import settings, without_ids
from mcp import ClientSession, StdioServerParameters, stdio_client


def _run(root, *extra, calls, env=None):
    async def main():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "openclaw_mem", "-w", str(root), "serve", *extra],
            env=env,  # None: the SDK's few safe variables
        )
        async with stdio_client(params) as streams, ClientSession(*streams) as session:
            await session.initialize()
            tools = await session.list_tools()
            results = [await session.call_tool(name, args) for name, args in calls]
            return [t.name for t in tools.tools], results

    return asyncio.run(main())


def _data(result):
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


@pytest.mark.slow
def test_search_get_and_log_over_stdio(example):
    names, (search, get, logged, escape) = _run(
        example.root,
        calls=[
            ("memory_search", {"query": "Redis 连接超时", "maxResults": 2}),
            ("memory_get", {"path": "memory/2026-11-05.md", "from": 3, "lines": 2}),
            (
                "memory_log",
                {"text": "来自 MCP 的一条记录", "role": "assistant", "session": "mcp-1"},
            ),
            ("memory_get", {"path": "../secret.md"}),
        ],
    )
    assert sorted(names) == [
        "memory_context",
        "memory_forget",
        "memory_get",
        "memory_log",
        "memory_search",
        "memory_status",
    ]
    results = _data(search)["results"]
    assert len(results) == 2
    assert set(results[0]) == {"path", "startLine", "endLine", "score", "snippet", "source"}
    assert results[0]["path"] == "memory/2026-11-05.md"
    assert _data(get) == {
        "path": "memory/2026-11-05.md",
        "from": 3,
        "lines": 2,
        "text": "## 02:14 · user\n线上告警了：Atlas 的 reconciliation worker 报 Redis 连接超时 "
        "(redis.exceptions.TimeoutError: Timeout reading from socket)，半夜被 on-call 叫起来了。",
    }
    where = _data(logged)
    log = (example.root / where["path"]).read_text(encoding="utf-8")
    assert "assistant <!-- session: mcp-1 -->\n来自 MCP 的一条记录" in without_ids(log)
    assert escape.is_error and "`..` is not allowed" in escape.content[0].text


def test_read_only_does_not_tell_clients_to_log():
    from openclaw_mem.serve.mcp_server import build_server

    class Nothing:  # building the server reads nothing from the memory
        pass

    said = build_server(Nothing(), read_only=True).instructions
    assert "memory_search" in said and "memory_log" not in said
    assert "memory_log" in build_server(Nothing()).instructions


@pytest.mark.slow
def test_read_only_has_no_memory_log(example):
    names, (attempt,) = _run(
        example.root, "--read-only", calls=[("memory_log", {"text": "should not land"})]
    )
    assert sorted(names) == ["memory_context", "memory_get", "memory_search", "memory_status"]
    assert attempt.is_error
    assert not any(
        "should not land" in p.read_text(encoding="utf-8")
        for p in (example.root / "memory").glob("*.md")
    )


def _raw(root, *lines: str) -> list[dict]:
    """Send raw lines to `mem serve` and return every JSON-RPC message it wrote."""
    import subprocess

    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }
    text = "\n".join(
        [json.dumps(init), '{"jsonrpc":"2.0","method":"notifications/initialized"}', *lines]
    )
    done = subprocess.run(
        [sys.executable, "-m", "openclaw_mem", "-w", str(root), "serve"],
        input=text + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    # A tool's error is the client's to show: nothing on stderr (the SDK's INFO log drew a
    # multi-line box there for each one).
    assert "Tool '" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr  # a handler's error is the client's
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


@pytest.mark.slow
def test_lines_that_are_not_json_rpc_get_json_rpc_errors(example):
    answers = _raw(
        example.root,
        "this is not json",
        '{"foo": 1}',
        '{"jsonrpc": "2.0", "method": 5, "id": 1}',
        '{"jsonrpc": "2.0", "id": 2, "method": "ping"}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", '
        '"params": {"name": "memory_get", "arguments": {"path": "nosuch.md"}}}',
    )
    errors = [a["error"]["code"] for a in answers if "error" in a]
    assert errors == [-32700, -32600, -32600]
    assert {"jsonrpc": "2.0", "id": 2, "result": {}} in answers
    assert next(a for a in answers if a.get("id") == 3)["result"]["isError"] is True


@pytest.mark.slow
def test_a_request_whose_id_or_method_is_wrong_is_answered(example):
    """An outside audit: an object as id was read as a notification and answered by
    nothing; a line with an id and no method was answered with id null; an unknown prompt's
    error printed a traceback on stderr."""
    answers = _raw(
        example.root,
        '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":2}',
        '{"jsonrpc":"2.0","id":23,"method":"prompts/get","params":{"name":"x"}}',
        '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}',
    )
    errors = [(a["id"], a["error"]["code"]) for a in answers if "error" in a]
    assert (None, -32600) in errors and (2, -32600) in errors
    assert any(i == 23 for i, _ in errors)
    assert len(errors) == 3  # a real notification is answered by nothing


def test_bad_arguments_are_one_line(example):
    async def main():
        from mcp import Client

        from openclaw_mem.memory import Memory
        from openclaw_mem.serve.mcp_server import build_server

        server = build_server(Memory.open(example.root, env=dict(os.environ)))
        async with Client(server) as client:
            return [
                await client.call_tool("memory_search", {"query": "x", "maxResults": 500}),
                await client.call_tool("memory_search", {}),
                await client.call_tool("memory_get", {"path": "USER.md", "from": 0, "lines": "x"}),
                await client.call_tool("memory_get", {"path": "../secret.md"}),
            ]

    texts = [r.content[0].text for r in asyncio.run(main())]
    assert texts[:3] == [
        "memory_search: maxResults must be at most 50",
        "memory_search: query is required",
        "memory_get: from must be at least 1; lines must be an integer",
    ]
    assert texts[3].startswith("../secret.md: `..` is not allowed")
    assert all("\n" not in t and "http" not in t for t in texts)


def test_the_same_scenario_through_the_cli_and_mcp_gives_the_same_memory(tmp_path, monkeypatch):
    """One facade under both front ends: the same writes, files, commits and answers (both
    on a replayed clock, so the entries' ids are drawn the same way)."""
    from datetime import datetime

    from helpers import Mem
    from typer.testing import CliRunner

    from openclaw_mem.cli import app
    from openclaw_mem.memory import Memory
    from openclaw_mem.serve.mcp_server import build_server

    turns = [
        ("user", "我最近在用FastAPI做项目，还用了Redis"),
        ("assistant", "好的，记住了 FastAPI"),
    ]
    roots = {}
    for name in ("cli", "mcp"):
        roots[name] = tmp_path / name
        assert CliRunner().invoke(app, ["init", str(roots[name])]).exit_code == 0
        settings(roots[name], '[git]\nautocommit = "log"\n')

    cli = Mem(roots["cli"])
    monkeypatch.setenv("MEM_NOW", "2026-11-30T09:00")
    for role, text in turns:
        cli("log", "--at", "2026-11-30T09:00", "--role", role, text)
    cli_search = cli.json("recall", "--now", "2026-11-30T09:00", "-k", "2", "FastAPI")
    cli_get = cli.json("get", "memory/2026-11-30.md:3:2")

    async def via_mcp():
        from mcp import Client

        clock = lambda: datetime(2026, 11, 30, 9, 0)  # noqa: E731
        memory = Memory.open(roots["mcp"], env=dict(os.environ), clock=clock)
        async with Client(build_server(memory)) as client:
            for role, text in turns:
                await client.call_tool("memory_log", {"text": text, "role": role})
            search = await client.call_tool("memory_search", {"query": "FastAPI", "maxResults": 2})
            get = await client.call_tool(
                "memory_get", {"path": "memory/2026-11-30.md", "from": 3, "lines": 2}
            )
            return _data(search), _data(get)

    mcp_search, mcp_get = asyncio.run(via_mcp())
    assert mcp_search.pop("notice").startswith("Recalled memory")  # the firewall's label
    # A replayed clock draws ids from where the workspace is too (two clones replaying one
    # step must not draw one id): the two workspaces differ in their ids alone.
    import json
    import re

    def same(x):
        return json.loads(re.sub(r"id: [0-9a-f]{12}", "id: -", json.dumps(x, ensure_ascii=False)))

    assert same(mcp_search) == same(cli_search) and same(mcp_get) == same(cli_get)
    day = "memory/2026-11-30.md"
    assert same((roots["cli"] / day).read_text("utf-8")) == same(
        (roots["mcp"] / day).read_text("utf-8")
    )

    def subjects(root):
        import git

        return [c.message.strip() for c in git.Repo(root).iter_commits()]

    assert subjects(roots["cli"]) == subjects(roots["mcp"])
    assert subjects(roots["mcp"])[0] == f"mem log: {day}"  # MCP memory_log commits too


@pytest.mark.slow
def test_search_defaults_come_from_the_settings_and_results_are_structured(example, monkeypatch):
    """MEM_RECALL_K=3 gives 3 results over MCP, as on the command line."""
    monkeypatch.setenv("MEM_RECALL_K", "3")
    cli = example.json("recall", "--json", "--no-daemon", "Redis")["results"]
    _, (search, wider) = _run(
        example.root,
        env=dict(os.environ),
        calls=[
            ("memory_search", {"query": "Redis"}),
            ("memory_search", {"query": "Redis", "maxResults": 5}),
        ],
    )
    assert len(cli) == 3 and len(_data(search)["results"]) == 3
    assert len(_data(wider)["results"]) == 5
    assert search.structured_content == _data(search)  # structured, with its JSON as text
    assert [r["path"] for r in search.structured_content["results"]] == [r["path"] for r in cli]


@pytest.mark.slow
def test_a_min_score_setting_reaches_mcp(example, monkeypatch):
    monkeypatch.setenv("MEM_RECALL_MIN_SCORE", "0.99")
    _, (search,) = _run(
        example.root,
        env=dict(os.environ),
        calls=[("memory_search", {"query": "Redis 连接超时"})],
    )
    assert all(r["score"] >= 0.99 for r in _data(search)["results"])
    cli = example("recall", "--json", "--no-daemon", "Redis 连接超时", ok=False).stdout
    assert len(json.loads(cli)["results"]) == len(_data(search)["results"])


@pytest.mark.slow
def test_unknown_arguments_are_refused_by_name(example):
    _, (typo, extra, logged) = _run(
        example.root,
        calls=[
            ("memory_search", {"query": "Redis", "max_results": 2}),
            ("memory_status", {"verbose": True}),
            ("memory_log", {"text": "should not land", "speaker": "x"}),
        ],
    )
    assert typo.is_error and typo.content[0].text == (
        "memory_search: unknown argument 'max_results' (it takes asOf, current, maxResults, "
        "minScore, path, query, role, since, until)"
    )
    assert extra.is_error
    assert "unknown argument 'verbose' (it takes nothing)" in extra.content[0].text
    assert logged.is_error
    assert not any(
        "should not land" in p.read_text(encoding="utf-8")
        for p in (example.root / "memory").glob("*.md")
    )


@pytest.mark.slow
def test_context_status_and_forget_over_stdio(example):
    _, (context, status, forget, again) = _run(
        example.root,
        calls=[
            ("memory_context", {"query": "Redis 超时", "budget": 300}),
            ("memory_status", {}),
            ("memory_forget", {"target": "MEMORY.md:9"}),
            ("memory_context", {"query": "x", "budget": 10}),
        ],
    )
    block = _data(context)
    assert block["text"].startswith("<memory>") and block["budget"] == 300
    assert block["tokens"] <= 300 and context.structured_content == block
    assert _data(status)["workspace"] == str(example.root)
    assert again.is_error and "budget must be at least 50" in again.content[0].text
    done = _data(forget)["lines"][0]
    assert done["path"] == "MEMORY.md" and done["mode"] == "deprecated"
    line = (example.root / "MEMORY.md").read_text(encoding="utf-8").splitlines()[8]
    assert line.startswith("- ~~")


@pytest.mark.slow
def test_mem_serve_answers_with_the_settings_as_they_are_now(example):
    """`mem serve` lives as long as its agent's session and read mem.toml once: a setting
    the user changed meanwhile (k, min_score) counted only once the agent restarted, over
    MCP and for the CLI calls its socket answers. It now opens the workspace again when
    mem.toml (or what `mem trust` trusts of it) changes."""
    root = example.root
    socket = root / ".mem" / "mem.sock"

    def cli_results() -> int:  # answered by `mem serve`'s resident over .mem/mem.sock
        assert socket.exists()
        return len(example.json("recall", "Redis")["results"])

    async def main():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "openclaw_mem", "-w", str(root), "serve"],
            env=dict(os.environ),  # the CLI's settings: its resident answers it
        )
        async with stdio_client(params) as streams, ClientSession(*streams) as session:
            await session.initialize()
            seen = []

            async def search() -> None:
                got = await session.call_tool("memory_search", {"query": "Redis"})
                seen.append((len(_data(got)["results"]), cli_results()))

            await search()
            settings(root, "[recall]\nk = 2\n")
            await search()
            (root / "mem.toml").write_text('[recall]\nk = "many"\n', encoding="utf-8")
            await search()  # as a new command reads it: the last trusted settings stand
            settings(root, "[recall]\nk = 3\n")
            await search()
            return seen

    assert asyncio.run(main()) == [(6, 6), (2, 2), (2, 2), (3, 3)]
