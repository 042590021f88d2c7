"""`mem serve`: the memory as an MCP server over stdio.

Tools, in OpenClaw's shapes:
- memory_search(query, maxResults=6, minScore=0): {"results": [{path, startLine, endLine,
  score, snippet, source}]}
- memory_get(path, from=1, lines): {"path", "from", "lines", "text"}; confined to the
  workspace, symlinks refused
- memory_log(text, role="user", session): append one entry; absent with --read-only
A domain error comes back as a tool error with the same one-line message the CLI prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from .errors import MemError
from .index import IndexParams
from .recall import RecallOptions, get_lines, recall
from .workspace import Workspace

INSTRUCTIONS = (
    "Long-term memory of this agent and its user, kept as Markdown in a git repository. "
    "Call memory_search before answering anything that may depend on the past (preferences, "
    "projects, decisions, earlier conversations); cite path#Lx-Ly. Use memory_get to read "
    "more lines around a hit. Call memory_log to record each turn verbatim."
)


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    from mcp.server.mcpserver.exceptions import ToolError

    def run(**kwargs: Any) -> Any:
        try:
            return fn(**kwargs)
        except MemError as exc:
            raise ToolError(exc.message) from None

    return run


def build_server(
    ws: Workspace,
    params: IndexParams,
    opts: RecallOptions,
    read_only: bool = False,
    now: Callable[[], datetime] = lambda: datetime.now().replace(microsecond=0),
):
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool

    from . import __version__

    def memory_search(
        query: Annotated[str, Field(description="What to look for, in any language.")],
        maxResults: Annotated[int, Field(ge=1, le=50, description="How many results.")] = 6,
        minScore: Annotated[float, Field(ge=0, le=1, description="Drop weaker results.")] = 0.0,
    ) -> dict:
        """Search memory (BM25 + MinHash, time decay, MMR). Returns OpenClaw's result shape."""
        found = recall(
            ws, query, replace(opts, k=maxResults, min_score=minScore, now=now()), params
        )
        return {"results": [hit.to_json() for hit in found.hits]}

    def memory_get(
        path: Annotated[str, Field(description="A memory file, relative to the workspace.")],
        from_: Annotated[int, Field(alias="from", ge=1, description="First line, 1-based.")] = 1,
        lines: Annotated[
            int | None, Field(ge=1, description="How many lines (all if absent).")
        ] = None,
    ) -> dict:
        """Read lines of a memory file; only inside the workspace, no symlinks."""
        spec = f"{path}:{from_}" + (f":{lines}" if lines else "")
        got = get_lines(ws, spec)
        return {
            "path": got.path,
            "from": got.start,
            "lines": got.end - got.start + 1,
            "text": got.text,
        }

    def memory_log(
        text: Annotated[str, Field(description="The turn, verbatim.")],
        role: Annotated[str, Field(description="user, assistant, system or note.")] = "user",
        session: Annotated[str | None, Field(description="Session id.")] = None,
    ) -> dict:
        """Append one entry to today's daily log."""
        from .errors import UsageError
        from .logs import ROLES, NewEntry, append_entries

        if role not in ROLES:
            raise UsageError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        when = now()
        path = ws.day_file(when.date())
        result = append_entries(
            path, when.date(), [NewEntry(when, role, text, session)], rel=ws.rel(path)
        )
        return {"path": ws.rel(path), "startLine": result.start_line, "endLine": result.end_line}

    def tool(fn: Callable[..., Any], call: Callable[..., Any]) -> Tool:
        # The schema comes from fn's signature; calls go to `call`, which takes the
        # arguments by their wire names (memory_get's `from` is no Python name).
        return Tool.from_function(fn, name=fn.__name__).model_copy(update={"fn": _guard(call)})

    tools = [
        tool(memory_search, memory_search),
        tool(memory_get, lambda **kw: memory_get(kw["path"], kw.get("from", 1), kw.get("lines"))),
    ]
    if not read_only:
        tools.append(tool(memory_log, memory_log))
    return MCPServer("openclaw-mem", instructions=INSTRUCTIONS, version=__version__, tools=tools)
