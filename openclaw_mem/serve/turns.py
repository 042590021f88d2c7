"""The per-turn commands, declared once: `mem log`, `mem recall`, `mem context` and
`mem get`. Each declaration says the command's options, the typed request its values
build, and how its answer is printed. The per-turn fast path (entry.py) takes a command
line apart with these tables (argv.py) and answers without the CLI framework; the typer app
(cli/turn_cmds.py) builds its four commands from the same tables. An option exists on both
paths or on neither, and both paths build the same request and print the same bytes.

To add an option to recall: an `Opt` here (its names, kind, help and the `Read` field it
fills), that field in recall/reads.py, and a field of the same name in recall/options.py
that the stage using it reads. Nothing else: the request, the resident's protocol and the
typer command follow from these.

Standard library only, like argv.py: this runs before anything else on every agent turn.
"""

from __future__ import annotations

from ..providers import names

TYPE_CHECKING = False  # not `from typing import`: the per-turn client passes through here
if TYPE_CHECKING:
    from ..environment import Environment
    from ..memory import Memory
    from ..recall.reads import Read


class Opt:
    """One option: its names, the kind of value it takes ("flag", "int", "float", "text",
    "day": text read as a date), its help, the smallest value a number may be, and the
    values text may take when they are few. An option whose `dest` names a field of `Read`
    fills that field of the request; such an option of recall's is `mem context`'s too
    (it shapes what context recalls) unless `context=False`, and an MCP tool's argument
    (named `mcp`, else the dest in camelCase, within `mcp_range`) unless `mcp=False`."""

    __slots__ = ("choices", "context", "dest", "help", "kind", "mcp", "mcp_range", "min", "names")

    def __init__(
        self,
        *names: str,
        dest: str,
        kind: str = "text",
        help: str = "",
        min=None,
        choices=(),
        mcp: str | bool = True,
        mcp_range: tuple = (None, None),
        context: bool = True,
    ):
        self.names, self.dest, self.kind, self.help, self.min = names, dest, kind, help, min
        self.choices = tuple(choices)  # the values it takes (the shell completes them)
        self.context, self.mcp_range = context, mcp_range
        if mcp is True:
            head, *rest = dest.split("_")
            mcp = head + "".join(w.title() for w in rest)
        self.mcp = mcp or None  # a model asking over MCP may not give this one


class Turn:
    __slots__ = ("argument", "help", "name", "options", "words_help")

    def __init__(self, name: str, help: str, argument: str, words_help: str, options) -> None:
        self.name, self.help, self.argument = name, help, argument
        self.words_help, self.options = words_help, tuple(options)

    def table(self) -> tuple[frozenset[str], frozenset[str]]:
        """(options that take a value, flags), help included: what argv.split reads."""
        takes = {n for o in self.options if o.kind != "flag" for n in o.names}
        flags = {n for o in self.options if o.kind == "flag" for n in o.names}
        return frozenset(takes), frozenset(flags | {"--help", "-h"})


_AS_OF = Opt(
    "--as-of",
    dest="as_of",
    help="Memory as it stood at the end of this day: later lines left out, later "
    "deprecations not yet made.",
)
_CURRENT = Opt(
    "--current", dest="current", kind="flag", help="Leave out deprecated and superseded facts."
)
_NO_DAEMON = Opt(
    "--no-daemon", dest="no_daemon", kind="flag", help="Answer in this process, not a resident one."
)

ROLES = ("user", "assistant", "system", "note")  # format/appending.py's, without importing it
FORMATS = ("table", "tsv", "rg")  # how a recall is printed (--json: OpenClaw's shape)

_RECALL = [
    Opt(
        "-k",
        dest="k",
        kind="int",
        min=1,
        help="How many results (recall.k).",
        mcp="maxResults",
        mcp_range=(1, 50),
        context=False,  # context recalls context.memories
    ),
    Opt("--json", dest="json", kind="flag", help="OpenClaw's result shape."),
    Opt(
        "--format",
        dest="format",
        choices=FORMATS,
        help="table (a terminal's), tsv (a pipe's: rank, score, citation, when, "
        "snippet), rg (path:line:text, as rg -n prints).",
    ),
    Opt("--now", dest="now", help="Decay as of this ISO date or time.", mcp=False),
    Opt("--since", dest="since", kind="day", help="Only dated chunks from this day."),
    Opt("--until", dest="until", kind="day", help="Only dated chunks up to this day."),
    Opt("--path", dest="path", help="Only files matching this glob."),
    Opt(
        "--min-score",
        dest="min_score",
        kind="float",
        help="Drop results below this (recall.min_score).",
        mcp_range=(0, 1),
    ),
    _AS_OF,
    # An MCP server serves one agent: a model may not ask as another.
    Opt("--agent", dest="agent", help="Recall for this agent (default: MEM_AGENT).", mcp=False),
    _CURRENT,
    Opt(
        "--include-forgotten",
        dest="include_forgotten",
        kind="flag",
        help="Show what `mem forget` hid too.",
        mcp=False,  # for a person who asks, never for a model's context
        context=False,
    ),
    Opt("--role", dest="role", help="Only log entries of this role or speaker."),
    Opt("--explain", dest="explain", kind="flag", help="Show every ranking stage."),
    Opt(
        "--embed",
        dest="embed",
        help="The embedding provider for this call (embed.provider).",
        choices=tuple(n for n in names("embed") if n != "auto"),
    ),
    _NO_DAEMON,
]


