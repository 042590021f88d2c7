"""`mem recall`, `mem get`, `mem index`, `mem context`. numpy loads only inside them."""

import sys
from datetime import datetime, time
from typing import Annotated

import typer

from .. import serve
from ..errors import UsageError
from ..recall.reads import Read, plain
from ..text import visible
from .app import app, parse_day, parse_when, state, text_argument, warn

# Options recall, context and get share.
AsOf = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        help="Memory as it stood at the end of this day: later lines left out, "
        "later deprecations not yet made.",
    ),
]
Current = Annotated[bool, typer.Option("--current", help="Leave out deprecated facts.")]
NoDaemon = Annotated[
    bool, typer.Option("--no-daemon", help="Answer in this process, not a resident one.")
]


def _read_args(mem, query: list[str], now, as_of, current: bool, agent) -> dict:
    """The fields recall and context share in the `Read` they send, to a resident process
    or to `Memory.answer`. As of a day, "now" (time decay, the recent conversation) is that
    day's end unless --now says otherwise; the agent is --agent, else MEM_AGENT."""
    text = text_argument(query)
    if not text.strip():
        raise UsageError("the query is empty")
    then = parse_day(as_of) if as_of else None
    if now or not then:
        moment = parse_when(now, mem.now())
    else:
        moment = datetime.combine(then, time.max).replace(microsecond=0)
    return {
        "query": text,
        "now": moment.isoformat(),
        "as_of": then.isoformat() if then else None,
        "current": current,
        "agent": agent or mem.agent,
    }


@app.command("recall")
def recall_cmd(
    ctx: typer.Context,
    query: Annotated[
        list[str], typer.Argument(help="What to look for; `-` reads stdin.", show_default=False)
    ],
    k: Annotated[int | None, typer.Option("-k", help="How many results (recall.k).", min=1)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="OpenClaw's result shape.")] = False,
    now: Annotated[
        str | None, typer.Option("--now", help="Decay as of this ISO date or time.")
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help="Only dated chunks from this day.")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help="Only dated chunks up to this day.")
    ] = None,
    path: Annotated[
        str | None, typer.Option("--path", help="Only files matching this glob.")
    ] = None,
    min_score: Annotated[
        float | None, typer.Option("--min-score", help="Drop results scoring below this.")
    ] = None,
    as_of: AsOf = None,
    agent: Annotated[
        str | None,
        typer.Option("--agent", help="Recall for this agent (default: MEM_AGENT)."),
    ] = None,
    current: Current = False,
    role: Annotated[
        str | None,
        typer.Option("--role", help="Only log entries of this role or speaker (user, a name)."),
    ] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show every ranking stage.")] = False,
    embed: Annotated[
        str | None, typer.Option("--embed", help="none | local | openai (embed.provider).")
    ] = None,
    no_daemon: NoDaemon = False,
) -> None:
    """Find the memories that matter: 0.7 pseudo-vectors + 0.3 BM25, time decay, MMR."""
    st = state(ctx)
    mem = st.memory()
    args = _read_args(mem, query, now, as_of, current, agent)
    text = args["query"]
    read = Read(
        "recall",
        **args,
        k=k,
        min_score=min_score,
        since=parse_day(since).isoformat() if since else None,
        until=parse_day(until).isoformat() if until else None,
        path=path,
        role=role,
    )
    data = None if (no_daemon or embed) else serve.ask(mem, read)
    if data is None:  # no resident process: the same answer, computed here
        data = mem.with_settings({"embed.provider": embed}).answer(read)
        if not (no_daemon or embed):
            serve.start_when_slow(mem)  # when the model was slow to load, the next call is not
    for w in data["warnings"]:
        warn(w)
    hits = data["results"]
    if not explain:
        hits = [plain(h) for h in hits]
    from . import render

    if as_json:
        render.print_json({"results": hits})
    elif not hits:
        typer.echo(f"no memories match {visible(repr(text.strip()))}", err=True)
    else:
        render.recall_table(st.term, data["results"], text, explain)


@app.command("get")
def get_cmd(
    ctx: typer.Context,
    spec: Annotated[
        str, typer.Argument(help="PATH, PATH:LINE, PATH:FROM:N, or a citation PATH#Lx-Ly.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    no_daemon: NoDaemon = False,
) -> None:
    """Print lines of a memory file (OpenClaw's memory_get); only inside the workspace."""
    mem = state(ctx).memory()
    read = Read("get", spec=spec)
    got = None if no_daemon else serve.ask(mem, read)
    if got is None:
        got = mem.answer(read)
    if as_json:
        from . import render

        render.print_json(got)
    else:
        typer.echo(visible(got["text"]))


@app.command("index")
def index_cmd(
    ctx: typer.Context,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Throw the cache away first.")] = False,
    embed: Annotated[
        str | None, typer.Option("--embed", help="none | local | openai (embed.provider).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Bring the recall index up to date (recall does this by itself); --rebuild starts over.
    Embeddings come from .mem/embed/ when the same text was embedded before."""
    from . import render

    st = state(ctx)
    mem = st.memory().with_settings({"embed.provider": embed})
    with render.progress_bar(enabled=not as_json and st.term.stderr_tty) as progress:
        summary = mem.index(rebuild=rebuild, progress=progress)
    for w in summary.warnings:
        warn(w)
    data = summary.to_json()
    if as_json:
        render.print_json(data)
        return
    mode = data["mode"]
    detail = ""
    if mode == "refresh":
        detail = f", {len(data['changed'])} changed, {len(data['deleted'])} deleted"
    missing = f", {summary.missing_vectors} without one yet" if summary.missing_vectors else ""
    typer.echo(
        f"index {mode}: {data['files']} files, {data['chunks']} chunks{detail}; vectors "
        f"{summary.vectors}{missing}; {summary.seconds:.2f} s"
    )


@app.command("context")
def context_cmd(
    ctx: typer.Context,
    query: Annotated[
        list[str], typer.Argument(help="The question at hand; `-` reads stdin.", show_default=False)
    ],
    budget: Annotated[
        int | None, typer.Option("--budget", help="Token budget (context.budget).")
    ] = None,
    now: Annotated[str | None, typer.Option("--now", help="As of this ISO date or time.")] = None,
    as_of: AsOf = None,
    current: Current = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    no_daemon: NoDaemon = False,
) -> None:
    """The block to put in front of a model: user profile, recalled memories grouped as
    preferences / history / goals, and the recent conversation, within a token budget."""
    mem = state(ctx).memory()
    read = Read("context", **_read_args(mem, query, now, as_of, current, None), budget=budget)
    block = None if no_daemon else serve.ask(mem, read)
    if block is None:
        block = mem.answer(read)
        if not no_daemon:
            serve.start_when_slow(mem)
    if as_json:
        from . import render

        render.print_json(block)
    else:
        sys.stdout.write(visible(block["text"]))
