"""`Memory`: the library's front door, one per workspace.

Settings are resolved once, when it opens. Every operation a front end performs is a method
here, and so are the rules about what happens after a write: whether to commit it
(`git.autocommit`), whether to start a background consolidation
(`consolidate.auto_consolidate`), and what a failed commit means for a write that already
landed (a warning, never an error: an agent that retries would log twice). The CLI, the MCP
server and `mem watch` are thin adapters over these methods, so they cannot drift apart.

    from openclaw_mem import Memory

    mem = Memory.open("~/.openclaw/workspace")
    mem.log("我最近在用FastAPI做项目", role="user")
    for hit in mem.recall("FastAPI").hits:
        print(hit.citation, hit.snippet)

Heavy modules (numpy, gitpython, openai, the MCP SDK) are imported inside the methods that
need them: `log` runs on every agent turn and stays light.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import Config, load_config
from .errors import GitError, MemError, UsageError
from .format.logs import (
    ROLES,
    NewEntry,
    append_entries,
    check_label,
    random_id,
    replayable_id,
)
from .format.markdown import citation
from .store.commits import COMMIT_CLEANUP, COMMIT_FORGET, COMMIT_INGEST, COMMIT_LOG, COMMIT_SYNC
from .store.workspace import Workspace, init_target, resolve_workspace
from .text import plural

if TYPE_CHECKING:
    from .consolidate.citations import Citations
    from .consolidate.forgetting import Forgotten, Stale
    from .consolidate.proposal import Provider
    from .consolidate.run import Report
    from .embed import Embedder
    from .format.file_lines import Lines
    from .format.ingest import IngestReport
    from .index.cache import IndexParams
    from .index.watch import Refresh, Watcher
    from .recall.context import ContextBlock
    from .recall.pipeline import RecallResult
    from .recall.reads import Read
    from .scaffold import InitReport
    from .status import Status
    from .store.gitrepo import CommitInfo
    from .store.gitsync import SyncResult


def local_now() -> datetime:
    """Local wall-clock time, naive, to the second: daily logs are written in local time."""
    return datetime.now().replace(microsecond=0)


def fixed_clock(value: str) -> Callable[[], datetime]:
    """MEM_NOW: every command runs as if it were this moment (reproducible examples, tests,
    replaying a day); a bad value is a one-line error, not a silent wall clock."""
    from .errors import UsageError
    from .format.when import parse_when

    try:
        moment = parse_when(value, local_now()).replace(microsecond=0)
    except UsageError as e:
        raise UsageError(f"MEM_NOW: {e}") from None
    return lambda: moment


@dataclass(frozen=True)
class Logged:
    """Where an appended entry landed, and what happened after."""

    path: str
    start_line: int
    end_line: int
    commit: str | None = None  # short sha, when git.autocommit = "log"
    consolidating: bool = False  # a background consolidation was started
    warnings: tuple[str, ...] = ()

    @property
    def citation(self) -> str:
        return citation(self.path, self.start_line, self.end_line)

    def to_json(self) -> dict:
        return {"path": self.path, "startLine": self.start_line, "endLine": self.end_line}


@dataclass(frozen=True)
class Ingested:
    report: IngestReport
    commit: str | None = None
    consolidating: bool = False
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Audit:
    files: int
    findings: tuple  # of audit.Finding, in today's files
    history: tuple = ()  # of audit.Finding, lines any commit added (with --history)
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForgetResult:
    done: Forgotten
    commit: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class CleanupResult:
    stale: list[Stale]
    archive: str | None  # where the lines went; None on a dry run or when nothing is stale
    commit: str | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Doctor:
    merged: list[str]  # memory files a plain merge left conflicted, now merged and staged
    citations: Citations  # curated lines whose citation moved or was left unsourced
    held: str | None = None  # the review proposal holding lines both sides rewrote
    commit: str | None = None  # the citations' commit


@dataclass
class IndexSummary:
    files: int
    chunks: int
    seconds: float
    stats: dict = field(default_factory=dict)  # what the refresh did: mode, changed, deleted
    warnings: list[str] = field(default_factory=list)
    vectors: str = "minhash"  # the vector space the index holds
    missing_vectors: int = 0  # chunks that still lack an embedding

    def to_json(self) -> dict:
        return {
            "files": self.files,
            "chunks": self.chunks,
            "seconds": round(self.seconds, 3),
            "vectors": self.vectors,
            "missingVectors": self.missing_vectors,
            **(self.stats or {"mode": "fresh"}),
        }


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
    from .scaffold import init_workspace

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

    from .errors import MemError
    from .store.gitrepo import open_repo, register_merge_driver

    with contextlib.suppress(MemError, OSError, ValueError):
        repo = open_repo(root)
        if repo is not None:
            register_merge_driver(repo, root)


class Memory:
    """One workspace with its settings, resolved once."""

    def __init__(
        self,
        ws: Workspace,
        config: Config,
        env: Mapping[str, str],
        clock: Callable[[], datetime] = local_now,
    ) -> None:
        self.ws = ws
        self.config = config
        self.env = env
        self.clock = clock
        self._index_params: IndexParams | None = None
        self._embedder: Embedder | bool | None = False  # False: not created yet
        self.warm_index = None  # an Index kept fresh by a watcher (the resident process)
        self._watching = None  # that watcher: a change it saw makes the warm index stale

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
        flag = Path(workspace).expanduser() if workspace is not None else None
        ws = resolve_workspace(flag, env, cwd, home or Path.home())
        if env.get("MEM_NOW") and clock is local_now:
            clock = fixed_clock(env["MEM_NOW"])
        _register_driver(ws.root)
        return cls(ws, load_config(ws.root, env), env, clock)

    @property
    def root(self) -> Path:
        return self.ws.root

    def now(self) -> datetime:
        return self.clock()

    @property
    def agent(self) -> str | None:
        """The agent this process works for (MEM_AGENT): its log entries carry the id, and
        its recall sees its own entries and what is shared (agents.isolation)."""
        from .format.logs import check_agent

        return check_agent(self.env.get("MEM_AGENT") or None)

    def with_settings(self, flags: Mapping[str, Any]) -> Memory:
        """The same memory with some settings given on the command line (None: not given)."""
        if all(v is None for v in flags.values()):
            return self
        return Memory(self.ws, self.config.override(flags), self.env, self.clock)

    @property
    def embedder(self) -> Embedder | None:
        """The embedding provider embed.provider names (None: MinHash only)."""
        if self._embedder is False:
            from . import embed

            cfg = self.config
            settings = {name: cfg[f"embed.{name}"] for name in embed.SETTINGS}
            self._embedder = embed.create(cfg["embed.provider"], settings, self.env)
        return self._embedder  # type: ignore[return-value]

    @property
    def index_params(self) -> IndexParams:
        if self._index_params is None:
            from .index.cache import IndexParams

            space = self.embedder.key if self.embedder is not None else ""
            self._index_params = IndexParams.from_config(self.config, embed=space)
        return self._index_params

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
        """Append one entry, verbatim, to the day file of `at` (default: now), marked with
        the agent that logged it (agent, or MEM_AGENT) when there is one."""
        if role is not None and speaker is not None:
            raise UsageError("give a role or a speaker, not both")
        if role is not None and role not in ROLES:
            raise UsageError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise UsageError("the text is not valid UTF-8; nothing was logged") from None
        label = (
            check_label(speaker)
            if speaker is not None
            else (role or self.config["log.default_role"])
        )
        if self.config["log.redact"]:  # opt-in: daily logs are otherwise kept verbatim
            text = self.redact(text)
        when = at or self.now()
        path = self.ws.day_file(when.date())
        rel = self.ws.rel(path)
        entry = NewEntry(when, label, text, session, agent or self.agent)
        # A replayed clock (MEM_NOW, a fixed clock in tests) draws replayable ids too.
        draw = random_id if self.clock is local_now else replayable_id
        result = append_entries(path, when.date(), [entry], rel=rel, draw_id=draw)
        commit, warnings = self._after_append([rel], f"{COMMIT_LOG} {rel}")
        from .safety.firewall import scan

        flags = scan(text)
        if flags:  # kept verbatim: a log is what was said; it just never becomes a rule
            kinds = ", ".join(f.kind for f in flags)
            warnings.append(
                f"{rel}#L{result.start_line} reads like an instruction to the agent ({kinds}); "
                "kept verbatim; consolidation holds anything drawn from it for mem review"
            )
        return Logged(
            rel,
            result.start_line,
            result.end_line,
            commit,
            self._maybe_auto_consolidate(),
            tuple(warnings),
        )

    def ingest(
        self,
        lines: Iterable[str],
        source: str,
        *,
        session: str | None = None,
        default_time: datetime | None = None,
    ) -> Ingested:
        """Append a transcript, each message into its own day; repeats are skipped."""
        from .format.ingest import ingest

        report = ingest(
            self.ws, lines, source, default_time=default_time or self.now(), session=session
        )
        commit, warnings = None, []
        if report.files:
            commit, warnings = self._after_append(report.files, f"{COMMIT_INGEST} {source}")
        consolidating = self._maybe_auto_consolidate() if report.files else False
        return Ingested(report, commit, consolidating, tuple(warnings + self._flag_warning(report)))

    def import_export(self, kind: str, path: Path) -> Ingested:
        """Append a ChatGPT, claude.ai or Claude Code export to the daily logs (importers.py);
        what is already there is skipped, so a repeat import adds nothing."""
        from .format.importers import read_export
        from .format.ingest import append_messages
        from .store.transaction import transaction

        messages, skipped = read_export(kind, path)
        with transaction(self.root):
            report = append_messages(self.ws, messages, skipped, default_time=self.now())
            commit, warnings = None, []
            if report.files:
                commit, warnings = self._after_append(
                    report.files, f"{COMMIT_INGEST} {kind} export"
                )
        return Ingested(report, commit, False, tuple(warnings + self._flag_warning(report)))

    @staticmethod
    def _flag_warning(report) -> list[str]:
        if not report.flagged:
            return []
        return [
            f"{plural(report.flagged, 'message')} read like an instruction to the agent; "
            "kept verbatim, and consolidation holds anything drawn from them for mem review "
            "(mem audit lists them)"
        ]

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
        """Distil what is not yet consolidated into the curated files: one commit a batch.
        propose keeps each batch for `mem review` instead (as --auto does with
        consolidate.review = true)."""
        from .consolidate.run import consolidate

        propose = propose or (auto and self.config["consolidate.review"])
        if not (dry_run or propose):
            self._check_writable_state()
        return consolidate(
            self.ws,
            self._provider(provider, model, base_url),
            self._consolidation_options(now),
            dry_run=dry_run,
            auto=auto,
            propose=propose,
            progress=progress,
        )

    def proposals(self) -> list:
        """Consolidations waiting for review, oldest first."""
        from .consolidate.review import load_all

        return load_all(self.ws)

    def review(
        self,
        proposal: str,
        *,
        accept: bool = False,
        reject: tuple[int, ...] = (),
        reword: tuple[tuple[int, str], ...] = (),
        drop: bool = False,
    ):
        """Show, reword, accept (minus rejected edits) or drop a proposal. Returns
        (the proposal, its diff against the files now, the batch written or None)."""
        from .consolidate import review

        if drop:
            return self._shown(review.drop(self.ws, proposal)), "", None
        for number, text in reword:
            review.reword(self.ws, proposal, number, text)
        opts = self._consolidation_options(None)
        if accept:
            self._check_writable_state()
            pending, batch = review.accept(self.ws, proposal, opts, set(reject))
            return self._shown(pending), "", batch
        pending = review.load(self.ws, proposal)
        diff, _ = review.preview(self.ws, pending, opts.min_confidence)
        return self._shown(pending), self.redact(diff), None

    def _shown(self, pending):
        """A proposal as it may be shown: a proposal file is anyone's to edit, and what it
        says goes to a terminal (or an editor) with its secrets hidden."""

        def edit(e: dict) -> dict:
            return {k: self.redact(v) if isinstance(v, str) else v for k, v in e.items()}

        return replace(
            pending,
            paragraph=self.redact(pending.paragraph),
            edits=[edit(e) for e in pending.edits],
            rejected=[edit(r) for r in pending.rejected],
            reasons=[self.redact(r) for r in pending.reasons],
        )

    def trust(self) -> str:
        """Trust the workspace's mem.toml as it is now, on this machine: the settings that
        decide where memory and keys are sent (endpoints, models, providers) count from it
        until it changes. Returns the file's digest."""
        from .config import trust

        return trust(self.root, self.env)

    def doctor(self) -> Doctor:
        """Put right what a plain `git pull` or a hand edit left: memory files a merge left
        conflicted (merged as mem sync merges them; a line both sides rewrote waits in
        `mem review`), citations that no longer point at the entry that says them (moved
        or unsourced), and a clone without the merge driver (registered). Commits the
        citations unless a merge is in progress (its commit takes them)."""
        from .consolidate.citations import refresh
        from .consolidate.review import hold_undecided
        from .format.merge import merge_file
        from .store import gitrepo
        from .store.transaction import transaction

        def merge(rel: str, base: str, ours: str, theirs: str):
            merged = merge_file(rel, base, ours, theirs)
            return merged.text, merged

        with transaction(self.root):
            resolved = []
            if gitrepo.open_repo(self.root) is not None:
                resolved = gitrepo.merge_by_entry(self.root, merge)
            undecided = [u for _, m in resolved for u in m.undecided]
            held = hold_undecided(self.ws, undecided, self._consolidation_options(None))
            citations = refresh(self.ws)
            commit = None
            repo = gitrepo.open_repo(self.root)
            if (
                citations.files
                and repo is not None
                and not gitrepo.operation_in_progress(self.root)
            ):
                commit, _ = self._commit(
                    citations.files, f"{COMMIT_SYNC} citations follow their entries"
                )
        return Doctor([rel for rel, _ in resolved], citations, held, commit)

    def undo(self, *, yes: bool = False) -> tuple[CommitInfo, CommitInfo]:
        """Revert the newest change mem made (consolidation, forget, cleanup) with a new
        commit: (the change, the revert). When a person changed memory since, only with
        `yes` (the error names the commit it would revert)."""
        from .consolidate.undo import undo

        self._check_writable_state()
        return undo(self.ws, yes=yes)

    def forget(self, target: str, *, hard: bool = False) -> ForgetResult:
        """Deprecate (or, hard, delete) a curated line; redact a log line in place (hard)."""
        from .consolidate.citations import refresh
        from .consolidate.forgetting import forget
        from .store.transaction import transaction

        self._check_writable_state()
        extra = tuple(self.config["consolidate.redact_patterns"])
        with transaction(self.root):
            done = forget(self.ws, target, hard, self.now().date(), extra)
            # A redacted entry no longer says what a curated line drew from it.
            followed = refresh(self.ws).files if done.mode == "redacted" else []
            lo, hi = done.lines
            where = f"{done.path}:{lo}" + (f"-{hi}" if hi != lo else "")
            commit, warnings = self._commit_change(
                [done.path, *followed], f"{COMMIT_FORGET} {where} ({done.mode})"
            )
        return ForgetResult(done, commit, tuple(warnings))

    def cleanup(self, *, dry_run: bool = False) -> CleanupResult:
        """Move stale curated lines to archive/YYYY-MM.md (committed, not indexed)."""
        from .consolidate.forgetting import archive, find_stale

        cfg = self.config
        now = self.now()
        stale = find_stale(
            self.ws,
            now,
            min_importance=cfg["cleanup.min_importance"],
            unused_days=cfg["cleanup.unused_days"],
            deprecated_days=cfg["cleanup.deprecated_days"],
            min_confidence=cfg["cleanup.min_confidence"],
        )
        if not stale or dry_run:
            return CleanupResult(stale, None)
        from .store.transaction import transaction

        self._check_writable_state()
        with transaction(self.root):
            target = archive(self.ws, stale, now)
            paths = sorted({s.path for s in stale} | {target})
            message = f"{COMMIT_CLEANUP} archived {len(stale)} stale line(s) to {target}"
            commit, warnings = self._commit_change(paths, message)
        return CleanupResult(stale, target, commit, tuple(warnings))

    def sync(self, remote: str | None = None) -> SyncResult:
        """Commit local memory, merge the remote's file by file (logs by entry, curated
        files by line), push: one memory on several machines, while agents keep logging.
        A line both machines rewrote waits in `mem review`; citations follow their entries."""
        from dataclasses import replace

        from .consolidate.citations import refresh
        from .consolidate.progress import record
        from .consolidate.review import hold_undecided
        from .format.merge import merge_file
        from .store.gitsync import sync, sync_message

        # An older workspace's line markers are taken over by id before the first merge by
        # entry can move lines under them.
        record(self.ws, [])
        held: list[str] = []

        def merge(rel: str, base: str, ours: str, theirs: str, rewritten: bool):
            merged = merge_file(rel, base, ours, theirs, rewritten=rewritten)
            return merged.text, merged

        def after(notes) -> tuple[list[str], str]:
            undecided = [u for m in notes.values() if hasattr(m, "undecided") for u in m.undecided]
            proposal = hold_undecided(self.ws, undecided, self._consolidation_options(None))
            if proposal:
                held.append(proposal)
            return refresh(self.ws).files, f"{COMMIT_SYNC} citations follow their entries"

        result = sync(
            self.root,
            remote or self.config["sync.remote"],
            self.config["sync.branch"],
            merge,
            message=sync_message,
            after_merge=after,
        )
        # A link that arrived from another machine is reported; no reader ever follows it.
        self.ws.scan((*self.index_params.include, "archive/**/*.md"))
        warnings = [f"{rel} is a symlink; mem never follows it" for rel in self.ws.links]
        if result.pulled:  # a mem.toml this machine has not trusted says so now, once
            pulled = Memory(self.ws, load_config(self.root, self.env), self.env, self.clock)
            warnings += pulled.notices()
        planted = result.merged.pop(".mem", None)
        if planted:
            warnings.append(
                f"the remote's commits hold {plural(len(planted), 'file')} under .mem/ "
                f"({planted[0]}…): not taken, this machine's state stays its own"
            )
        restored = sum(getattr(m, "restored", 0) for m in result.merged.values())
        restored += sum(m == "restored" for m in result.merged.values())
        if restored:
            warnings.append(
                f"the remote had lost {plural(restored, 'entry')} this machine "
                "still held; they were kept"
                + (" (its history was rewritten)" if result.rewritten else "")
            )
        for proposal in held:
            warnings.append(
                f"a line both machines rewrote keeps this machine's words; the other's waits "
                f"in `mem review {proposal}`"
            )
        kept = sorted(rel for rel, m in result.merged.items() if getattr(m, "kept_ours", 0))
        kept += sorted(rel for rel, m in result.merged.items() if m == "kept")
        for rel in kept:
            warnings.append(
                f"{rel} changed on both machines in the same place; this machine's lines were "
                "kept (the other's are in the merged commit's second parent)"
            )
        return replace(result, warnings=tuple(warnings))

    def audit(self, *, history: bool = False) -> Audit:
        """Lines that read like an instruction to the agent or hold a secret, in every
        memory file (and with history, in every line a commit ever added)."""
        from .errors import BadEncoding
        from .safety.audit import audit_history, audit_text
        from .store.fsutil import read_text

        extra = tuple(self.config["consolidate.redact_patterns"])
        files = self.ws.scan((*self.index_params.include, "archive/**/*.md"))
        found, warnings = [], [f"{rel} is a symlink; mem never follows it" for rel in self.ws.links]
        for rel in files:
            try:
                found += audit_text(rel, read_text(self.ws.root / rel, rel), extra)
            except BadEncoding as exc:
                warnings.append(str(exc))
        past = audit_history(self.root, found, extra) if history else []
        return Audit(len(files), tuple(found), tuple(past), tuple(warnings))

    def commit(self, message: str | None = None) -> CommitInfo | None:
        from .store.gitrepo import commit_memory

        return commit_memory(self.root, message)

    def history(self, limit: int = 20, path: Path | None = None) -> list[CommitInfo]:
        from .store.gitrepo import history

        return history(self.root, limit, path)

    def diff(self, rev: str = "HEAD", *, color: bool = False) -> str:
        from .store.gitrepo import diff

        return diff(self.root, rev, color=color)

    # ------------------------------------------------------------- reading

    def recall(
        self,
        query: str,
        *,
        k: int | None = None,
        min_score: float | None = None,
        now: datetime | None = None,
        since: date | None = None,
        until: date | None = None,
        path: str | None = None,
        record_access: bool = True,
        as_of: date | None = None,
        current: bool = False,
        agent: str | None = None,
        role: str | None = None,
        defer=None,
    ) -> RecallResult:
        """The chunks that matter for a query, best first, with citations and snippets.
        `defer`: where to hand the counting of the hits as used, to run after answering."""
        from .recall.pipeline import recall

        if not query.strip():
            raise UsageError("the query is empty")
        opts = self.recall_options(
            k=k,
            min_score=min_score,
            now=now,
            since=since,
            until=until,
            path=path,
            as_of=as_of,
            current=current,
            agent=agent,
            role=role,
        )
        result = recall(
            self.ws,
            query,
            opts,
            self.index_params,
            record_access,
            self.embedder,
            self._fresh_warm_index(),
            defer,
        )
        # Logs keep what was said, secrets included; what recall hands to a model or a
        # terminal does not.
        result.hits = [replace(h, snippet=self.redact(h.snippet)) for h in result.hits]
        return result

    def evaluate(
        self,
        file: str | os.PathLike[str] | None = None,
        *,
        k: int | None = None,
        now: datetime | None = None,
        compare: Iterable[str] = (),
    ):
        """`mem eval`: recall@k and MRR of the queries in eval/queries.yaml (or file) against
        this memory; with compare (KEY=VALUE settings), the same queries again with them.
        Returns the run (or comparison) and the warnings of loading and running."""
        from .recall import evaluate

        overrides = evaluate.parse_overrides(compare)
        queries = evaluate.load_queries(self, file)
        when = now or self.now()
        if overrides:
            result = evaluate.compare(self, queries, overrides, k=k, now=when)
            runs = (result.base, result.other)
        else:
            result = evaluate.run(self, queries, k=k, now=when)
            runs = (result,)
        warnings: list[str] = []
        for w in (*queries.warnings, *(w for r in runs for w in r.warnings)):
            if w not in warnings:
                warnings.append(w)
        return result, warnings

    def search(self, query: str, *, k: int | None = None, min_score: float | None = None) -> dict:
        """Recall for a model (MCP memory_search): OpenClaw's result shape inside a labelled
        answer saying it is recollection, not instruction; a snippet that reads like an
        instruction says so (`flagged`)."""
        from .safety.firewall import NOTICE, scan

        results = []
        for hit in self.recall(query, k=k, min_score=min_score).hits:
            item = hit.to_json()
            flags = scan(hit.snippet)
            if flags:
                item["flagged"] = [f.kind for f in flags]
            results.append(item)
        return {"notice": NOTICE, "results": results}

    def recall_options(
        self,
        *,
        k=None,
        min_score=None,
        now=None,
        since=None,
        until=None,
        path=None,
        as_of=None,
        current=False,
        agent=None,
        role=None,
    ):
        from .recall.pipeline import RecallOptions

        cfg = self.config.override({"recall.k": k, "recall.min_score": min_score})
        return RecallOptions.from_config(
            cfg,
            now=now or self.now(),
            since=since,
            until=until,
            path_glob=path,
            as_of=as_of,
            current=current or None,
            # None: this process's agent (MEM_AGENT); "": a caller that named none.
            agent=self.agent if agent is None else agent,
            isolated=cfg["agents.isolation"] == "isolated",
            role=role,
        )

    def get(self, spec: str, *, start: int | None = None, lines: int | None = None) -> Lines:
        """Lines of a memory file: a spec (`PATH`, `PATH:N` one line, `PATH:FROM:N`,
        `PATH#Lx-Ly`), or a path with `start` and `lines` as memory_get gives them (no
        `lines`: to the end). Only inside the workspace."""
        from .format.file_lines import get_lines
        from .safety.secrets import redact_lines

        span = None
        if start is not None or lines is not None:
            span = (start or 1, lines or None)
        extra = tuple(self.config["consolidate.redact_patterns"])
        return get_lines(self.ws, spec, lambda whole, a, b: redact_lines(whole, a, b, extra), span)

    def context(
        self,
        query: str,
        *,
        budget: int | None = None,
        now: datetime | None = None,
        agent: str | None = None,
        as_of: date | None = None,
        current: bool = False,
        defer=None,
    ) -> ContextBlock:
        """The block to put in front of a model, within a token budget."""
        from .recall.context import build_context

        if not query.strip():
            raise UsageError("the query is empty")
        cfg = self.config.override({"context.budget": budget})
        when = now or self.now()
        block = build_context(
            self.ws,
            query,
            cfg["context.budget"],
            self.recall_options(now=when, agent=agent, as_of=as_of, current=current),
            self.index_params,
            when,
            cfg["context.memories"],
            self.embedder,
            self._fresh_warm_index(),
            defer,
        )
        block.proposals = len(self.proposals())
        block.profile = [self.redact(line) for line in block.profile]
        block.working = [self.redact(line) for line in block.working]
        for group, items in block.memories.items():
            block.memories[group] = [replace(m, text=self.redact(m.text)) for m in items]
        return block

    def redact(self, text: str) -> str:
        """The text with every secret replaced by [REDACTED]: the built-in credential
        families and consolidate.redact_patterns."""
        from .safety.secrets import redact

        return redact(text, tuple(self.config["consolidate.redact_patterns"]))[0]

    def index(self, *, rebuild: bool = False, progress=None) -> IndexSummary:
        """Bring the recall index up to date (recall does this itself); rebuild starts over."""
        import time

        from .index.cache import open_index

        start = time.perf_counter()
        index = open_index(
            self.ws,
            self.index_params,
            embedder=self.embedder,
            rebuild=rebuild,
            progress=progress,
            must_save=True,
        )
        return IndexSummary(
            sum(1 for rec in index.files.values() if rec["seg"] != "bad"),
            index.n_live,
            time.perf_counter() - start,
            dict(index.stats or {}),
            list(index.warnings),
            self.index_params.embed or "minhash",
            index.missing_vectors,
        )

    def status(self, days: int = 7) -> Status:
        from .status import workspace_status

        found = workspace_status(self.ws, self.now().date(), days, index_params=self.index_params)
        # `mem status` says what mem.toml changes that this machine has not trusted, every
        # time; other commands say it once a version (notices()).
        found.warnings[:0] = [w for w in self.config.warnings if w not in found.warnings]
        return found

    def notices(self) -> list[str]:
        """What the settings have to say, once: a mem.toml version this machine has not
        trusted is named by the first command that reads it, then by `mem status` alone
        (the warning would drown an agent's every turn)."""
        if not self.config.untrusted:
            return list(self.config.warnings)
        from .config import CONFIG_FILE, _digest

        said = self.ws.state_dir / "untrusted-warned"
        digest = _digest(self.root / CONFIG_FILE)
        try:
            if said.read_text(encoding="utf-8").strip() == digest:
                return []
        except OSError:
            pass
        import contextlib

        from .store.fsutil import atomic_write_text

        with contextlib.suppress(OSError, MemError):
            atomic_write_text(said, digest + "\n")
        return list(self.config.warnings)

    # ------------------------------------------------------------- long-running

    def watcher(
        self,
        on_refresh: Callable[[Refresh], None],
        *,
        on_error: Callable[[Exception], None] | None = None,
        debounce: float | None = None,
        consolidate: bool = False,
        on_consolidated: Callable[[Report], None] | None = None,
    ) -> Watcher:
        """A file watcher that keeps the index fresh, and (consolidate) runs a windowed
        consolidation after each refresh. Call start() and stop() on it."""
        from .errors import MemError
        from .index.watch import Watcher

        after = None
        if consolidate:

            def after() -> None:
                try:
                    report = self.consolidate(auto=True)
                except MemError as exc:
                    if on_error is not None:
                        on_error(exc)
                    return
                if on_consolidated is not None:
                    on_consolidated(report)

        def refreshed(refresh: Refresh) -> None:
            from .store import heap

            self.warm_index = refresh.index  # requests from now on see the new index
            heap.give_back()  # a refresh's arrays dwarf a query's: keep none of them
            if refresh.paths:  # the warm-up at start is not news
                on_refresh(refresh)

        self._watching = Watcher(
            self.ws,
            self.index_params,
            refreshed,
            after,
            on_error=on_error,
            debounce=self.config["watch.debounce"] if debounce is None else debounce,
            embedder=self.embedder,
        )
        return self._watching

    def _fresh_warm_index(self):
        """The warm index, unless a change it does not hold yet was seen: then None, and
        the query reads the index from disk, refreshed (never stale line numbers or the
        snippet of a file that is gone)."""
        watching = self._watching
        if watching is not None and watching.dirty():
            return None
        return self.warm_index

    def for_agent(self, agent: str | None) -> Memory:
        """The same memory working for one agent (as MEM_AGENT=agent would)."""
        from .format.logs import check_agent

        if not agent:
            return self
        return Memory(
            self.ws, self.config, {**self.env, "MEM_AGENT": check_agent(agent)}, self.clock
        )

    # ------------------------------------------------------------- the resident process

    def answer(self, read: Read, defer=None) -> dict:
        """A read (recall, context or get; recall/reads.py) as JSON-able data: what the
        resident process sends, and what the CLI renders either way, so both paths print
        the same. `defer` takes bookkeeping that can wait until the answer is sent (the
        resident process passes it)."""
        from datetime import date as _date

        def when(value: str | None):
            if not value:
                return None
            moment = datetime.fromisoformat(value)  # an offset: local time, as parse_when
            return moment.astimezone().replace(tzinfo=None) if moment.tzinfo else moment

        def day(value: str | None):
            return _date.fromisoformat(value) if value else None

        try:
            now, since, until, as_of = (
                when(read.now),
                day(read.since),
                day(read.until),
                day(read.as_of),
            )
        except ValueError as exc:
            raise UsageError(f"a {read.op} request holds a bad date: {exc}") from None
        if read.op == "ping":
            return {"root": str(self.root)}
        if read.op in ("recall", "context") and not isinstance(read.query, str):
            raise UsageError(f"a {read.op} request needs a query")
        if read.op == "recall":
            found = self.recall(
                read.query,
                k=read.k,
                min_score=read.min_score,
                now=now,
                since=since,
                until=until,
                path=read.path,
                as_of=as_of,
                current=read.current,
                agent=read.agent or "",  # each caller says who asks
                role=read.role,
                defer=defer,
            )
            return {
                "results": [h.to_json(explain=True) for h in found.hits],
                "warnings": [self.redact(w) for w in found.warnings],
            }
        if read.op == "context":
            block = self.context(
                read.query,
                budget=read.budget,
                now=now,
                agent=read.agent or "",  # each caller says who asks
                as_of=as_of,
                current=read.current,
                defer=defer,
            )
            return block.to_json()
        if not isinstance(read.spec, str):
            raise UsageError("a get request needs a spec")
        return self.get(read.spec).to_json()

    # ------------------------------------------------------------- write rules

    def _check_writable_state(self) -> None:
        """Before rewriting curated files: no merge, rebase, cherry-pick or revert in
        progress, and no conflict markers in a memory file (writing into one would stage
        it, and git would take the conflict as resolved)."""
        from .errors import ConflictError
        from .format.markdown import has_conflict_markers
        from .store import gitrepo
        from .store.fsutil import read_text
        from .store.workspace import CURATED_FILES, HISTORY_FILE

        what = gitrepo.operation_in_progress(self.root)
        if what:
            raise ConflictError(
                f"{what} is in progress in this repository; finish or abort it first "
                "(git status says how); nothing was written"
            )
        for name in (*CURATED_FILES, HISTORY_FILE):
            path = self.root / name
            if path.is_file() and has_conflict_markers(read_text(path, name)):
                raise ConflictError(
                    f"{name} holds conflict markers (<<<<<<< … >>>>>>>); resolve them and "
                    "commit, then run this again; nothing was written"
                )

    def _after_append(self, paths: list[str], message: str) -> tuple[str | None, list[str]]:
        """git.autocommit = "log": commit what was appended."""
        if self.config["git.autocommit"] != "log":
            return None, []
        from .store import gitrepo

        if gitrepo.open_repo(self.root) is None:
            return None, [
                "git.autocommit is 'log' but the workspace has no git repository; "
                "`mem init` adds one"
            ]
        return self._commit(paths, message)

    def _commit_change(self, paths: list[str], message: str) -> tuple[str | None, list[str]]:
        """forget and cleanup commit unless git.autocommit = "never" (or there is no repo)."""
        if self.config["git.autocommit"] == "never":
            return None, []
        from .store import gitrepo

        if gitrepo.open_repo(self.root) is None:
            return None, []
        return self._commit(paths, message)

    def _commit(self, paths: list[str], message: str) -> tuple[str | None, list[str]]:
        from .store import gitrepo

        try:
            info = gitrepo.commit_memory(self.root, message, paths)
        except GitError as exc:
            # The write landed; only the commit did not. Saying "failed" would make an
            # agent retry and write it twice.
            return None, [f"written but not committed ({exc.message}); `mem commit` later"]
        return (info.short if info else None), []

    def _maybe_auto_consolidate(self) -> bool:
        """consolidate.auto_consolidate: past the window, start `mem consolidate --auto` in
        the background, so the turn never waits for a model. Output: .mem/consolidate.log."""
        if not self.config["consolidate.auto_consolidate"]:
            return False
        import subprocess
        import sys

        from .consolidate.review import count_pending

        if count_pending(self.ws) <= self.config["consolidate.memory_window"]:
            return False
        self.ws.state_dir.mkdir(parents=True, exist_ok=True)
        try:
            log = (self.ws.state_dir / "consolidate.log").open("ab")
        except OSError as exc:
            raise UsageError(f"cannot write {self.ws.state_dir}: {exc.strerror}") from None
        with log:
            args = ["-w", str(self.root), "consolidate", "--auto", "--quiet"]
            subprocess.Popen(
                [sys.executable, "-m", "openclaw_mem", *args],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                cwd=self.root,
            )
        return True

    def _provider(self, chosen: str | Provider | None, model: str | None, base_url: str | None):
        from .consolidate import providers

        if chosen is not None and not isinstance(chosen, str):
            return chosen
        if chosen is not None and chosen not in providers.names():
            raise UsageError(
                f"unknown provider {chosen!r}; use one of {', '.join(providers.names())}"
            )
        cfg = self.config
        settings: dict[str, Any] = {
            "model": model or cfg["llm.model"],
            "base_url": base_url or cfg["llm.base_url"],
            "timeout": cfg["llm.timeout"],
            "max_retries": cfg["llm.max_retries"],
            "context_tokens": cfg["llm.context_tokens"],
            "tool_mode": cfg["llm.tool_mode"],
        }
        return providers.create(chosen or cfg["consolidate.provider"], settings, self.env)

    def _consolidation_options(self, now: datetime | None):
        from .consolidate.run import Options

        cfg = self.config
        return Options(
            now=now or self.now(),
            min_confidence=cfg["consolidate.min_confidence"],
            memory_window=cfg["consolidate.memory_window"],
            keep_recent=cfg["consolidate.keep_recent"],
            redact_extra=tuple(cfg["consolidate.redact_patterns"]),
            commit=cfg["git.autocommit"] != "never",
            daily_token_budget=cfg["llm.daily_token_budget"],
            user_budget=cfg["consolidate.user_budget"],
            max_edits=cfg["consolidate.max_edits"],
            max_line_chars=cfg["consolidate.max_line_chars"],
            max_new_lines=cfg["consolidate.max_new_lines"],
        )


def merge_files(base: Path, ours: Path, theirs: Path, path: str = "") -> None:
    """git's merge driver (`mem merge-file %O %A %B %P`): a daily log or HISTORY.md merged
    by entry, written over `ours` atomically."""
    from .format.merge import merge_file
    from .store.fsutil import atomic_write_text

    def read(p: Path) -> str:
        try:
            return p.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read {p}: {exc}") from None

    merged = merge_file(path or str(ours), read(base), read(ours), read(theirs))
    atomic_write_text(ours, merged.text)
