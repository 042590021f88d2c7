"""Git's plumbing, for commits that never go through the index or the working tree.

`git add` reads a log while an agent may be appending to it, and `git rebase` or
`git checkout` replace files under appenders. mem instead builds commits from bytes it read
itself (under each log's lock), in a temporary index, and moves the branch with a
compare-and-swap: a commit can never hold half an entry, and the working tree is written
only by mem's own locked writers.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from io import BytesIO

import git

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
FILE_MODE = "100644"
ZERO = "0" * 40


@dataclass(frozen=True)
class Change:
    """One path two trees hold differently (None: absent on that side)."""

    path: str  # repository-relative
    old_mode: str | None
    new_mode: str | None
    old_sha: str | None
    new_sha: str | None


def changes(repo: git.Repo, a: str | None, b: str) -> dict[str, Change]:
    """The paths tree-ish `a` (None: the empty tree) and `b` hold differently."""
    out = repo.git.diff_tree("-r", "-z", "--no-renames", a or EMPTY_TREE, b)
    found: dict[str, Change] = {}
    fields = out.split("\0")
    for i in range(0, len(fields) - 1, 2):
        head, path = fields[i], fields[i + 1]
        if not head.startswith(":"):
            continue
        old_mode, new_mode, old_sha, new_sha, _ = head[1:].split(" ", 4)
        found[path] = Change(
            path,
            None if old_mode == "000000" else old_mode,
            None if new_mode == "000000" else new_mode,
            None if old_sha == ZERO else old_sha,
            None if new_sha == ZERO else new_sha,
        )
    return found


def entry(repo: git.Repo, rev: str, path: str) -> tuple[str, str] | None:
    """(mode, sha) of a path in a commit, None when it holds none."""
    out = repo.git.ls_tree("-z", rev, "--", path)
    if not out:
        return None
    meta, _, _ = out.rstrip("\0").partition("\t")
    mode, _, sha = meta.split(" ")
    return mode, sha


def blob(repo: git.Repo, sha: str | None) -> bytes | None:
    if sha is None:
        return None
    return repo.odb.stream(bytes.fromhex(sha)).read()


def store_blob(repo: git.Repo, data: bytes) -> str:
    """Write a blob into the object database without a process per file."""
    from gitdb import IStream, LooseObjectDB

    objects = os.path.join(repo.common_dir, "objects")
    stored = LooseObjectDB(objects).store(IStream("blob", len(data), BytesIO(data)))
    return stored.hexsha.decode() if isinstance(stored.hexsha, bytes) else stored.hexsha


@contextmanager
def temporary_index(repo: git.Repo, start: str | None) -> Iterator[dict[str, str]]:
    """An index of mem's own, holding tree-ish `start` (None: empty): the environment to
    run git's plumbing in. The repository's own index is never touched by it."""
    fd, path = tempfile.mkstemp(prefix="mem-index.", dir=repo.git_dir)
    os.close(fd)
    os.unlink(path)  # git wants to create it
    env = {"GIT_INDEX_FILE": path}
    try:
        with repo.git.custom_environment(**env):
            repo.git.read_tree(start or EMPTY_TREE)
        yield env
    finally:
        for leftover in (path, path + ".lock"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def tree_with(
    repo: git.Repo, start: str | None, entries: Mapping[str, tuple[str, str] | None]
) -> str:
    """The tree of `start` with some paths set to (mode, sha) or removed (None)."""
    lines = [
        f"{spec[0]} {spec[1]}\t{path}" if spec else f"0 {ZERO}\t{path}"
        for path, spec in entries.items()
    ]
    with temporary_index(repo, start) as env, repo.git.custom_environment(**env):
        if lines:
            _fed(repo, "update_index", "\0".join(lines), "-z", "--index-info")
        return repo.git.write_tree()


def _fed(repo: git.Repo, command: str, text: str, *args: str) -> str:
    """A git command with `text` on its standard input (a list of paths, a message)."""
    with tempfile.TemporaryFile() as f:
        # A file name that is not UTF-8 came from git as lone surrogates: back to its bytes.
        f.write(text.encode("utf-8", "surrogateescape"))
        f.seek(0)
        return getattr(repo.git, command)(*args, istream=f)


def commit_tree(repo: git.Repo, tree: str, parents: list[str], message: str) -> str:
    args = [tree]
    for p in parents:
        args += ["-p", p]
    return _fed(repo, "commit_tree", message, *args)


def move_head(repo: git.Repo, new: str, old: str | None, why: str) -> None:
    """Point the branch HEAD names at `new`, only if it still points at `old` (None: an
    unborn branch): a commit made meanwhile by anyone is never lost."""
    repo.git.update_ref("-m", why, "HEAD", new, old or ZERO)


def sync_index(repo: git.Repo, rev: str, paths: list[str]) -> None:
    """Set the repository's own index entries of `paths` to what commit `rev` holds, so
    `git status` shows only what changed in the working tree since."""
    if not paths:
        return
    listed = "\0".join(paths)
    _fed(repo, "reset", listed, "-q", rev, "--pathspec-from-file=-", "--pathspec-file-nul")


def rev(repo: git.Repo, name: str) -> str | None:
    try:
        return repo.git.rev_parse("--verify", "--quiet", f"{name}^{{commit}}")
    except git.GitCommandError:
        return None


def is_ancestor(repo: git.Repo, a: str, b: str) -> bool:
    try:
        repo.git.merge_base("--is-ancestor", a, b)
        return True
    except git.GitCommandError:
        return False


def merge_base(repo: git.Repo, a: str, b: str) -> str | None:
    try:
        return repo.git.merge_base(a, b) or None
    except git.GitCommandError:
        return None  # unrelated histories
