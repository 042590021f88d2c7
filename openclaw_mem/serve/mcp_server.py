"""`mem serve`: the memory as an MCP server over stdio, a thin adapter over `Memory`.

Tools, in OpenClaw's shapes where OpenClaw has one; every result is structured content
(with its JSON as text beside it, for clients that read only text):
- memory_search(query, maxResults, minScore, since, until, path, asOf, current, role):
  {"notice", "results": [{path, startLine, endLine, score, snippet, source}]}; its
  arguments are `mem recall`'s options as declared once (serve/turns.py), so an option added
  there is an argument here; maxResults and minScore default to the settings' recall.k and
  recall.min_score, as `mem recall` does
- memory_get(path, from=1, lines): {"path", "from", "lines", "text"}; confined to the
  workspace, symlinks refused
- memory_context(query, budget, and recall's arguments but maxResults): the block `mem
  context` prints, and its parts
- memory_status(): what `mem status --json` says
- memory_log(text, role="user", session): append one entry, with the same write rules as
  `mem log` (autocommit, automatic consolidation); absent with --read-only
- memory_forget(target): forget words or one place as `mem forget` does without --hard
  (struck through or hidden, committed, undone by `mem undo`); absent with --read-only

An argument a tool does not take is refused by name, not dropped. Every error is one
line: a domain error reads as the CLI prints it, a bad argument names the
argument (`memory_search: maxResults must be at most 50`), and a line on stdin that is not
JSON-RPC is answered with -32700 (not JSON) or -32600 (not a request), as JSON-RPC 2.0 asks,
instead of being dropped in silence.

May import only `memory`, `errors`, the per-turn declaration (`serve.turns`, whose options are
the tools' arguments) and the package root (`openclaw_mem`, for its version).
"""

# No `from __future__ import annotations`: the SDK reads the tools' Annotated signatures at
# run time, and string annotations would name a Field it cannot resolve.
from typing import TYPE_CHECKING, Annotated, Any, Literal

from ..errors import MemError

Answer = dict[str, Any]  # a tool's result: structured content, its JSON the text beside it

if TYPE_CHECKING:  # the facade calls serve_stdio; at run time this module needs only its type
    from collections.abc import Callable

    from ..memory import Memory

INSTRUCTIONS = (
    "Long-term memory of this agent and its user, kept as Markdown in a git repository. "
    "Call memory_search before answering anything that may depend on the past (preferences, "
    "projects, decisions, earlier conversations); cite path#Lx-Ly. Use memory_get to read "
    "more lines around a hit."
)
LOG_INSTRUCTION = (  # not when read-only
    " Call memory_log to record each turn verbatim. Call memory_forget only when the user "
    "asks you to forget something."
)
_TYPE_WORDS = {"int": "an integer", "float": "a number", "string": "a string", "bool": "a boolean"}
_BOUNDS = (("le", "at most"), ("ge", "at least"), ("lt", "less than"), ("gt", "greater than"))


def _say(err: Any) -> str:
    """One pydantic error as a phrase: `maxResults must be at most 50`."""
    where = ".".join(str(p) for p in err["loc"]) or "arguments"
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind == "missing":
        return f"{where} is required"
    if kind.startswith(("less_than", "greater_than")):
        for key, words in _BOUNDS:
            if key in ctx:
                return f"{where} must be {words} {ctx[key]}"
    base = kind.split("_")[0]
    if base in _TYPE_WORDS and kind.endswith(("_type", "_parsing", "_from_float")):
        return f"{where} must be {_TYPE_WORDS[base]}"
    msg = str(err.get("msg", "is not valid"))
    return f"{where}: {msg[:1].lower()}{msg[1:]}"