def _shaping(own: list[Opt]) -> list[Opt]:
    """A context's own options, then every option of recall's that fills the request and
    shapes what is recalled: one added to recall reaches `mem context` with no line here."""
    from ..recall.reads import fields_of

    given = {o.dest for o in own}
    shared = fields_of("recall")
    return [*own, *(o for o in _RECALL if o.context and o.dest in shared and o.dest not in given)]


TURNS = {
    "log": Turn(
        "log",
        "Append one entry to today's daily log, memory/YYYY-MM-DD.md.",
        "text",
        "The text to append, kept byte for byte; `-` reads standard input.",
        [
            Opt("--role", "-r", dest="role", help="Who said it.", choices=ROLES),
            Opt("--speaker", "-s", dest="speaker", help="A name written instead of a role."),
            Opt("--session", dest="session", help="Session id, kept as an HTML comment."),
            Opt("--at", dest="at", help="ISO time to log at instead of now (local)."),
            Opt("--agent", dest="agent", help="The agent logging it (default: MEM_AGENT)."),
        ],
    ),
    "recall": Turn(
        "recall",
        "Find the memories that matter: 0.7 pseudo-vectors + 0.3 BM25, time decay, MMR.",
        "query",
        "What to look for; `-` reads stdin.",
        _RECALL,
    ),
    "context": Turn(
        "context",
        "The block to put in front of a model: user profile, recalled memories grouped as "
        "preferences / history / goals, and the recent conversation, within a token budget.",
        "query",
        "The question at hand; `-` reads stdin.",
        _shaping(
            [
                Opt(
                    "--budget",
                    dest="budget",
                    kind="int",
                    min=50,  # context.budget's own floor: one rule, one message
                    help="Token budget (context.budget).",
                    mcp_range=(50, 100_000),
                ),
                Opt("--now", dest="now", help="As of this ISO date or time.", mcp=False),
                _AS_OF,
                _CURRENT,
                Opt("--json", dest="json", kind="flag", help="Print JSON."),
                _NO_DAEMON,
            ]
        ),
    ),
    "get": Turn(
        "get",
        "Print lines of a memory file (OpenClaw's memory_get); only inside the workspace.",
        "spec",
        "PATH, PATH:LINE, PATH:FROM:N, or a citation PATH#Lx-Ly.",
        [Opt("--json", dest="json", kind="flag", help="Print JSON."), _NO_DAEMON],
    ),
}


def values(turn: Turn, options: list[tuple[str, str | None]]) -> dict | None:
    """The typed values of a command line's options (argv.Split.options), every option of
    the turn present (None or False when not given); None when a value does not read (the
    full app then says what is wrong, in its own words) or an option is given twice."""
    by_name = {n: o for o in turn.options for n in o.names}
    out: dict = {o.dest: (False if o.kind == "flag" else None) for o in turn.options}
    seen = set()
    for name, raw in options:
        opt = by_name.get(name)
        if opt is None or opt.dest in seen:
            return None
        seen.add(opt.dest)
        if opt.kind == "flag":
            out[opt.dest] = True
            continue
        if opt.choices and raw not in opt.choices:
            return None
        if opt.kind in ("int", "float"):
            try:
                number = int(raw) if opt.kind == "int" else float(raw)
            except (TypeError, ValueError):
                return None
            if opt.min is not None and number < opt.min:
                return None
            out[opt.dest] = number
        else:
            out[opt.dest] = raw
    return out


def checked(turn: Turn, vals: dict) -> dict:
    """The values, once every option with a fixed set of values holds one of them; else a
    usage error that names them (the fast path hands such a command line to the full app,
    which says this)."""
    for opt in turn.options:
        value = vals.get(opt.dest)
        if opt.choices and value is not None and value not in opt.choices:
            from ..errors import UsageError

            raise UsageError(
                f"{opt.names[0]} must be one of {', '.join(opt.choices)}, not {value!r} "
                f"(see `mem {turn.name} --help`)"
            )
    return vals


# ------------------------------------------------------------------ what they do


def text_of(words: list[str], env: Environment) -> str:
    """Several words joined with spaces; `-` alone reads standard input (as UTF-8)."""
    if words != ["-"]:
        return " ".join(words)
    stream = getattr(env.stdin, "buffer", env.stdin)
    data = stream.read()
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        from ..errors import UsageError

        raise UsageError("standard input is not valid UTF-8; the text was not read") from None


