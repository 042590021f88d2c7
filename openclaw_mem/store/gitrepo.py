"""Git for memory files (gitpython): commit, history, diff, state.

Only memory files are ever staged or committed (root *.md, memory/**, archive/**, mem.toml,
.gitignore, .gitattributes, and the skill `mem init --skill` installs), so a workspace
inside a larger repository, or with other work in progress, is left alone. Import this
module lazily: gitpython costs ~0.1 s.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import git

from ..errors import GitError, NotFound, UsageError
from .workspace import ARCHIVE_DIR, GITATTRIBUTES, MEMORY_DIR, SKILL_FILE

_FALLBACK_IDENTITY = {"name": "openclaw-mem", "email": "mem@localhost"}
_SHORTSTAT_RE = re.compile(r"(\d+) (file|insertion|deletion)")
_EXTRA_FILES = ("mem.toml", ".gitignore", ".gitattributes", SKILL_FILE)


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    short: str
    author: str
    date: str  # ISO 8601 with offset
    subject: str
    files: int = 0
    insertions: int = 0
    deletions: int = 0

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class GitState:
    has_repo: bool
    dirty: tuple[str, ...] = ()  # memory files with uncommitted changes (workspace-relative)
    last_commit: CommitInfo | None = None
    branch: str | None = None


def no_repo_error(root: Path) -> GitError:
    return GitError(
        f"{root} is not in a git repository; start one with `mem init` "
        "(it only adds what is missing) or `git init`"
    )


def open_repo(root: Path) -> git.Repo | None:
    if expands_vars(root):  # GitPython would open another path: none here
        return None
    try:
        return git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    except git.GitCommandNotFound:
        raise GitError("git is not installed; install git to version your memory") from None


def expands_vars(root: Path) -> bool:
    """Whether GitPython would read this path as another one: it expands environment
    variables in every path it is given ("ws$HOME" becomes "ws/root")."""
    import os

    return os.path.expandvars(str(root)) != str(root)


def require_repo(root: Path) -> git.Repo:
    if expands_vars(root):
        raise GitError(
            f"{root}: git cannot be used in a folder whose path holds a $NAME (GitPython "
            "reads it as a variable); move the workspace"
        )
    repo = open_repo(root)
    if repo is None:
        raise no_repo_error(root)
    return repo


def init_repo(root: Path) -> git.Repo:
    try:
        repo = git.Repo.init(root)
    except git.GitCommandNotFound:
        raise GitError("git is not installed; install git to version your memory") from None
    register_merge_driver(repo, root)
    return repo


def register_merge_driver(repo: git.Repo, root: Path | None = None) -> None:
    """Teach this clone to merge daily logs and HISTORY.md by entry: the driver in
    .git/config (gitdriver.py: the `mem` on PATH, else this interpreter) and the
    attributes in .git/info/attributes, which win over a committed .gitattributes (an older
    workspace's `merge=union` included). Both stay out of versioned files. The patterns are
    anchored at the workspace, so a host repository's other HISTORY.md is left alone. A
    working driver another interpreter registered is left as it is."""
    import sys

    from . import gitdriver

    section = f'merge "{gitdriver.DRIVER}"'
    current = repo.config_reader("repository").get_value(section, "driver", "")
    if not gitdriver.works(str(current)):
        with repo.config_writer() as config:
            config.set_value(section, "name", "mem: merge daily logs and HISTORY.md by entry")
            config.set_value(section, "driver", gitdriver.command(sys.executable))
    pre = _prefix(repo, root) if root is not None else ""
    wanted = "".join(
        f"/{pre}{line[1:]}" if line.startswith("/") else line
        for line in GITATTRIBUTES.splitlines(keepends=True)
    )
    info = Path(repo.git_dir) / "info" / "attributes"
    info.parent.mkdir(parents=True, exist_ok=True)
    existing = info.read_text(encoding="utf-8") if info.exists() else ""
    if wanted not in existing:
        from .fsutil import atomic_write_text

        sep = "\n" if existing and not existing.endswith("\n") else ""
        atomic_write_text(info, existing + sep + wanted)


def _prefix(repo: git.Repo, root: Path) -> str:
    top = Path(repo.working_tree_dir).resolve()
    rel = root.resolve().relative_to(top).as_posix()
    return "" if rel == "." else rel + "/"


def memory_pathspecs(repo: git.Repo, root: Path) -> list[str]:
    pre = _prefix(repo, root)
    return [
        f":(glob){pre}*.md",
        f":(glob){pre}{MEMORY_DIR}/**",
        f":(glob){pre}{ARCHIVE_DIR}/**",
        *(f":(glob){pre}{name}" for name in _EXTRA_FILES),
    ]


def _is_memory_path(rel: str) -> bool:
    return (
        ("/" not in rel and rel.endswith(".md"))
        or rel.startswith((f"{MEMORY_DIR}/", f"{ARCHIVE_DIR}/"))
        or rel in _EXTRA_FILES
    )


def _has_head(repo: git.Repo) -> bool:
    try:
        repo.head.commit  # noqa: B018
        return True
    except ValueError:
        return False


def borrowed_identity(repo: git.Repo) -> str | None:
    """The identity mem commits under when git has none for this repository (neither
    user.name/user.email nor GIT_AUTHOR_*/GIT_COMMITTER_*), as `name <email>`; else None."""
    reader = repo.config_reader()
    missing = [
        f
        for f in ("name", "email")
        if not reader.get_value("user", f, default="")
        and not os.environ.get(f"GIT_AUTHOR_{f.upper()}")
    ]
    if not missing:
        return None
    return f"{_FALLBACK_IDENTITY['name']} <{_FALLBACK_IDENTITY['email']}>"


@contextmanager
def _identity(repo: git.Repo) -> Iterator[None]:
    """Commit with the user's identity, or a neutral one on a machine with none set
    (a fresh CI box), rather than failing."""
    env = {}
    reader = repo.config_reader()
    for field in ("name", "email"):
        if reader.get_value("user", field, default=""):
            continue
        for role in ("AUTHOR", "COMMITTER"):  # git's own variables win, as they do in git
            if not os.environ.get(f"GIT_{role}_{field.upper()}"):
                env[f"GIT_{role}_{field.upper()}"] = _FALLBACK_IDENTITY[field]
    with repo.git.custom_environment(**env):
        yield


def changed_memory_files(repo: git.Repo, root: Path) -> list[str]:
    """Memory files (workspace-relative) that differ from HEAD or are untracked."""
    pre = _prefix(repo, root)
    out = repo.git.status(
        "--porcelain=v1", "-z", "--untracked-files=all", "--", *memory_pathspecs(repo, root)
    )
    files: list[str] = []
    records = out.split("\0")
    i = 0
    while i < len(records):
        rec = records[i]
        i += 1
        if len(rec) < 4:
            continue
        status, path = rec[:2], rec[3:]
        if status[0] in "RC":
            i += 1  # a rename carries its old path as the next record
        if path.startswith(pre):
            rel = path[len(pre) :]
            if _is_memory_path(rel):
                files.append(rel)
    return sorted(set(files))


_IN_PROGRESS = (
    ("MERGE_HEAD", "a merge"),
    ("rebase-merge", "a rebase"),
    ("rebase-apply", "a rebase"),
    ("CHERRY_PICK_HEAD", "a cherry-pick"),
    ("REVERT_HEAD", "a revert"),
)
RETRY_SECONDS = 8.0  # how long a commit waits for another git process's index.lock


def operation_in_progress(root: Path) -> str | None:
    """ "a merge", "a rebase", "a cherry-pick" or "a revert" when one is unfinished."""
    repo = open_repo(root)
    if repo is None:
        return None
    git_dir = Path(repo.git_dir)
    return next((what for name, what in _IN_PROGRESS if (git_dir / name).exists()), None)


def _with_retry(action, what: str):
    """Run a git command, retrying with backoff while another git process (an editor, a
    hand `git commit`) holds index.lock."""
    delay, waited = 0.05, 0.0
    while True:
        try:
            return action()
        except git.GitCommandError as exc:
            if "index.lock" not in _git_message(exc) or waited >= RETRY_SECONDS:
                raise GitError(f"{what} failed: {_git_message(exc)}") from None
        time.sleep(delay)
        waited += delay
        delay = min(delay * 2, 1.0)


def commit_hand_edits(root: Path, rels: Sequence[str]) -> CommitInfo | None:
    """Commit, on their own, the changes a person saved in `rels` since the last commit:
    run before mem changes those files, so that mem's commit holds mem's change alone and
    `mem undo` of it leaves the person's edit where it is. None when there were none."""
    from .commits import COMMIT_HAND

    return commit_memory(
        root, lambda done: f"{COMMIT_HAND} {paths_said(done)} (saved by hand)", rels
    )


def paths_said(rels: Sequence[str], most: int = 3) -> str:
    """The first few paths of a commit for its subject, and how many more: never one cut
    in the middle."""
    shown = ", ".join(map(_printable_path, rels[:most]))
    return shown + (f" and {len(rels) - most} more" if len(rels) > most else "")


def commit_memory(
    root: Path,
    message: str | Callable[[list[str]], str] | None = None,
    paths: Sequence[str] | None = None,
) -> CommitInfo | None:
    """Commit memory files (all changed ones, or just `paths`); None when nothing changed.
    A callable message is made from the files the commit holds.
    The commit holds the bytes read under each file's append lock, built apart from the
    repository's index (gittree.py): never half an entry an agent was appending."""
    from .transaction import transaction

    if isinstance(message, str) and not message.strip():
        raise UsageError("the commit message is empty; give words to -m, or leave -m out")
    repo = require_repo(root)
    with transaction(root):
        changed = changed_memory_files(repo, root)
        if paths is not None:
            wanted = set(paths)
            changed = [p for p in changed if p in wanted]
        if not changed:
            return None
        if message is None:
            message = f"mem: update {paths_said(changed)}"
        elif callable(message):
            message = message(changed)
        with git_errors("git commit", root):
            commit_snapshot(repo, root, changed, message)
        return last_commit(repo, root)


def disk_full(said: str, status: object = None) -> OSError | None:
    """What git says when the disk or the file-size limit stopped it, as the OSError a
    write of mem's own would have met (None when it says something else). At the limit
    git is killed by SIGXFSZ, which it does not ignore."""
    import errno
    import signal

    if status == -getattr(signal, "SIGXFSZ", 25):
        return OSError(errno.EFBIG, os.strerror(errno.EFBIG))

    for words, code in (
        (("No space left", "Out of diskspace", "out of disk space"), errno.ENOSPC),
        (("File too large",), errno.EFBIG),
        (("Disk quota exceeded",), errno.EDQUOT),
        (("Read-only file system",), errno.EROFS),
    ):
        if any(w in said for w in words):
            return OSError(code, os.strerror(code))
    return None


def _printable_path(rel: str) -> str:
    """A path for a message: a name that is not UTF-8 shows its bad bytes as U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@contextmanager
def git_errors(what: str, root: Path) -> Iterator[None]:
    """One line for whatever git or the disk says while mem commits or merges: git's own
    output is cut to its message, a full disk is the workspace that cannot be written."""
    from ..errors import WriteError

    try:
        yield
    except git.GitCommandError as exc:
        said = _git_message(exc)
        full = disk_full(said, exc.status)
        if full is not None:
            raise WriteError(root / ".git", full) from None
        raise GitError(f"{what} failed: {said}") from None
    except OSError as exc:
        raise WriteError(root / ".git", exc) from None


def commit_snapshot(repo: git.Repo, root: Path, rels: Sequence[str], message: str) -> str:
    """A commit on HEAD of these workspace files as they are now (a missing file: removed),
    read under their locks; the branch moves only if nobody moved it meanwhile. Returns the
    commit's sha."""
    from . import gittree

    pre = _prefix(repo, root)
    entries = {pre + rel: _snapshot(repo, root / rel) for rel in rels}
    head = gittree.rev(repo, "HEAD")
    tree = gittree.tree_with(repo, head, entries)
    with _identity(repo):
        sha = gittree.commit_tree(repo, tree, [head] if head else [], message)
    # The index first: it is the one step another git process (an editor's, a person's)
    # can hold up, and until the branch moves nothing is committed.
    _with_retry(lambda: gittree.sync_index(repo, sha, list(entries)), "git commit")
    try:
        gittree.move_head(repo, sha, head, message.split("\n", 1)[0] or "commit")
    except git.GitCommandError:
        if head:  # nothing was committed: nothing stays staged either
            with contextlib.suppress(git.GitCommandError):
                gittree.sync_index(repo, head, list(entries))
        raise GitError("git commit failed: the branch moved while committing") from None
    return sha


def _snapshot(repo: git.Repo, path: Path) -> tuple[str, str] | None:
    """(mode, blob sha) of a working-tree file for a commit, None when it is gone. A link
    is committed as a link (git's way), never followed."""
    from . import gittree
    from .fsutil import read_locked

    if path.is_symlink():
        return "120000", gittree.store_blob(repo, os.fsencode(os.readlink(path)))
    data = read_locked(path) if path.is_file() else None
    if data is None:
        return None
    mode = "100755" if os.stat(path).st_mode & 0o100 else gittree.FILE_MODE
    return mode, gittree.store_blob(repo, data)


def _git_message(exc: git.GitCommandError) -> str:
    """What git said, in one short line: its advice ("hint: …") left out."""
    text = (exc.stderr or exc.stdout or str(exc)).strip()
    text = text.removeprefix("stderr:").strip().strip("'").strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    kept = [line for line in lines if not line.lower().startswith("hint:")] or lines
    said = " ".join(" ".join(kept).split()) or str(exc)
    return said if len(said) <= 200 else said[:199] + "…"


def _parse_log(out: str) -> list[CommitInfo]:
    commits = []
    for record in out.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        head, _, rest = record.partition("\n")
        sha, short, author, when, subject = head.split("\x1f", 4)
        stats = {"file": 0, "insertion": 0, "deletion": 0}
        for num, kind in _SHORTSTAT_RE.findall(rest):
            stats[kind] = int(num)
        commits.append(
            CommitInfo(
                sha,
                short,
                author,
                when,
                subject,
                stats["file"],
                stats["insertion"],
                stats["deletion"],
            )
        )
    return commits


_LOG_FORMAT = "--format=%x1e%H%x1f%h%x1f%an%x1f%aI%x1f%s"


def last_commit(repo: git.Repo, root: Path) -> CommitInfo | None:
    if not _has_head(repo):
        return None
    out = repo.git.log("-n", "1", _LOG_FORMAT, "--shortstat", "--", *memory_pathspecs(repo, root))
    found = _parse_log(out)
    return found[0] if found else None


def history(root: Path, limit: int = 20, path: Path | None = None) -> list[CommitInfo]:
    """Commits that touched memory (or one file of it), newest first, with short stats."""
    repo = require_repo(root)
    if not _has_head(repo):
        return []
    if path is not None:
        top = Path(repo.working_tree_dir).resolve()
        try:
            specs = [path.resolve().relative_to(top).as_posix()]
        except ValueError:
            raise NotFound(f"{path} is outside the repository at {top}") from None
    else:
        specs = memory_pathspecs(repo, root)
    out = repo.git.log("-n", str(limit), _LOG_FORMAT, "--shortstat", "--", *specs)
    return _parse_log(out)


def diff(root: Path, rev: str = "HEAD", color: bool = False) -> str:
    """The change to memory files since `rev`, new (untracked) memory files included."""
    repo = require_repo(root)
    specs = memory_pathspecs(repo, root)
    color_flag = "--color=always" if color else "--color=never"
    parts: list[str] = []
    if _has_head(repo):
        try:
            repo.git.rev_parse("--verify", "--quiet", f"{rev}^{{commit}}")
        except git.GitCommandError:
            raise NotFound(f"no commit {rev!r} in {repo.working_tree_dir}") from None
        out = repo.git.diff(color_flag, rev, "--", *specs)
        if out:
            parts.append(out)
    untracked = repo.git.ls_files("--others", "--exclude-standard", "-z", "--", *specs)
    for rel in sorted(p for p in untracked.split("\0") if p):
        _, out, _ = repo.git.diff(
            color_flag,
            "--no-index",
            "--",
            os.devnull,
            rel,
            with_extended_output=True,
            with_exceptions=False,
        )
        if out:
            parts.append(out)
    return "\n".join(parts) + ("\n" if parts else "")


def state(root: Path) -> GitState:
    repo = open_repo(root)
    if repo is None:
        return GitState(False)
    branch = None if repo.head.is_detached else repo.active_branch.name
    return GitState(True, tuple(changed_memory_files(repo, root)), last_commit(repo, root), branch)


def memory_commits(root: Path) -> Iterator[tuple[CommitInfo, list[str]]]:
    """Every commit but merges that changed memory, newest first, with the memory files it
    changed (workspace-relative). A merge's changes are its parents' commits, listed."""
    repo = open_repo(root)
    if repo is None or not _has_head(repo):
        return
    pre = _prefix(repo, root)
    out = repo.git.log(
        "--no-merges", _LOG_FORMAT, "--name-only", "-z", "--", *memory_pathspecs(repo, root)
    )
    for record in out.split("\x1e"):
        head, _, names = record.partition("\0")
        fields = head.split("\x1f")
        if len(fields) < 5:
            continue
        sha, short, author, when, subject = fields[:5]
        files = [n[len(pre) :] for n in names.lstrip("\n").split("\0") if n and n.startswith(pre)]
        yield CommitInfo(sha, short, author, when, subject), files


def file_at(root: Path, rev: str, rel: str) -> str | None:
    """A memory file's text in a commit (None when that commit has no such file, or holds
    something that is not UTF-8 text there)."""
    from . import gittree

    repo = require_repo(root)
    try:
        found = gittree.entry(repo, rev, _prefix(repo, root) + rel)
    except git.GitCommandError:
        if rev.endswith("^") and not gittree.rev(repo, rev):
            return None  # the parent of a first commit (a squashed history's): nothing
        raise
    if found is None or found[0] not in (gittree.FILE_MODE, "100755"):
        return None
    try:
        return (gittree.blob(repo, found[1]) or b"").decode("utf-8")
    except UnicodeDecodeError:
        return None


def short_stat(root: Path, sha: str) -> CommitInfo:
    repo = require_repo(root)
    return _parse_log(repo.git.log("-n", "1", _LOG_FORMAT, "--shortstat", sha))[0]


# What `mem doctor` merges when a plain merge left it conflicted: mem's own kinds of file.
_MERGED_BY_MEM = ("HISTORY.md", "MEMORY.md", "USER.md", "AGENTS.md", f"{MEMORY_DIR}/.consolidated")


def merge_by_entry(
    root: Path, merge_file: Callable[[str, str, str, str], tuple[str, Any]]
) -> list[tuple[str, Any]]:
    """Resolve the memory files a merge or rebase left conflicted (a plain `git pull` on a
    clone without the driver): daily logs, HISTORY.md, the curated files and the
    consolidation record, from git's three stages, with merge_file(rel, base, ours,
    theirs) -> (text, what it noticed) (format/merge.py), written under each file's append
    lock and staged; the driver is registered so the next merge needs no help. Returns
    (workspace-relative path, what it noticed) for each; other conflicts are left for a
    person."""
    from .fsutil import replace_locked
    from .workspace import Workspace

    repo = require_repo(root)
    register_merge_driver(repo, root)
    pre = _prefix(repo, root)
    conflicted = repo.git.diff("--name-only", "-z", "--diff-filter=U").split("\0")
    done = []
    for path in filter(None, conflicted):
        rel = path[len(pre) :] if path.startswith(pre) else path
        is_log = rel.startswith(f"{MEMORY_DIR}/") and rel.endswith(".md")
        if not (is_log or rel in _MERGED_BY_MEM):
            continue

        def stage(n: int, path: str = path) -> str:
            try:
                return repo.git.show(f":{n}:{path}", strip_newline_in_stdout=False)
            except git.GitCommandError:
                return ""  # added on one side only: no base

        text, note = merge_file(rel, stage(1), stage(2), stage(3))
        target = Workspace(root).inside(rel)  # no link on the way
        replace_locked(target, lambda _current, text=text: text.encode("utf-8"))
        repo.git.add("--", path)
        done.append((rel, note))
    return done