def build_server(memory: "Callable[[], Memory] | Memory", *, read_only: bool = False):
    """The MCP server over `memory`: a Memory, or what gives the one to answer each call
    with (`mem serve` hands one that reads the settings again when mem.toml changes)."""
    if not callable(memory):
        memory = _constant(memory)
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
    from mcp.server.mcpserver.tools import Tool
    from pydantic import Field, ValidationError

    from .. import __version__

    class OneLineTool(Tool):
        """A tool whose failures are one line: the SDK's validation report (several lines
        with documentation URLs) and its `Error executing tool` prefix are replaced."""

        async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False):
            takes = set(self.parameters.get("properties", {}))
            unknown = sorted(set(arguments) - takes)
            if unknown:
                names = ", ".join(sorted(takes)) or "nothing"
                raise ToolError(f"{self.name}: unknown argument {unknown[0]!r} (it takes {names})")
            try:
                return await super().run(arguments, context, convert_result=convert_result)
            except ToolError as exc:
                cause = exc.__cause__
                if isinstance(cause, ValidationError) and not isinstance(exc, UnexpectedToolError):
                    said = "; ".join(dict.fromkeys(_say(e) for e in cause.errors()))
                    raise ToolError(f"{self.name}: {said}") from cause
                if isinstance(cause, MemError):
                    raise ToolError(cause.message) from cause
                raise

    def memory_get(
        path: Annotated[str, Field(description="A memory file, relative to the workspace.")],
        from_: Annotated[int, Field(alias="from", ge=1, description="First line, 1-based.")] = 1,
        lines: Annotated[
            int | None, Field(ge=1, description="How many lines (all if absent).")
        ] = None,
    ) -> Answer:
        """Read lines of a memory file; only inside the workspace, no symlinks."""
        return memory().get(path, start=from_, lines=lines).to_json()

    def memory_log(
        text: Annotated[str, Field(description="The turn, verbatim.")],
        role: Annotated[str, Field(description="user, assistant, system or note.")] = "user",
        session: Annotated[str | None, Field(description="Session id.")] = None,
    ) -> Answer:
        """Append one entry to today's daily log."""
        return memory().log(text, role=role, session=session).to_json()

    def tool(fn, call) -> Tool:
        # The schema comes from fn's signature; calls go to `call`, which takes the
        # arguments by their wire names (memory_get's `from` is no Python name).
        return OneLineTool.from_function(fn, name=fn.__name__).model_copy(update={"fn": call})

    search = _declared(
        "recall",
        "memory_search",
        "Search memory (BM25 + pseudo-vectors, time decay, MMR). OpenClaw's result shape.",
        lambda query, **options: memory().search(query, **options),
        Field,
    )
    reads, writes = _briefing_tools(memory, Field)
    tools = [
        tool(*search),
        tool(memory_get, lambda **kw: memory_get(kw["path"], kw.get("from", 1), kw.get("lines"))),
        *(tool(*pair) for pair in reads),
    ]
    if not read_only:
        tools += [tool(memory_log, memory_log), *(tool(*pair) for pair in writes)]
    said = INSTRUCTIONS if read_only else INSTRUCTIONS + LOG_INSTRUCTION
    # CRITICAL: a tool's or a handler's error is the client's answer (isError, a JSON-RPC
    # error); logged too, it drew a multi-line box or a traceback on the harness's stderr.
    return MCPServer(
        "openclaw-mem", instructions=said, version=__version__, tools=tools, log_level="CRITICAL"
    )


def _constant(memory: "Memory") -> "Callable[[], Memory]":
    return lambda: memory


_TYPES = {"flag": bool, "int": int, "float": float, "text": str, "day": str}
_QUERY = {
    "recall": "What to look for, in any language.",
    "context": "The question or task at hand.",
}


def _declared(command: str, name: str, doc: str, answer, Field) -> tuple:
    """A tool made from a per-turn command's declaration (serve/turns.py): `query`, then
    every option a model may give, under its MCP name, of its kind and within its range;
    the call hands them to the facade by their request names. (signature, call): the same
    function, as the other tools' pairs are."""
    import inspect

    from .turns import tool_arguments

    kw = inspect.Parameter.KEYWORD_ONLY
    params = [
        inspect.Parameter(
            "query", kw, annotation=Annotated[str, Field(description=_QUERY[command])]
        )
    ]
    wire = {}
    for opt in tool_arguments(command):
        low, high = opt.mcp_range
        if low is None and opt.min is not None:
            low = opt.min
        field = Field(ge=low, le=high, description=opt.help.replace("`", ""))
        kind = Literal[opt.choices] if opt.choices else _TYPES[opt.kind]
        typ = kind if opt.kind == "flag" else kind | None
        default = False if opt.kind == "flag" else None
        params.append(
            inspect.Parameter(opt.mcp, kw, default=default, annotation=Annotated[typ, field])
        )
        wire[opt.mcp] = opt.dest

    def call(**arguments: Any) -> Answer:
        given = {wire[k]: v for k, v in arguments.items() if k in wire and v not in (None, False)}
        return answer(arguments["query"], **given)

    # The SDK reads the schema from the signature; the call takes the arguments by name.
    call.__signature__ = inspect.Signature(params, return_annotation=Answer)
    call.__name__, call.__doc__ = name, doc
    return call, call