def _agent(given: str | None, env: Environment) -> str | None:
    agent = given or env.env.get("MEM_AGENT") or None
    if agent is not None:
        from ..format.logs import check_agent

        check_agent(agent)
    return agent


def _now(given: str | None, as_of: str | None, env: Environment) -> tuple[str, str | None]:
    """(now, as_of) as the request carries them: as of a day, "now" (the time decay, the
    recent conversation) is that day's end unless --now says otherwise."""
    then = None
    if as_of is not None:
        from ..format.when import parse_day

        then = parse_day(as_of).isoformat()
    if given is None and then is not None:
        return f"{then}T23:59:59", then
    if given is None and not env.env.get("MEM_NOW"):
        import time

        return time.strftime("%Y-%m-%dT%H:%M:%S"), then  # local, to the second
    from ..format.when import parse_when

    base = env.clock()()
    moment = parse_when(given, base) if given is not None else base
    return moment.replace(microsecond=0).isoformat(), then


def request(name: str, words: list[str], vals: dict, env: Environment) -> Read:
    """The request a recall, context or get command line asks."""
    from ..errors import UsageError
    from ..recall.reads import Read

    if name == "get":
        if len(words) != 1:
            raise UsageError("give one spec: PATH, PATH:LINE, PATH:FROM:N or PATH#Lx-Ly")
        return Read("get", spec=words[0])
    query = text_of(words, env)
    if not query.strip():
        raise UsageError("the query is empty")
    now, as_of = _now(vals.get("now"), vals.get("as_of"), env)
    fields = {
        "query": query,
        "now": now,
        "as_of": as_of,
        "current": bool(vals.get("current")),
        "agent": _agent(vals.get("agent"), env),
    }
    # Every other option whose name is a field of the request fills it, a day read as ISO
    # text: an option added to TURNS and to Read reaches the request with no line here.
    for opt in TURNS[name].options:
        if opt.dest in fields or opt.dest not in Read.__slots__:
            continue
        value = vals.get(opt.dest)
        if opt.kind == "flag":
            value = True if value else None
        elif value is not None and opt.kind == "day":
            from ..format.when import parse_day

            value = parse_day(value).isoformat()
        fields[opt.dest] = value
    return Read(name, **fields)


def ask_resident(read: Read, vals: dict, env: Environment, root: str) -> dict | None:
    """The resident's answer, when one serves this workspace with this caller's settings
    (else None: the caller answers in-process). Its domain errors are raised as ours."""
    if vals.get("no_daemon") or env.flag("MEM_NO_DAEMON"):
        return None
    from .socket_client import ask

    settings = env.settings()
    if vals.get("embed"):
        settings["MEM_EMBED_PROVIDER"] = vals["embed"]
    reply = ask(root, read.op, read.to_json(), settings)
    if reply is None:
        from .autostart import coming

        if coming(root):
            reply = ask(root, read.op, read.to_json(), settings)
    if reply is None:
        return None
    if reply.get("ok"):
        result = reply.get("result")
        return result if isinstance(result, dict) else None
    from ..errors import ExitCode, MemError

    code = reply.get("code", 1)
    raise MemError(reply.get("error", "the resident process failed"), exit_code=ExitCode(code))


def answer(read: Read, vals: dict, mem: Memory) -> dict:
    """The answer computed in this process (with --embed's provider, when given); when the
    model was slow to load, a resident starts for the next call. The patterns the answer
    compiles (the snippets' secret scan) come from, and go to, .mem/prebuilt.bin."""
    from ..services.kept_code import keep_prebuilt, prebuilt_file

    kept_at = prebuilt_file(mem.place)
    data = mem.with_settings({"embed.provider": vals.get("embed")}).answer(read)
    keep_prebuilt(kept_at)
    if not (vals.get("no_daemon") or vals.get("embed")):
        from .autostart import maybe_start

        maybe_start(mem)
    return data


def log(words: list[str], vals: dict, mem: Memory, env: Environment):
    """`mem log`: the entry appended (`Logged`)."""
    at = None
    if vals.get("at") is not None:
        from ..format.when import parse_when

        at = parse_when(vals["at"], mem.now())
    return mem.log(
        text_of(words, env),
        role=vals.get("role"),
        speaker=vals.get("speaker"),
        session=vals.get("session"),
        at=at,
        agent=vals.get("agent"),
    )


def tool_arguments(name: str) -> list[Opt]:
    """The options of `name` a model gives as an MCP tool's arguments: those that fill the
    request (a field `name` takes) and are not kept from models (`mcp=False`)."""
    from ..recall.reads import fields_of

    takes = fields_of(name)
    return [o for o in TURNS[name].options if o.mcp and o.dest in takes]
