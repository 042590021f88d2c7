"""`mem recall`, `mem get` and `mem context` (declared in serve/turns.py), and `mem index`.
numpy loads only inside them."""

from typing import Annotated

import typer

from ..providers import names
from .app import app, one_of, state, warn
from .turn_cmds import declare

EMBEDDERS = tuple(n for n in names("embed") if n != "auto")

declare("recall")
declare("get")


@app.command("index")
def index_cmd(
    ctx: typer.Context,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Throw the cache away first.")] = False,
    embed: Annotated[
        str | None,
        typer.Option(
            "--embed",
            help=f"{' | '.join(EMBEDDERS)} (embed.provider).",
            autocompletion=one_of(*EMBEDDERS),
        ),
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


declare("context")
