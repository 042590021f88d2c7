"""`mem undo`: revert the newest change mem made to curated memory (a consolidation, a
forget, a cleanup) with a new commit; history is never rewritten.

Everything is decided from content, not from commit messages:
- the change to revert is the newest of mem's consolidations, forgets and cleanups whose
  revert would still change something (one already undone, or overwritten since, changes
  nothing: a commit message claiming "This reverts commit …" proves nothing);
- a person changed memory since when a newer commit changed what a curated line says
  (its words, not its metadata), whoever committed it: a hand edit that `mem sync` carried
  counts, mem's own citation renumbering does not; then only `--yes` reverts;
- the revert is a three-way merge per file (format/merge.py) of the change's version, the
  file as it is now and the version before the change, so a later citation renumbering of
  the same lines never blocks it; a line a person rewrote since keeps their words and stops
  the undo with one line.
Daily logs are never reverted (they are the record), and neither is a log redaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ..errors import ConflictError, NotFound, UsageError
from ..format.markdown import core, split_doc
from ..format.merge import PROGRESS, merge_file
from ..store import gitrepo
from ..store.commits import (
    COMMIT_CLEANUP,
    COMMIT_CONSOLIDATE,
    COMMIT_FORGET,
    COMMIT_INGEST,
    COMMIT_INIT,
    COMMIT_LOG,
)
from ..store.fsutil import atomic_write_text, read_text, replace_locked
from ..store.gitrepo import CommitInfo
from ..store.workspace import CURATED_FILES, HISTORY_FILE, MEMORY_DIR, Workspace

UNDOABLE = (COMMIT_CONSOLIDATE, COMMIT_FORGET, COMMIT_CLEANUP)
REVERT = 'Revert "'
_MEMS_OWN = (COMMIT_LOG, COMMIT_INGEST, COMMIT_INIT, *UNDOABLE, REVERT)


@dataclass(frozen=True)
class Plan:
    target: CommitInfo
    files: dict[str, str | None]  # workspace-relative path -> its reverted text (None: gone)
    person: CommitInfo | None  # the newest change of a person's since, if any


def _is_log(rel: str) -> bool:
    return rel.startswith(f"{MEMORY_DIR}/") and rel.endswith(".md")


def plan(ws: Workspace) -> Plan:
    """What `mem undo` would do now."""
    person = None
    for info, files in gitrepo.memory_commits(ws.root):
        # A redaction (--hard, of a log or HISTORY.md) is never undone: it took words out on
        # purpose. A soft forget of a log entry is only a record in HISTORY.md: undone.
        # ("forget: PLACE (redacted)", or by words: 'forget: "W" (3 lines, 2 redacted)')
        redaction = info.subject.startswith(COMMIT_FORGET) and info.subject.endswith("redacted)")
        if info.subject.startswith(UNDOABLE) and not redaction:
            files = [f for f in files if not _is_log(f)]
            reverted = _reverted(ws, info, files)
            if reverted:
                return Plan(info, reverted, person)
            continue  # undone already, or overwritten since: nothing of it is left to revert
        if person is None and _a_persons_change(ws, info, files):
            person = info
    raise NotFound("no change of mem's to undo (mem history lists what there is)")


def last_consolidation_commit(ws: Workspace) -> CommitInfo | None:
    """The newest consolidation whose lines are still there (not undone), with its stats."""
    for info, files in gitrepo.memory_commits(ws.root):
        if not info.subject.startswith(COMMIT_CONSOLIDATE):
            continue
        try:
            still = bool(_reverted(ws, info, [f for f in files if not _is_log(f)]))
        except ConflictError:
            still = True  # rewritten since, but not undone
        if still:
            return gitrepo.short_stat(ws.root, info.sha)
    return None


def _said(text: str | None) -> list[str]:
    return [core(line) for line in split_doc(text or "").lines]


def _a_persons_change(ws: Workspace, info: CommitInfo, files: list[str]) -> bool:
    """A commit that changed what a curated line says, and is not one of mem's own kinds (a
    sync's commit counts: it carries what a person saved)."""
    if info.subject.startswith(_MEMS_OWN):
        return False
    return any(
        _said(gitrepo.file_at(ws.root, f"{info.sha}^", rel))
        != _said(gitrepo.file_at(ws.root, info.sha, rel))
        for rel in files
        if rel in CURATED_FILES
    )


