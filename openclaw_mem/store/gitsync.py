"""`mem sync`: one memory on several machines, while agents keep logging.

    fetch (no lock) → in one workspace transaction: commit what changed here, merge the
    remote's commits file by file, write the merged files under each file's append lock,
    move the branch → push (no lock); a remote that moved meanwhile is fetched again.

Nothing here rebases or checks out: git would replace a log under an agent's append and the
append would land in a file nobody holds any more. The merge is a commit built in a
temporary index (gittree.py) from the caller's per-file merge (format/merge.py: logs by
entry identity, curated files by line, never a conflict marker). A file that changed in
the working tree while the merge ran (an append) is merged once more with what was
committed, so every acknowledged entry stays.

When the remote's history was rewritten (a force-push), what it lacks was lost, not
removed: the merge keeps it and says so, and the merged commit sits on the rewritten
history alone (the old commits are not pushed back).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import git

from ..errors import ConflictError, GitError
from . import gittree, journal
from .commits import COMMIT_SYNC
from .gitrepo import (
    CommitInfo,
    _git_message,
    _identity,
    _is_memory_path,
    _prefix,
    _with_retry,
    changed_memory_files,
    commit_snapshot,
    git_errors,
    last_commit,
    register_merge_driver,
    require_repo,
)
from .transaction import transaction
from .workspace import STATE_DIR

# merge(rel, base, ours, theirs, rewritten) -> (merged text, what the merge noticed)
FileMerge = Callable[[str, str, str, str, bool], tuple[str, Any]]
# A workspace-relative path's text in one commit (None: the commit holds no such file).
Read = Callable[[str], str | None]
# vet(ours, merged) -> ({path: text to commit over the merge, None to delete}, what it did)
Vet = Callable[[Read, Read], tuple[dict[str, str | None], Any]]
ATTEMPTS = 3  # fetch-merge-push rounds before a remote that keeps moving is reported
# What git says when the remote moved between the fetch and the push (another clone pushed).
_MOVED = ("rejected", "fetch first", "non-fast-forward", "cannot lock ref", "failed to update")


@dataclass(frozen=True)
class SyncResult:
    remote: str
    branch: str
    committed: CommitInfo | None  # local memory changes committed first
    pulled: int  # commits taken from the remote
    pushed: int  # commits sent
    warnings: tuple[str, ...] = ()
    merged: dict[str, Any] = field(default_factory=dict)  # path -> what its merge noticed
    rewritten: bool = False  # the remote's history was rewritten since the last sync
    followed: CommitInfo | None = None  # the commit after the merge (citations), if any
    vetted: Any = None  # what `vet` said of the merge, when it ran


def sync(
    root: Path,
    remote: str,
    branch: str,
    merge: FileMerge,
    *,
    message: Callable[[list[str]], str],
    after_merge: Callable[[dict[str, Any]], tuple[list[str], str]] | None = None,
    vet: Vet | None = None,
    before: Callable[[], None] | None = None,
) -> SyncResult:
    """Commit local memory changes (message(paths) says what they are), merge the remote's,
    push. before() runs once the remote and the branch are known, before anything else is
    written: a sync that cannot start writes nothing. vet(ours, merged) sees what this
    machine held and what the merge (or the remote's commit taken as it is) holds, and
    returns what to set right before anything is written: committed on top, in the same
    transaction. after_merge(notes) runs inside the transaction after a merge and returns
    (paths it changed, the commit message for them)."""
    with git_errors("mem sync", root):
        return _sync(root, remote, branch, merge, message, after_merge, vet, before)


def _prepared(repo, root, remote: str, branch: str | None) -> str:
    """The branch to sync, once the remote is known and the merge driver is in place."""
    if remote not in [r.name for r in repo.remotes]:
        raise GitError(
            f"no git remote {remote!r}; add one with `git remote add {remote} URL` "
            "(or set sync.remote)"
        )
    if not branch:
        if repo.head.is_detached:
            raise GitError("HEAD is detached; check out a branch or set sync.branch")
        branch = repo.active_branch.name
    if not (root / ".gitattributes").exists():
        from .fsutil import atomic_write_text
        from .workspace import GITATTRIBUTES

        atomic_write_text(root / ".gitattributes", GITATTRIBUTES)
    register_merge_driver(repo, root)
    return branch


def _sync(root, remote, branch, merge, message, after_merge, vet, before) -> SyncResult:
    repo = require_repo(root)
    branch = _prepared(repo, root, remote, branch)
    if before is not None:
        before()
    remote_ref = f"refs/remotes/{remote}/{branch}"
    committed = None
    for _ in range(ATTEMPTS):
        # The fetch moves a ref another sync of this clone reads: inside the transaction,
        # so two syncs at once queue instead of racing on it.
        with transaction(root):
            seen = gittree.rev(repo, remote_ref)  # the remote as the last fetch left it
            _fetch(repo, remote, branch, remote_ref)
            tip = gittree.rev(repo, remote_ref)
            finish(root, merge)
            seen = _last_seen(repo, remote_ref, seen, tip)
            changed = changed_memory_files(repo, root)
            if changed:
                with _identity(repo):
                    commit_snapshot(repo, root, changed, message(changed))
                committed = last_commit(repo, root)
            head = gittree.rev(repo, "HEAD")
            merged: dict[str, Any] = {}
            pulled, rewritten, followed, vetted = 0, False, None, None
            if tip and head and not gittree.is_ancestor(repo, tip, head):
                pulled = int(repo.git.rev_list("--count", f"{head}..{tip}"))
                rewritten = seen is not None and not gittree.is_ancestor(repo, seen, tip)
                planted = _state_paths(repo, root, tip)
                if gittree.is_ancestor(repo, head, tip) and not rewritten and not planted:
                    target = tip  # nothing here the remote lacks: take it as it is
                else:
                    target, merged = _merge(repo, root, head, tip, seen, rewritten, merge)
                if planted:  # this machine's state is its own: never taken from a commit
                    merged[STATE_DIR] = planted
                if vet is not None:
                    target, vetted = _vetted(repo, root, head, target, vet)
                state = _state(root)
                journal.begin(state, JOURNAL, {"head": head, "target": target})
                _write_tree_change(repo, root, head, target, merge)
                gittree.move_head(repo, target, head, f"mem sync: merge {remote}/{branch}")
                if after_merge is not None:
                    paths, why = after_merge(merged)
                    if paths:
                        with _identity(repo):
                            commit_snapshot(repo, root, paths, why)
                        followed = last_commit(repo, root)
                journal.done(state, JOURNAL)
            elif tip and not head:  # a fresh clone's unborn branch
                _write_tree_change(repo, root, None, tip, merge)
                gittree.move_head(repo, tip, None, f"mem sync: take {remote}/{branch}")
                pulled = int(repo.git.rev_list("--count", tip))
            head = gittree.rev(repo, "HEAD")
        if head is None:
            return SyncResult(remote, branch, committed, pulled, 0)
        ahead = int(repo.git.rev_list("--count", f"{tip}..{head}" if tip else head))
        if not ahead:
            return SyncResult(
                remote, branch, committed, pulled, 0, (), merged, rewritten, followed, vetted
            )
        try:
            repo.git.push(remote, f"{head}:refs/heads/{branch}")
        except git.GitCommandError as exc:
            said = _git_message(exc)
            if any(w in said for w in _MOVED):
                continue  # another machine pushed since the fetch: merge that too
            raise GitError(
                f"merged here, but the push to {remote} failed: {said}; `mem sync` again sends it"
            ) from None
        return SyncResult(
            remote, branch, committed, pulled, ahead, (), merged, rewritten, followed, vetted
        )
    raise ConflictError(
        f"{remote}/{branch} kept changing while syncing ({ATTEMPTS} rounds); everything is "
        "committed here, run `mem sync` again"
    )


JOURNAL = "sync"


def _fetch(repo: git.Repo, remote: str, branch: str, ref: str) -> None:
    """Fetch the branch into its remote-tracking ref. Another sync's push (outside the
    transaction) updates that ref too: a fetch that meets it moving tries again."""
    import time

    for attempt in range(4):
        try:
            repo.git.fetch(remote, f"+refs/heads/{branch}:{ref}")
            return
        except git.GitCommandError as exc:
            said = _git_message(exc)
            if "couldn't find remote ref" in said:
                return
            if "cannot lock ref" not in said or attempt == 3:
                raise GitError(f"cannot fetch from {remote}: {said}") from None
            time.sleep(0.2 * (attempt + 1))


def _last_seen(repo: git.Repo, ref: str, seen: str | None, tip: str | None) -> str | None:
    """What this clone last had of the remote. A `git fetch` of someone's between a
    rewritten remote and this sync already moved the ref to the rewrite, so the merge would
    have no base and take back what was removed here since (a `forget --hard`): then the
    newest earlier value of the ref in its reflog that HEAD holds is what was seen."""
    head = gittree.rev(repo, "HEAD")
    if not (seen and tip and head) or gittree.merge_base(repo, head, tip) is not None:
        return seen
    try:
        earlier = repo.git.rev_list("--walk-reflogs", "--max-count=50", ref).split()
    except git.GitCommandError:
        return seen
    return next((c for c in earlier if gittree.is_ancestor(repo, c, head)), seen)


def _state(root: Path) -> Path | None:
    from ..errors import UsageError
    from .workspace import Workspace

    try:
        return Workspace(root).state_dir
    except UsageError:  # a .mem/ that cannot be made: no journal, as before
        return None


def finish(root: Path, merge: FileMerge) -> bool:
    """Finish a sync a kill interrupted between writing the merged files and moving the
    branch (its journal in .mem/): the files are written again (each merged with what
    changed here since) and the branch moved, so what it wrote is the merge, never an
    uncommitted change the next sync would commit as a person's. Returns whether there
    was one. The caller re-points citations (what came after the move)."""
    state = _state(root)
    intent = journal.pending(state, JOURNAL)
    if intent is None:
        return False
    repo = require_repo(root)
    head, target = intent.get("head"), intent.get("target")
    if head and target and gittree.rev(repo, "HEAD") == head and gittree.rev(repo, target):
        _write_tree_change(repo, root, head, target, merge)
        gittree.move_head(repo, target, head, "mem sync: finish an interrupted merge")
    journal.done(state, JOURNAL)
    return True


def sync_message(paths: list[str]) -> str:
    """A sync's commit of what changed here: which files, and whether a person's edit is
    among them (any memory file but the daily logs and the consolidation record, which
    agents and mem write)."""
    logs = [p for p in paths if p.startswith("memory/") and p.endswith(".md")]
    edits = [p for p in paths if p not in logs and p != "memory/.consolidated"]
    parts = []
    if edits:
        parts.append("a person's edit of " + _listed(edits))
    if logs:
        parts.append("log entries in " + _listed(logs))
    if not parts:
        parts.append(_listed(paths))
    body = "\n".join(f"- {p}" + (" (a person's edit)" if p in edits else "") for p in paths)
    return f"{COMMIT_SYNC} " + "; ".join(parts) + "\n\n" + body


def _listed(paths: list[str]) -> str:
    shown = ", ".join(paths[:3])
    return shown + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _merge(
    repo: git.Repo,
    root: Path,
    head: str,
    tip: str,
    seen: str | None,
    rewritten: bool,
    merge: FileMerge,
) -> tuple[str, dict[str, Any]]:
    """The commit that holds both sides: a merge commit, or, over a rewritten remote, one
    commit on the remote's history alone. Paths outside the workspace's memory that both
    sides changed stop the sync before anything is written."""
    if rewritten and seen is not None and gittree.is_ancestor(repo, seen, head):
        base = seen  # what this clone last had of the remote: the rewrite's losses show
    else:
        base = gittree.merge_base(repo, head, tip)
    ours = gittree.changes(repo, base, head)
    theirs = gittree.changes(repo, base, tip)
    pre = _prefix(repo, root)
    entries: dict[str, tuple[str, str] | None] = {}
    notes: dict[str, Any] = {}
    for path in sorted(set(ours) | set(theirs)):
        mine, other = ours.get(path), theirs.get(path)
        rel = path[len(pre) :] if path.startswith(pre) else None
        if other is None:
            entries[path] = _spec(mine.new_mode, mine.new_sha)
            continue
        if mine is None:
            # Unchanged here. A log the remote deleted, or (over a rewritten history) any
            # record that only grows, is merged all the same: what it lacks was lost.
            if rel is None or not (_is_log(rel) and (rewritten or other.new_sha is None)):
                continue
            mine = gittree.Change(
                path, other.old_mode, other.old_mode, other.old_sha, other.old_sha
            )
        elif (mine.new_mode, mine.new_sha) == (other.new_mode, other.new_sha):
            continue
        if rel is None or not _is_memory_path(rel):
            raise ConflictError(
                f"{path} changed on both machines and is not a memory file; nothing was "
                f"merged (merge it with git: git pull {tip[:7]})"
            )
        spec, note = _merge_one(repo, rel, mine.old_sha, mine, other, rewritten, merge)
        entries[path] = spec
        notes[rel] = note
    for path in _state_paths(repo, root, tip):
        entries[pre + path] = None
    tree = gittree.tree_with(repo, tip, entries)
    parents = [tip] if rewritten else [head, tip]
    what = "after its history was rewritten" if rewritten else ""
    message = f"{COMMIT_SYNC} merge {tip[:7]} {what}".rstrip()
    with _identity(repo):
        return gittree.commit_tree(repo, tree, parents, message), notes


def _vetted(repo: git.Repo, root: Path, head: str, target: str, vet: Vet) -> tuple[str, Any]:
    """The merge's target with what `vet` sets right committed on top (the same target
    when it changes nothing), and what vet said."""
    pre = _prefix(repo, root)

    def reader(rev: str) -> Read:
        def read(rel: str) -> str | None:
            found = gittree.entry(repo, rev, pre + rel)
            if found is None or found[0] != gittree.FILE_MODE:
                return None
            try:
                return (gittree.blob(repo, found[1]) or b"").decode("utf-8")
            except UnicodeDecodeError:
                return None

        return read

    changes, said = vet(reader(head), reader(target))
    if not changes:
        return target, said
    entries = {
        pre + rel: None
        if text is None
        else (gittree.FILE_MODE, gittree.store_blob(repo, text.encode("utf-8")))
        for rel, text in changes.items()
    }
    tree = gittree.tree_with(repo, target, entries)
    why = f"{COMMIT_SYNC} what the remote could not back stays as this machine had it"
    with _identity(repo):
        return gittree.commit_tree(repo, tree, [target], why), said


def _state_paths(repo: git.Repo, root: Path, rev: str) -> list[str]:
    """What a commit holds under the workspace's `.mem/` (workspace-relative): a remote
    that force-added state (a proposal, an index, a socket) plants it; it is never taken."""
    pre = _prefix(repo, root)
    out = repo.git.ls_tree("-r", "-z", "--name-only", rev, "--", f"{pre}{STATE_DIR}")
    return [p[len(pre) :] for p in out.split("\0") if p]


def _is_log(rel: str) -> bool:
    """A file whose entries are never dropped by a merge: daily logs, HISTORY.md and the
    consolidation record."""
    return (rel.startswith("memory/") and rel.endswith(".md")) or rel in (
        "HISTORY.md",
        "memory/.consolidated",
    )


def _spec(mode: str | None, sha: str | None) -> tuple[str, str] | None:
    return None if mode is None or sha is None else (mode, sha)


def _merge_one(
    repo: git.Repo,
    rel: str,
    base_sha: str | None,
    mine: gittree.Change,
    other: gittree.Change,
    rewritten: bool,
    merge: FileMerge,
) -> tuple[tuple[str, str] | None, Any]:
    """One memory file both sides changed. A file deleted on one side and changed on the
    other is kept as changed; one that is not a text file (a link, bytes that are not
    UTF-8) keeps this machine's version."""
    if mine.new_sha is None:
        return _spec(other.new_mode, other.new_sha), None
    if other.new_sha is None:
        return _spec(mine.new_mode, mine.new_sha), "restored" if _is_log(rel) else None
    if gittree.FILE_MODE not in (mine.new_mode, other.new_mode) or "120000" in (
        mine.new_mode,
        other.new_mode,
    ):
        return _spec(mine.new_mode, mine.new_sha), "kept"
    try:
        base, ours, theirs = (
            (gittree.blob(repo, sha) or b"").decode("utf-8")
            for sha in (base_sha, mine.new_sha, other.new_sha)
        )
    except UnicodeDecodeError:
        return _spec(mine.new_mode, mine.new_sha), "kept"
    text, note = merge(rel, base, ours, theirs, rewritten)
    return (
        mine.new_mode or gittree.FILE_MODE,
        gittree.store_blob(repo, text.encode("utf-8")),
    ), note


