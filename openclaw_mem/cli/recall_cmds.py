"""`mem recall`, `mem get`, `mem index`. numpy and the index load only inside them."""

import sys
from typing import Annotated

import typer

from ..errors import UsageError
from .app import app, parse_day, parse_when, state, warn


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
) -> None:
    """Find the memories that matter: BM25 + MinHash fused 0.7/0.3, time decay, MMR."""
    from ..index import IndexParams
    from ..recall import RecallOptions, recall

    st = state(ctx)
    text = sys.stdin.read() if query == ["-"] else " ".join(query)
    if not text.strip():
        raise UsageError("the query is empty")
    cfg = st.config()
    opts = RecallOptions.from_config(
        cfg,
        k=k,
        min_score=min_score,
        now=parse_when(now, st.now()),
        since=parse_day(since),
        until=parse_day(until),
        path_glob=path,
    )
    result = recall(st.workspace(), text, opts, IndexParams.from_config(cfg))
    for w in result.warnings:
        warn(w)
    from . import render

    if as_json:
        render.print_json({"results": [h.to_json(explain) for h in result.hits]})
    elif not result.hits:
        typer.echo(f"no memories match {text.strip()!r}", err=True)
    else:
        render.recall_table(result.hits, text, explain)


@app.command("get")
def get_cmd(
    ctx: typer.Context,
    spec: Annotated[
        str, typer.Argument(help="PATH, PATH:FROM, PATH:FROM:N, or a citation PATH#Lx-Ly.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print lines of a memory file (OpenClaw's memory_get); only inside the workspace."""
    from ..recall import get_lines

    got = get_lines(state(ctx).workspace(), spec)
    if as_json:
        from . import render

        render.print_json(
            {
                "path": got.path,
                "from": got.start,
                "lines": got.end - got.start + 1,
                "text": got.text,
            }
        )
    else:
        typer.echo(got.text)


@app.command("index")
def index_cmd(
    ctx: typer.Context,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Throw the cache away first.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Bring the recall index up to date (recall does this by itself); --rebuild starts over."""
    import time

    from ..index import IndexParams, open_index

    st = state(ctx)
    ws = st.workspace()
    params = IndexParams.from_config(st.config())
    start = time.perf_counter()
    from . import render

    with render.progress_bar(enabled=not as_json and sys.stderr.isatty()) as progress:
        index = open_index(ws, params, rebuild=rebuild, progress=progress)
    seconds = time.perf_counter() - start
    for w in index.warnings:
        warn(w)
    summary = {
        "files": sum(1 for rec in index.files.values() if rec["seg"] != "bad"),
        "chunks": index.n_live,
        "seconds": round(seconds, 3),
        **(index.stats or {"mode": "fresh"}),
    }
    if as_json:
        render.print_json(summary)
    else:
        mode = summary["mode"]
        detail = ""
        if mode == "refresh":
            detail = f", {len(summary['changed'])} changed, {len(summary['deleted'])} deleted"
        typer.echo(
            f"index {mode}: {summary['files']} files, {summary['chunks']} chunks"
            f"{detail} in {seconds:.2f} s"
        )
