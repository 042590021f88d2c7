"""`mem recall`, `mem get`, `mem index`, `mem context`. numpy loads only inside them."""

import sys
from typing import Annotated

import typer

from .app import app, parse_day, parse_when, state, text_argument, warn


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
    explain: Annotated[bool, typer.Option("--explain", help="Show every ranking stage.")] = False,
    embed: Annotated[
        str | None, typer.Option("--embed", help="none | local | openai (embed.provider).")
    ] = None,
) -> None:
    """Find the memories that matter: BM25 + pseudo-vectors fused 0.3/0.7, time decay, MMR."""
    st = state(ctx)
    mem = st.memory().with_settings({"embed.provider": embed})
    text = text_argument(query)
    result = mem.recall(
        text,
        k=k,
        min_score=min_score,
        now=parse_when(now, mem.now()),
        since=parse_day(since),
        until=parse_day(until),
        path=path,
    )
    for w in result.warnings:
        warn(w)
    from . import render

    if as_json:
        render.print_json({"results": [h.to_json(explain) for h in result.hits]})
    elif not result.hits:
        typer.echo(f"no memories match {text.strip()!r}", err=True)
    else:
        render.recall_table(st.term, result.hits, text, explain)


@app.command("get")
def get_cmd(
    ctx: typer.Context,
    spec: Annotated[
        str, typer.Argument(help="PATH, PATH:FROM, PATH:FROM:N, or a citation PATH#Lx-Ly.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print lines of a memory file (OpenClaw's memory_get); only inside the workspace."""
    got = state(ctx).memory().get(spec)
    if as_json:
        from . import render

        render.print_json(got.to_json())
    else:
        typer.echo(got.text)


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
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """The block to put in front of a model: user profile, recalled memories grouped as
    preferences / history / goals, and the recent conversation, within a token budget."""
    mem = state(ctx).memory()
    block = mem.context(
        text_argument(query), budget=budget, now=parse_when(now, mem.now()) if now else None
    )
    if as_json:
        from . import render

        render.print_json(block.to_json())
    else:
        sys.stdout.write(block.render())