def _write_tree_change(
    repo: git.Repo, root: Path, old: str | None, new: str, merge: FileMerge
) -> None:
    """Make the working tree hold commit `new` where it held `old`. Each memory file is
    written under its append lock; one that changed since `old` (an agent appended, a
    person saved) gets that change merged in once more. Other files of a host repository
    are checked out by git, and only when nobody changed them."""
    pre = _prefix(repo, root)
    todo = gittree.changes(repo, old, new)
    by_git = []
    for path, change in list(todo.items()):
        rel = path[len(pre) :] if path.startswith(pre) else None
        if rel is not None and (rel == STATE_DIR or rel.startswith(STATE_DIR + "/")):
            del todo[path]  # .mem/ is this machine's: never written from a commit
            continue
        plain = change.new_mode in (gittree.FILE_MODE, None) and change.old_mode in (
            gittree.FILE_MODE,
            None,
        )
        if rel is not None and _is_memory_path(rel) and plain:
            continue
        by_git.append(path)
    if by_git:
        dirty = repo.git.status("--porcelain", "-z", "--", *by_git)
        if dirty.strip("\0"):
            raise ConflictError(
                f"{dirty.strip(chr(0)).split(chr(0))[0][3:]} has changes here that the "
                "merge would overwrite; nothing was merged (commit or stash them)"
            )
    top = Path(repo.working_tree_dir)
    for path, change in todo.items():
        if path in by_git:
            continue
        rel = path[len(pre) :]
        _write_one(repo, top / path, rel, change, merge)
    for path in by_git:
        if todo[path].new_sha is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(top / path)
        else:
            repo.git.checkout(new, "--", path)
    _with_retry(lambda: gittree.sync_index(repo, new, list(todo)), "git reset")


def _write_one(repo: git.Repo, path: Path, rel: str, change: gittree.Change, merge) -> None:
    from .fsutil import replace_locked

    was = gittree.blob(repo, change.old_sha)
    new = gittree.blob(repo, change.new_sha)

    def settle(current: bytes | None) -> bytes | None:
        if current == was:
            return new if new is not None else b""
        if new is None or current is None:
            return None  # changed here and gone there (or the reverse): kept as it is here
        try:
            base, ours, theirs = ((b or b"").decode("utf-8") for b in (was, current, new))
        except UnicodeDecodeError:
            return None
        return merge(rel, base, ours, theirs, False)[0].encode("utf-8")

    if new is None:
        _delete_if_unchanged(path, was)
        return
    replace_locked(path, settle)


def _delete_if_unchanged(path: Path, was: bytes | None) -> None:
    """Remove a file the merge removed, under its append lock, unless it changed here
    meanwhile (then it stays: nothing said here is lost). An append that waited for the
    lock starts the file anew."""
    from .fsutil import locked_append_fd, read_bytes

    if not path.is_file() or path.is_symlink():
        return
    with locked_append_fd(path):
        if read_bytes(path) == was:
            path.unlink()
