"""`Memory`: the library's front door, one per workspace, composed of the services that work
on it (services/): writing, reading, curating and keeping.

Settings are resolved once, when it opens (a `Place`: the workspace, its settings, the
environment, the clock). Every operation a front end performs is one of its methods, each a
service's: the CLI, the per-turn fast path, the resident process, the MCP server and `mem
watch` are thin adapters over them, so they cannot drift apart.

    from openclaw_mem import Memory

    mem = Memory.open("~/.openclaw/workspace")
    mem.log("我最近在用FastAPI做项目", role="user")
    for hit in mem.recall("FastAPI").hits:
        print(hit.citation, hit.snippet)

Each service module is imported when it is first used: `log` runs on every agent turn and
stays light.

May import `services`, `recall.reads`, `recall.pipeline` and `recall.context` (to name the
results recall and context return), `config`, `environment`, `format`, `store`, `errors` and
`text`.
"""

from __future__ import annotations

import os

from .config import load_config
from .environment import fixed_clock, local_now
from .errors import UsageError
from .recall.reads import Read
from .services.place import Place
from .store.workspace import init_target, resolve_workspace

# `mem log` opens a Memory on every agent turn: pathlib, typing and collections.abc are
# for annotations here, and datetime comes with the clock (environment.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from datetime import datetime
    from pathlib import Path
    from typing import Any

    from .recall.context import ContextBlock
    from .recall.pipeline import RecallResult
    from .services.curating import Curating, Provider, Report
    from .services.keeping import Keeping
    from .services.reading import Reading
    from .services.results import Ingested
    from .services.scaffold import InitReport
    from .services.writing import Logged, Writing

__all__ = ["Memory", "copy_example", "init", "merge_files"]


def init(
    directory: Path | None,
    *,
    workspace_flag: Path | None = None,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    use_git: bool = True,
    skill: bool = False,
) -> InitReport:
    """Create a workspace, or add what an existing (OpenClaw) one lacks; never overwrites."""
    from .services.scaffold import init_workspace

    env = dict(os.environ) if env is None else env
    root = init_target(workspace_flag, directory, env, cwd)
    return init_workspace(root, use_git=use_git, skill=skill)


def copy_example(root: Path) -> Path:
    """workspace.example/ (four weeks of invented mixed Chinese/English memory) at root."""
    import shutil

    from .store.resources import example_workspace

    shutil.copytree(
        example_workspace(), root, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".mem", ".git")
    )
    return root


def _register_driver(root: Path) -> None:
    """A clone made with `git clone` (or whose registered interpreter is gone) gets git's
    merge driver from whichever mem command opens it first; checking costs one small read."""
    from .store.gitdriver import needs_driver

    if not needs_driver(root):
        return
    import contextlib
    from pathlib import Path

    from .errors import MemError
    from .store.gitrepo import open_repo, register_merge_driver

    with contextlib.suppress(MemError, OSError, ValueError):
        repo = open_repo(Path(root))
        if repo is not None:
            register_merge_driver(repo, Path(root))


