"""`mem watch`: follow edits to memory files as they happen and keep the index fresh.

watchdog reports creates, edits, deletes and moves; events under .git/ and .mem/, editor
swap and temp files, and files recall does not index are ignored. After 1.5 s without a new
event (a save in VS Code is several events) the index is refreshed incrementally, then a
windowed consolidation runs if asked. A file vanishing between the event and the read is
simply noticed by the next refresh.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..store.workspace import STATE_DIR, Workspace, glob_match
from .cache import Index, IndexParams, open_index

DEBOUNCE = 1.5
_TEMP_SUFFIXES = ("~", ".swp", ".swx", ".swo", ".tmp", ".temp", ".part", ".crdownload", ".bak")


def relevant(ws: Workspace, params: IndexParams, path: str) -> bool:
    """Would a change to this path change what recall sees?"""
    try:
        rel = Path(path).resolve().relative_to(ws.root.resolve()).as_posix()
    except ValueError:
        return False
    parts = rel.split("/")
    name = parts[-1]
    if any(p.startswith(".") for p in parts) or parts[0] in (STATE_DIR, ".git"):
        return False  # .git, .mem, hidden editor files (.#x, .x.swp), our own atomic temps
    if name.endswith(_TEMP_SUFFIXES) or name == "4913":  # vim probes with a file named 4913
        return False
    return any(glob_match(rel, pat) for pat in params.include) and not any(
        glob_match(rel, pat) for pat in params.exclude
    )


@dataclass
class Refresh:
    index: Index
    seconds: float
    paths: list[str]  # what the events named


@dataclass
class Watcher:
    ws: Workspace
    params: IndexParams
    on_refresh: Callable[[Refresh], None]
    after_refresh: Callable[[], None] | None = None  # e.g. a windowed consolidation
    on_error: Callable[[Exception], None] | None = None
    debounce: float = DEBOUNCE
    embedder: object = None  # embeds new chunks as they are indexed
    _pending: set[str] = field(default_factory=set)
    _last_event: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _observer: object = None
    _worker: threading.Thread | None = None

    def dirty(self) -> bool:
        """Whether a change was seen that the index does not hold yet (it waits out the
        debounce): until it does, the warm index would answer with old line numbers."""
        with self._lock:
            return bool(self._pending)

    def notice(self, *paths: str) -> None:
        hits = [p for p in paths if p and relevant(self.ws, self.params, p)]
        if not hits:
            return
        with self._lock:
            self._pending.update(hits)
            self._last_event = time.monotonic()

    def start(self) -> None:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event) -> None:  # created, modified, deleted, moved
                if event.event_type in ("opened", "closed_no_write"):
                    return
                watcher.notice(str(event.src_path), str(getattr(event, "dest_path", "") or ""))

        index = open_index(self.ws, self.params, embedder=self.embedder)  # start fresh
        self.on_refresh(Refresh(index, 0.0, []))
        observer = Observer()
        observer.schedule(Handler(), str(self.ws.root), recursive=True)
        observer.start()
        self._observer = observer
        self._worker = threading.Thread(target=self._loop, name="mem-watch", daemon=True)
        self._worker.start()

    def _loop(self) -> None:
        while not self._stop.wait(0.05):
            with self._lock:
                due = self._pending and time.monotonic() - self._last_event >= self.debounce
                paths = sorted(self._pending) if due else []
                if due:
                    self._pending.clear()
            if not paths:
                continue
            try:
                start = time.perf_counter()
                index = open_index(self.ws, self.params, embedder=self.embedder)
                rels = [self.ws.rel(Path(p)) for p in paths]
                self.on_refresh(Refresh(index, time.perf_counter() - start, rels))
                if self.after_refresh is not None:
                    self.after_refresh()
            except Exception as exc:  # a bad moment (a half-written file): report, keep going
                if self.on_error is not None:
                    self.on_error(exc)

    def stop(self) -> None:
        self._stop.set()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        if self._worker is not None:
            self._worker.join(timeout=5)
