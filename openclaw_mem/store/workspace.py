"""Where the memory lives: resolving the workspace, and its layout."""

from __future__ import annotations

import os

from ..errors import UsageError
from ..text import Lazy
from .workspace_root import DEFAULT_INCLUDE, MEMORY_DIR, find_root

# The per-turn fast path resolves a workspace and appends to a day file through here: no
# pathlib, re, functools or typing at import (a `root` Path is made when first asked for).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import date
    from pathlib import Path

STATE_DIR = ".mem"  # derived, git-ignored: index cache, access stats, locks
CORE_FILES = ("AGENTS.md", "USER.md", "MEMORY.md", "HISTORY.md")
CURATED_FILES = ("MEMORY.md", "USER.md", "AGENTS.md")  # what consolidation edits
HISTORY_FILE = "HISTORY.md"
ARCHIVE_DIR = "archive"
SKILL_FILE = "skills/openclaw-mem/SKILL.md"
GITIGNORE_LINE = f"{STATE_DIR}/"
GITATTRIBUTES = """# mem: daily logs and HISTORY.md merge by entry, through a driver that
# `mem init` and `mem sync` register in .git/config (git keeps drivers out of
# versioned files). A clone without it gets git's ordinary merge: a conflict it
# can see, never entries fused silently; `mem sync` registers it there too.
/memory/*.md merge=mem-entries
/memory/**/*.md merge=mem-entries
/HISTORY.md merge=mem-entries
# What consolidation has taken: one entry id a line; both sides' lines are kept.
# Bookkeeping, not memory: `git diff` says only that it changed (`git diff --text` shows it).
/memory/.consolidated merge=union -diff
"""
MERGE_DRIVER = "mem-entries"
DAY_FILE_RE = Lazy(r"^(\d{4})-(\d{2})-(\d{2})(?:[-_ ].*)?\.md$")
__all__ = ["DEFAULT_INCLUDE", "MEMORY_DIR", "Workspace"]


class Workspace:
    """A memory workspace: its root, how it was found (flag | env MEM_WORKSPACE | ancestor |
    default), and the symlinks the last scan met. A plain class, not a dataclass: the
    per-turn fast path resolves a workspace, and `dataclasses` costs it ~5 ms to import."""

    __slots__ = ("_path", "found_by", "links", "odd_names", "top")

    def __init__(self, root: Path | str, found_by: str = "flag", links: list[str] | None = None):
        object.__setattr__(self, "top", os.fspath(root))  # the root as text
        object.__setattr__(self, "_path", None if isinstance(root, str) else root)
        object.__setattr__(self, "found_by", found_by)
        object.__setattr__(self, "links", [] if links is None else links)
        object.__setattr__(self, "odd_names", [])  # names not UTF-8 the last scan skipped

    @property
    def root(self) -> Path:
        if self._path is None:
            from pathlib import Path

            object.__setattr__(self, "_path", Path(self.top))
        return self._path

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Workspace is read-only: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Workspace):
            return NotImplemented
        return (self.top, self.found_by) == (other.top, other.found_by)

    def __hash__(self) -> int:
        return hash((self.top, self.found_by))

    def __repr__(self) -> str:
        return f"Workspace(root={self.root!r}, found_by={self.found_by!r})"

    def __reduce__(self):  # copy and pickle rebuild it through __init__, not setattr
        return (Workspace, (self.root, self.found_by, list(self.links)))

    @property
    def memory_dir(self) -> Path:
        return self.root / MEMORY_DIR

    @property
    def state_dir(self) -> Path:
        """`.mem/`: derived state, never a link. One that arrived with a synced repository
        (or was made by hand) would send the index, locks and proposals outside the
        workspace; it is removed (only the link: what it points at is left alone) and the
        state is rebuilt here."""
        path = self.root / STATE_DIR
        if path.is_symlink():
            try:
                path.unlink()
            except OSError as exc:
                raise UsageError(f"{path} is a symlink mem cannot remove: {exc.strerror}") from None
        return path

    def day_file(self, day: date) -> Path:
        return self.inside(f"{MEMORY_DIR}/{day.isoformat()}.md")

    def inside(self, rel: str) -> Path:
        """The path of a workspace file named relative to the root. Refuses an absolute
        path, `..`, and a symlink anywhere on the way: what mem reads and writes stays
        inside the workspace, whatever links a sync or a person put there."""
        from pathlib import Path

        return Path(self.inside_text(rel))

    def inside_text(self, rel: str) -> str:
        """`inside` as text, for the per-turn path that builds no Path."""
        from .fsutil import SymlinkRefused

        drive = len(rel) > 1 and rel[1] == ":" and rel[0].isascii() and rel[0].isalpha()
        if rel.startswith(("/", "\\")) or drive:
            raise UsageError(f"{rel}: give a path inside the workspace, relative to it")
        parts = [part for part in rel.split("/") if part not in ("", ".")]
        if ".." in parts:
            raise UsageError(f"{rel}: `..` is not allowed; paths stay inside the workspace")
        path = self.top
        for n, part in enumerate(parts):
            path = os.path.join(path, part)
            if os.path.islink(path):
                raise SymlinkRefused(path, "/".join(parts[: n + 1]))
        return path

    def rel(self, path: Path) -> str:
        """A path as the user sees it: relative to the workspace, with forward slashes."""
        try:
            return path.relative_to(self.root).as_posix()  # the common case, no syscalls
        except ValueError:
            pass
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return str(path)

    def scan(
        self, include: Sequence[str] = DEFAULT_INCLUDE, exclude: Sequence[str] = ()
    ) -> dict[str, os.stat_result]:
        """Memory files and their stat: those matching an include glob and no exclude glob
        (relative to the root; `**` crosses directories, `*` does not), sorted by path.
        Walks with os.scandir and descends only into directories a glob can reach. Symlinks,
        to files or to directories, are never followed: they are listed in `self.links`."""
        found: dict[str, os.stat_result] = {}
        self.links.clear()
        self.odd_names.clear()
        stack = [("", str(self.root))]
        while stack:
            prefix, folder = stack.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                rel = prefix + entry.name
                if entry.name.startswith(".") or entry.name == STATE_DIR:
                    continue
                if not entry.name.isprintable() and _undecodable(entry.name):
                    self.odd_names.append(rel.encode("utf-8", "replace").decode("utf-8"))
                    continue
                try:
                    if entry.is_symlink():
                        if any(glob_match(rel, pat) for pat in include) or _may_hold(
                            rel + "/", include
                        ):
                            self.links.append(rel)
                    elif entry.is_dir(follow_symlinks=False):
                        if _may_hold(rel + "/", include):
                            stack.append((rel + "/", entry.path))
                    elif (
                        entry.is_file(follow_symlinks=False)
                        and any(glob_match(rel, pat) for pat in include)
                        and not any(glob_match(rel, ex) for ex in exclude)
                    ):
                        found[rel] = entry.stat(follow_symlinks=False)
                except OSError:  # vanished between listing and stat
                    continue
        return {rel: found[rel] for rel in sorted(found)}

    def memory_files(
        self, include: Sequence[str] = DEFAULT_INCLUDE, exclude: Sequence[str] = ()
    ) -> list[Path]:
        return [self.root / rel for rel in self.scan(include, exclude)]

    def day_files(self) -> list[Path]:
        """Daily logs: memory/YYYY-MM-DD*.md, oldest first; symlinks are not followed."""
        if not self.memory_dir.is_dir() or self.memory_dir.is_symlink():
            return []
        found = self.scan((f"{MEMORY_DIR}/**/*.md",))
        return sorted(
            (self.root / rel for rel in found if day_of(rel) is not None),
            key=lambda p: (p.name, p.as_posix()),
        )