def _holds_anything(rel: str, text: str) -> bool:
    if rel == PROGRESS:
        return any(line.strip() and not line.startswith("#") for line in text.splitlines())
    return bool(text.strip())


def _reverted(ws: Workspace, info: CommitInfo, files: list[str]) -> dict[str, str | None]:
    """The files as reverting `info` would leave them; {} when that changes nothing."""
    out: dict[str, str | None] = {}
    for rel in files:
        base = gitrepo.file_at(ws.root, info.sha, rel)
        before = gitrepo.file_at(ws.root, f"{info.sha}^", rel)
        path = ws.inside(rel)
        now = read_text(path, rel) if path.is_file() else None
        merged = merge_file(rel, base or "", now or "", before or "")
        if merged.undecided or merged.kept_ours:
            raise ConflictError(
                f"cannot undo {info.short} cleanly: a later edit rewrote {rel} where it "
                f"changed; nothing was changed. Edit it by hand (git show {info.short})"
            )
        # A file the change made, left with nothing of its own, goes: the record of
        # consolidated entries (memory/.consolidated) keeps its header, and a header-only
        # record would stand for "nothing consolidated", not for the older workspace's
        # HISTORY.md markers it replaced (every entry they covered pending again).
        new = None if before is None and not _holds_anything(rel, merged.text) else merged.text
        if new != now:
            out[rel] = new
    return out


def undo(
    ws: Workspace,
    *,
    yes: bool = False,
    follow: Callable[[], list[str]] | None = None,
    now: datetime | None = None,
) -> tuple[CommitInfo, CommitInfo]:
    """Revert the newest change mem made; (the change, the revert). `follow` re-points the
    reverted lines' links before the commit (the files it rewrote): a line brought back
    as it was may cite an entry that moved or was redacted since."""
    from ..store.transaction import transaction

    with transaction(ws.root):
        dirty = set(gitrepo.changed_memory_files(gitrepo.require_repo(ws.root), ws.root))
        todo = plan(ws)
        if todo.person is not None and not yes:
            raise UsageError(
                f"the newest change to memory is {todo.person.short} "
                f"{todo.person.subject!r}, not mem's; `mem undo --yes` reverts "
                f"{todo.target.short} {todo.target.subject!r} instead"
            )
        busy = sorted(dirty & set(todo.files))
        if busy:
            raise ConflictError(
                f"{', '.join(busy)} has changes not committed yet; commit them first "
                "(mem commit), then undo; nothing was changed"
            )
        for rel, text in todo.files.items():
            if rel == HISTORY_FILE and text is not None:
                text = _taking_back(read_text(ws.inside(rel), rel), text, now or datetime.now())
            _write(ws, rel, text)
        # A file a person has not committed yet is re-pointed but left for their commit.
        followed = set(follow() if follow else []) - dirty
        message = f'{REVERT}{todo.target.subject}"\n\nThis reverts commit {todo.target.sha}.'
        revert = gitrepo.commit_memory(ws.root, message, sorted({*todo.files, *followed}))
    if revert is None:
        raise ConflictError("the undo changed nothing; nothing was committed")
    return todo.target, revert


def _taking_back(current: str, reverted: str, now: datetime) -> str:
    """HISTORY.md as the revert leaves it, with a record naming each forget the revert
    takes out: another clone may keep the forget's paragraph (HISTORY.md only grows when
    clones merge), and the record tells it the forget was undone."""
    from ..format.forgotten import MARK, bodies, undone
    from ..format.markdown import appended_paragraph

    kept = set(bodies(reverted, MARK))
    for body in dict.fromkeys(b for b in bodies(current, MARK) if b not in kept):
        more = appended_paragraph(reverted.encode("utf-8"), undone(now, body))
        reverted += more.decode("utf-8")
    return reverted


def _write(ws: Workspace, rel: str, text: str | None) -> None:
    path = ws.inside(rel)
    if text is None:
        path.unlink(missing_ok=True)
    elif rel in CURATED_FILES:
        atomic_write_text(path, text)
    else:  # HISTORY.md, the consolidation record, an archive: files mem appends to
        replace_locked(path, lambda _current: text.encode("utf-8"))