def _briefing_tools(memory: "Callable[[], Memory]", Field) -> tuple[list, list]:
    """memory_context and memory_status (read), memory_forget (write): the tools beyond
    OpenClaw's, each a facade call; (signature, call) pairs."""

    def memory_status() -> Answer:
        """What the memory holds: files, entries per day, the index, pending consolidation,
        git state."""
        return memory().status().to_json()

    def memory_forget(
        target: Annotated[
            str,
            Field(description="What to forget: its words, or one place (PATH:LINE)."),
        ],
    ) -> Answer:
        """Forget what the user asked to forget, as `mem forget` without --hard: curated lines
        that say it are struck through, log entries and HISTORY.md paragraphs hidden from
        recall; nothing is deleted, all is committed, `mem undo` brings it back. Only when
        the user asks."""
        done = memory().forget(target)
        return {
            "lines": [
                {
                    "path": f.path,
                    "lines": list(f.lines),
                    "mode": f.mode,
                    "before": f.before,
                    "after": f.after,
                }
                for f in done.lines
            ],
            "hidden": list(done.hidden),
            "commit": done.commit,
            "warnings": list(done.warnings),
        }

    context = _declared(
        "context",
        "memory_context",
        "The memory brief for a task: the user's profile, the memories recalled for it and "
        "the recent conversation, fenced as data, within a token budget.",
        lambda query, **options: memory().context(query, **options).to_json(),
        Field,
    )
    return [context, (memory_status, memory_status)], [(memory_forget, memory_forget)]


def serve_stdio(memory: "Callable[[], Memory] | Memory", *, read_only: bool = False) -> None:
    """MCPServer.run("stdio"), with lines that are not JSON-RPC answered instead of dropped."""
    import anyio

    anyio.run(_serve, build_server(memory, read_only=read_only))


def _rejection(exc: Exception):
    """The JSON-RPC error for a stdin line the SDK could not parse (None: a blank line)."""
    import mcp_types as types
    from pydantic import ValidationError

    errors = exc.errors() if isinstance(exc, ValidationError) else []
    bad_json = [e for e in errors if e["type"] == "json_invalid"]
    if bad_json and not str(bad_json[0].get("input", "x")).strip():
        return None
    if bad_json or not errors:
        code, message = types.PARSE_ERROR, "Parse error"
    else:  # JSON, but no request, notification or response
        code, message = types.INVALID_REQUEST, "Invalid Request"
    # The request's id when it has a valid one ({"jsonrpc": "2.0", "id": 2} with no method),
    # else null (JSON-RPC 2.0, section 5: an id that could not be read).
    said = errors[0].get("input") if errors and not bad_json else None
    ident = said.get("id") if isinstance(said, dict) else None
    if not isinstance(ident, str | int) or isinstance(ident, bool):
        ident = None
    return invalid(code, message, ident)


def invalid(code: int, message: str, ident: str | int | None = None):
    """A JSON-RPC error answering a line that is no request the server can take."""
    import mcp_types as types

    return types.JSONRPCError(
        jsonrpc="2.0", id=ident, error=types.ErrorData(code=code, message=message)
    )


class _Answers:
    """The SDK's write stream, noting which forwarded requests still await an answer."""

    def __init__(self, inner) -> None:
        self.inner, self.pending = inner, set()

    async def send(self, item) -> None:
        import mcp_types as types

        await self.inner.send(item)
        if isinstance(item.message, types.JSONRPCResponse | types.JSONRPCError):
            self.pending.discard(item.message.id)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()


async def _triage(source, sink, out: _Answers, grace: float = 10.0) -> None:
    """Forward what the SDK parsed; answer what it could not."""
    import anyio
    import mcp_types as types
    from mcp.shared.message import SessionMessage

    async with sink:
        async for item in source:
            if not isinstance(item, Exception) and _request_without_id(item.message):
                # {"id": {"a": 1}, "method": "tools/list"}: the SDK dropped the id it could
                # not take and read a notification, which is answered by nothing.
                reply = invalid(types.INVALID_REQUEST, "Invalid Request")
                try:
                    await out.send(SessionMessage(reply))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
            elif not isinstance(item, Exception):
                if isinstance(item.message, types.JSONRPCRequest):
                    out.pending.add(item.message.id)
                await sink.send(item)
            elif (reply := _rejection(item)) is not None:
                try:
                    await out.send(SessionMessage(reply))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
        # stdin is closed: the SDK cancels handlers still running at EOF, so let the
        # requests already forwarded finish answering first.
        with anyio.move_on_after(grace):
            while out.pending:
                await anyio.sleep(0.01)


def _request_without_id(message) -> bool:
    """A notification whose method is a request's: only `notifications/…` are sent without an
    id (MCP), so its id was there and could not be read."""
    import mcp_types as types

    return isinstance(message, types.JSONRPCNotification) and not message.method.startswith(
        "notifications/"
    )


async def _serve(server) -> None:
    import anyio
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage

    # mcp 2.3 has no public accessor for the low-level server; run_stdio_async uses this.
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream):
        sink, source = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        out = _Answers(write_stream)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_triage, read_stream, sink, out)
            await lowlevel.run(source, out, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