class Memory:
    """One workspace with its settings, resolved once."""

    def __init__(
        self, ws, config, env: Mapping[str, str], clock=local_now, *, place: Place | None = None
    ) -> None:
        self.place = place or Place(ws, config, env, clock)
        self._writing: Writing | None = None
        self._reading: Reading | None = None
        self._curating: Curating | None = None
        self._keeping: Keeping | None = None

    @classmethod
    def open(
        cls,
        workspace: Path | str | None = None,
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        home: Path | None = None,
        clock: Callable[[], datetime] = local_now,
    ) -> Memory:
        """The workspace given, else MEM_WORKSPACE, the nearest ancestor of cwd holding
        MEMORY.md or memory/, else ~/.openclaw/workspace; settings from mem.toml and MEM_*."""
        env = dict(os.environ) if env is None else env
        flag = os.path.expanduser(os.fspath(workspace)) if workspace is not None else None
        ws = resolve_workspace(flag, env, cwd, home or os.path.expanduser("~"))
        if env.get("MEM_NOW") and clock is local_now:
            clock = fixed_clock(env["MEM_NOW"])
        return cls(ws, load_config(ws.top, env), env, clock)

    def ensure_merge_driver(self) -> None:
        """Register git's merge driver for the memory files when this clone lacks it (made
        with `git clone`, or its registered interpreter is gone), so a plain `git pull`
        merges them as `mem sync` does. The `mem` command calls this on every run; the
        library leaves a repository's settings alone unless asked."""
        _register_driver(self.place.ws.top)

    @classmethod
    def _at(cls, place: Place) -> Memory:
        return cls(place.ws, place.config, place.env, place.clock, place=place)

    # ------------------------------------------------------------- what it is

    ws = property(lambda self: self.place.ws)
    config = property(lambda self: self.place.config)
    env = property(lambda self: self.place.env)
    clock = property(lambda self: self.place.clock)
    root = property(lambda self: self.place.root)
    agent = property(lambda self: self.place.agent, doc="The agent this process works for.")
    embedder = property(lambda self: self.place.embedder, doc="embed.provider's, or None.")
    index_params = property(lambda self: self.place.index_params)

    def now(self) -> datetime:
        return self.place.now()

    def redact(self, text: str) -> str:
        """The text with every secret replaced by [REDACTED]."""
        return self.place.redact(text)

    def with_settings(self, flags: Mapping[str, Any]) -> Memory:
        """The same memory with some settings given on the command line (None: not given)."""
        place = self.place.with_settings(flags)
        return self if place is self.place else Memory._at(place)

    def for_agent(self, agent: str | None) -> Memory:
        """The same memory working for one agent (as MEM_AGENT=agent would)."""
        place = self.place.for_agent(agent)
        return self if place is self.place else Memory._at(place)

    # ------------------------------------------------------------- its services

    @property
    def writing(self) -> Writing:
        if self._writing is None:
            from .services.writing import Writing

            self._writing = Writing(self.place)
        return self._writing

    @property
    def reading(self) -> Reading:
        if self._reading is None:
            from .services.reading import Reading

            self._reading = Reading(self.place)
        return self._reading

    @property
    def curating(self) -> Curating:
        if self._curating is None:
            from .services.curating import Curating

            self._curating = Curating(self.place)
        return self._curating

    @property
    def keeping(self) -> Keeping:
        if self._keeping is None:
            from .services.keeping import Keeping

            self._keeping = Keeping(self.place)
        return self._keeping

    # ------------------------------------------------------------- writing

    def log(
        self,
        text: str,
        *,
        role: str | None = None,
        speaker: str | None = None,
        session: str | None = None,
        at: datetime | None = None,
        agent: str | None = None,
    ) -> Logged:
        """Append one entry, verbatim, to today's log (or `at`'s): role or speaker, session,
        at, agent. Returns where it landed (`Logged`)."""
        return self.writing.log(
            text, role=role, speaker=speaker, session=session, at=at, agent=agent
        )

    def capture(self, said: Iterable, *, agent: str | None = None):
        """Append what an agent harness handed over (`Said` messages, services/capture.py),
        each message once however often it is handed over. Returns `Captured`."""
        from .services.capture import capture

        done = capture(self.place, list(said), agent or self.place.agent)
        if done.added:
            self.writing.consolidate_in_background()
        return done

    def captured(self, ids: Iterable[str], around: datetime) -> set[str]:
        """Which of these capture ids the logs around that time already hold."""
        from .services.capture import captured_ids

        return captured_ids(self.place, list(ids), around)

    def ingest(
        self,
        lines: Iterable[str],
        source: str,
        *,
        session: str | None = None,
        default_time: datetime | None = None,
    ) -> Ingested:
        """Append a transcript, each message into its own day; repeats are skipped."""
        return self.writing.ingest(lines, source, session=session, default_time=default_time)

    def import_export(self, kind: str, path: Path):
        """Append a ChatGPT, claude.ai or Claude Code export; a repeat import adds nothing."""
        return self.writing.import_export(kind, path)

    # ------------------------------------------------------------- reading

    def answer(self, read: Read, defer=None) -> dict:
        """A `Read` (recall, context, get) as the JSON-able data every front end renders."""
        return self.reading.answer(read, defer)

    def recall(
        self, query: str, *, record_access: bool = True, defer=None, **options: object
    ) -> RecallResult:
        """The chunks that matter for a query, best first, with citations and snippets
        (`RecallResult`). `options` are a recall request's fields (recall/reads.py, listed
        by `fields_of("recall")`): k, min_score, now, since, until, path, as_of, current,
        agent, role, include_forgotten (what `mem forget` hid, shown) and any option added
        to the request later; TypeError for one it does not take or of the wrong type."""
        read = Read.ask("recall", query=query, **options)
        return self.reading.recall(read, record_access=record_access, defer=defer)

    def context(self, query: str, *, defer=None, **options: object) -> ContextBlock:
        """The block to put in front of a model, within a token budget (`ContextBlock`).
        `options`: recall's (they shape what it recalls), and budget and all_recent (every
        recent turn, not only those on the question: a session's opening brief)."""
        return self.reading.context(Read.ask("context", query=query, **options), defer=defer)

    def get(self, spec: str, *, start: int | None = None, lines: int | None = None):
        """Lines of a memory file (`PATH`, `PATH:N`, `PATH:FROM:N`, `PATH#Lx-Ly`), or a
        path with `start` and `lines` as memory_get gives them. Only inside the workspace."""
        return self.reading.get(spec, start=start, lines=lines)

    def search(self, query: str, **options: object) -> dict:
        """Recall for a model (MCP memory_search), with recall's options: labelled as
        recollection, with `flagged` on a snippet that reads like an instruction."""
        return self.reading.search(Read.ask("recall", query=query, **options))

    def evaluate(self, file=None, *, k: int | None = None, now=None, compare: Iterable = ()):
        """`mem eval`: recall@k and MRR of eval/queries.yaml (or file); with compare
        (KEY=VALUE settings), the same queries again. (result, warnings)."""
        from .services import evaluating as ev

        overrides = ev.parse_overrides(compare)
        queries = ev.load_queries(self.reading, file)
        when = now or self.now()
        if overrides:
            result = ev.compare(self.reading, queries, overrides, k=k, now=when)
            runs = (result.base, result.other)
        else:
            result = ev.run(self.reading, queries, k=k, now=when)
            runs = (result,)
        warnings: list[str] = []
        for w in (*queries.warnings, *(w for r in runs for w in r.warnings)):
            if w not in warnings:
                warnings.append(w)
        return result, warnings

    # ------------------------------------------------------------- curating

    def consolidate(
        self,
        *,
        provider: str | Provider | None = None,
        model: str | None = None,
        base_url: str | None = None,
        dry_run: bool = False,
        auto: bool = False,
        propose: bool = False,
        now: datetime | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Report:
        """Distil what is not yet consolidated into the curated files, one commit a batch
        (propose: kept for `mem review` instead; dry_run: nothing written)."""
        return self.curating.consolidate(
            provider=provider,
            model=model,
            base_url=base_url,
            dry_run=dry_run,
            auto=auto,
            propose=propose,
            now=now,
            progress=progress,
        )

    def proposals(self) -> list:
        """Consolidations waiting for review, oldest first."""
        return self.curating.proposals()

    def passed_over(self) -> int:
        """Log entries a model was shown consolidate.max_offers times and never used."""
        return self.curating.passed_over()

    def reoffer(self):
        """Offer the passed-over entries again: (how many, commit, warnings)."""
        return self.curating.reoffer()

    def review(
        self,
        proposal: str,
        *,
        accept: bool = False,
        reject: tuple[int, ...] = (),
        reword: tuple[tuple[int, str], ...] = (),
        drop: bool = False,
    ):
        """Show, reword, accept (minus rejected edits) or drop a proposal: (proposal, diff,
        batch written or None)."""
        return self.curating.review(
            proposal, accept=accept, reject=reject, reword=reword, drop=drop
        )

    def undo(self, *, yes: bool = False):
        """Revert the newest change mem made: (the change, the revert)."""
        return self.curating.undo(yes=yes)

    def forget(self, target: str, *, hard: bool = False):
        """Deprecate (or, hard, delete) a curated line; redact a log line in place (hard)."""
        return self.curating.forget(target, hard=hard)

    def cleanup(self, *, dry_run: bool = False):
        """Move stale curated lines to archive/YYYY-MM.md (committed, not indexed)."""
        return self.curating.cleanup(dry_run=dry_run)

    # ------------------------------------------------------------- keeping

    def sync(self, remote: str | None = None):
        """Commit local memory, merge the remote's, push (see services/keeping.py)."""
        return self.keeping.sync(remote)

    def doctor(self):
        """Merge what a plain pull left conflicted, repair citations, register the driver."""
        return self.keeping.doctor()

    def trust(self) -> str:
        """Trust mem.toml as it is now, on this machine; returns its digest."""
        return self.keeping.trust()

    @staticmethod
    def trust_record(env: Mapping[str, str]) -> str:
        """Where this machine records which mem.toml versions its user trusts (`mem
        trust`): a process that keeps settings open reads them again when it changes."""
        from .config import trust_file

        return str(trust_file(env))

    def read_warm(self, warm: Callable[[], object] | None) -> None:
        """Recall and context answer from this warm index (the resident process's: a
        callable giving the index, or None while it has not taken in a change)."""
        self.reading.read_warm(warm)

    def status(self, days: int = 7):
        return self.keeping.status(days)

    def embeddings(self) -> str:
        """Where recall's vectors come from, as a person reads it: "local:use (embed.provider
        = auto, default)", "none: MinHash pseudo-vectors (embed.provider = none, env …)"."""
        cfg = self.place.config
        made = self.place.embedder
        used = made.key if made is not None else "none: MinHash pseudo-vectors"
        return f"{used} (embed.provider = {cfg['embed.provider']}, {cfg.sources['embed.provider']})"

    def notices(self) -> list[str]:
        """The settings' warnings, each version of mem.toml said once (status says it always)."""
        config = self.place.config
        if not (config.untrusted or config.warnings):
            return []  # the common case, without loading the keeping service
        return self.keeping.notices()

    def audit(self, *, history: bool = False):
        """Lines that read like an instruction or hold a secret (in git history too)."""
        return self.keeping.audit(history=history)

    def index(self, *, rebuild: bool = False, progress=None):
        """Bring the recall index up to date (recall does this itself)."""
        return self.keeping.index(rebuild=rebuild, progress=progress)

    def commit(self, message: str | None = None):
        return self.keeping.commit(message)

    def history(self, limit: int = 20, path: Path | None = None):
        return self.keeping.history(limit, path)

    def diff(self, rev: str = "HEAD", *, color: bool = False) -> str:
        return self.keeping.diff(rev, color=color)


def merge_files(base: Path, ours: Path, theirs: Path, path: str = "") -> None:
    """git's merge driver (`mem merge-file %O %A %B %P`): a memory file merged as mem sync
    merges it, written over `ours` atomically."""
    from .format.merge import merge_file
    from .store.fsutil import atomic_write_text

    def read(p: Path) -> str:
        try:
            return p.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {p}: {exc}") from None

    merged = merge_file(path or str(ours), read(base), read(ours), read(theirs))
    atomic_write_text(ours, merged.text)
