"""`mem eval`: recall quality on the workspace's own memory (openclaw_mem/evaluate.py)."""

from typing import Annotated

import typer

from .app import app, parse_when, state, warn


def _rank(rank: int | None) -> str:
    return "miss" if rank is None else str(rank)


def _change(before: int | None, after: int | None) -> str:
    if before == after:
        return ""
    if before is None:
        return "found"
    if after is None:
        return "lost"
    return f"up {before - after}" if after < before else f"down {after - before}"


@app.command("eval")
def eval_command(
    ctx: typer.Context,
    file: Annotated[
        str | None,
        typer.Option(
            "--file",
            "-f",
            metavar="PATH",
            help="Queries file, relative to the workspace (default eval/queries.yaml).",
            show_default=False,
        ),
    ] = None,
    k: Annotated[
        int | None, typer.Option("-k", help="Cut-off (else the file's k, else recall.k).", min=1)
    ] = None,
    compare: Annotated[
        list[str] | None,
        typer.Option(
            "--compare",
            metavar="KEY=VALUE",
            help="Run again with this setting and compare (repeatable).",
            show_default=False,
        ),
    ] = None,
    now: Annotated[
        str | None, typer.Option("--now", help="Decay as of this ISO date or time.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Measure recall on your own memory: each query's rank of its first relevant hit,
    recall@k and MRR. Access counts are not touched. The queries file (YAML, UTF-8):

    \b
    k: 5                  # optional; else recall.k
    queries:
      - query: "什么时候去杭州"
        expect: ["memory/2026-11-27.md", "MEMORY.md#L12"]   # any of them counts
      - query: "backup schedule"
        expect: "memory/2026-11-24.md#L3-L4"                # a hit overlapping the lines
    """
    from . import render

    st = state(ctx)
    mem = st.memory()
    when = parse_when(now, mem.now())
    result, warnings = mem.evaluate(file, k=k, now=when, compare=compare or [])
    for w in warnings:
        warn(w)
    if as_json:
        render.print_json(result.to_json())
        return

    esc = render.escape
    table = render.Table(show_edge=False, pad_edge=False)
    table.add_column("query")
    if not compare:
        table.add_column("rank", justify="right")
        table.add_column("top hit", style="cyan", no_wrap=True)
        for o in result.outcomes:
            table.add_row(esc(o.query.text), _rank(o.rank), esc(o.top or "-"))
        render.show(st.term, table)
        typer.echo(result.summary())
        return

    label = ", ".join(f"{name}={value}" for name, value in result.other.settings.items())
    table.add_column("base", justify="right")
    table.add_column(esc(label), justify="right")
    table.add_column("change")
    for c in result.ranks:
        table.add_row(esc(c.query), _rank(c.before), _rank(c.after), _change(c.before, c.after))
    render.show(st.term, table)
    width = max(len("base"), len(label))
    typer.echo(f"{'base':<{width}}  {result.base.summary()}")
    typer.echo(f"{label:<{width}}  {result.other.summary()}")
