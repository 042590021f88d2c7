"""The resident process's warm index: a file watcher keeps the recall index fresh in memory
and the memory's reading service asks it first. A change the watcher saw but has not taken
in yet makes the warm index stale: the query then reads the index on disk, refreshed, so an
answer never cites lines as they were."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..consolidate.run import Report
    from ..index.watch import Refresh, Watcher
    from ..memory import Memory


def watcher(
    mem: Memory,
    on_refresh: Callable[[Refresh], None],
    *,
    on_error: Callable[[Exception], None] | None = None,
    debounce: float | None = None,
    consolidate: bool = False,
    on_consolidated: Callable[[Report], None] | None = None,
) -> Watcher:
    """A file watcher that keeps `mem`'s recall index warm and (consolidate) runs a windowed
    consolidation after each refresh. Call start() and stop() on it."""
    from ..errors import MemError
    from ..index.watch import Watcher

    warm: dict[str, object] = {}
    after = None
    if consolidate:

        def after() -> None:
            try:
                report = mem.consolidate(auto=True)
            except MemError as exc:
                if on_error is not None:
                    on_error(exc)
                return
            if on_consolidated is not None:
                on_consolidated(report)

    def refreshed(refresh: Refresh) -> None:
        from ..store import heap

        warm["index"] = refresh.index  # requests from now on see the new index
        heap.give_back()  # a refresh's arrays dwarf a query's: keep none of them
        if refresh.paths:  # the warm-up at start is not news
            on_refresh(refresh)

    watching = Watcher(
        mem.ws,
        mem.index_params,
        refreshed,
        after,
        on_error=on_error,
        debounce=mem.config["watch.debounce"] if debounce is None else debounce,
        embedder=mem.embedder,
    )
    mem.read_warm(lambda: None if watching.dirty() else warm.get("index"))
    return watching