def _undecodable(name: str) -> bool:
    """A file name os.scandir handed back with surrogates: its bytes are not UTF-8, so no
    path of it can be written into the index, a JSON answer or a terminal line."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def day_of(path: Path | str) -> date | None:
    """The date a daily log's file name carries (OpenClaw also writes YYYY-MM-DD-slug.md)."""
    # Recall asks this of every daily log a query touches (3,000 at 100k chunks): the
    # compiled pattern and `date` are fetched once, not through Lazy and an import a call.
    global _date
    m = DAY_FILE_RE.compiled().match(os.path.basename(path))
    if not m:
        return None
    if _date is None:
        from datetime import date as _date
    try:
        return _date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return None


_date = None


_GLOBS: dict[str, object] = {}


def _glob_re(pattern: str):
    found = _GLOBS.get(pattern)
    if found is None:
        if len(_GLOBS) > 256:
            _GLOBS.clear()
        found = _GLOBS[pattern] = _glob_compiled(pattern)
    return found


def _glob_compiled(pattern: str):
    import re

    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _may_hold(dir_prefix: str, patterns: Sequence[str]) -> bool:
    """Could a path under dir_prefix ("a/b/") match one of the patterns?"""
    parts = dir_prefix.rstrip("/").split("/")
    for pat in patterns:
        pat_parts = pat.split("/")
        for i, part in enumerate(parts):
            if i >= len(pat_parts) - 1:
                break  # the pattern's last component names files, not this directory
            if pat_parts[i] == "**":
                return True
            if not glob_match(part, pat_parts[i]):
                break
        else:
            if len(pat_parts) > len(parts):
                return True
    return False


def glob_match(rel: str, pattern: str) -> bool:
    """Match a workspace-relative path: `*` stays within a directory, `**` crosses them."""
    return _glob_re(pattern).match(rel) is not None


def resolve_workspace(
    flag: Path | None, env: Mapping[str, str], cwd: Path | None, home: Path
) -> Workspace:
    """--workspace, then MEM_WORKSPACE, then the nearest ancestor holding MEMORY.md or
    memory/, then ~/.openclaw/workspace (the rules: workspace_root.find_root)."""
    where = None if cwd is None else str(cwd)
    root, how = find_root(None if flag is None else str(flag), env, where, str(home))
    return Workspace(root, how)


def init_target(
    flag: Path | None, arg: Path | None, env: Mapping[str, str], cwd: Path | None
) -> Path:
    """The directory `mem init` sets up: its argument, else -w / MEM_WORKSPACE, else the
    current directory (as `git init` does)."""
    from pathlib import Path

    for candidate in (arg, flag, Path(env["MEM_WORKSPACE"]) if env.get("MEM_WORKSPACE") else None):
        if candidate is not None:
            target = candidate.expanduser()
            break
    else:
        if cwd is None:  # read only now: it may have been deleted, and is not needed above
            from .workspace_root import current_dir

            cwd = Path(current_dir())
        target = cwd
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a directory")
    return target.resolve()
