"""mem serve, driven by the MCP SDK's own client over stdio."""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, stdio_client


def _run(root, *extra, calls):
    async def main():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "openclaw_mem", "-w", str(root), "serve", *extra],
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
    assert sorted(names) == ["memory_get", "memory_log", "memory_search"]
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
    assert "assistant <!-- session: mcp-1 -->\n来自 MCP 的一条记录" in log
    assert escape.is_error and "`..` is not allowed" in escape.content[0].text


def test_read_only_has_no_memory_log(example):
    names, (attempt,) = _run(
        example.root, "--read-only", calls=[("memory_log", {"text": "should not land"})]
    )
    assert sorted(names) == ["memory_get", "memory_search"]
    assert attempt.is_error
    assert not any(
        "should not land" in p.read_text(encoding="utf-8")
        for p in (example.root / "memory").glob("*.md")
    )
